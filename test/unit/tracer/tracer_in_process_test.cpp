// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The tracer in process, from CUPTI callbacks to a finding: CUDA runtime calls delivered through
// a fake CUPTI as the real one delivers them (enter and exit callbacks carrying the runtime's
// parameter structs) go through the ring and the tracer thread into the engine and the trace
// (kept in memory, stamped by a clock the test controls), and halt_on_error decides to halt at
// the call that completes a race, and only there.
#include "cuda_entry/cupti_attach.h"
#include "fake_cupti.h"
#include "memory_trace_sink.h"
#include "tracer.h"

#include "streamrace/engine/engine.h"
#include "streamrace/trace/trace_format.h"
#include "streamrace/trace/trace_reader.h"

#include <cuda_runtime_api.h>

#include <gtest/gtest.h>

#include <chrono>
#include <dlfcn.h>
#include <functional>
#include <mutex>
#include <thread>
#include <unistd.h>

namespace streamrace::tracer::test {
namespace {

// The driver a statically linked runtime leaves the tracer to ask (fake_kernel_driver.cpp, its
// soname libcuda.so.1), loaded before any test: the tracer looks the driver up once a process.
void* const fake_driver = dlopen(STREAMRACE_FAKE_KERNEL_DRIVER, RTLD_NOW | RTLD_GLOBAL);

// What the fake runtime hands out: CUPTI passes handles and addresses through untouched.
constexpr std::uintptr_t kStreamA = 0x5a00;
constexpr std::uintptr_t kStreamB = 0x5b00;
constexpr std::uintptr_t kEvent = 0xe700;
constexpr std::uintptr_t kSource = 0x7000'0000;
constexpr std::uintptr_t kBuffer = 0x7100'0000;
constexpr std::uintptr_t kDestination = 0x7200'0000;
constexpr std::size_t kBytes = 4096;

template <typename Handle> Handle handle(std::uintptr_t value) {
  return reinterpret_cast<Handle>(value);
}

// A program's CUDA calls, as the runtime reports them to CUPTI.
class Program {
public:
  explicit Program(FakeCupti& cupti) : cupti_(cupti) {}

  void create_stream(std::uintptr_t stream) {
    cudaStream_t created = handle<cudaStream_t>(stream);
    cudaStreamCreateWithFlags_v5000_params params{&created, cudaStreamNonBlocking};
    cupti_.call_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaStreamCreateWithFlags_v5000,
                        "cudaStreamCreateWithFlags", params);
  }
  void malloc(std::uintptr_t address) {
    void* allocated = handle<void*>(address);
    cudaMalloc_v3020_params params{&allocated, kBytes};
    cupti_.call_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, "cudaMalloc", params);
  }
  // `meanwhile`: what happens after the memory is given back, before cudaFree returns.
  void free(std::uintptr_t address, const std::function<void()>& meanwhile) {
    cudaFree_v3020_params params{handle<void*>(address)};
    cupti_.call_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaFree_v3020, "cudaFree", params, 0, meanwhile);
  }
  void copy(std::uintptr_t destination, std::uintptr_t source, std::uintptr_t stream) {
    cudaMemcpyAsync_v3020_params params{handle<void*>(destination), handle<const void*>(source),
                                        kBytes, cudaMemcpyDeviceToDevice,
                                        handle<cudaStream_t>(stream)};
    cupti_.call_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, "cudaMemcpyAsync", params);
  }
  void create_event(std::uintptr_t event) {
    cudaEvent_t created = handle<cudaEvent_t>(event);
    cudaEventCreate_v3020_params params{&created};
    cupti_.call_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaEventCreate_v3020, "cudaEventCreate", params);
  }
  void record_event(std::uintptr_t event, std::uintptr_t stream) {
    cudaEventRecord_v3020_params params{handle<cudaEvent_t>(event), handle<cudaStream_t>(stream)};
    cupti_.call_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaEventRecord_v3020, "cudaEventRecord", params);
  }
  void wait_event(std::uintptr_t stream, std::uintptr_t event) {
    cudaStreamWaitEvent_v3020_params params{handle<cudaStream_t>(stream),
                                            handle<cudaEvent_t>(event), 0};
    cupti_.call_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020, "cudaStreamWaitEvent",
                        params);
  }

