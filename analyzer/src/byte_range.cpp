// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "byte_range.h"

#include <algorithm>
#include <cstdlib>

namespace streamrace::analyzer {

Polynomial Polynomial::constant(std::int64_t value) {
  Polynomial polynomial;
  if (value != 0) polynomial.terms_[{}] = value;
  return polynomial;
}

Polynomial Polynomial::atom(std::string name) {
  Polynomial polynomial;
  polynomial.terms_[{std::move(name)}] = 1;
  return polynomial;
}

void Polynomial::add(const std::vector<std::string>& monomial, std::int64_t coefficient) {
  std::int64_t& sum = terms_[monomial];
  sum += coefficient;
  if (sum == 0) terms_.erase(monomial);
}

Polynomial Polynomial::operator+(const Polynomial& other) const {
  Polynomial sum = *this;
  for (const auto& [monomial, coefficient] : other.terms_)
    sum.add(monomial, coefficient);
  return sum;
}

Polynomial Polynomial::operator-(const Polynomial& other) const {
  return *this + other.scaled(-1);
}

Polynomial Polynomial::operator*(const Polynomial& other) const {
  Polynomial product;
  for (const auto& [left, a] : terms_)
    for (const auto& [right, b] : other.terms_) {
      std::vector<std::string> monomial = left;
      monomial.insert(monomial.end(), right.begin(), right.end());
      std::sort(monomial.begin(), monomial.end());
      product.add(monomial, a * b);
    }
  return product;
}

Polynomial Polynomial::scaled(std::int64_t factor) const {
  Polynomial result;
  if (factor == 0) return result;
  for (const auto& [monomial, coefficient] : terms_)
    result.terms_[monomial] = coefficient * factor;
  return result;
}

bool Polynomial::isConstant() const {
  return terms_.empty() || (terms_.size() == 1 && terms_.begin()->first.empty());
}

std::int64_t Polynomial::constantTerm() const {
  auto found = terms_.find({});
  return found == terms_.end() ? 0 : found->second;
}

bool Polynomial::mentions(const std::string& text) const {
  for (const auto& [monomial, coefficient] : terms_)
    for (const std::string& atom : monomial)
      if (atom.find(text) != std::string::npos) return true;
  return false;
}

Polynomial Polynomial::substituted(const std::string& atom, const Polynomial& value) const {
  Polynomial result;
  for (const auto& [monomial, coefficient] : terms_) {
    Polynomial term = constant(coefficient);
    for (const std::string& factor : monomial)
      term = term * (factor == atom ? value : Polynomial::atom(factor));
    result = result + term;
  }
  return result;
}

bool Polynomial::mentionsOpaquely(const std::string& text) const {
  for (const auto& [monomial, coefficient] : terms_)
    for (const std::string& atom : monomial)
      if (atom.starts_with("(") && atom.find(text) != std::string::npos) return true;
  return false;
}

bool Polynomial::plainlyPositive() const {
  return !terms_.empty() && std::all_of(terms_.begin(), terms_.end(),
                                        [](const auto& term) { return term.second > 0; });
}

bool Polynomial::linearIn(const std::string& atom) const {
  return std::all_of(terms_.begin(), terms_.end(), [&](const auto& term) {
    return std::count(term.first.begin(), term.first.end(), atom) <= 1;
  });
}

bool ByteRange::mentions(const std::string& variable) const {
  return (offset && offset->mentions(variable)) || (length && length->mentions(variable));
}

ByteRange ByteRange::forgetting(const std::string& variable) const {
  if (!mentions(variable)) return *this;
  return unknown();
}

namespace {

// Whether `range` ends at or before `later` starts: later.offset - range.offset - range.length is
// a constant that is not negative.
bool endsBefore(const ByteRange& range, const ByteRange& later) {
  if (!range.length) return false;
  const Polynomial gap = later.offset.value() - range.offset.value() - *range.length;
  return gap.isConstant() && gap.constantTerm() >= 0;
}

// Whether `range` provably holds the byte at `offset` (anywhere: it may), offsets and sizes
// being never negative.
bool holdsFirstByte(const ByteRange& range, const std::optional<Polynomial>& offset) {
  if (!range.offset || !offset) return true;
  auto atLeastZero = [](const Polynomial& value) {
    return value == Polynomial() || value.plainlyPositive();
  };
  if (!atLeastZero(*offset - *range.offset)) return false;
  return !range.length || (*range.offset + *range.length - *offset).plainlyPositive();
}

// Whether a chosen part from `offset` on may share a byte with `other`, not a part (ChosenPart).
bool partMeets(const ChosenPart& part, const std::optional<Polynomial>& offset,
               const ByteRange& other) {
  if (part.split && other.length) return false;
  return holdsFirstByte(other, offset);
}

} // namespace

ByteRange spanning(const ByteRange& a, const ByteRange& b) {
  if (a == b) return a;
  // Offsets are relative to the start of the storage the key names, so never negative.
  auto wholeStorage = [](const ByteRange& range) {
    return range.offset && *range.offset == Polynomial() && !range.length && !range.part;
  };
  if (wholeStorage(a)) return a;
  if (wholeStorage(b)) return b;
  return ByteRange::unknown();
}

bool mayOverlap(const ByteRange& a, const ByteRange& b) {
  if (a.part && b.part)
    return a.part->function != b.part->function || a.part->arguments == b.part->arguments;
  if (a.part) return partMeets(*a.part, a.offset, b);
  if (b.part) return partMeets(*b.part, b.offset, a);
  if (!a.offset || !b.offset) return true;
  if (endsBefore(a, b) || endsBefore(b, a)) return false;
  const Polynomial distance = *a.offset - *b.offset;
  // Slices of one shape at different symbolic places: the different slices they are computed to
  // be (halo rows, chunks indexed by unrelated values), unless the distance is plainly shorter
  // than the slice (a window moved by half its length: `2n` long, `n` apart).
  if (a.length && b.length && *a.length == *b.length && !distance.isConstant())
    return (*a.length - distance).plainlyPositive() && (*a.length + distance).plainlyPositive();
  return true;
}

} // namespace streamrace::analyzer
