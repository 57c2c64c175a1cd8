// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Which bytes of a buffer an access touches, relative to the storage its key names: an offset and
// a length, each a polynomial over the program's integer values (`nx`, `iy_end`, `i`, opaque
// terms such as `(n/4)`) with integer coefficients, in bytes. `a_new + (iy_end - 1) * nx` copying
// `nx * sizeof(real)` bytes is offset 4·iy_end·nx − 4·nx, length 4·nx.
//
// Two ranges of one buffer overlap unless the analysis can tell them apart:
//   - one provably ends before the other starts (the offsets differ by at least the length, as
//     rows iy_end − 1 and iy_end of a pitch-nx array do);
//   - both have the same known length and their offsets differ by something not constant: slices
//     of one shape at different symbolic places (halo rows 0 and iy_end, chunk i·n/4 and j·n/4) are
//     taken to be the different slices the program computes them to be.
// An unknown offset (a value the analysis does not follow) overlaps everything; an unknown
// length (a kernel's pointer argument) reaches to the end of the allocation.
#pragma once

#include "element_index.h"

#include <cstdint>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace streamrace::analyzer {

class Polynomial {
public:
  Polynomial() = default;
  static Polynomial constant(std::int64_t value);
  static Polynomial atom(std::string name);

  Polynomial operator+(const Polynomial& other) const;
  Polynomial operator-(const Polynomial& other) const;
  Polynomial operator*(const Polynomial& other) const;
  Polynomial scaled(std::int64_t factor) const;

  bool isConstant() const;
  std::int64_t constantTerm() const;
  // Whether some term names `text` (an atom containing it).
  bool mentions(const std::string& text) const;
  // Every atom named anew by `rename` (terms that become equal add up).
  template <class Rename> Polynomial renamed(Rename rename) const {
    Polynomial result;
    for (const auto& [monomial, coefficient] : terms_) {
      Polynomial term = constant(coefficient);
      for (const std::string& factor : monomial)
        term = term * atom(rename(factor));
      result = result + term;
    }
    return result;
  }

  // `atom` replaced by `value`.
  Polynomial substituted(const std::string& atom, const Polynomial& value) const;
  // Whether `text` appears inside an opaque term ("(i/2)": termText's spelling, which no
  // renaming reaches).
  bool mentionsOpaquely(const std::string& text) const;
  // Whether it is above zero for any values of its atoms that are sizes and counts (not
  // negative): every coefficient positive.
  bool plainlyPositive() const;
  // Whether no monomial has `atom` more than once (c·n, not c·c).
  bool linearIn(const std::string& atom) const;

  auto operator<=>(const Polynomial&) const = default;

private:
  // Adds `coefficient` to the term of `monomial`, dropping the term if it cancels out.
  void add(const std::vector<std::string>& monomial, std::int64_t coefficient);

  // Monomial (sorted atoms; empty for the constant) -> coefficient, zero coefficients dropped.
  std::map<std::vector<std::string>, std::int64_t> terms_;
};

// The bytes a function whose body is elsewhere (external_launchers.h) touches from the pointer it
// is given: a part its other arguments choose, how much nothing says. It meets another access
// where that one holds its first byte, or, split (the function is given the same pointer with
// other numbers elsewhere: a halo's rows and the interior), where that one holds everything from
// its first byte on. It meets another such part unless both are of calls of one function with
// other arguments.
struct ChosenPart {
  std::string function;
  std::string arguments; // the call's other arguments as written
  bool split = false;

  auto operator<=>(const ChosenPart&) const = default;
};

struct ByteRange {
  std::optional<Polynomial> offset = Polynomial(); // nullopt: anywhere in the buffer
  std::optional<Polynomial> length;                // nullopt: to the end of the allocation
  std::optional<ChosenPart> part;                  // set: a part from offset on (length unset)
  // How far each index variable moved since the range was taken (element_index.h kExactOffset
  // bounds it, so loops reach a fixpoint): one past the bound the range stays where it is, and
  // stands for every iteration that far back or farther. Its offset and length being linear in
  // the variable, earlier iterations' bytes are no nearer the current ones than it is.
  std::map<std::string, std::int64_t> shifts;

  auto operator<=>(const ByteRange&) const = default;

  bool mentions(const std::string& variable) const;
  // The range after `variable` grew by `delta` (its old value is `variable - delta`), forgot its
  // value, or (a parameter of a call analyzed in place) is replaced by the argument's `value`.
  // `renameKey` names the terms that are storage keys anew (`iy_end[dev]` after `++dev` is
  // `iy_end[dev-1]`, element_index.h); opaque terms that mention the variable make the range
  // unknown.
  template <class RenameKey>
  ByteRange shifted(const std::string& variable, std::int64_t delta, RenameKey renameKey) const {
    if (!mentions(variable)) return *this;
    if ((offset && offset->mentionsOpaquely(variable)) ||
        (length && length->mentionsOpaquely(variable)))
      return unknown();
    ByteRange range = *this;
    std::int64_t& moved = range.shifts[variable];
    if (std::abs(moved) > kExactOffset) return *this;
    moved += delta;
    if (std::abs(moved) > kExactOffset &&
        !((!offset || offset->linearIn(variable)) && (!length || length->linearIn(variable))))
      return unknown();
    auto rename = [&](const ByteRange& from, auto&& change) {
      ByteRange to = from;
      if (to.offset) to.offset = change(*to.offset);
      if (to.length) to.length = change(*to.length);
      return to;
    };
    range = rename(range, [&](const Polynomial& polynomial) {
      return polynomial.substituted(variable,
                                    Polynomial::atom(variable) - Polynomial::constant(delta));
    });
    return rename(range, [&](const Polynomial& polynomial) {
      return polynomial.renamed(
          [&](const std::string& atom) { return atom == variable ? atom : renameKey(atom); });
    });
  }
  ByteRange forgetting(const std::string& variable) const;
  // Anywhere in its buffer (the whole allocation, as far as anyone knows).
  static ByteRange unknown() { return ByteRange{std::nullopt, std::nullopt, std::nullopt, {}}; }
};

// A range holding both: either one when it holds the other (equal, or the whole storage from its
// start), else anywhere in the buffer.
ByteRange spanning(const ByteRange& a, const ByteRange& b);

// Whether two ranges of storage that may be the same may share a byte (see above and ChosenPart).
bool mayOverlap(const ByteRange& a, const ByteRange& b);

} // namespace streamrace::analyzer
