// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// The tracer's added cost per intercepted CUDA call: the same loops of cudaEventRecord and of
// small cudaMemcpyAsync calls, run untraced, traced with online detection, and traced with
// online detection plus a trace file. Each configuration runs in its own process (this program
// re-executes itself), because the tracer attaches at load time. Prints the median ns per call.
// Each batch is enqueued behind a host function holding the stream, so the figures are the calls'
// own cost, not the emulator's stream threads being woken. Two more configurations measure the
// calls at load, with a tracer thread far behind them (tracer_delay_us=1: a sleep before each
// call it takes, some 50 us with the kernel's timer slack): the lossless default, where a call
// waits for room in the ring, and block_on_full=0, where past full_ring_wait_us access checking
// pauses and calls are appended to the overflow instead.
// Run it on whatever CUDA runtime the library path names, e.g. the emulator's:
//
//   LD_LIBRARY_PATH=<build>/emulator/lib <build>/bin/tracer-overhead-bench [batches=200]
#include "cuda_check.h"
#include "whole_number.h"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <optional>
#include <sstream>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace {

constexpr int kCallsPerBatch = 1000;

double now_ns(clockid_t clock) {
  timespec time{};
  clock_gettime(clock, &time);
  return static_cast<double>(time.tv_sec) * 1e9 + static_cast<double>(time.tv_nsec);
}

double median(std::vector<double>& values) {
  std::nth_element(values.begin(), values.begin() + values.size() / 2, values.end());
  return values[values.size() / 2];
}

// Wall time includes waiting for the emulator's stream threads on a loaded machine; the calling
// thread's CPU time is the work the call itself (and the tracer inside it) does.
struct Cost {
  double wall = 0;
  double cpu = 0;
};

// Holds a stream's worker in a host function while a batch is enqueued behind it, so that no
// timed call has to wake the worker: waking an idle emulated stream is a system call whose cost
// grows as the caller slows down (an idle worker sleeps), which would count the emulator's
// scheduling as the tracer's cost. A GPU has no such thread to wake.
struct Gate {
  std::atomic<bool> open{false};
};

void CUDART_CB wait_for_gate(void* data) {
  auto& gate = *static_cast<Gate*>(data);
  gate.open.wait(false);
}

template <typename Call> Cost median_ns_per_call(int batches, cudaStream_t stream, Call call) {
  std::vector<double> wall;
  std::vector<double> cpu;
  for (int batch = 0; batch < batches; ++batch) {
    Gate gate;
    CHECK(cudaLaunchHostFunc(stream, wait_for_gate, &gate));
    const double wall_start = now_ns(CLOCK_MONOTONIC);
    const double cpu_start = now_ns(CLOCK_THREAD_CPUTIME_ID);
    for (int i = 0; i < kCallsPerBatch; ++i)
      call();
    cpu.push_back((now_ns(CLOCK_THREAD_CPUTIME_ID) - cpu_start) / kCallsPerBatch);
    wall.push_back((now_ns(CLOCK_MONOTONIC) - wall_start) / kCallsPerBatch);
    gate.open.store(true);
    gate.open.notify_one();
    CHECK(cudaStreamSynchronize(stream)); // untimed: keeps the stream's queue short
  }
  return Cost{median(wall), median(cpu)};
}

// The child: measures and prints "<record wall> <record cpu> <copy wall> <copy cpu>" in ns.
int measure(int batches) {
  cudaStream_t stream = nullptr;
  cudaEvent_t event = nullptr;
  void* source = nullptr;
  void* target = nullptr;
  CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));
  CHECK(cudaMalloc(&source, 256));
  CHECK(cudaMalloc(&target, 256));
  CHECK(cudaMemset(source, 0, 256));
  CHECK(cudaDeviceSynchronize());
  const Cost record =
      median_ns_per_call(batches, stream, [&] { CHECK(cudaEventRecord(event, stream)); });
  const Cost copy = median_ns_per_call(batches, stream, [&] {
    CHECK(cudaMemcpyAsync(target, source, 256, cudaMemcpyDeviceToDevice, stream));
  });
  std::printf("%.1f %.1f %.1f %.1f\n", record.wall, record.cpu, copy.wall, copy.cpu);
  CHECK(cudaFree(source));
  CHECK(cudaFree(target));
  CHECK(cudaEventDestroy(event));
  CHECK(cudaStreamDestroy(stream));
  return 0;
}

struct Figures {
  Cost record;
  Cost copy;
};

