// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// streamrace-check: the analyzer as a LibTooling command line, for CI and code review.
//
//   streamrace-check [options] <files...> [-- <compiler flags>]
//   streamrace-check -p <build dir> <files...>
#include "cross_tu_definitions.h"
#include "cuda_host_pass.h"
#include "host_pass_diagnostics.h"
#include "python_sources.h"
#include "report_formats.h"
#include "streamrace/analyzer/analysis.h"
#include "streamrace/analyzer/kernel_summary.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/ASTContext.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Tooling/ArgumentsAdjusters.h"
#include "clang/Tooling/CommonOptionsParser.h"
#include "clang/Tooling/Core/Replacement.h"
#include "clang/Tooling/Tooling.h"
#include "llvm/ADT/Statistic.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cstddef>
#include <optional>
#include <set>
#include <tuple>
#include <vector>

namespace streamrace::analyzer {
namespace {

llvm::cl::OptionCategory category("streamrace-check options");

enum class OutputFormat { Text, Json, Sarif };
enum class Advice { None, Sync };

llvm::cl::opt<std::string> checksOption(
    "checks",
    llvm::cl::desc("Comma-separated globs of checks to run; a leading '-' removes checks"),
    llvm::cl::init("streamrace-*"), llvm::cl::cat(category));
llvm::cl::opt<OutputFormat> formatOption(
    "format", llvm::cl::desc("How findings are printed"),
    llvm::cl::values(clEnumValN(OutputFormat::Text, "text", "clang-tidy style diagnostics"),
                     clEnumValN(OutputFormat::Json, "json", "one JSON document"),
                     clEnumValN(OutputFormat::Sarif, "sarif", "SARIF 2.1.0")),
    llvm::cl::init(OutputFormat::Text), llvm::cl::cat(category));
llvm::cl::opt<Advice> adviseOption(
    "advise", llvm::cl::desc("Also advise, at note level, on what the code orders"),
    llvm::cl::values(clEnumValN(Advice::Sync, "sync",
                                "host waits an event edge between two streams could replace "
                                "(each such wait is analysed again without it)")),
    llvm::cl::init(Advice::None), llvm::cl::cat(category));
llvm::cl::opt<std::string>
    outputOption("output", llvm::cl::desc("Write JSON or SARIF here instead of standard output"),
                 llvm::cl::value_desc("file"), llvm::cl::cat(category));
llvm::cl::opt<bool> fixOption("fix", llvm::cl::desc("Apply the suggested fix-its to the sources"),
                              llvm::cl::cat(category));
llvm::cl::opt<std::string>
    exportFixesOption("export-fixes",
                      llvm::cl::desc("Write the fix-its as YAML for clang-apply-replacements"),
                      llvm::cl::value_desc("file"), llvm::cl::cat(category));
llvm::cl::opt<std::string> modelOption(
    "model",
    llvm::cl::desc("JSON models of wrapper functions: which argument is read, written, a size, a "
                   "stream"),
    llvm::cl::value_desc("file"), llvm::cl::cat(category));
llvm::cl::opt<std::string> suppressionsOption(
    "suppressions",
    llvm::cl::desc("A suppressions file in the tracer's format (race:<pattern>, ...): the Python "
                   "findings it hides do not count"),
    llvm::cl::value_desc("file"), llvm::cl::cat(category));
llvm::cl::opt<std::string> kernelSummariesOption(
    "kernel-summaries",
    llvm::cl::desc("Write, per __global__ function, which pointer parameters it reads and writes"),
    llvm::cl::value_desc("file"), llvm::cl::cat(category));
llvm::cl::opt<int>
    findingsExitCodeOption("findings-exit-code",
                           llvm::cl::desc("Exit status when there are findings (default 1)"),
                           llvm::cl::init(1), llvm::cl::cat(category));
llvm::cl::opt<std::string>
    cudaPathOption("cuda-path", llvm::cl::desc("CUDA toolkit given to clang for .cu files"),
                   llvm::cl::init("/usr/local/cuda"), llvm::cl::cat(category));

llvm::cl::opt<bool> crossTuOption(
    "ctu",
    llvm::cl::desc("With -p, follow calls into functions that other files of the compilation "
                   "database define (default on)"),
    llvm::cl::init(true), llvm::cl::cat(category));
llvm::cl::opt<std::string> ctuCacheDirOption(
    "ctu-cache-dir",
    llvm::cl::desc("Where the index of the definitions in the database's files is cached "
                   "(default: .streamrace-ctu in the -p directory)"),
    llvm::cl::value_desc("directory"), llvm::cl::cat(category));
llvm::cl::opt<unsigned> ctuMaxUnitsOption(
    "ctu-max-units",
    llvm::cl::desc("At most this many other files are parsed to follow calls from one file"),
    llvm::cl::init(8), llvm::cl::cat(category));

llvm::cl::extrahelp statsHelp(
    "\n--stats prints, after the findings, how many C++ functions were analysed and how often the\n"
    "analysis gave something up (calls too deep, recursion, loops cut short, OpenMP constructs,\n"
    "definitions in other files not imported),\n"
    "each also shown as a remark where it happened; for Python files, the Python check's figures\n"
    "(functions cut at the statement budget or given up, methods left to bases not given).\n");

class CheckFilter {
public:
  explicit CheckFilter(llvm::StringRef spec) {
    llvm::SmallVector<llvm::StringRef> parts;
    spec.split(parts, ',', -1, false);
    for (llvm::StringRef part : parts) {
      part = part.trim();
      const bool negative = part.consume_front("-");
      if (auto pattern = llvm::GlobPattern::create(part))
        patterns_.emplace_back(negative, std::move(*pattern));
      else
        llvm::consumeError(pattern.takeError());
    }
  }