private:
  FakeCupti& cupti_;
};

// Stream A fills the buffer, stream B copies it on; `ordered`: B waits for an event A recorded
// after its copy. Returns the calls made and, as the engine should see them, their events.
std::vector<Payload> fill_then_read(Program& program, bool ordered) {
  program.create_stream(kStreamA);
  program.create_stream(kStreamB);
  program.malloc(kSource);
  program.malloc(kBuffer);
  program.malloc(kDestination);
  program.copy(kBuffer, kSource, kStreamA);
  std::vector<Payload> expected = {
      StreamCreate{kStreamA, kCurrentDevice, StreamKind::NonBlocking, 0},
      StreamCreate{kStreamB, kCurrentDevice, StreamKind::NonBlocking, 0},
      Alloc{kSource, kBytes, MemoryKind::Device, kCurrentDevice, 0},
      Alloc{kBuffer, kBytes, MemoryKind::Device, kCurrentDevice, 0},
      Alloc{kDestination, kBytes, MemoryKind::Device, kCurrentDevice, 0},
      Copy{kStreamA, kBuffer, kSource, kBytes, 1, kBytes, kBytes, CopyKind::DeviceToDevice}};
  if (ordered) {
    program.create_event(kEvent);
    program.record_event(kEvent, kStreamA);
    program.wait_event(kStreamB, kEvent);
    expected.insert(expected.end(), {EventCreate{kEvent}, EventRecord{kEvent, kStreamA},
                                     StreamWaitEvent{kStreamB, kEvent}});
  }
  program.copy(kDestination, kBuffer, kStreamB);
  expected.push_back(
      Copy{kStreamB, kDestination, kBuffer, kBytes, 1, kBytes, kBytes, CopyKind::DeviceToDevice});
  return expected;
}

// An event's payload as the trace encodes it, to compare events field by field.
std::string encoded_payload(const Payload& payload) {
  std::string bytes;
  trace::Encoder out(bytes);
  trace::encode_event(Event{EventHeader{}, payload}, out);
  return bytes;
}

// A clock whose every reading is a microsecond after the last, from one second on: times no
// wall clock gives, which a trace carries only if the tracer reads this clock.
class FakeClock {
public:
  std::uint64_t now() {
    std::lock_guard lock(mutex_);
    readings_.push_back(1'000'000'000 + 1'000 * readings_.size());
    return readings_.back();
  }
  std::vector<std::uint64_t> readings() const {
    std::lock_guard lock(mutex_);
    return readings_;
  }

private:
  mutable std::mutex mutex_;
  std::vector<std::uint64_t> readings_;
};

class TracerInProcess : public ::testing::Test {
protected:
  // A started tracer with `options` (STREAMRACE_OPTIONS text), the fake clock and a trace in
  // memory, subscribed to the fake CUPTI; its halts are counted.
  std::unique_ptr<Tracer> start_tracer(const std::string& options) {
    TracerSetup setup;
    EXPECT_EQ(parse_settings(options, setup.settings), "");
    setup.clock = [this] { return clock_.now(); };
    setup.open_trace = [this] {
      ++traces_opened_;
      return std::make_unique<MemoryTraceSink>(trace_bytes_);
    };
    setup.halt = [this] {
      ++halts_;
      events_at_halt_ = read_trace().events.size();
    };
    auto tracer = std::make_unique<Tracer>(std::move(setup));
    tracer->start();
    EXPECT_TRUE(tracer->enabled());
    EXPECT_EQ(traces_opened_, 1);
    lookup_ = [traced = tracer.get()] { return traced->enabled() ? traced : nullptr; };
    EXPECT_EQ(subscribe_callbacks(cupti_, lookup_), "");
    return tracer;
  }

  // Waits (5 s at most) for the tracer thread to take `calls` calls off the ring on its own.
  static bool drained(const Tracer& tracer, std::uint64_t calls) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (tracer.calls_taken() < calls && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return tracer.calls_taken() == calls;
  }

