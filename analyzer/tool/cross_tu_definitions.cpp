// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "cross_tu_definitions.h"

#include "host_pass_diagnostics.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/SourceManager.h"
#include "clang/CrossTU/CrossTranslationUnit.h"
#include "clang/Frontend/ASTUnit.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MD5.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <functional>
#include <utility>

namespace streamrace::analyzer {
namespace {

// Changes whenever what an entry holds, or how it is worked out, changes.
constexpr llvm::StringLiteral kEntryFormat = "streamrace-ctu-index-1";

// One command of the database, for whichever file the tool asks about.
class SingleCommand : public clang::tooling::CompilationDatabase {
public:
  explicit SingleCommand(clang::tooling::CompileCommand command) : command_(std::move(command)) {}

  std::vector<clang::tooling::CompileCommand> getCompileCommands(llvm::StringRef) const override {
    return {command_};
  }

private:
  clang::tooling::CompileCommand command_;
};

// The functions another translation unit can call: external linkage, not a template or a member
// of one, defined in the main file (a header's functions are parsed wherever they are included).
class DefinitionCollector : public clang::RecursiveASTVisitor<DefinitionCollector> {
public:
  explicit DefinitionCollector(const clang::SourceManager& sources) : sources_(sources) {}

  bool TraverseDecl(clang::Decl* decl) {
    if (decl &&
        !llvm::isa<clang::TranslationUnitDecl, clang::NamespaceDecl, clang::LinkageSpecDecl>(
            decl) &&
        !sources_.isInMainFile(sources_.getExpansionLoc(decl->getLocation())))
      return true;
    return clang::RecursiveASTVisitor<DefinitionCollector>::TraverseDecl(decl);
  }

  bool VisitFunctionDecl(clang::FunctionDecl* function) {
    if (!function->doesThisDeclarationHaveABody() || function->isDependentContext() ||
        !function->isExternallyVisible() ||
        function->getTemplatedKind() != clang::FunctionDecl::TK_NonTemplate)
      return true;
    if (std::optional<std::string> name =
            clang::cross_tu::CrossTranslationUnitContext::getLookupName(function))
      definitions.emplace(std::move(*name), function);
    return true;
  }

  std::map<std::string, const clang::FunctionDecl*> definitions;

private:
  const clang::SourceManager& sources_;
};

std::map<std::string, const clang::FunctionDecl*> mainFileDefinitions(clang::ASTContext& context) {
  DefinitionCollector collector(context.getSourceManager());
  collector.TraverseDecl(context.getTranslationUnitDecl());
  return std::move(collector.definitions);
}

// Runs `visit` on the AST of each file the tool parses.
class VisitingActionFactory : public clang::tooling::FrontendActionFactory {
public:
  using Visit = std::function<void(clang::ASTContext&)>;
  explicit VisitingActionFactory(Visit visit) : visit_(std::move(visit)) {}

  std::unique_ptr<clang::FrontendAction> create() override {
    return std::make_unique<Action>(visit_);
  }

private:
  class Consumer : public clang::ASTConsumer {
  public:
    explicit Consumer(const Visit& visit) : visit_(visit) {}
    void HandleTranslationUnit(clang::ASTContext& context) override { visit_(context); }

  private:
    const Visit& visit_;
  };

  class Action : public clang::ASTFrontendAction {
  public:
    explicit Action(const Visit& visit) : visit_(visit) {}
    std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance&,
                                                          llvm::StringRef) override {
      return std::make_unique<Consumer>(visit_);
    }

  private:
    const Visit& visit_;
  };

  Visit visit_;
};

std::string absolutePath(llvm::StringRef directory, llvm::StringRef file) {
  llvm::SmallString<256> path(file);
  if (!llvm::sys::path::is_absolute(path)) llvm::sys::path::make_absolute(directory, path);
  llvm::sys::path::remove_dots(path, /*remove_dot_dot=*/true);
  return std::string(path);
}

// A file parsed only to be looked into prints nothing, not even its count of errors.
void silence(clang::tooling::ClangTool& tool, SilentErrorCounter& errors) {
  tool.setDiagnosticConsumer(&errors);
  tool.setPrintErrorMessage(false);
  tool.appendArgumentsAdjuster(clang::tooling::getInsertArgumentAdjuster(
      "-fno-caret-diagnostics", clang::tooling::ArgumentInsertPosition::END));
}

std::string md5Of(llvm::StringRef text) {
  llvm::MD5 hash;
  hash.update(text);
  llvm::MD5::MD5Result result;
  hash.final(result);
  return std::string(result.digest());
}

} // namespace

