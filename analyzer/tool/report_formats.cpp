// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "report_formats.h"

#include "clang/Basic/SourceManager.h"
#include "clang/Tooling/Core/Diagnostic.h"
#include "clang/Tooling/DiagnosticsYaml.h"
#include "llvm/Support/YAMLTraits.h"

namespace streamrace::analyzer {
namespace {

ResolvedLocation resolve(clang::SourceLocation location, const clang::SourceManager& sources) {
  ResolvedLocation resolved;
  if (location.isInvalid()) return resolved;
  const clang::SourceLocation file = sources.getFileLoc(location);
  const clang::PresumedLoc presumed = sources.getPresumedLoc(file);
  if (presumed.isInvalid()) return resolved;
  resolved.file = presumed.getFilename();
  resolved.line = presumed.getLine();
  resolved.column = presumed.getColumn();
  resolved.offset = sources.getFileOffset(file);
  return resolved;
}

llvm::json::Object locationToJson(const ResolvedLocation& location) {
  return llvm::json::Object{{"file", location.file},
                            {"line", static_cast<int64_t>(location.line)},
                            {"column", static_cast<int64_t>(location.column)}};
}

llvm::json::Object sarifLocation(const ResolvedLocation& location, llvm::StringRef message) {
  llvm::json::Object physical{
      {"artifactLocation", llvm::json::Object{{"uri", "file://" + location.file}}},
      {"region", llvm::json::Object{{"startLine", static_cast<int64_t>(location.line)},
                                    {"startColumn", static_cast<int64_t>(location.column)}}}};
  llvm::json::Object result{{"physicalLocation", std::move(physical)}};
  if (!message.empty()) result["message"] = llvm::json::Object{{"text", message}};
  return result;
}

const char* ruleDescription(llvm::StringRef check) {
  if (check == kCrossStreamCheck)
    return "A buffer is used by asynchronous work on two streams with nothing ordering them.";
  if (check == kHostAccessCheck)
    return "The host touches a buffer while an asynchronous copy on it may be pending.";
  if (check == kUnrecordedEventCheck)
    return "A stream waits on an event that is not recorded on every path, so the wait orders "
           "nothing.";
  return "A buffer is freed while asynchronous work on it may be pending on another stream.";
}

} // namespace

ResolvedFinding resolveFinding(const Finding& finding, const clang::SourceManager& sources) {
  ResolvedFinding resolved;
  resolved.check = finding.check;
  resolved.message = finding.message;
  resolved.location = resolve(finding.location, sources);
  for (const FindingNote& note : finding.notes)
    resolved.notes.emplace_back(resolve(note.location, sources), note.message);
  for (const clang::FixItHint& fix : finding.fixes) {
    ResolvedFix resolvedFix;
    resolvedFix.location = resolve(fix.RemoveRange.getBegin(), sources);
    const clang::SourceLocation end = fix.RemoveRange.getEnd();
    if (!fix.RemoveRange.isTokenRange() && end != fix.RemoveRange.getBegin())
      resolvedFix.length = sources.getFileOffset(end) - resolvedFix.location.offset;
    resolvedFix.replacement = fix.CodeToInsert;
    resolved.fixes.push_back(std::move(resolvedFix));
  }
  return resolved;
}

ResolvedRemark resolveRemark(const Remark& remark, const clang::SourceManager& sources) {
  return {remark.kind, resolve(remark.location, sources), remark.message};
}

namespace {

llvm::json::Object findingToJson(const ResolvedFinding& finding) {
  llvm::json::Array notes;
  for (const auto& [location, message] : finding.notes) {
    llvm::json::Object note = locationToJson(location);
    note["message"] = message;
    notes.push_back(std::move(note));
  }
  llvm::json::Array fixes;
  for (const ResolvedFix& fix : finding.fixes) {
    llvm::json::Object entry = locationToJson(fix.location);
    entry["offset"] = static_cast<int64_t>(fix.location.offset);
    entry["length"] = static_cast<int64_t>(fix.length);
    entry["replacement"] = fix.replacement;
    fixes.push_back(std::move(entry));
  }
  llvm::json::Object entry = locationToJson(finding.location);
  entry["check"] = finding.check;
  entry["message"] = finding.message;
  entry["notes"] = std::move(notes);
  entry["fixes"] = std::move(fixes);
  return entry;
}

llvm::json::Object findingToSarif(const ResolvedFinding& finding, llvm::StringRef level,
                                  llvm::StringRef fixDescription) {
  llvm::json::Array related;
  for (const auto& [location, message] : finding.notes)
    related.push_back(sarifLocation(location, message));
  llvm::json::Array fixes;
  if (!finding.fixes.empty()) {
    llvm::json::Array replacements;
    for (const ResolvedFix& fix : finding.fixes)
      replacements.push_back(llvm::json::Object{
          {"deletedRegion",
           llvm::json::Object{{"charOffset", static_cast<int64_t>(fix.location.offset)},
                              {"charLength", static_cast<int64_t>(fix.length)}}},
          {"insertedContent", llvm::json::Object{{"text", fix.replacement}}}});
    fixes.push_back(llvm::json::Object{
        {"description", llvm::json::Object{{"text", fixDescription}}},
        {"artifactChanges",
         llvm::json::Array{llvm::json::Object{
             {"artifactLocation", llvm::json::Object{{"uri", "file://" + finding.location.file}}},
             {"replacements", std::move(replacements)}}}}});
  }
  return llvm::json::Object{{"ruleId", finding.check},
                            {"level", level},
                            {"message", llvm::json::Object{{"text", finding.message}}},
                            {"locations", llvm::json::Array{sarifLocation(finding.location, "")}},
                            {"relatedLocations", std::move(related)},
                            {"fixes", std::move(fixes)}};
}

llvm::json::Object sarifRule(llvm::StringRef id, llvm::StringRef description) {
  return llvm::json::Object{{"id", id},
                            {"shortDescription", llvm::json::Object{{"text", description}}}};
}

} // namespace

llvm::json::Value findingsToJson(const std::vector<ResolvedFinding>& findings,
                                 const std::vector<ResolvedRemark>& remarks,
                                 const std::vector<ResolvedFinding>* advice) {
  llvm::json::Array array;
  for (const ResolvedFinding& finding : findings)
    array.push_back(findingToJson(finding));
  llvm::json::Array remarkArray;
  for (const ResolvedRemark& remark : remarks) {
    llvm::json::Object entry = locationToJson(remark.location);
    entry["kind"] = remarkKindInfo(remark.kind).id;
    entry["message"] = remark.message;
    remarkArray.push_back(std::move(entry));
  }
  llvm::json::Object document{{"findings", std::move(array)}, {"remarks", std::move(remarkArray)}};
  if (advice) {
    llvm::json::Array adviceArray;
    for (const ResolvedFinding& entry : *advice)
      adviceArray.push_back(findingToJson(entry));
    document["advice"] = std::move(adviceArray);
  }
  return document;
}

llvm::json::Value findingsToSarif(const std::vector<ResolvedFinding>& findings,
                                  const std::vector<ResolvedRemark>& remarks,
                                  const std::vector<ResolvedFinding>* advice,
                                  llvm::StringRef toolVersion) {
  llvm::json::Array rules;
  for (const char* check : kAllChecks)
    rules.push_back(sarifRule(check, ruleDescription(check)));
  if (advice)
    rules.push_back(sarifRule(kOverStrongSyncAdvice,
                              "A host wait that only work on other streams depends on: an event "
                              "edge between the streams orders it without blocking the host."));
  llvm::json::Array results;
  for (const ResolvedFinding& finding : findings)
    results.push_back(findingToSarif(finding, "warning", "order the two accesses"));
  if (advice)
    for (const ResolvedFinding& entry : *advice)
      results.push_back(findingToSarif(entry, "note", "replace the host wait with an event edge"));
  llvm::json::Object driver{{"name", "streamrace-check"},
                            {"version", toolVersion},
                            {"informationUri", "https://github.com/streamrace/streamrace"},
                            {"rules", std::move(rules)}};
  // What the analysis gave up on is about the run, not the code: SARIF's notifications.
  llvm::json::Array notifications;
  for (const ResolvedRemark& remark : remarks)
    notifications.push_back(llvm::json::Object{
        {"descriptor", llvm::json::Object{{"id", remarkKindInfo(remark.kind).id}}},
        {"level", "note"},
        {"message", llvm::json::Object{{"text", remark.message}}},
        {"locations", llvm::json::Array{sarifLocation(remark.location, "")}}});
  llvm::json::Array invocations{llvm::json::Object{
      {"executionSuccessful", true}, {"toolExecutionNotifications", std::move(notifications)}}};
  return llvm::json::Object{
      {"$schema", "https://json.schemastore.org/sarif-2.1.0.json"},
      {"version", "2.1.0"},
      {"runs", llvm::json::Array{
                   llvm::json::Object{{"tool", llvm::json::Object{{"driver", std::move(driver)}}},
                                      {"invocations", std::move(invocations)},
                                      {"results", std::move(results)}}}}};
}

std::string fixesToYaml(const std::vector<ResolvedFinding>& findings,
                        llvm::StringRef mainSourceFile) {
  clang::tooling::TranslationUnitDiagnostics document;
  document.MainSourceFile = mainSourceFile.str();
  for (const ResolvedFinding& finding : findings) {
    clang::tooling::Diagnostic diagnostic;
    diagnostic.DiagnosticName = finding.check;
    diagnostic.Message.Message = finding.message;
    diagnostic.Message.FilePath = finding.location.file;
    diagnostic.Message.FileOffset = finding.location.offset;
    diagnostic.DiagLevel = clang::tooling::Diagnostic::Warning;
    for (const ResolvedFix& fix : finding.fixes) {
      clang::tooling::Replacement replacement(fix.location.file, fix.location.offset, fix.length,
                                              fix.replacement);
      llvm::consumeError(diagnostic.Message.Fix[fix.location.file].add(replacement));
    }
    for (const auto& [location, message] : finding.notes) {
      clang::tooling::DiagnosticMessage note;
      note.Message = message;
      note.FilePath = location.file;
      note.FileOffset = location.offset;
      diagnostic.Notes.push_back(std::move(note));
    }
    document.Diagnostics.push_back(std::move(diagnostic));
  }
  std::string yaml;
  llvm::raw_string_ostream stream(yaml);
  llvm::yaml::Output output(stream);
  output << document;
  return yaml;
}

} // namespace streamrace::analyzer
