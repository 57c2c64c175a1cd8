// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "python_sources.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"

#include <optional>

extern char** environ;

namespace streamrace::analyzer {
namespace {

std::string packageFolder(llvm::StringRef executable) {
  llvm::SmallString<256> folder(executable);
  llvm::sys::path::remove_filename(folder); // <prefix>/bin
  llvm::sys::path::remove_filename(folder); // <prefix>
  llvm::sys::path::append(folder, "lib", "streamrace", "python");
  return std::string(folder);
}

ResolvedLocation locationOf(const llvm::json::Object& entry) {
  ResolvedLocation location;
  if (std::optional<llvm::StringRef> file = entry.getString("file")) location.file = file->str();
  location.line = static_cast<unsigned>(entry.getInteger("line").value_or(0));
  location.column = static_cast<unsigned>(entry.getInteger("column").value_or(0));
  location.offset = static_cast<unsigned>(entry.getInteger("offset").value_or(0));
  return location;
}

std::optional<ResolvedFinding> findingOf(const llvm::json::Object& entry) {
  ResolvedFinding finding;
  std::optional<llvm::StringRef> check = entry.getString("check");
  std::optional<llvm::StringRef> message = entry.getString("message");
  if (!check || !message) return std::nullopt;
  finding.check = check->str();
  finding.message = message->str();
  finding.location = locationOf(entry);
  if (const llvm::json::Array* notes = entry.getArray("notes"))
    for (const llvm::json::Value& note : *notes)
      if (const llvm::json::Object* object = note.getAsObject())
        finding.notes.emplace_back(locationOf(*object),
                                   object->getString("message").value_or("").str());
  if (const llvm::json::Array* fixes = entry.getArray("fixes"))
    for (const llvm::json::Value& fix : *fixes)
      if (const llvm::json::Object* object = fix.getAsObject()) {
        ResolvedFix resolved;
        resolved.location = locationOf(*object);
        resolved.length = static_cast<unsigned>(object->getInteger("length").value_or(0));
        resolved.replacement = object->getString("replacement").value_or("").str();
        finding.fixes.push_back(std::move(resolved));
      }
  return finding;
}

// The line `line` (1-based) of `text`, without its end.
llvm::StringRef lineOf(llvm::StringRef text, unsigned line) {
  for (unsigned current = 1; current < line; ++current) {
    const size_t end = text.find('\n');
    if (end == llvm::StringRef::npos) return {};
    text = text.drop_front(end + 1);
  }
  return text.take_until([](char c) { return c == '\n' || c == '\r'; });
}

void printOne(const ResolvedLocation& location, llvm::StringRef severity, llvm::StringRef message,
              llvm::raw_ostream& out) {
  out << location.file << ":" << location.line << ":" << location.column << ": " << severity << ": "
      << message << "\n";
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer =
      llvm::MemoryBuffer::getFile(location.file);
  if (!buffer || location.line == 0) return;
  const llvm::StringRef text = lineOf((*buffer)->getBuffer(), location.line);
  out << llvm::format("%5u", location.line) << " | " << text << "\n      | ";
  // The caret sits under the column, counted in characters as the Python check counts them.
  unsigned shown = 1;
  for (size_t byte = 0; byte < text.size() && shown < location.column; ++byte) {
    if ((static_cast<unsigned char>(text[byte]) & 0xC0) == 0x80) continue;
    out << (text[byte] == '\t' ? '\t' : ' ');
    ++shown;
  }
  out << "^\n";
}

} // namespace

bool isPythonInput(llvm::StringRef path) {
  return path.ends_with(".py") || llvm::sys::fs::is_directory(path);
}

PythonCheckResult checkPythonInputs(const std::vector<std::string>& inputs,
                                    const PythonCheckOptions& options, llvm::StringRef executable) {
  PythonCheckResult result;
  const std::string package = packageFolder(executable);
  if (!llvm::sys::fs::exists(package + "/streamrace/check/__main__.py")) {
    result.failure = "the Python check is missing: expected " + package +
                     "/streamrace/check (build the streamrace_python target)";
    return result;
  }
  llvm::ErrorOr<std::string> python = llvm::sys::findProgramByName("python3");
  if (!python) {
    result.failure = "cannot check Python files: no python3 on PATH";
    return result;
  }
  llvm::SmallString<128> output;
  if (std::error_code error =
          llvm::sys::fs::createTemporaryFile("streamrace-check", "json", output)) {
    result.failure = "cannot create a temporary file: " + error.message();
    return result;
  }
  const std::string checksArgument = "--checks=" + options.checks;
  const std::string modelArgument = "--model=" + options.model;
  const std::string suppressionsArgument = "--suppressions=" + options.suppressions;
  std::vector<llvm::StringRef> arguments = {*python, "-m", "streamrace.check",
                                            "--format=findings-json", checksArgument};
  if (!options.model.empty()) arguments.push_back(modelArgument);
  if (!options.suppressions.empty()) arguments.push_back(suppressionsArgument);
  if (options.statistics) arguments.push_back("--stats");
  if (options.adviseSyncs) arguments.push_back("--advise=sync");
  for (const std::string& input : inputs)
    arguments.push_back(input);
  std::vector<std::string> environmentText;
  for (char** entry = environ; *entry != nullptr; ++entry)
    if (!llvm::StringRef(*entry).starts_with("PYTHONPATH=")) environmentText.emplace_back(*entry);
  environmentText.push_back("PYTHONPATH=" + package);
  std::vector<llvm::StringRef> environment(environmentText.begin(), environmentText.end());
  const std::optional<llvm::StringRef> redirects[] = {std::nullopt, llvm::StringRef(output),
                                                      std::nullopt};
  std::string message;
  const int status =
      llvm::sys::ExecuteAndWait(*python, arguments, environment, redirects, 0, 0, &message);
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> text = llvm::MemoryBuffer::getFile(output);
  static_cast<void>(llvm::sys::fs::remove(output)); // a temporary: what is left is harmless
  if (status < 0 || status > 2 || !text) {
    result.failure = "the Python check failed" + (message.empty() ? "" : ": " + message) +
                     " (exit status " + std::to_string(status) + ")";
    return result;
  }
  llvm::Expected<llvm::json::Value> document = llvm::json::parse((*text)->getBuffer());
  const llvm::json::Object* object = document ? document->getAsObject() : nullptr;
  if (object == nullptr) {
    if (!document) llvm::consumeError(document.takeError());
    // Status 2 with nothing written: it stopped on a bad input it named on standard error.
    result.failure = (status == 2 && (*text)->getBufferSize() == 0)
                         ? "the Python files were not checked"
                         : "the Python check wrote no findings document";
    return result;
  }
  auto read = [&](llvm::StringRef member, std::vector<ResolvedFinding>& into) {
    if (const llvm::json::Array* entries = object->getArray(member))
      for (const llvm::json::Value& entry : *entries)
        if (const llvm::json::Object* finding = entry.getAsObject())
          if (std::optional<ResolvedFinding> resolved = findingOf(*finding))
            into.push_back(std::move(*resolved));
  };
  read("findings", result.findings);
  read("advice", result.advice);
  if (const llvm::json::Array* errors = object->getArray("errors"))
    for (const llvm::json::Value& entry : *errors)
      if (const llvm::json::Object* error = entry.getAsObject())
        result.errors.push_back(error->getString("file").value_or("").str() + ":" +
                                std::to_string(error->getInteger("line").value_or(0)) + ":" +
                                std::to_string(error->getInteger("column").value_or(0)) +
                                ": error: " + error->getString("message").value_or("").str());
  return result;
}

void printPythonFindings(const std::vector<ResolvedFinding>& findings, llvm::StringRef severity,
                         llvm::raw_ostream& out) {
  for (const ResolvedFinding& finding : findings) {
    printOne(finding.location, severity, finding.message + " [" + finding.check + "]", out);
    for (const auto& [location, message] : finding.notes)
      printOne(location, "note", message, out);
  }
}

} // namespace streamrace::analyzer
