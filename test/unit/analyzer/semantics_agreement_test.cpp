// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// docs/semantics.md is one contract with two readers: the analyzer, which reads host code, and the
// tracer's engine, which reads the events a run records. Each scenario here is one small program
// written both ways (the host code, and the events the tracer would record from it) and both
// readers must give the answer the contract gives: a race, or none. Rule 7 has its own exhaustive
// comparison (synchronous_api_test.cpp); these cover the rules that order streams.
#include "streamrace/analyzer/analysis.h"
#include "streamrace/engine/engine.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/Frontend/FrontendAction.h"
#include "clang/Tooling/Tooling.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

namespace streamrace {
namespace {

// The host code's names and the events' handles for the same things.
constexpr Address kA = 0x10000, kB = 0x20000, kScratch = 0x30000, kMore = 0x40000;
constexpr std::uint64_t kBytes = 256;
constexpr StreamHandle kFirst = 0x401, kSecond = 0x402;
constexpr EventHandle kDone = 0x501;
constexpr CommHandle kComm = 0x601, kOtherComm = 0x602;

// Every scenario's host code is the body of this function.
constexpr const char* kPrelude = R"(
#include "nccl.h"
__global__ void fill(float* out) { out[threadIdx.x] = 1.0f; }
__global__ void nothing() {}
void scenario(float* a, float* b, float* scratch, ncclComm_t comm, ncclComm_t other_comm) {
  cudaStream_t first, second;
  cudaEvent_t done;
  cudaEventCreateWithFlags(&done, cudaEventDisableTiming);
)";

struct Scenario {
  const char* name; // the rule, and what the program does
  const char* hostCode;
  std::vector<Payload> events;
  bool races;
};

Access wholeBuffer(Address base) {
  return {base, kBytes, AccessMode::Write, Extent::Exact};
}
Payload fill(StreamHandle stream, Address base) {
  return KernelLaunch{stream, 0, {wholeBuffer(base)}};
}
Payload allReduce(StreamHandle stream, CommHandle comm, Address buffer) {
  return Collective{stream, comm, CollectiveKind::AllReduce, buffer, buffer, kBytes / 4, 4, 0,
                    7,      0};
}
Payload blocking(StreamHandle stream) {
  return StreamCreate{stream, kCurrentDevice};
}
Payload nonBlocking(StreamHandle stream) {
  return StreamCreate{stream, kCurrentDevice, StreamKind::NonBlocking};
}

std::vector<Scenario> scenarios() {
  const Payload memory[] = {Alloc{kA, kBytes},  Alloc{kB, kBytes},  Alloc{kScratch, kBytes},
                            EventCreate{kDone}, CommInit{kComm, 1}, CommInit{kOtherComm, 2}};
  std::vector<Scenario> all = {
      {"rule 2: two streams, nothing between",
       R"(cudaStreamCreate(&first); cudaStreamCreate(&second);
          fill<<<1, 64, 0, first>>>(a); fill<<<1, 64, 0, second>>>(a);)",
       {blocking(kFirst), blocking(kSecond), fill(kFirst, kA), fill(kSecond, kA)},
       true},
      {"rule 2: two streams, two buffers",
       R"(cudaStreamCreate(&first); cudaStreamCreate(&second);
          fill<<<1, 64, 0, first>>>(a); fill<<<1, 64, 0, second>>>(b);)",
       {blocking(kFirst), blocking(kSecond), fill(kFirst, kA), fill(kSecond, kB)},
       false},
      {"rule 3: an event recorded after the work and waited on",
       R"(cudaStreamCreate(&first); cudaStreamCreate(&second);
          fill<<<1, 64, 0, first>>>(a); cudaEventRecord(done, first);
          cudaStreamWaitEvent(second, done, 0); fill<<<1, 64, 0, second>>>(a);)",
       {blocking(kFirst), blocking(kSecond), fill(kFirst, kA), EventRecord{kDone, kFirst},
        StreamWaitEvent{kSecond, kDone}, fill(kSecond, kA)},
       false},
      {"rule 3: an event recorded before the work",
       R"(cudaStreamCreate(&first); cudaStreamCreate(&second);
          cudaEventRecord(done, first); fill<<<1, 64, 0, first>>>(a);
          cudaStreamWaitEvent(second, done, 0); fill<<<1, 64, 0, second>>>(a);)",
       {blocking(kFirst), blocking(kSecond), EventRecord{kDone, kFirst}, fill(kFirst, kA),
        StreamWaitEvent{kSecond, kDone}, fill(kSecond, kA)},
       true},
      {"rule 5: the host synchronizes the stream",
       R"(cudaStreamCreate(&first); cudaStreamCreate(&second);
          fill<<<1, 64, 0, first>>>(a); cudaStreamSynchronize(first);
          fill<<<1, 64, 0, second>>>(a);)",
       {blocking(kFirst), blocking(kSecond), fill(kFirst, kA), StreamSynchronize{kFirst},
        fill(kSecond, kA)},
       false},
      {"rule 5: the host synchronizes another stream",
       R"(cudaStreamCreate(&first); cudaStreamCreate(&second);
          fill<<<1, 64, 0, first>>>(a); cudaStreamSynchronize(second);
          fill<<<1, 64, 0, second>>>(a);)",
       {blocking(kFirst), blocking(kSecond), fill(kFirst, kA), StreamSynchronize{kSecond},
        fill(kSecond, kA)},
       true},
      {"rule 5: the host synchronizes the device",
       R"(cudaStreamCreate(&first); cudaStreamCreate(&second);
          fill<<<1, 64, 0, first>>>(a); cudaDeviceSynchronize();
          fill<<<1, 64, 0, second>>>(a);)",
       {blocking(kFirst), blocking(kSecond), fill(kFirst, kA), DeviceSynchronize{},
        fill(kSecond, kA)},
       false},
      {"rule 6: the legacy default stream waits for a blocking stream",
       R"(cudaStreamCreate(&first);
          fill<<<1, 64, 0, first>>>(a); fill<<<1, 64>>>(a);)",
       {blocking(kFirst), fill(kFirst, kA), fill(kNullStream, kA)},
       false},
      {"rule 6: a blocking stream waits for the legacy default stream",
       R"(cudaStreamCreate(&first);
          fill<<<1, 64>>>(a); fill<<<1, 64, 0, first>>>(a);)",
       {blocking(kFirst), fill(kNullStream, kA), fill(kFirst, kA)},
       false},
      {"rule 6: a non-blocking stream takes no part",
       R"(cudaStreamCreateWithFlags(&first, cudaStreamNonBlocking);
          fill<<<1, 64>>>(a); fill<<<1, 64, 0, first>>>(a);)",
       {nonBlocking(kFirst), fill(kNullStream, kA), fill(kFirst, kA)},
       true},
      {"rule 6: legacy work between two blocking streams orders them",
       R"(cudaStreamCreate(&first); cudaStreamCreate(&second);
          fill<<<1, 64, 0, first>>>(a); nothing<<<1, 1>>>();
          fill<<<1, 64, 0, second>>>(a);)",
       {blocking(kFirst), blocking(kSecond), fill(kFirst, kA), KernelLaunch{kNullStream, 0, {}},
        fill(kSecond, kA)},
       false},
      {"rule 6: legacy work does not order a non-blocking stream",
       R"(cudaStreamCreateWithFlags(&first, cudaStreamNonBlocking); cudaStreamCreate(&second);
          fill<<<1, 64, 0, first>>>(a); nothing<<<1, 1>>>();
          fill<<<1, 64, 0, second>>>(a);)",
       {nonBlocking(kFirst), blocking(kSecond), fill(kFirst, kA), KernelLaunch{kNullStream, 0, {}},
        fill(kSecond, kA)},
       true},
      {"rule 8: cudaFree synchronizes the device",
       R"(cudaStreamCreate(&first); cudaStreamCreate(&second);
          fill<<<1, 64, 0, first>>>(a); cudaFree(scratch);
          fill<<<1, 64, 0, second>>>(a);)",
       {blocking(kFirst), blocking(kSecond), fill(kFirst, kA), Free{kScratch}, fill(kSecond, kA)},
       false},
      {"rule 8: cudaMalloc does not synchronize",
       R"(cudaStreamCreate(&first); cudaStreamCreate(&second);
          fill<<<1, 64, 0, first>>>(a); void* more; cudaMalloc(&more, 256);
          fill<<<1, 64, 0, second>>>(a);)",
       {blocking(kFirst), blocking(kSecond), fill(kFirst, kA), Alloc{kMore, kBytes},
        fill(kSecond, kA)},
       true},
      {"rule 13: one group on one communicator joins its streams",
       R"(cudaStreamCreate(&first); cudaStreamCreate(&second);
          ncclGroupStart();
          ncclAllReduce(a, a, 64, ncclFloat, ncclSum, comm, first);
          ncclAllReduce(b, b, 64, ncclFloat, ncclSum, comm, second);
          ncclGroupEnd();
          fill<<<1, 64, 0, second>>>(a);)",
       {blocking(kFirst), blocking(kSecond), GroupStart{}, allReduce(kFirst, kComm, kA),
        allReduce(kSecond, kComm, kB), GroupEnd{}, fill(kSecond, kA)},
       false},
      {"rule 13: a group orders its calls after all its streams' earlier work",
       R"(cudaStreamCreate(&first); cudaStreamCreate(&second);
          fill<<<1, 64, 0, first>>>(a);
          ncclGroupStart();
          ncclAllReduce(a, a, 64, ncclFloat, ncclSum, comm, second);
          ncclAllReduce(b, b, 64, ncclFloat, ncclSum, comm, first);
          ncclGroupEnd();)",
       {blocking(kFirst), blocking(kSecond), fill(kFirst, kA), GroupStart{},
        allReduce(kSecond, kComm, kA), allReduce(kFirst, kComm, kB), GroupEnd{}},
       false},
      {"rule 13: two groups are not joined",
       R"(cudaStreamCreate(&first); cudaStreamCreate(&second);
          ncclGroupStart();
          ncclAllReduce(a, a, 64, ncclFloat, ncclSum, comm, first);
          ncclGroupEnd();
          ncclGroupStart();
          ncclAllReduce(b, b, 64, ncclFloat, ncclSum, comm, second);
          ncclGroupEnd();
          fill<<<1, 64, 0, second>>>(a);)",
       {blocking(kFirst), blocking(kSecond), GroupStart{}, allReduce(kFirst, kComm, kA), GroupEnd{},
        GroupStart{}, allReduce(kSecond, kComm, kB), GroupEnd{}, fill(kSecond, kA)},
       true},
      {"rule 13: calls on different communicators in one group are not joined",
       R"(cudaStreamCreate(&first); cudaStreamCreate(&second);
          ncclGroupStart();
          ncclAllReduce(a, a, 64, ncclFloat, ncclSum, comm, first);
          ncclAllReduce(b, b, 64, ncclFloat, ncclSum, other_comm, second);
          ncclGroupEnd();
          fill<<<1, 64, 0, second>>>(a);)",
       {blocking(kFirst), blocking(kSecond), GroupStart{}, allReduce(kFirst, kComm, kA),
        allReduce(kSecond, kOtherComm, kB), GroupEnd{}, fill(kSecond, kA)},
       true},
  };
  for (Scenario& scenario : all)
    scenario.events.insert(scenario.events.begin(), std::begin(memory), std::end(memory));
  return all;
}

