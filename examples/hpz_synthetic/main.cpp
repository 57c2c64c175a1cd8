// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// hpz-synthetic: replays the hpZ training step through the engine as a synthetic
// event sequence, in every mode, and prints what the engine finds. Exit 66 when any mode it
// was asked to run has findings. With --trace-dir DIR it instead writes the events of one
// mode as per-rank trace files (DIR/rank<N>.srtrace), as the tracer would.
#include "hpz_events.h"

#include "streamrace/engine/engine.h"
#include "streamrace/report/finding_text.h"
#include "streamrace/trace/trace_writer.h"

#include <cstdio>
#include <exception>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

using namespace streamrace;

int main(int argc, char** argv) {
  std::vector<examples::HpzMode> modes;
  std::string trace_dir;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg == "--help" || arg == "-h") {
        std::printf("usage: hpz-synthetic [--trace-dir DIR] [zero3|hpz-buggy|hpz-fix-hostsync|"
                    "hpz-fix-event]...\n"
                    "Replays a 4-rank ZeRO-3/hpZ step as engine events and prints findings;\n"
                    "with --trace-dir, writes one mode's events as per-rank trace files.\n");
        return 0;
      }
      if (arg == "--trace-dir") {
        if (++i == argc) throw std::invalid_argument("--trace-dir needs a directory");
        trace_dir = argv[i];
        continue;
      }
      modes.push_back(examples::parse_hpz_mode(arg));
    }
    if (!trace_dir.empty() && modes.size() != 1)
      throw std::invalid_argument("--trace-dir writes exactly one mode; name it");
  } catch (const std::exception& error) {
    std::fprintf(stderr, "hpz-synthetic: %s\n", error.what());
    return 2;
  }
  if (!trace_dir.empty()) {
    try {
      std::filesystem::create_directories(trace_dir);
      SymbolTable symbols;
      const std::vector<Event> events = examples::hpz_events(modes[0], symbols);
      std::map<RankId, std::unique_ptr<trace::TraceWriter>> writers;
      std::uint64_t clock = 0;
      for (Event event : events) {
        auto& writer = writers[event.header.rank];
        if (!writer) {
          writer = std::make_unique<trace::TraceWriter>(
              trace_dir + "/rank" + std::to_string(event.header.rank) + ".srtrace",
              1000 + event.header.rank, 0);
          writer->define_symbols(symbols);
        }
        event.header.time_ns = ++clock;
        writer->write(event);
      }
      std::printf("wrote %zu events of mode %s to %zu trace files in %s\n", events.size(),
                  examples::hpz_mode_name(modes[0]).data(), writers.size(), trace_dir.c_str());
      return 0;
    } catch (const std::exception& error) {
      std::fprintf(stderr, "hpz-synthetic: %s\n", error.what());
      return 1;
    }
  }
  if (modes.empty())
    modes = {examples::HpzMode::Zero3, examples::HpzMode::Buggy, examples::HpzMode::FixHostSync,
             examples::HpzMode::FixEvent};

  bool any = false;
  for (examples::HpzMode mode : modes) {
    SymbolTable symbols;
    Engine engine;
    const std::vector<Event> events = examples::hpz_events(mode, symbols);
    for (const Event& event : events)
      engine.process(event);
    engine.finish();
    const auto& findings = engine.findings().all();
    std::printf("== mode %s: %zu events, %zu finding%s\n", examples::hpz_mode_name(mode).data(),
                events.size(), findings.size(), findings.size() == 1 ? "" : "s");
    std::fputs(findings_text(findings, engine, symbols).c_str(), stdout);
    any |= !findings.empty();
  }
  return any ? 66 : 0;
}