  struct TraceReadBack {
    std::uint64_t start_time_ns = 0;
    std::vector<Event> events;            // the program's calls
    std::vector<RankDevice> rank_devices; // what the tracer wrote to name each rank's device
  };
  // The trace the tracer has written so far, read back from memory.
  TraceReadBack read_trace() {
    trace::TraceReader reader("in-memory trace", trace_bytes_.snapshot(), 0, trace_symbols_);
    TraceReadBack trace{reader.start_time_ns(), {}, {}};
    for (Event event; reader.next(event);) {
      if (const auto* named = std::get_if<RankDevice>(&event.payload))
        trace.rank_devices.push_back(*named);
      else
        trace.events.push_back(event);
    }
    EXPECT_EQ(reader.problem(), "");
    return trace;
  }

  FakeCupti cupti_;
  Program program_{cupti_};
  RecorderLookup lookup_;
  FakeClock clock_;
  TraceBytes trace_bytes_;
  int traces_opened_ = 0;
  int halts_ = 0;
  std::size_t events_at_halt_ = 0; // in the trace when the tracer halted
  SymbolTable trace_symbols_;
};

void expect_race_between_copies(const FindingSet& findings) {
  ASSERT_EQ(findings.size(), 1u);
  const Finding& race = findings.all().front();
  EXPECT_EQ(race.kind, FindingKind::RaceWriteRead);
  EXPECT_EQ(race.first.stream, kStreamA);
  EXPECT_EQ(race.second.stream, kStreamB);
  EXPECT_EQ(race.first.access.kind, OpKind::Copy);
  EXPECT_EQ(race.second.access.kind, OpKind::Copy);
  EXPECT_EQ(race.memory.overlap_begin, kBuffer);
  EXPECT_EQ(race.memory.overlap_size, kBytes);
}

TEST_F(TracerInProcess, SubscribesToTheRuntimeAndTheDriverCallsTheModelLists) {
  const RecorderLookup nobody = [] { return static_cast<Recorder*>(nullptr); };
  ASSERT_EQ(subscribe_callbacks(cupti_, nobody), "");
  EXPECT_TRUE(
      cupti_.enabled(CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020));
  EXPECT_TRUE(cupti_.enabled(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel));
  EXPECT_TRUE(
      cupti_.enabled(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz));
  EXPECT_TRUE(
      cupti_.enabled(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2));
  EXPECT_TRUE(
      cupti_.enabled(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuStreamWaitEvent));
  // Driver calls outside the model (every other one a runtime call makes underneath) stay off.
  EXPECT_FALSE(cupti_.enabled(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuModuleLoad));
  EXPECT_FALSE(cupti_.enabled(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_cuMemcpy2D_v2));
  EXPECT_FALSE(cupti_.enabled(CUPTI_CB_DOMAIN_RESOURCE, CUPTI_CBID_RESOURCE_STREAM_CREATED));
}

TEST_F(TracerInProcess, ARefusedSubscriptionSaysWhy) {
  cupti_.refuse_subscriptions(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
  const RecorderLookup nobody = [] { return static_cast<Recorder*>(nullptr); };
  EXPECT_EQ(subscribe_callbacks(cupti_, nobody),
            "cannot subscribe to CUPTI callbacks: CUPTI result " +
                std::to_string(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) +
                " (another CUPTI tool, such as a profiler, may be attached)");
}

TEST_F(TracerInProcess, ARefusedSubscriptionNamesTheToolHoldingCupti) {
  cupti_.refuse_subscriptions(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED,
                              "CUPTI for Nsight Systems");
  const RecorderLookup nobody = [] { return static_cast<Recorder*>(nullptr); };
  EXPECT_EQ(subscribe_callbacks(cupti_, nobody),
            "cannot subscribe to CUPTI callbacks: CUPTI result " +
                std::to_string(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED) +
                " (CUPTI for Nsight Systems holds them; a process has one CUPTI subscriber)");
}

// A call of a family that enqueues work (copies here) which the model does not hold is named
// once; a query the model does not hold either is not.
TEST_F(TracerInProcess, AnUnmodelledCallThatEnqueuesWorkIsNamedOnce) {
  std::unique_ptr<Tracer> tracer = start_tracer("report_at_exit=0");
  cudaMemcpyBatchAsync_v13000_params batch{};
  cudaGetDevice_v3020_params query{};
  testing::internal::CaptureStderr();
  for (int i = 0; i < 2; ++i) {
    cupti_.call_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyBatchAsync_v13000,
                        "cudaMemcpyBatchAsync", batch);
    cupti_.call_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaGetDevice_v3020, "cudaGetDevice", query);
  }
  EXPECT_EQ(testing::internal::GetCapturedStderr(),
            "streamrace: warning: cudaMemcpyBatchAsync is not modelled: the work it enqueues is "
            "not checked\n");
  tracer->finish();
}

