// hpz-synthetic: replays the hpZ training step (HPZ.md) through the engine as a synthetic
// event sequence, in every mode, and prints what the engine finds. Exit 66 when any mode it
// was asked to run has findings.
#include "hpz_events.h"

#include "streamrace/runtime/engine.h"
#include "streamrace/runtime/finding_text.h"

#include <cstdio>
#include <exception>
#include <string>
#include <vector>

using namespace streamrace;

int main(int argc, char** argv) {
  std::vector<examples::HpzMode> modes;
  try {
    for (int i = 1; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg == "--help" || arg == "-h") {
        std::printf("usage: hpz-synthetic [zero3|hpz-buggy|hpz-fix-hostsync|hpz-fix-event]...\n"
                    "Replays a 4-rank ZeRO-3/hpZ step as engine events and prints findings.\n");
        return 0;
      }
      modes.push_back(examples::parse_hpz_mode(arg));
    }
  } catch (const std::exception& error) {
    std::fprintf(stderr, "hpz-synthetic: %s\n", error.what());
    return 2;
  }
  if (modes.empty())
    modes = {examples::HpzMode::Zero3, examples::HpzMode::Buggy, examples::HpzMode::FixHostSync,
             examples::HpzMode::FixEvent};

  bool any = false;
  for (examples::HpzMode mode : modes) {
    SymbolTable symbols;
    Engine engine;
    const std::vector<Event> events = examples::hpz_events(mode, symbols);
    for (const Event& event : events) engine.process(event);
    engine.finish();
    const auto& findings = engine.findings().all();
    std::printf("== mode %s: %zu events, %zu finding%s\n", examples::hpz_mode_name(mode).data(),
                events.size(), findings.size(), findings.size() == 1 ? "" : "s");
    for (const Finding& finding : findings)
      std::printf("%s", describe_finding(finding, engine, symbols).c_str());
    any |= !findings.empty();
  }
  return any ? 66 : 0;
}
