// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Python inputs of streamrace-check: .py files and folders (searched recursively) are checked by
// the Python package's static check (streamrace.check, next to the tracer in
// <prefix>/lib/streamrace/python), whose findings come back as the analyzer's own, so that every
// output format, fix-it and exit status is the one C++ findings get.
#pragma once

#include "report_formats.h"

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/raw_ostream.h"

#include <string>
#include <vector>

namespace streamrace::analyzer {

// A command-line input the Python check reads: a .py file or a folder.
bool isPythonInput(llvm::StringRef path);

struct PythonCheckResult {
  std::vector<ResolvedFinding> findings;
  std::vector<ResolvedFinding> advice; // with PythonCheckOptions::adviseSyncs
  // Files that could not be checked (a syntax error, an undecodable file), one message each as
  // "path:line:col: error: ..."; the others are checked.
  std::vector<std::string> errors;
  // The check itself could not run (no python3, the package missing): why.
  std::string failure;
};

// What streamrace-check's options say to the Python check.
struct PythonCheckOptions {
  std::string checks;       // clang-tidy glob syntax
  std::string model;        // the user model file; none when empty
  std::string suppressions; // the suppressions file; none when empty
  bool statistics = false;  // --stats: the Python check prints its figures too
  bool adviseSyncs = false; // --advise=sync
};

// Runs the Python check over `inputs`. `executable` locates the package:
// <prefix>/bin/streamrace-check -> <prefix>/lib/streamrace/python.
PythonCheckResult checkPythonInputs(const std::vector<std::string>& inputs,
                                    const PythonCheckOptions& options, llvm::StringRef executable);

// Prints findings of files clang did not read the way clang prints diagnostics: location,
// `severity`, message, then the source line with a caret under the column.
void printPythonFindings(const std::vector<ResolvedFinding>& findings, llvm::StringRef severity,
                         llvm::raw_ostream& out);

} // namespace streamrace::analyzer
