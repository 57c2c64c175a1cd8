// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// How every report format names the parts of a finding: streams and host threads, the API of an
// access, addresses and handles. Text, ids, JSON, SARIF and exports all build on these.
#pragma once

#include "streamrace/engine/engine.h"
#include "streamrace/engine/symbols.h"

#include <cstdint>
#include <string>

namespace streamrace {

// Names a stream (or host thread) as reports do: its NVTX name, else its kind and handle.
std::string actor_text(const Engine& engine, const SymbolTable& symbols, ActorId id);
// The API of an access: its call site's entry point, else a description of its op.
std::string op_name(const AccessRecord& access, const SymbolTable& symbols);
// "cudaMemcpyAsync (app.cpp:42)": the API and the top frame's file and line, where known.
std::string access_op_text(const AccessRecord& access, const SymbolTable& symbols);
// What an access did, in a word: "read", "write", "read-write", "free" or "allocation".
const char* access_mode_word(const AccessRecord& access);
// "0x1a2b": addresses, handles and communicators as every report format writes them.
std::string hex_text(std::uint64_t value);

} // namespace streamrace
