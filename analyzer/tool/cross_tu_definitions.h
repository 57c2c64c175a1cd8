// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Whole-program analysis with a compilation database (streamrace-check -p): a call to a function
// the translation unit only declares is analysed in place with the definition another
// translation unit of the database gives, imported into this AST by Clang's cross-TU importer
// (the way the Clang Static Analyzer's CTU mode brings in a callee's body).
//
// The index of which translation unit defines which function (by USR, functions with external
// linkage defined in the main file) is built once per run from every command of the database
// and cached on disk, one entry per command. An entry is used only while the command, the tool's
// own set-up and the contents of every file its parse read (MD5 of each) are unchanged: a changed
// file means a new parse. Another translation unit is parsed again for an import only when the
// analysis follows a call into one of its functions, at most `maxUnits` per analysed file; a
// function whose definition is then not brought in (past that limit, a file that does not
// compile, an import that fails) is listed as a miss, announced as a remark.
#pragma once

#include "cuda_host_pass.h"
#include "streamrace/analyzer/external_definitions.h"

#include "clang/Tooling/CompilationDatabase.h"

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace clang {
class ASTUnit;
class CompilerInstance;
namespace cross_tu {
class CrossTranslationUnitContext;
} // namespace cross_tu
} // namespace clang

namespace streamrace::analyzer {

class CrossTuIndex {
public:
  // Entries are read from and written to `cacheDirectory` (created when missing).
  CrossTuIndex(const clang::tooling::CompilationDatabase& compilations, HostPassSettings settings,
               std::string cacheDirectory);

  struct Unit {
    clang::tooling::CompileCommand command;
    std::string file; // absolute
    bool compiles = true;
  };

  // The translation units that define the function `lookupName` names (its USR); the index is
  // built on the first call.
  std::vector<const Unit*> unitsDefining(llvm::StringRef lookupName);

  const HostPassSettings& settings() const { return settings_; }

private:
  struct Entry {
    bool compiles = true;
    std::vector<std::pair<std::string, std::string>> files; // path, MD5 of its contents
    std::vector<std::string> definitions;                   // lookup names
  };

  void build();
  std::string entryKey(const clang::tooling::CompileCommand& command) const;
  std::optional<Entry> cachedEntry(const std::string& key);
  Entry parseEntry(const Unit& unit);
  void storeEntry(const std::string& key, const Entry& entry);
  const std::string& contentHash(const std::string& path);

  const clang::tooling::CompilationDatabase& compilations_;
  HostPassSettings settings_;
  std::string cacheDirectory_;
  bool built_ = false;
  bool cacheWarned_ = false;
  std::vector<Unit> units_;
  std::map<std::string, std::vector<std::size_t>, std::less<>> definers_;
  std::map<std::string, std::string> hashes_;
};

class CrossTuDefinitions : public ExternalDefinitions {
public:
  CrossTuDefinitions(clang::CompilerInstance& compiler, CrossTuIndex& index, unsigned maxUnits);
  ~CrossTuDefinitions() override;

  const clang::FunctionDecl* definitionOf(const clang::FunctionDecl& declaration) override;
  std::vector<Miss> takeMisses() override;

private:
  struct LoadedUnit;

  // The parsed translation unit, or null with `reason` set.
  LoadedUnit* load(const CrossTuIndex::Unit& unit, std::string& reason);
  const clang::FunctionDecl* import(const clang::FunctionDecl& declaration,
                                    const std::string& lookupName, std::string& reason);

  CrossTuIndex& index_;
  unsigned maxUnits_;
  std::map<const clang::FunctionDecl*, const clang::FunctionDecl*> known_; // by canonical decl
  std::map<const CrossTuIndex::Unit*, std::unique_ptr<LoadedUnit>> units_;
  // Declared after the units: its importers read their ASTs until they are destroyed.
  std::unique_ptr<clang::cross_tu::CrossTranslationUnitContext> importer_;
  std::vector<Miss> misses_;
};

} // namespace streamrace::analyzer
