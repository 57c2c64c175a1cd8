// Stream-ordering patterns, racy and synchronized, for the tracer's lit tests. Built with -g
// against the real CUDA runtime; run on the emulator under the tracer. A copy on a writer
// stream fills `middle`; a copy on a reader stream reads it.
//
//   stream_races <scenario>
//   cross-stream        writer and reader are two created streams, nothing between them
//   event               the same, the reader waits on an event recorded after the write
//   stream-sync         the same, the host synchronizes the writer before the read
//   legacy-nonblocking  the legacy default stream writes, a non-blocking stream reads
//   legacy-blocking     the legacy default stream writes, a blocking stream reads (ordered)
//   per-thread-blocking the per-thread default stream writes, a created blocking stream reads
//   per-thread-legacy   the per-thread default stream writes, the legacy stream reads (ordered)
//   graph               the write is captured into a graph; its launch races with the read
//   graph-sync          the same, the host synchronizes the launch stream before the read
//   free-async          `middle` comes from cudaMallocAsync; the read is ordered after the write
//                       by an event, then the writer stream frees it while the read may still
//                       be pending: a use after free
//   free-async-ordered  the same, the free is ordered after the read by a second event
//   query-once          the host queries an event recorded after the write once and reads
//                       whatever the answer (a race when the write is still pending)
//   query-poll          the same, polling until the query succeeds (ordered)
//   abort               ordered copies, then the program aborts
//   terminate           ordered copies, then the program is terminated (SIGTERM)
//   fork                cross-stream, with a fork between the two copies whose child prints
//                       and exits normally
//   vfork               cross-stream, with a vfork between the two copies whose child _exit()s
//   exit-now            cross-stream, then the program ends with _exit(0): no atexit handlers
//   exit-now-ordered    stream-sync, then the program ends with _exit(0)
//   exit-now-c99        cross-stream, then the program ends with _Exit(0)
//   quick-exit          cross-stream, then the program ends with quick_exit(0)
//   interrupt           cross-stream, then the program is interrupted (SIGINT, as by Ctrl-C)
//   interrupt-ordered   stream-sync, then the program is interrupted
//   dispositions        installs a SIGINT handler of its own before its first CUDA call, runs
//                       cross-stream, then prints who handles SIGINT, SIGHUP, SIGTERM and
//                       SIGQUIT
#include <cuda_runtime_api.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string_view>
#include <sys/wait.h>
#include <unistd.h>

#include "../../Inputs/check_call.h"