  bool enabled(llvm::StringRef check) const {
    bool on = false;
    for (const auto& [negative, pattern] : patterns_)
      if (pattern.match(check)) on = !negative;
    return on;
  }

private:
  std::vector<std::pair<bool, llvm::GlobPattern>> patterns_;
};

struct RunResults {
  std::vector<ResolvedFinding> findings;
  std::vector<ResolvedRemark> remarks;
  std::vector<ResolvedFinding> advice; // --advise: notes, not findings
  std::vector<KernelSummary> kernels;
  unsigned functionsAnalyzed = 0;
};

// --stats: one line, every kind counted (zeros too, so a reader sees what was looked for).
void printStats(const RunResults& results, llvm::raw_ostream& out) {
  out << "streamrace-check: " << results.functionsAnalyzed << " C++ functions analysed; gave up on";
  const char* separator = " ";
  for (const RemarkKindInfo& info : kRemarkKinds) {
    const auto count =
        std::count_if(results.remarks.begin(), results.remarks.end(),
                      [&](const ResolvedRemark& remark) { return remark.kind == info.kind; });
    out << separator << count << " " << info.counted;
    separator = ", ";
  }
  out << "\n";
}

// Which diagnostic of a finding shows each fix-it (0 the warning, i + 1 note i; none when no
// diagnostic is on the fix-it's line): the one at the fix-it's place, else the first on its
// line. clang prints a snippet from the caret's line to every fix-it's and labels it with wrong
// line numbers when they are far apart (a fix before an earlier statement); --fix and the
// exported fixes take them all from the finding.
std::vector<std::optional<std::size_t>> fixDisplays(const Finding& finding,
                                                    const clang::SourceManager& sources) {
  std::vector<clang::SourceLocation> places = {sources.getExpansionLoc(finding.location)};
  for (const FindingNote& note : finding.notes)
    places.push_back(sources.getExpansionLoc(note.location));
  std::vector<std::optional<std::size_t>> displays;
  for (const clang::FixItHint& fix : finding.fixes) {
    const clang::SourceLocation at = sources.getExpansionLoc(fix.RemoveRange.getBegin());
    std::optional<std::size_t> chosen;
    for (std::size_t index = 0; index < places.size() && !chosen; ++index)
      if (places[index] == at) chosen = index;
    for (std::size_t index = 0; index < places.size() && !chosen; ++index)
      if (sources.getFileID(places[index]) == sources.getFileID(at) &&
          sources.getExpansionLineNumber(places[index]) == sources.getExpansionLineNumber(at))
        chosen = index;
    displays.push_back(chosen);
  }
  return displays;
}

class AnalysisConsumer : public clang::ASTConsumer {
public:
  AnalysisConsumer(clang::CompilerInstance& compiler, const AnalysisOptions& options,
                   const CheckFilter& filter, CrossTuIndex* crossTu, RunResults& results)
      : compiler_(compiler), options_(options), filter_(filter), crossTu_(crossTu),
        results_(results) {}

