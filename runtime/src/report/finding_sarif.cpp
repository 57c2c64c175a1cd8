// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
#include "streamrace/report/finding_sarif.h"

#include "streamrace/engine/event.h"
#include "streamrace/report/checking_pauses_text.h"
#include "streamrace/report/finding_id.h"
#include "streamrace/report/finding_names.h"
#include "streamrace/report/finding_text.h"
#include "streamrace/report/json_text.h"

#include <cstdio>
#include <sstream>
#include <utility>

namespace streamrace {

namespace {

std::string rule_id(FindingKind kind) {
  return std::string("streamrace-") + finding_kind_id(kind);
}

// RFC 3986 path characters stay; everything else is percent-encoded.
std::string uri_escape(std::string_view path) {
  std::string out;
  for (char c : path) {
    const unsigned char u = static_cast<unsigned char>(c);
    if ((u >= 'a' && u <= 'z') || (u >= 'A' && u <= 'Z') || (u >= '0' && u <= '9') ||
        std::string_view("-._~/!$&'()*+,;=:@").find(c) != std::string_view::npos) {
      out += c;
    } else {
      char buf[4];
      std::snprintf(buf, sizeof(buf), "%%%02X", u);
      out += buf;
    }
  }
  return out;
}

class Writer {
public:
  Writer(const Engine& engine, const SymbolTable& symbols, const SarifOptions& options)
      : engine_(engine), symbols_(symbols), root_(options.source_root) {
    while (root_.size() > 1 && root_.back() == '/')
      root_.pop_back();
  }

  std::string log(const std::vector<Finding>& findings, const SarifNotes& notes) {
    out_ << "{\"$schema\":\"https://json.schemastore.org/sarif-2.1.0.json\",\"version\":\"2.1.0\","
            "\"runs\":[{\"tool\":{\"driver\":{\"name\":\"streamrace\","
            "\"rules\":[";
    // In FindingKind's order: a result's ruleIndex is its kind.
    const char* separator = "";
    for (const FindingKindInfo& rule : kFindingKinds) {
      out_ << std::exchange(separator, ",") << "{\"id\":" << json_quote(rule_id(rule.kind))
           << ",\"name\":" << json_quote(rule.rule_name)
           << ",\"shortDescription\":{\"text\":" << json_quote(rule.rule_text) << "}"
           << ",\"fullDescription\":{\"text\":" << json_quote(rule.rule_help) << "}"
           << ",\"help\":{\"text\":" << json_quote(rule.rule_help) << "}"
           << ",\"defaultConfiguration\":{\"level\":\"error\"}"
           << ",\"properties\":{\"tags\":[\"concurrency\",\"cuda\"],\"precision\":\"high\","
              "\"problem.severity\":\"error\"}}";
    }
    for (const SarifNotes::Rule& rule : notes.rules) {
      out_ << std::exchange(separator, ",") << "{\"id\":" << json_quote(rule.id)
           << ",\"name\":" << json_quote(rule.name)
           << ",\"shortDescription\":{\"text\":" << json_quote(rule.text) << "}"
           << ",\"fullDescription\":{\"text\":" << json_quote(rule.help) << "}"
           << ",\"help\":{\"text\":" << json_quote(rule.help) << "}"
           << ",\"defaultConfiguration\":{\"level\":\"note\"}"
           << ",\"properties\":{\"tags\":[\"performance\",\"cuda\"],\"precision\":\"high\"}}";
    }
    out_ << "]}}";
    if (!root_.empty())
      out_ << ",\"originalUriBaseIds\":{\"%SRCROOT%\":{\"uri\":"
           << json_quote("file://" + uri_escape(root_) + "/") << "}}";
    checking_pauses();
    out_ << ",\"results\":[";
    for (std::size_t i = 0; i < findings.size(); ++i) {
      if (i) out_ << ",";
      result(findings[i]);
    }
    for (std::size_t i = 0; i < notes.notes.size(); ++i) {
      if (i || !findings.empty()) out_ << ",";
      note(notes.notes[i], notes.rules.at(notes.notes[i].rule));
    }
    out_ << "]}]}\n";
    return out_.str();
  }

private:
  // Windows in which accesses went unchecked make the results incomplete: a warning
  // notification per rank on the run's invocation (SARIF 2.1.0 3.20.21, 3.58).
  void checking_pauses() {
    const std::vector<RankCheckingPauses> ranks =
        checking_pauses_by_rank(engine_.checking_pauses());
    if (ranks.empty()) return;
    const RankNames names(engine_);
    out_ << ",\"invocations\":[{\"executionSuccessful\":true,\"toolExecutionNotifications\":[";
    for (std::size_t i = 0; i < ranks.size(); ++i) {
      const RankCheckingPauses& rank = ranks[i];
      out_ << (i ? "," : "") << "{\"level\":\"warning\",\"message\":{\"text\":"
           << json_quote(checking_pauses_sentence(rank, names))
           << "},\"descriptor\":{\"id\":\"streamrace-access-checking-paused\"}"
           << ",\"properties\":{\"rank\":" << rank.rank << ",\"windows\":" << rank.windows
           << ",\"durationNs\":" << rank.duration_ns
           << ",\"uncheckedAccesses\":" << rank.unchecked_accesses
           << ",\"callerWaitNs\":" << rank.caller_wait_ns << "}}";
    }
    out_ << "]}]";
  }

