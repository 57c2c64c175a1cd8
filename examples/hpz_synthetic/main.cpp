// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// hpz-synthetic: replays the hpZ training step through the engine as a synthetic
// event sequence, in every mode, and prints what the engine finds. Exit 66 when any mode it
// was asked to run has findings. With --trace-dir DIR it instead writes the events of one
// mode as per-rank trace files (DIR/rank<N>.srtrace), as the tracer would, streaming them: with
// --nodes, --gpus-per-node, --layers and --steps, the traces of a job of thousands of ranks.
#include "hpz_events.h"

#include "streamrace/engine/engine.h"
#include "streamrace/report/finding_text.h"
#include "streamrace/trace/trace_format.h"
#include "streamrace/trace/trace_writer.h"

#include <charconv>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

using namespace streamrace;

namespace {

int positive(const std::string& option, const std::string& text) {
  int value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value < 1)
    throw std::invalid_argument(option + " needs a positive whole number, got '" + text + "'");
  return value;
}

} // namespace

int main(int argc, char** argv) {
  std::vector<examples::HpzMode> modes;
  std::string trace_dir;
  examples::HpzShape shape;
  const std::map<std::string, int examples::HpzShape::*> shape_options{
      {"--nodes", &examples::HpzShape::nodes},
      {"--gpus-per-node", &examples::HpzShape::gpus_per_node},
      {"--layers", &examples::HpzShape::layers},
      {"--steps", &examples::HpzShape::steps}};
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg == "--help" || arg == "-h") {
        std::printf(
            "usage: hpz-synthetic [--trace-dir DIR] [--nodes N (2)] [--gpus-per-node G (2)]\n"
            "                     [--layers L (3)] [--steps S (2)]\n"
            "                     [zero3|hpz-buggy|hpz-fix-hostsync|hpz-fix-event]...\n"
            "Replays a ZeRO-3/hpZ job (4 ranks on 2 nodes unless told) as engine events\n"
            "and prints findings; with --trace-dir, writes one mode's events as\n"
            "per-rank trace files.\n");
        return 0;
      }
      if (arg == "--trace-dir") {
        if (++i == argc) throw std::invalid_argument("--trace-dir needs a directory");
        trace_dir = argv[i];
        continue;
      }
      if (auto field = shape_options.find(arg); field != shape_options.end()) {
        if (++i == argc) throw std::invalid_argument(arg + " needs a number");
        shape.*(field->second) = positive(arg, argv[i]);
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
      std::map<RankId, std::unique_ptr<trace::TraceWriter>> writers;
      std::uint64_t clock = 0;
      examples::hpz_events(modes[0], symbols, shape, [&](Event event) {
        auto& writer = writers[event.header.rank];
        if (!writer) {
          const std::string path =
              trace_dir + "/rank" + std::to_string(event.header.rank) + trace::kTraceFileExtension;
          writer = std::make_unique<trace::TraceWriter>(path, 1000 + event.header.rank, 0);
        }
        // Names and sites appear as the job goes: each rank's file defines them before use.
        writer->define_symbols(symbols);
        event.header.time_ns = ++clock;
        writer->write(event);
      });
      std::printf("wrote %llu events of mode %s to %zu trace files in %s\n",
                  static_cast<unsigned long long>(clock),
                  std::string(examples::hpz_mode_name(modes[0])).c_str(), writers.size(),
                  trace_dir.c_str());
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
    const std::vector<Event> events = examples::hpz_events(mode, symbols, shape);
    for (const Event& event : events)
      engine.process(event);
    engine.finish();
    const auto& findings = engine.findings().all();
    std::printf("== mode %s: %zu events, %zu finding%s\n",
                std::string(examples::hpz_mode_name(mode)).c_str(), events.size(), findings.size(),
                findings.size() == 1 ? "" : "s");
    std::fputs(findings_text(findings, engine, symbols).c_str(), stdout);
    any |= !findings.empty();
  }
  return any ? 66 : 0;
}