  void HandleTranslationUnit(clang::ASTContext& context) override {
    clang::DiagnosticsEngine& diagnostics = compiler_.getDiagnostics();
    // The client's count: errors nvcc accepts were dropped before it (host_pass_diagnostics.h).
    if (diagnostics.getClient()->getNumErrors() > 0) return;
    if (!kernelSummariesOption.empty())
      for (auto& [function, summary] : summarizeKernels(context))
        results_.kernels.push_back(std::move(summary));
    const unsigned warningId = diagnostics.getCustomDiagID(clang::DiagnosticsEngine::Warning, "%0");
    const unsigned noteId = diagnostics.getCustomDiagID(clang::DiagnosticsEngine::Note, "%0");
    const unsigned remarkId = diagnostics.getCustomDiagID(clang::DiagnosticsEngine::Remark, "%0");
    AnalysisOptions options = options_;
    std::optional<CrossTuDefinitions> external;
    if (crossTu_) {
      external.emplace(compiler_, *crossTu_, ctuMaxUnitsOption);
      options.externalDefinitions = &*external;
    }
    const AnalysisResult analysis = analyzeTranslationUnit(context, options);
    results_.functionsAnalyzed += analysis.functionsAnalyzed;
    for (const Remark& remark : analysis.remarks) {
      results_.remarks.push_back(resolveRemark(remark, context.getSourceManager()));
      if (formatOption == OutputFormat::Text)
        diagnostics.Report(remark.location, remarkId)
            << remark.message + " [streamrace-analysis-" + remarkKindInfo(remark.kind).id + "]";
    }
    for (const Finding& finding : analysis.findings) {
      if (!filter_.enabled(finding.check)) continue;
      results_.findings.push_back(resolveFinding(finding, context.getSourceManager()));
      if (formatOption == OutputFormat::Text) print(finding, warningId, noteId, context);
    }
    for (const Finding& advice : analysis.advice) {
      if (!filter_.enabled(advice.check)) continue;
      results_.advice.push_back(resolveFinding(advice, context.getSourceManager()));
      if (formatOption == OutputFormat::Text) print(advice, remarkId, noteId, context);
    }
  }

private:
  // A finding (or an advice) at `levelId`, its notes, and each fix-it beside the line it edits.
  void print(const Finding& finding, unsigned levelId, unsigned noteId,
             clang::ASTContext& context) {
    clang::DiagnosticsEngine& diagnostics = compiler_.getDiagnostics();
    const std::vector<std::optional<std::size_t>> displays =
        fixDisplays(finding, context.getSourceManager());
    auto addFixes = [&](clang::DiagnosticBuilder& diagnostic, std::size_t index) {
      for (std::size_t fix = 0; fix < finding.fixes.size(); ++fix)
        if (displays[fix] == index) diagnostic << finding.fixes[fix];
    };
    {
      clang::DiagnosticBuilder main = diagnostics.Report(finding.location, levelId);
      main << finding.message + " [" + finding.check + "]";
      addFixes(main, 0);
    }
    for (std::size_t index = 0; index < finding.notes.size(); ++index) {
      clang::DiagnosticBuilder note = diagnostics.Report(finding.notes[index].location, noteId);
      note << finding.notes[index].message;
      addFixes(note, index + 1);
    }
  }

private:
  clang::CompilerInstance& compiler_;
  const AnalysisOptions& options_;
  const CheckFilter& filter_;
  CrossTuIndex* crossTu_;
  RunResults& results_;
};

class AnalysisAction : public clang::ASTFrontendAction {
public:
  AnalysisAction(const AnalysisOptions& options, const CheckFilter& filter, CrossTuIndex* crossTu,
                 RunResults& results)
      : options_(options), filter_(filter), crossTu_(crossTu), results_(results) {}

  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance& compiler,
                                                        llvm::StringRef) override {
    dropErrorsNvccAccepts(compiler.getDiagnostics(), compiler.getDiagnosticOpts().ErrorLimit);
    return std::make_unique<AnalysisConsumer>(compiler, options_, filter_, crossTu_, results_);
  }

private:
  const AnalysisOptions& options_;
  const CheckFilter& filter_;
  CrossTuIndex* crossTu_;
  RunResults& results_;
};

class AnalysisActionFactory : public clang::tooling::FrontendActionFactory {
public:
  AnalysisActionFactory(const AnalysisOptions& options, const CheckFilter& filter,
                        CrossTuIndex* crossTu, RunResults& results)
      : options_(options), filter_(filter), crossTu_(crossTu), results_(results) {}