// Runs this program as a child with `environment` added and reads its two figures.
Figures run_child(const std::string& self, int batches,
                  const std::vector<std::string>& environment) {
  int pipe_ends[2];
  if (pipe(pipe_ends) != 0) std::exit(1);
  const pid_t child = fork();
  if (child == 0) {
    dup2(pipe_ends[1], STDOUT_FILENO);
    close(pipe_ends[0]);
    for (const std::string& variable : environment) {
      const std::size_t equals = variable.find('=');
      setenv(variable.substr(0, equals).c_str(), variable.substr(equals + 1).c_str(), 1);
    }
    const std::string count = std::to_string(batches);
    execl(self.c_str(), self.c_str(), "--measure", count.c_str(), static_cast<char*>(nullptr));
    std::_Exit(127);
  }
  close(pipe_ends[1]);
  std::string output;
  char buffer[256];
  for (ssize_t n; (n = read(pipe_ends[0], buffer, sizeof buffer)) > 0;)
    output.append(buffer, static_cast<std::size_t>(n));
  close(pipe_ends[0]);
  int status = 0;
  waitpid(child, &status, 0);
  Figures figures;
  std::istringstream printed(output);
  printed >> figures.record.wall >> figures.record.cpu >> figures.copy.wall >> figures.copy.cpu;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || !printed) {
    std::fprintf(stderr, "tracer-overhead-bench: a measuring run failed (without a GPU, put the "
                         "emulator's libraries on LD_LIBRARY_PATH; see --help)\n");
    std::exit(1);
  }
  return figures;
}

constexpr const char* kUsage =
    "usage: tracer-overhead-bench [BATCHES (default 200, 1 to 1000000)]\n"
    "Runs BATCHES batches of 1000 cudaEventRecord and 1000 cudaMemcpyAsync calls untraced,\n"
    "traced, and traced with a trace file, each in its own process, and prints the median ns\n"
    "per call; then BATCHES/20 batches traced at load (a slowed tracer thread), blocking and\n"
    "with back-pressure. Run it on the CUDA runtime the library path names, e.g. the emulator's:\n"
    "  LD_LIBRARY_PATH=<build>/emulator/lib tracer-overhead-bench\n";

// A number of batches in range, or nothing: none would leave no measurement to take the median of.
std::optional<int> batch_count(const char* text) {
  const std::optional<int> batches = whole_number<int>(text);
  if (!batches || *batches < 1 || *batches > 1000000) return std::nullopt;
  return batches;
}

} // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--measure") {
    const std::optional<int> batches = batch_count(argv[2]);
    return batches ? measure(*batches) : 2;
  }
  if (argc == 2 && (std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h")) {
    std::fputs(kUsage, stdout);
    return 0;
  }
  const std::optional<int> parsed = argc == 2 ? batch_count(argv[1]) : std::optional<int>(200);
  if (argc > 2 || !parsed) {
    std::fprintf(stderr, "tracer-overhead-bench: error: %s\n%s",
                 argc > 2 ? "expected at most one argument"
                          : "BATCHES must be a whole number "
                            "from 1 to 1000000",
                 kUsage);
    return 2;
  }
  const int batches = *parsed;
  const std::filesystem::path self = std::filesystem::read_symlink("/proc/self/exe");
  const std::filesystem::path tracer =
      self.parent_path().parent_path() / "lib" / "libstreamrace.so";
  const std::filesystem::path traces = std::filesystem::temp_directory_path() /
                                       ("tracer-overhead-bench-" + std::to_string(getpid()));

  const Figures untraced = run_child(self, batches, {});
  const Figures online = run_child(self, batches, {"LD_PRELOAD=" + tracer.string()});
  const Figures with_trace = run_child(
      self, batches, {"LD_PRELOAD=" + tracer.string(), "STREAMRACE_OUTPUT_DIR=" + traces.string()});
  std::filesystem::remove_all(traces);
  // A call at load in blocking mode costs what the slowed tracer takes per call: fewer batches.
  const int load_batches = std::max(1, batches / 20);
  const std::string slow_tracer = "STREAMRACE_OPTIONS=tracer_delay_us=1";
  const Figures blocking =
      run_child(self, load_batches, {"LD_PRELOAD=" + tracer.string(), slow_tracer});
  const Figures back_pressure = run_child(
      self, load_batches, {"LD_PRELOAD=" + tracer.string(), slow_tracer + ":block_on_full=0"});

  std::printf("median ns per call (%d batches of %d calls); wall time, and in parentheses the\n"
              "calling thread's CPU time\n",
              batches, kCallsPerBatch);
  std::printf("%-30s %24s %24s\n", "", "cudaEventRecord", "cudaMemcpyAsync");
  auto row = [](const char* name, Cost record, Cost copy) {
    std::printf("%-30s %12.1f (%9.1f) %12.1f (%9.1f)\n", name, record.wall, record.cpu, copy.wall,
                copy.cpu);
  };
  auto minus = [](Cost a, Cost b) { return Cost{a.wall - b.wall, a.cpu - b.cpu}; };
  row("untraced", untraced.record, untraced.copy);
  row("traced (online detection)", online.record, online.copy);
  row("traced + trace file", with_trace.record, with_trace.copy);
  row("added: online detection", minus(online.record, untraced.record),
      minus(online.copy, untraced.copy));
  row("added: online + trace file", minus(with_trace.record, untraced.record),
      minus(with_trace.copy, untraced.copy));
  std::printf("at load (the tracer thread slowed by tracer_delay_us=1; %d batches):\n",
              load_batches);
  row("added: blocking (default)", minus(blocking.record, untraced.record),
      minus(blocking.copy, untraced.copy));
  row("added: block_on_full=0", minus(back_pressure.record, untraced.record),
      minus(back_pressure.copy, untraced.copy));
  return 0;
}