bool engineFindsARace(const std::vector<Payload>& events) {
  Engine engine{Options{}};
  for (const Payload& payload : events)
    engine.process(Event{EventHeader{0, 1, 0, 0, 0}, payload});
  engine.finish();
  for (const Finding& finding : engine.findings().all())
    if (finding.kind == FindingKind::RaceWriteWrite || finding.kind == FindingKind::RaceWriteRead ||
        finding.kind == FindingKind::RaceReadWrite)
      return true;
  return false;
}

class Analysis : public clang::ASTConsumer {
public:
  explicit Analysis(std::vector<analyzer::Finding>& findings) : findings_(findings) {}
  void HandleTranslationUnit(clang::ASTContext& context) override {
    findings_ = analyzer::analyzeTranslationUnit(context, {}).findings;
  }

private:
  std::vector<analyzer::Finding>& findings_;
};

class AnalysisAction : public clang::ASTFrontendAction {
public:
  explicit AnalysisAction(std::vector<analyzer::Finding>& findings) : findings_(findings) {}
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance&,
                                                        llvm::StringRef) override {
    return std::make_unique<Analysis>(findings_);
  }

private:
  std::vector<analyzer::Finding>& findings_;
};

bool analyzerFindsARace(const std::string& hostCode) {
  std::vector<analyzer::Finding> findings;
  const std::string source = std::string(kPrelude) + hostCode + "\n}\n";
  const bool parsed = clang::tooling::runToolOnCodeWithArgs(
      std::make_unique<AnalysisAction>(findings), source,
      {"-x", "cuda", "--cuda-host-only", "-nocudainc", "-nocudalib", "-Wno-unknown-cuda-version",
       "-resource-dir=" STREAMRACE_CLANG_RESOURCE_DIR, "-isystem", STREAMRACE_MOCK_CUDA_DIR},
      "scenario.cu");
  EXPECT_TRUE(parsed) << source;
  for (const analyzer::Finding& finding : findings)
    if (finding.check == "streamrace-unsynchronized-cross-stream") return true;
  return false;
}

TEST(SemanticsAgreement, AnalyzerAndEngineGiveTheContractsAnswer) {
  for (const Scenario& scenario : scenarios()) {
    EXPECT_EQ(engineFindsARace(scenario.events), scenario.races) << "engine: " << scenario.name;
    EXPECT_EQ(analyzerFindsARace(scenario.hostCode), scenario.races)
        << "analyzer: " << scenario.name;
  }
}

} // namespace
} // namespace streamrace