// This process has no libcudart.so.13, as a program linked with nvcc's default static runtime
// has none: its launches still arrive through CUPTI, and the first one says what goes unchecked.
TEST_F(TracerInProcess, LaunchesThroughARuntimeOutOfReachAreSaidOnce) {
  std::unique_ptr<Tracer> tracer = start_tracer("report_at_exit=0");
  int kernel_stand_in = 0;
  void* no_arguments[] = {nullptr};
  cudaLaunchKernel_v7000_params launch{&kernel_stand_in, dim3{1}, dim3{32},
                                       no_arguments,     0,       nullptr};
  testing::internal::CaptureStderr();
  for (int i = 0; i < 2; ++i)
    cupti_.call_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, "cudaLaunchKernel",
                        launch);
  EXPECT_EQ(testing::internal::GetCapturedStderr(),
            "streamrace: warning: kernels are launched through a CUDA runtime linked into the "
            "program (nvcc's default, -cudart static), which the tracer cannot ask for their "
            "parameters: what kernels read and write is not checked; build with -cudart "
            "shared\n");
  tracer->finish();
}

// The same process, a launch naming a kernel handle (nvcc 13's `<<<>>>`, through a runtime linked
// into the program): the driver gives its parameters (cuKernelGetParamInfo), so its pointer is an
// access, which races with a copy on another stream, and nothing is said of the runtime.
TEST_F(TracerInProcess, KernelHandlesThroughARuntimeOutOfReachAreAskedOfTheDriver) {
  ASSERT_NE(fake_driver, nullptr);
  using HandleOfTheKernel = const void* (*)();
  const auto handle_of_the_kernel =
      reinterpret_cast<HandleOfTheKernel>(dlsym(fake_driver, "streamrace_fake_kernel_handle"));
  ASSERT_NE(handle_of_the_kernel, nullptr);
  std::unique_ptr<Tracer> tracer = start_tracer("report_at_exit=0");
  program_.create_stream(kStreamA);
  program_.create_stream(kStreamB);
  program_.malloc(kBuffer);
  program_.malloc(kDestination);
  void* buffer = handle<void*>(kBuffer);
  int count = 1024;
  void* arguments[] = {&buffer, &count};
  cudaLaunchKernel_v7000_params launch{
      handle_of_the_kernel(), dim3{1}, dim3{32}, arguments, 0, handle<cudaStream_t>(kStreamA)};
  testing::internal::CaptureStderr();
  cupti_.call_runtime(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, "cudaLaunchKernel", launch);
  program_.copy(kDestination, kBuffer, kStreamB);
  EXPECT_EQ(testing::internal::GetCapturedStderr(), "");
  EXPECT_TRUE(drained(*tracer, 6));
  tracer->finish();
  const FindingSet& findings = tracer->engine().findings();
  ASSERT_EQ(findings.size(), 1u);
  const Finding& race = findings.all().front();
  EXPECT_EQ(race.first.stream, kStreamA);
  EXPECT_EQ(race.first.access.kind, OpKind::Kernel);
  EXPECT_EQ(race.second.stream, kStreamB);
  EXPECT_EQ(race.memory.overlap_begin, kBuffer);
}

