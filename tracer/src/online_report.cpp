// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The tracer's own report, printed by the traced process: at exit (report_at_exit) and, under
// halt_on_error, at the first finding, which then ends the program.
#include "tracer.h"

#include "streamrace/report/checking_pauses_text.h"
#include "streamrace/report/finding_text.h"
#include "streamrace/report/suppressions.h"

#include <cstdio>

namespace streamrace::tracer {

namespace {

void remap_sites(Finding& finding, const std::vector<CallSiteId>& ids) {
  auto remap = [&](CallSiteId& site) {
    if (site != 0 && site <= ids.size()) site = ids[site - 1];
  };
  remap(finding.first.access.site);
  remap(finding.second.access.site);
  if (finding.unrecorded_wait) remap(finding.unrecorded_wait->site);
  if (finding.collective) {
    remap(finding.collective->first.site);
    remap(finding.collective->second.site);
  }
}

} // namespace

void Tracer::halt_if_found() {
  if (!settings_.tracer.halt_on_error || engine_->findings().size() <= findings_reported_) return;
  if (report_findings(*engine_, ReportMoment::Halting) == 0) return;
  if (writer_) writer_->flush();
  halt_();
}

std::size_t Tracer::report_findings(const Engine& engine, ReportMoment moment) {
  const std::vector<CallSite> symbolized = sites_.symbolize_all(settings_.report.symbolizer);
  if (writer_)
    for (std::size_t i = 0; i < symbolized.size(); ++i)
      writer_->define_call_site(static_cast<CallSiteId>(i + 1), symbolized[i]);
  if (!settings_.tracer.report_at_exit && moment == ReportMoment::AtExit) return 0;
  // Sites that symbolize alike become one, as they do when a trace is replayed.
  SymbolTable symbols;
  {
    std::lock_guard lock(names_mutex_);
    symbols = names_;
  }
  std::vector<CallSiteId> ids;
  ids.reserve(symbolized.size());
  for (const CallSite& site : symbolized)
    ids.push_back(symbols.add_call_site(site));
  std::vector<Finding> fresh(engine.findings().all().begin() +
                                 static_cast<std::ptrdiff_t>(findings_reported_),
                             engine.findings().all().end());
  for (Finding& finding : fresh)
    remap_sites(finding, ids);
  findings_reported_ = engine.findings().size();
  // As `streamrace report` prints them, without its replay line; a process with nothing to
  // report stays silent.
  if (moment == ReportMoment::AtExit) std::fputs(checking_pauses_text(engine).c_str(), stderr);
  const ReportedFindings reported = unsuppressed_findings(fresh, engine, symbols, suppressions_);
  if (!reported.findings.empty())
    std::fputs(findings_text(reported.findings, engine, symbols).c_str(), stderr);
  return reported.findings.size();
}

} // namespace streamrace::tracer
