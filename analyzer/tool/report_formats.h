// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Machine-readable renderings of findings for the CLI: JSON, SARIF 2.1.0, and the
// clang-apply-replacements YAML that --export-fixes writes.
#pragma once

#include "streamrace/analyzer/finding.h"
#include "streamrace/analyzer/remark.h"

#include "llvm/Support/JSON.h"

#include <string>
#include <vector>

namespace clang {
class SourceManager;
}

namespace streamrace::analyzer {

// A finding with its locations resolved, kept after the translation unit is gone.
struct ResolvedLocation {
  std::string file;
  unsigned line = 0;
  unsigned column = 0;
  unsigned offset = 0;
};

struct ResolvedFix {
  ResolvedLocation location;
  unsigned length = 0;
  std::string replacement;
};

struct ResolvedFinding {
  std::string check;
  std::string message;
  ResolvedLocation location;
  std::vector<std::pair<ResolvedLocation, std::string>> notes;
  std::vector<ResolvedFix> fixes;
};

ResolvedFinding resolveFinding(const Finding& finding, const clang::SourceManager& sources);

struct ResolvedRemark {
  RemarkKind kind;
  ResolvedLocation location;
  std::string message;
};

ResolvedRemark resolveRemark(const Remark& remark, const clang::SourceManager& sources);

// The findings, the remarks on what the analysis gave up on ("remarks" in JSON, tool execution
// notifications in SARIF) and, when asked for (`advice` not null), the advice ("advice" in JSON,
// note-level results in SARIF).
llvm::json::Value findingsToJson(const std::vector<ResolvedFinding>& findings,
                                 const std::vector<ResolvedRemark>& remarks,
                                 const std::vector<ResolvedFinding>* advice);
llvm::json::Value findingsToSarif(const std::vector<ResolvedFinding>& findings,
                                  const std::vector<ResolvedRemark>& remarks,
                                  const std::vector<ResolvedFinding>* advice,
                                  llvm::StringRef toolVersion);
std::string fixesToYaml(const std::vector<ResolvedFinding>& findings,
                        llvm::StringRef mainSourceFile);

} // namespace streamrace::analyzer