TEST_F(TracerInProcess, UnorderedCopiesOnTwoStreamsAreOneRaceInTheEngineAndTheTrace) {
  std::unique_ptr<Tracer> tracer = start_tracer("report_at_exit=0");
  const std::vector<Payload> calls = fill_then_read(program_, false);
  EXPECT_TRUE(drained(*tracer, calls.size()));
  tracer->finish();
  expect_race_between_copies(tracer->engine().findings());
  EXPECT_EQ(halts_, 0); // halt_on_error is off

  const TraceReadBack trace = read_trace();
  ASSERT_EQ(trace.rank_devices.size(), 1u); // the one device, named before the first call
  EXPECT_EQ(trace.rank_devices[0].device, 0);
  const std::vector<Event>& events = trace.events;
  ASSERT_EQ(events.size(), calls.size());
  Engine replay;
  for (std::size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(encoded_payload(events[i].payload), encoded_payload(calls[i])) << "event " << i;
    EXPECT_EQ(events[i].header.thread, static_cast<ThreadId>(gettid()));
    replay.process(events[i]);
  }
  replay.finish();
  expect_race_between_copies(replay.findings());
}

TEST_F(TracerInProcess, CopiesOrderedByAnEventAreSilent) {
  std::unique_ptr<Tracer> tracer = start_tracer("report_at_exit=0");
  const std::vector<Payload> calls = fill_then_read(program_, true);
  EXPECT_TRUE(drained(*tracer, calls.size()));
  tracer->finish();
  EXPECT_EQ(tracer->engine().findings().size(), 0u);

  const std::vector<Event> events = read_trace().events;
  ASSERT_EQ(events.size(), calls.size());
  for (std::size_t i = 0; i < events.size(); ++i)
    EXPECT_EQ(encoded_payload(events[i].payload), encoded_payload(calls[i])) << "event " << i;
}

// Once cudaFree has given the memory back, another thread may be handed the same addresses and
// record the allocation and a copy before cudaFree returns: the free is recorded as it begins,
// so the engine sees it first and the copy uses the new allocation.
TEST_F(TracerInProcess, AFreeIsRecordedBeforeAnAllocationOfItsAddressesThatEndsFirst) {
  std::unique_ptr<Tracer> tracer = start_tracer("report_at_exit=0");
  program_.create_stream(kStreamA);
  program_.malloc(kSource);
  program_.malloc(kBuffer);
  program_.free(kBuffer, [&] {
    program_.malloc(kBuffer);
    program_.copy(kBuffer, kSource, kStreamA);
  });
  const std::vector<Payload> calls = {
      StreamCreate{kStreamA, kCurrentDevice, StreamKind::NonBlocking, 0},
      Alloc{kSource, kBytes, MemoryKind::Device, kCurrentDevice, 0},
      Alloc{kBuffer, kBytes, MemoryKind::Device, kCurrentDevice, 0},
      Free{kBuffer, FreeApi::Free, 0},
      Alloc{kBuffer, kBytes, MemoryKind::Device, kCurrentDevice, 0},
      Copy{kStreamA, kBuffer, kSource, kBytes, 1, kBytes, kBytes, CopyKind::DeviceToDevice}};
  EXPECT_TRUE(drained(*tracer, calls.size()));
  tracer->finish();
  EXPECT_TRUE(tracer->engine().findings().empty());
  const std::vector<Event> events = read_trace().events;
  ASSERT_EQ(events.size(), calls.size());
  for (std::size_t i = 0; i < events.size(); ++i)
    EXPECT_EQ(encoded_payload(events[i].payload), encoded_payload(calls[i])) << "event " << i;
}