  const StackFrame* top_frame(CallSiteId id) const {
    const CallSite* site = symbols_.call_site(id);
    if (!site) return nullptr;
    for (const StackFrame& frame : site->frames)
      if (!frame.file.empty() && frame.line) return &frame;
    return nullptr;
  }

  std::string artifact(const std::string& file) const {
    if (file.front() != '/')
      return "{\"uri\":" + json_quote(uri_escape(file)) + ",\"uriBaseId\":\"%SRCROOT%\"}";
    if (!root_.empty() && file.size() > root_.size() + 1 &&
        file.compare(0, root_.size(), root_) == 0 && file[root_.size()] == '/')
      return "{\"uri\":" + json_quote(uri_escape(file.substr(root_.size() + 1))) +
             ",\"uriBaseId\":\"%SRCROOT%\"}";
    return "{\"uri\":" + json_quote("file://" + uri_escape(file)) + "}";
  }

  // A location object, or nothing when the call site has no file and line.
  std::string location(CallSiteId site, const std::string& message, int id) const {
    const StackFrame* frame = top_frame(site);
    if (!frame) return "";
    std::string text = "{";
    if (id > 0) text += "\"id\":" + std::to_string(id) + ",";
    text += "\"physicalLocation\":{\"artifactLocation\":" + artifact(frame->file) +
            ",\"region\":{\"startLine\":" + std::to_string(frame->line) + "}}";
    if (!frame->function.empty())
      text += ",\"logicalLocations\":[{\"name\":" + json_quote(frame->function) +
              ",\"kind\":\"function\"}]";
    return text + ",\"message\":{\"text\":" + json_quote(message) + "}}";
  }

  void note(const SarifNotes::Note& note, const SarifNotes::Rule& rule) {
    out_ << "{\"ruleId\":" << json_quote(rule.id)
         << ",\"ruleIndex\":" << std::size(kFindingKinds) + note.rule << ",\"level\":\"note\""
         << ",\"message\":{\"text\":" << json_quote(note.message) << "},\"locations\":[";
    if (!note.file.empty()) {
      out_ << "{\"physicalLocation\":{\"artifactLocation\":" << artifact(note.file);
      if (note.line) out_ << ",\"region\":{\"startLine\":" << note.line << "}";
      out_ << "}";
      if (!note.function.empty())
        out_ << ",\"logicalLocations\":[{\"name\":" << json_quote(note.function)
             << ",\"kind\":\"function\"}]";
      out_ << "}";
    }
    out_ << "],\"partialFingerprints\":{\"streamraceNote/v1\":" << json_quote(note.fingerprint)
         << "},\"properties\":{" << note.properties_json << "}}";
  }