CrossTuIndex::CrossTuIndex(const clang::tooling::CompilationDatabase& compilations,
                           HostPassSettings settings, std::string cacheDirectory)
    : compilations_(compilations), settings_(std::move(settings)),
      cacheDirectory_(std::move(cacheDirectory)) {}

std::vector<const CrossTuIndex::Unit*> CrossTuIndex::unitsDefining(llvm::StringRef lookupName) {
  if (!built_) build();
  std::vector<const Unit*> units;
  if (auto found = definers_.find(lookupName); found != definers_.end())
    for (std::size_t index : found->second)
      units.push_back(&units_[index]);
  return units;
}

void CrossTuIndex::build() {
  built_ = true;
  std::vector<clang::tooling::CompileCommand> commands = compilations_.getAllCompileCommands();
  // LibTooling said why; this says what it costs.
  if (commands.empty())
    llvm::errs() << "streamrace-check: the compilation database lists no commands: calls into "
                    "other files are not followed\n";
  for (clang::tooling::CompileCommand& command : commands) {
    Unit unit;
    unit.file = absolutePath(command.Directory, command.Filename);
    unit.command = std::move(command);
    const std::string key = entryKey(unit.command);
    std::optional<Entry> entry = cachedEntry(key);
    if (!entry) {
      entry = parseEntry(unit);
      storeEntry(key, *entry);
    }
    unit.compiles = entry->compiles;
    for (const std::string& definition : entry->definitions)
      definers_[definition].push_back(units_.size());
    units_.push_back(std::move(unit));
  }
}

// Everything besides the files read that decides what the parse gives.
std::string CrossTuIndex::entryKey(const clang::tooling::CompileCommand& command) const {
  std::string text = kEntryFormat.str();
  for (llvm::StringRef part :
       {llvm::StringRef(settings_.resourceDir), llvm::StringRef(settings_.cudaPath),
        llvm::StringRef(settings_.cudaPathExplicit ? "explicit" : "derived"),
        llvm::StringRef(kHostPassPrelude), llvm::StringRef(command.Directory),
        llvm::StringRef(command.Filename)})
    text += '\0' + part.str();
  for (const std::string& argument : command.CommandLine)
    text += '\0' + argument;
  return md5Of(text);
}

const std::string& CrossTuIndex::contentHash(const std::string& path) {
  auto [slot, inserted] = hashes_.try_emplace(path);
  if (!inserted) return slot->second;
  if (llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> contents =
          llvm::MemoryBuffer::getFile(path, /*IsText=*/false, /*RequiresNullTerminator=*/false))
    slot->second = md5Of((*contents)->getBuffer());
  return slot->second; // empty: unreadable, matches no recorded hash
}

std::optional<CrossTuIndex::Entry> CrossTuIndex::cachedEntry(const std::string& key) {
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> text =
      llvm::MemoryBuffer::getFile(cacheDirectory_ + "/" + key + ".json");
  if (!text) return std::nullopt;
  llvm::Expected<llvm::json::Value> document = llvm::json::parse((*text)->getBuffer());
  if (!document) {
    llvm::consumeError(document.takeError());
    return std::nullopt;
  }
  const llvm::json::Object* object = document->getAsObject();
  const llvm::json::Array* files = object ? object->getArray("files") : nullptr;
  const llvm::json::Array* definitions = object ? object->getArray("definitions") : nullptr;
  std::optional<bool> compiles = object ? object->getBoolean("compiles") : std::nullopt;
  if (!files || !definitions || !compiles) return std::nullopt;
  Entry entry;
  entry.compiles = *compiles;
  for (const llvm::json::Value& file : *files) {
    const llvm::json::Array* pair = file.getAsArray();
    if (!pair || pair->size() != 2) return std::nullopt;
    std::optional<llvm::StringRef> path = (*pair)[0].getAsString();
    std::optional<llvm::StringRef> hash = (*pair)[1].getAsString();
    // Stale: a file the parse read is no longer what it was.
    if (!path || !hash || contentHash(path->str()) != *hash) return std::nullopt;
    entry.files.emplace_back(path->str(), hash->str());
  }
  for (const llvm::json::Value& definition : *definitions) {
    std::optional<llvm::StringRef> name = definition.getAsString();
    if (!name) return std::nullopt;
    entry.definitions.push_back(name->str());
  }
  return entry;
}

