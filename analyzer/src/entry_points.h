// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Functions code outside the translation unit calls, again and again. A library's per-step
// function (`allreduce(pipeline, ...)`), a backend's callback installed in a table of function
// pointers, a method nothing in the file calls: the program runs them once per step, and each call
// starts with whatever the previous one left on the streams. Functions the translation unit calls
// itself are analysed in place at those calls, where the callers' loops already carry one call's
// work into the next.
#pragma once

#include <set>
#include <string>
#include <vector>

namespace clang {
class FieldDecl;
class FunctionDecl;
} // namespace clang

namespace streamrace::analyzer {

class EntryPoints {
public:
  // Learns which of `functions` the others call directly (calls, constructions), and which fields
  // they set as flags.
  explicit EntryPoints(const std::vector<const clang::FunctionDecl*>& functions);

  // Whether `function` is called again from outside: none of the translation unit's functions
  // call it, and it is not `main`, a constructor, a destructor or a lambda (each runs once per
  // program, object or expression that makes it).
  bool calledAgainFromOutside(const clang::FunctionDecl& function) const;

  // Whether `field` is a flag: a boolean field some function of the translation unit sets to true
  // or false (`p->primed = true`), as code that skips a wait on its first call does. Only flags
  // are followed through branches: every field would split the paths for nothing.
  bool isFlag(const clang::FieldDecl* field) const { return flags_.contains(field); }

private:
  std::set<const clang::FunctionDecl*> called_;
  std::set<const clang::FieldDecl*> flags_;
};

// The roots of storage keys that outlive a call of `function`: `this` (its fields), the
// parameters (what is reached through their fields), and the globals its body names. A key is
// storage of that kind when persistentStorage says so.
struct PersistentRoots {
  std::string thisKey;              // empty for functions without `this`
  std::set<std::string> parameters; // variable keys
  std::set<std::string> globals;    // variable keys
};
PersistentRoots persistentRoots(const clang::FunctionDecl& function, const std::string& thisKey);

// Whether `key` names storage that outlives a call: a field of `this` or of an object a parameter
// points to (a parameter's own pointee is the caller's buffer of the moment, and may be another
// one next time), or anything reached from a global.
bool persistentStorage(const std::string& key, const PersistentRoots& roots);

} // namespace streamrace::analyzer