  std::string side_text(const AccessSide& side) const {
    const AccessRecord& a = side.access;
    const char* mode = a.kind == OpKind::Free         ? "free"
                       : a.kind == OpKind::Allocation ? "allocation"
                       : a.mode == AccessMode::Read   ? "read"
                       : a.mode == AccessMode::Write  ? "write"
                                                      : "read-write";
    return std::string(mode) + " of " + std::to_string(a.size) + " bytes by " +
           actor_text(engine_, symbols_, a.actor) + " (" + RankNames(engine_).name(side.rank) +
           ") in " + op_name(a, symbols_);
  }

  void result(const Finding& f) {
    std::string primary, message;
    std::vector<std::string> related;
    const std::string id = finding_id(f, engine_, symbols_);
    if (f.collective) {
      const CollectiveDisagreement& c = *f.collective;
      if (f.kind == FindingKind::CollectiveMismatch) {
        message = "Call #" + std::to_string(c.sequence) +
                  " on a communicator: " + api_model::collectiveInfo(c.second.kind).function +
                  " on rank " + std::to_string(c.second.rank) + " disagrees with " +
                  api_model::collectiveInfo(c.first.kind).function + " on rank " +
                  std::to_string(c.first.rank) + " [" + id + "]";
        primary = location(c.second.site, "this rank's call", 0);
        if (std::string l = location(c.first.site, "the other rank's call", 1); !l.empty())
          related.push_back(l);
      } else {
        message = "Ranks issued different numbers of collectives on a communicator:";
        for (const auto& [rank, calls] : c.calls_per_rank)
          message +=
              " comm rank " + std::to_string(rank) + " issued " + std::to_string(calls) + ";";
        message += " [" + id + "]";
      }
    } else {
      std::string previous = side_text(f.first);
      std::string current = side_text(f.second);
      current[0] = static_cast<char>(current[0] - 'a' + 'A');
      message = current + ", unordered with the previous " + previous;
      primary = location(f.second.access.site, current, 0);
      if (std::string l = location(f.first.access.site, "Previous " + previous, 1); !l.empty()) {
        related.push_back(l);
        message += " ([here](1))";
      }
      if (f.memory.allocation) {
        const Allocation& a = *f.memory.allocation;
        std::string what = "Allocation of " + std::to_string(a.size) + " bytes";
        if (a.name) what += " '" + std::string(symbols_.name(a.name)) + "'";
        if (std::string l = location(a.site, what, 2); !l.empty()) related.push_back(l);
      }
      message += ".";
      if (std::string fix = fix_text(f, engine_, symbols_); !fix.empty())
        message += " To fix: " + fix + ".";
      message += " [" + id + "]";
    }
    const std::uint64_t fingerprint = finding_fingerprint(f, engine_, symbols_);
    char fingerprint_hex[20];
    std::snprintf(fingerprint_hex, sizeof(fingerprint_hex), "%016llx",
                  static_cast<unsigned long long>(fingerprint));
    out_ << "{\"ruleId\":" << json_quote(rule_id(f.kind))
         << ",\"ruleIndex\":" << static_cast<int>(f.kind) << ",\"level\":\"error\""
         << ",\"message\":{\"text\":" << json_quote(message) << "}";
    out_ << ",\"locations\":[" << primary << "]";
    if (!related.empty()) {
      out_ << ",\"relatedLocations\":[";
      for (std::size_t i = 0; i < related.size(); ++i)
        out_ << (i ? "," : "") << related[i];
      out_ << "]";
    }
    out_ << ",\"partialFingerprints\":{\"streamraceFinding/v1\":\"" << fingerprint_hex << "\"}"
         << ",\"properties\":{\"findingId\":" << json_quote(id) << ",\"occurrences\":" << f.count
         << ",\"ranks\":[";
    for (std::size_t r = 0; r < f.ranks.size(); ++r)
      out_ << (r ? "," : "") << f.ranks[r];
    out_ << "]}}";
  }

  const Engine& engine_;
  const SymbolTable& symbols_;
  std::string root_;
  std::ostringstream out_;
};

} // namespace

std::string findings_sarif(const std::vector<Finding>& findings, const Engine& engine,
                           const SymbolTable& symbols, const SarifOptions& options,
                           const SarifNotes& notes) {
  return Writer(engine, symbols, options).log(findings, notes);
}

} // namespace streamrace