CrossTuIndex::Entry CrossTuIndex::parseEntry(const Unit& unit) {
  Entry entry;
  if (!llvm::sys::fs::exists(unit.file)) {
    entry.compiles = false;
    return entry;
  }
  const SingleCommand command(unit.command);
  std::unique_ptr<clang::tooling::ClangTool> tool =
      makeHostPassTool(command, {unit.file}, settings_);
  SilentErrorCounter errors;
  silence(*tool, errors);
  VisitingActionFactory factory([&](clang::ASTContext& context) {
    for (auto& [name, definition] : mainFileDefinitions(context))
      entry.definitions.push_back(name);
    const clang::SourceManager& sources = context.getSourceManager();
    for (auto file = sources.fileinfo_begin(); file != sources.fileinfo_end(); ++file) {
      llvm::StringRef name = file->first.getFileEntry().tryGetRealPathName();
      if (name.empty()) name = file->first.getName();
      // The prelude is part of the key.
      if (name == kHostPassPreludePath) continue;
      const std::string path = absolutePath(unit.command.Directory, name);
      entry.files.emplace_back(path, contentHash(path));
    }
  });
  const int status = tool->run(&factory);
  entry.compiles = status == 0 && errors.getNumErrors() == 0;
  return entry;
}

void CrossTuIndex::storeEntry(const std::string& key, const Entry& entry) {
  llvm::json::Array files;
  for (const auto& [path, hash] : entry.files)
    files.push_back(llvm::json::Array{path, hash});
  llvm::json::Array definitions;
  for (const std::string& definition : entry.definitions)
    definitions.push_back(definition);
  const llvm::json::Value document = llvm::json::Object{{"compiles", entry.compiles},
                                                        {"files", std::move(files)},
                                                        {"definitions", std::move(definitions)}};
  // Written aside and renamed, so a concurrent run reads a whole entry or none.
  llvm::SmallString<256> temporary;
  std::error_code error = llvm::sys::fs::create_directories(cacheDirectory_);
  int descriptor = -1;
  if (!error)
    error = llvm::sys::fs::createUniqueFile(cacheDirectory_ + "/" + key + "-%%%%%%.tmp", descriptor,
                                            temporary);
  if (!error) {
    {
      llvm::raw_fd_ostream stream(descriptor, /*shouldClose=*/true);
      stream << document;
    }
    error = llvm::sys::fs::rename(temporary, cacheDirectory_ + "/" + key + ".json");
    if (error) static_cast<void>(llvm::sys::fs::remove(temporary));
  }
  if (error && !cacheWarned_) {
    cacheWarned_ = true;
    llvm::errs() << "streamrace-check: cannot cache the index of definitions in '"
                 << cacheDirectory_ << "': " << error.message()
                 << "; the other translation units are parsed again next run\n";
  }
}

struct CrossTuDefinitions::LoadedUnit {
  // The AST's diagnostics engine reports to it as long as the AST lives (the importer asks).
  SilentErrorCounter errors;
  std::unique_ptr<clang::ASTUnit> ast;
  std::map<std::string, const clang::FunctionDecl*> definitions;
};