namespace {

constexpr std::size_t kBytes = 1 << 16;

void on_interrupt(int) {}

const char* disposition(int signal) {
  struct sigaction action {};
  sigaction(signal, nullptr, &action);
  if (action.sa_flags & SA_SIGINFO) return "another handler";
  if (action.sa_handler == SIG_DFL) return "default";
  if (action.sa_handler == SIG_IGN) return "ignored";
  return action.sa_handler == on_interrupt ? "the program's handler" : "another handler";
}

struct Streams {
  cudaStream_t writer = nullptr;
  cudaStream_t reader = nullptr;
  bool created_writer = false;
};

int make_streams(std::string_view scenario, Streams& streams) {
  if (scenario.starts_with("legacy")) {
    streams.writer = nullptr; // the legacy default stream
    CHECK(cudaStreamCreateWithFlags(&streams.reader, scenario == "legacy-nonblocking"
                                                         ? cudaStreamNonBlocking
                                                         : cudaStreamDefault));
  } else if (scenario.starts_with("per-thread")) {
    streams.writer = cudaStreamPerThread;
    if (scenario == "per-thread-blocking") CHECK(cudaStreamCreate(&streams.reader));
  } else {
    CHECK(cudaStreamCreate(&streams.writer));
    CHECK(cudaStreamCreate(&streams.reader));
    streams.created_writer = true;
  }
  return 0;
}

int run(std::string_view scenario) {
  // A terminal's foreground job starts with SIGINT and SIGQUIT at their default; test runners
  // start their programs with them ignored.
  if (scenario.starts_with("interrupt")) std::signal(SIGINT, SIG_DFL);
  if (scenario == "dispositions") {
    std::signal(SIGINT, on_interrupt);
    std::signal(SIGQUIT, SIG_DFL);
  }
  void* source = nullptr;
  void* middle = nullptr;
  void* target = nullptr;
  CHECK(cudaMalloc(&source, kBytes));
  CHECK(cudaMalloc(&target, kBytes));
  CHECK(cudaMemset(source, 1, kBytes));
  Streams streams;
  if (make_streams(scenario, streams) != 0) return 1;
  const bool pooled = scenario.starts_with("free-async");
  if (pooled) {
    CHECK(cudaMallocAsync(&middle, kBytes, streams.writer));
  } else {
    CHECK(cudaMalloc(&middle, kBytes));
  }
  CHECK(cudaDeviceSynchronize());
  cudaEvent_t event = nullptr;
  CHECK(cudaEventCreateWithFlags(&event, cudaEventDisableTiming));

  if (scenario.starts_with("graph")) {
    cudaGraph_t graph = nullptr;
    cudaGraphExec_t executable = nullptr;
    CHECK(cudaStreamBeginCapture(streams.writer, cudaStreamCaptureModeGlobal));
    CHECK(cudaMemcpyAsync(middle, source, kBytes, cudaMemcpyDeviceToDevice, streams.writer));
    CHECK(cudaStreamEndCapture(streams.writer, &graph));
    CHECK(cudaGraphInstantiate(&executable, graph, 0));
    CHECK(cudaGraphLaunch(executable, streams.writer));
    if (scenario == "graph-sync") CHECK(cudaStreamSynchronize(streams.writer));
  } else {
    CHECK(cudaMemcpyAsync(middle, source, kBytes, cudaMemcpyDeviceToDevice, streams.writer));
  }
  if (scenario == "fork") {
    std::fflush(stdout);
    const pid_t child = fork();
    if (child == 0) {
      std::printf("child exits\n");
      std::exit(0);
    }
    int status = 0;
    waitpid(child, &status, 0);
    std::printf("child exited with %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  }
  if (scenario == "vfork") {
    std::fflush(stdout);
    const pid_t child = vfork();
    if (child == 0) _exit(3);
    int status = 0;
    waitpid(child, &status, 0);
    std::printf("vfork child exited with %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  }
  if (scenario.starts_with("query")) {
    CHECK(cudaEventRecord(event, streams.writer));
    cudaError_t status = cudaEventQuery(event);
    while (scenario == "query-poll" && status == cudaErrorNotReady) {
      usleep(1000);
      status = cudaEventQuery(event);
    }
    std::printf("first answer %s\n", scenario == "query-once" ? cudaGetErrorName(status) : "-");
  }
  if (scenario == "event" || pooled) {
    CHECK(cudaEventRecord(event, streams.writer));
    CHECK(cudaStreamWaitEvent(streams.reader, event, 0));
  } else if (scenario == "stream-sync" || scenario == "abort" || scenario == "terminate" ||
             scenario == "exit-now-ordered" || scenario == "interrupt-ordered") {
    CHECK(cudaStreamSynchronize(streams.writer));
  }
  CHECK(cudaMemcpyAsync(target, middle, kBytes, cudaMemcpyDeviceToDevice, streams.reader));
  if (scenario == "free-async-ordered") {
    CHECK(cudaEventRecord(event, streams.reader));
    CHECK(cudaStreamWaitEvent(streams.writer, event, 0));
  }
  if (pooled) CHECK(cudaFreeAsync(middle, streams.writer));
  CHECK(cudaDeviceSynchronize());
  std::printf("scenario %.*s: copies done\n", static_cast<int>(scenario.size()), scenario.data());
  if (scenario == "abort") {
    std::fflush(stdout);
    std::abort();
  }
  if (scenario == "terminate") {
    std::fflush(stdout);
    std::raise(SIGTERM);
  }
  if (scenario == "exit-now-c99") {
    std::fflush(stdout);
    std::_Exit(0);
  }
  if (scenario.starts_with("exit-now")) {
    std::fflush(stdout);
    _exit(0);
  }
  if (scenario.starts_with("interrupt")) {
    std::fflush(stdout);
    std::raise(SIGINT);
  }
  if (scenario == "dispositions")
    std::printf("SIGINT: %s; SIGHUP: %s; SIGTERM: %s; SIGQUIT: %s\n", disposition(SIGINT),
                disposition(SIGHUP), disposition(SIGTERM), disposition(SIGQUIT));
  if (scenario == "quick-exit") {
    std::fflush(stdout);
    std::quick_exit(0);
  }

  CHECK(cudaEventDestroy(event));
  if (streams.created_writer) CHECK(cudaStreamDestroy(streams.writer));
  if (streams.reader != nullptr) CHECK(cudaStreamDestroy(streams.reader));
  CHECK(cudaFree(source));
  if (!pooled) CHECK(cudaFree(middle));
  CHECK(cudaFree(target));
  return 0;
}

} // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: stream_races <scenario>\n");
    return 2;
  }
  return run(argv[1]);
}