  std::unique_ptr<clang::FrontendAction> create() override {
    return std::make_unique<AnalysisAction>(options_, filter_, crossTu_, results_);
  }

private:
  const AnalysisOptions& options_;
  const CheckFilter& filter_;
  CrossTuIndex* crossTu_;
  RunResults& results_;
};

bool writeText(llvm::StringRef path, llvm::StringRef text) {
  std::error_code error;
  llvm::raw_fd_ostream stream(path, error, llvm::sys::fs::OF_Text);
  if (error) {
    llvm::errs() << "streamrace-check: cannot write '" << path << "': " << error.message() << "\n";
    return false;
  }
  stream << text;
  return true;
}

bool applyFixes(const std::vector<ResolvedFinding>& findings) {
  std::map<std::string, std::set<std::tuple<unsigned, unsigned, std::string>>> edits;
  for (const ResolvedFinding& finding : findings)
    for (const ResolvedFix& fix : finding.fixes)
      edits[fix.location.file].emplace(fix.location.offset, fix.length, fix.replacement);
  bool ok = true;
  for (const auto& [file, fileEdits] : edits) {
    llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer = llvm::MemoryBuffer::getFile(file);
    if (!buffer) {
      llvm::errs() << "streamrace-check: cannot read '" << file << "' to fix it\n";
      ok = false;
      continue;
    }
    clang::tooling::Replacements replacements;
    for (const auto& [offset, length, text] : fileEdits) {
      clang::tooling::Replacement replacement(file, offset, length, text);
      if (llvm::Error error = replacements.add(replacement)) {
        llvm::errs() << "streamrace-check: skipping a conflicting fix in '" << file
                     << "': " << llvm::toString(std::move(error)) << "\n";
      }
    }
    llvm::Expected<std::string> fixed =
        clang::tooling::applyAllReplacements((*buffer)->getBuffer(), replacements);
    if (!fixed) {
      llvm::errs() << "streamrace-check: cannot fix '" << file
                   << "': " << llvm::toString(fixed.takeError()) << "\n";
      ok = false;
      continue;
    }
    ok &= writeText(file, *fixed);
  }
  return ok;
}

// Options whose value may be the next argument: that argument is no input file.
bool takesValue(llvm::StringRef argument) {
  static constexpr llvm::StringLiteral options[] = {"-p",
                                                    "--output",
                                                    "-output",
                                                    "--checks",
                                                    "-checks",
                                                    "--model",
                                                    "-model",
                                                    "--format",
                                                    "-format",
                                                    "--kernel-summaries",
                                                    "--export-fixes",
                                                    "--findings-exit-code",
                                                    "--advise",
                                                    "-advise",
                                                    "--cuda-path",
                                                    "--ctu-cache-dir",
                                                    "-ctu-cache-dir",
                                                    "--ctu-max-units",
                                                    "-ctu-max-units",
                                                    "--extra-arg",
                                                    "--extra-arg-before"};
  return llvm::is_contained(options, argument);
}

// The Python inputs (.py files, folders) among the arguments before `--`, taken out of `argv`:
// the rest is LibTooling's command line.
std::vector<std::string> takePythonInputs(std::vector<const char*>& argv) {
  std::vector<std::string> inputs;
  std::vector<const char*> rest;
  bool afterDashes = false;
  for (size_t index = 0; index < argv.size(); ++index) {
    const llvm::StringRef argument(argv[index]);
    if (argument == "--") afterDashes = true;
    const bool valueOfOption = index > 0 && takesValue(argv[index - 1]);
    if (index > 0 && !afterDashes && !valueOfOption && !argument.starts_with("-") &&
        isPythonInput(argument))
      inputs.push_back(argument.str());
    else
      rest.push_back(argv[index]);
  }
  argv = std::move(rest);
  return inputs;
}

// The build directory given with -p (the compilation database's), if any.
std::optional<std::string> buildDirectory(const std::vector<const char*>& argv) {
  for (size_t index = 1; index < argv.size(); ++index) {
    llvm::StringRef argument(argv[index]);
    if (argument == "--") break;
    if ((argument == "-p" || argument == "--p") && index + 1 < argv.size())
      return std::string(argv[index + 1]);
    if (argument.consume_front("-p=") || argument.consume_front("--p=")) return argument.str();
  }
  return std::nullopt;
}

int run(int argc, const char** argv) {
  std::vector<const char*> arguments(argv, argv + argc);
  const std::vector<std::string> pythonInputs = takePythonInputs(arguments);
  int toolArgc = static_cast<int>(arguments.size());
  llvm::Expected<clang::tooling::CommonOptionsParser> parser =
      clang::tooling::CommonOptionsParser::create(toolArgc, arguments.data(), category,
                                                  pythonInputs.empty() ? llvm::cl::OneOrMore
                                                                       : llvm::cl::ZeroOrMore);
  if (!parser) {
    llvm::errs() << llvm::toString(parser.takeError());
    return 2;
  }
  AnalysisOptions options;
  std::optional<UserModel> userModel;
  if (!modelOption.empty()) {
    llvm::Expected<UserModel> loaded = loadUserModel(modelOption);
    if (!loaded) {
      llvm::errs() << "streamrace-check: " << llvm::toString(loaded.takeError()) << "\n";
      return 2;
    }
    userModel = std::move(*loaded);
    options.userModel = &*userModel;
  }
  options.adviseSyncs = adviseOption == Advice::Sync;
  const CheckFilter filter(checksOption);
  if (!suppressionsOption.empty() && !parser->getSourcePathList().empty())
    llvm::errs() << "streamrace-check: --suppressions applies to the Python files; C++ findings "
                    "are all reported\n";

  const HostPassSettings hostPass{STREAMRACE_CLANG_RESOURCE_DIR, cudaPathOption.getValue(),
                                  cudaPathOption.getNumOccurrences() > 0};
  std::unique_ptr<clang::tooling::ClangTool> tool =
      makeHostPassTool(parser->getCompilations(), parser->getSourcePathList(), hostPass);
  // Calls into the other files of a compilation database are followed (cross_tu_definitions.h).
  std::optional<CrossTuIndex> crossTu;
  if (const std::optional<std::string> build = buildDirectory(arguments); build && crossTuOption)
    crossTu.emplace(parser->getCompilations(), hostPass,
                    ctuCacheDirOption.empty() ? *build + "/.streamrace-ctu"
                                              : ctuCacheDirOption.getValue());
  RunResults results;
  AnalysisActionFactory factory(options, filter, crossTu ? &*crossTu : nullptr, results);
  const int toolStatus = parser->getSourcePathList().empty() ? 0 : tool->run(&factory);
  bool pythonOk = true;
  if (!pythonInputs.empty()) {
    PythonCheckResult python = checkPythonInputs(
        pythonInputs,
        {checksOption.getValue(), modelOption.getValue(), suppressionsOption.getValue(),
         llvm::AreStatisticsEnabled(), options.adviseSyncs},
        llvm::sys::fs::getMainExecutable(argv[0], (void*)&run));
    if (!python.failure.empty()) {
      llvm::errs() << "streamrace-check: " << python.failure << "\n";
      pythonOk = false;
    }
    for (const std::string& error : python.errors)
      llvm::errs() << error << "\n";
    pythonOk &= python.errors.empty();
    if (formatOption == OutputFormat::Text) {
      printPythonFindings(python.findings, "warning", llvm::errs());
      printPythonFindings(python.advice, "remark", llvm::errs());
    }
    results.findings.insert(results.findings.end(), python.findings.begin(), python.findings.end());
    results.advice.insert(results.advice.end(), python.advice.begin(), python.advice.end());
  }

  bool ok = true;
  const std::vector<ResolvedFinding>* advice = options.adviseSyncs ? &results.advice : nullptr;
  if (formatOption != OutputFormat::Text) {
    llvm::json::Value document =
        formatOption == OutputFormat::Json
            ? findingsToJson(results.findings, results.remarks, advice)
            : findingsToSarif(results.findings, results.remarks, advice, STREAMRACE_VERSION);
    std::string text;
    llvm::raw_string_ostream stream(text);
    stream << llvm::formatv("{0:2}", document) << "\n";
    if (outputOption.empty())
      llvm::outs() << text;
    else
      ok &= writeText(outputOption, text);
  }
  if (!kernelSummariesOption.empty()) {
    std::string text;
    llvm::raw_string_ostream stream(text);
    stream << llvm::formatv("{0:2}", kernelSummariesToJson(results.kernels)) << "\n";
    ok &= writeText(kernelSummariesOption, text);
  }
  if (!exportFixesOption.empty()) {
    const std::string mainFile =
        parser->getSourcePathList().empty() ? "" : parser->getSourcePathList().front();
    ok &= writeText(exportFixesOption, fixesToYaml(results.findings, mainFile));
  }
  if (fixOption) ok &= applyFixes(results.findings);
  // LLVM's own --stats option ("Enable statistics output") asks for these figures too.
  if (llvm::AreStatisticsEnabled()) printStats(results, llvm::errs());

  if (toolStatus != 0 || !ok || !pythonOk) return 2;
  return results.findings.empty() ? 0 : findingsExitCodeOption.getValue();
}

} // namespace
} // namespace streamrace::analyzer

int main(int argc, const char** argv) {
  return streamrace::analyzer::run(argc, argv);
}