CrossTuDefinitions::CrossTuDefinitions(clang::CompilerInstance& compiler, CrossTuIndex& index,
                                       unsigned maxUnits)
    : index_(index), maxUnits_(maxUnits),
      importer_(std::make_unique<clang::cross_tu::CrossTranslationUnitContext>(compiler)) {
  // The importer compares the declarations both files share and warns where they differ (-Wodr,
  // a default template argument seen in one only): the file's findings are not about that.
  compiler.getDiagnostics().setSeverityForGroup(clang::diag::Flavor::WarningOrError, "odr",
                                                clang::diag::Severity::Ignored);
}

CrossTuDefinitions::~CrossTuDefinitions() = default;

const clang::FunctionDecl*
CrossTuDefinitions::definitionOf(const clang::FunctionDecl& declaration) {
  const clang::FunctionDecl* canonical = declaration.getCanonicalDecl();
  auto [slot, inserted] = known_.try_emplace(canonical, nullptr);
  if (!inserted) return slot->second;
  std::optional<std::string> lookupName =
      clang::cross_tu::CrossTranslationUnitContext::getLookupName(canonical);
  if (!lookupName) return nullptr;
  std::string reason;
  const clang::FunctionDecl* definition = import(*canonical, *lookupName, reason);
  if (!definition && !reason.empty()) misses_.push_back({canonical, std::move(reason)});
  slot->second = definition;
  return definition;
}

const clang::FunctionDecl* CrossTuDefinitions::import(const clang::FunctionDecl& declaration,
                                                      const std::string& lookupName,
                                                      std::string& reason) {
  for (const CrossTuIndex::Unit* unit : index_.unitsDefining(lookupName)) {
    if (!unit->compiles) {
      reason = "'" + unit->file + "' does not compile";
      continue;
    }
    LoadedUnit* loaded = load(*unit, reason);
    if (!loaded) continue;
    auto found = loaded->definitions.find(lookupName);
    if (found == loaded->definitions.end()) {
      reason = "'" + unit->file + "' no longer defines it";
      continue;
    }
    const clang::FunctionDecl& definition = *found->second;
    if (definition.getASTContext().getLangOpts().CPlusPlus !=
        declaration.getASTContext().getLangOpts().CPlusPlus) {
      reason = "'" + unit->file + "' is not written in the same language";
      continue;
    }
    llvm::Expected<const clang::FunctionDecl*> imported =
        importer_->importDefinition(&definition, loaded->ast.get());
    if (!imported) {
      reason = "importing it from '" + unit->file + "' failed (" +
               llvm::StringRef(llvm::toString(imported.takeError())).trim().rtrim('.').str() + ")";
      continue;
    }
    return *imported;
  }
  return nullptr;
}

CrossTuDefinitions::LoadedUnit* CrossTuDefinitions::load(const CrossTuIndex::Unit& unit,
                                                         std::string& reason) {
  if (auto found = units_.find(&unit); found != units_.end()) {
    if (!found->second) reason = "'" + unit.file + "' does not compile";
    return found->second.get();
  }
  if (units_.size() >= maxUnits_) {
    reason = "'" + unit.file + "' is not loaded: at most " + std::to_string(maxUnits_) +
             " other translation units are, for one file (--ctu-max-units)";
    return nullptr;
  }
  std::unique_ptr<LoadedUnit>& slot = units_[&unit];
  auto loaded = std::make_unique<LoadedUnit>();
  const SingleCommand command(unit.command);
  std::unique_ptr<clang::tooling::ClangTool> tool =
      makeHostPassTool(command, {unit.file}, index_.settings());
  silence(*tool, loaded->errors);
  std::vector<std::unique_ptr<clang::ASTUnit>> asts;
  if (tool->buildASTs(asts) != 0 || asts.size() != 1 || loaded->errors.getNumErrors() > 0) {
    reason = "'" + unit.file + "' does not compile";
    return nullptr;
  }
  slot = std::move(loaded);
  slot->ast = std::move(asts.front());
  slot->definitions = mainFileDefinitions(slot->ast->getASTContext());
  return slot.get();
}

std::vector<ExternalDefinitions::Miss> CrossTuDefinitions::takeMisses() {
  return std::exchange(misses_, {});
}

} // namespace streamrace::analyzer