TEST_F(TracerInProcess, TheTraceCarriesTheTimesOfTheClockTheTracerWasGiven) {
  std::unique_ptr<Tracer> tracer = start_tracer("report_at_exit=0");
  const std::vector<Payload> calls = fill_then_read(program_, false);
  EXPECT_TRUE(drained(*tracer, calls.size()));
  tracer->finish();

  // The first reading starts the trace, each call's is the time of its event.
  const std::vector<std::uint64_t> readings = clock_.readings();
  ASSERT_EQ(readings.size(), 1 + calls.size());
  const TraceReadBack trace = read_trace();
  EXPECT_EQ(trace.start_time_ns, readings.front());
  ASSERT_EQ(trace.events.size(), calls.size());
  for (std::size_t i = 0; i < calls.size(); ++i)
    EXPECT_EQ(trace.events[i].header.time_ns, readings[i + 1]) << "event " << i;
}

// A tracer slowed to 2 ms a call behind a ring of 2, and an overflow of 2: the program's calls
// overflow at once, and wait for room in the overflow. Every call still reaches the engine and
// the trace in call order, between a pause and a resume that says how long calls waited.
TEST_F(TracerInProcess, ABoundedOverflowMakesCallsWaitAndLosesNoOrdering) {
  std::unique_ptr<Tracer> tracer =
      start_tracer("report_at_exit=0:ring_capacity=2:tracer_delay_us=2000:block_on_full=0:"
                   "full_ring_wait_us=50:overflow_capacity=2");
  const std::vector<Payload> calls = fill_then_read(program_, true);
  tracer->finish();
  EXPECT_EQ(tracer->engine().findings().size(), 0u);
  // One window, unless a waiting thread was kept off the processor until the tracer caught up.
  const std::vector<CheckingPause>& pauses = tracer->engine().checking_pauses();
  ASSERT_FALSE(pauses.empty());
  std::uint64_t waited_ns = 0;
  for (const CheckingPause& pause : pauses) {
    EXPECT_TRUE(pause.resumed);
    waited_ns += pause.caller_wait_ns;
  }
  // A call that found the overflow full waited at least for one of the tracer's 2 ms calls.
  EXPECT_GE(waited_ns, 1'000'000u);

  std::vector<Event> events = read_trace().events;
  ASSERT_FALSE(events.empty());
  const auto* resume = std::get_if<AccessChecks>(&events.back().payload);
  ASSERT_NE(resume, nullptr);
  EXPECT_FALSE(resume->paused);
  EXPECT_EQ(resume->caller_wait_ns, pauses.back().caller_wait_ns);
  std::erase_if(events, [](const Event& event) {
    return std::holds_alternative<AccessChecks>(event.payload);
  });
  ASSERT_EQ(events.size(), calls.size());
  for (std::size_t i = 0; i < events.size(); ++i)
    EXPECT_EQ(encoded_payload(events[i].payload), encoded_payload(calls[i])) << "event " << i;
}

TEST_F(TracerInProcess, HaltOnErrorHaltsBeforeTheRacingCallReturns) {
  std::unique_ptr<Tracer> tracer = start_tracer("halt_on_error=1:report_at_exit=0");
  program_.create_stream(kStreamA);
  program_.create_stream(kStreamB);
  program_.malloc(kSource);
  program_.malloc(kBuffer);
  program_.malloc(kDestination);
  program_.copy(kBuffer, kSource, kStreamA);
  // halt_on_error processes each call on the calling thread: nothing waits in the ring.
  EXPECT_EQ(tracer->calls_taken(), 6u);
  EXPECT_EQ(halts_, 0);
  program_.copy(kDestination, kBuffer, kStreamB);
  EXPECT_EQ(halts_, 1);
  // The trace was flushed before the halt: every call up to the racing one is in it.
  EXPECT_EQ(events_at_halt_, 7u);
  tracer->finish();
  EXPECT_EQ(halts_, 1);
}

TEST_F(TracerInProcess, HaltOnErrorLetsAnOrderedProgramRun) {
  std::unique_ptr<Tracer> tracer = start_tracer("halt_on_error=1:report_at_exit=0");
  const std::vector<Payload> calls = fill_then_read(program_, true);
  EXPECT_EQ(tracer->calls_taken(), calls.size());
  tracer->finish();
  EXPECT_EQ(halts_, 0);
}

} // namespace
} // namespace streamrace::tracer::test
