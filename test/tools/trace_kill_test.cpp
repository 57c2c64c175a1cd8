// SPDX-License-Identifier: Apache-2.0 WITH LLVM-exception
// Crash-safety check for trace files: a child process writes events as fast as it can and
// reports each flush; the parent kills it with SIGKILL mid-stream, then reads the file back
// and checks that every record the child had flushed was recovered.
//
//   streamrace-test-trace-kill FILE
#include "streamrace/trace/trace_reader.h"
#include "streamrace/trace/trace_writer.h"

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>

using namespace streamrace;

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: streamrace-test-trace-kill FILE\n");
    return 2;
  }
  const std::string path = argv[1];
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return 1;
  const pid_t child = fork();
  if (child == 0) {
    close(pipe_fds[0]);
    trace::TraceWriter writer(path, static_cast<std::uint64_t>(getpid()), 0);
    for (std::uint64_t i = 1;; ++i) {
      writer.write(
          Event{EventHeader{0, 1, 0, 0, i},
                KernelLaunch{
                    0x100, 0, {{0x1000 + (i % 64) * 64, 64, AccessMode::Write, Extent::Exact}}}});
      if (i % 997 == 0) {
        writer.flush();
        const std::uint64_t flushed = writer.records();
        if (write(pipe_fds[1], &flushed, sizeof(flushed)) != sizeof(flushed)) _exit(1);
      }
    }
  }
  close(pipe_fds[1]);
  std::uint64_t confirmed = 0, flushed = 0;
  while (confirmed < 20000 && read(pipe_fds[0], &flushed, sizeof(flushed)) == sizeof(flushed))
    confirmed = flushed;
  kill(child, SIGKILL);
  int status = 0;
  waitpid(child, &status, 0);
  if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGKILL) {
    std::fprintf(stderr, "the writer was not killed by SIGKILL\n");
    return 1;
  }
  SymbolTable symbols;
  const trace::TraceFile file = trace::read_trace(path, 0, symbols);
  std::printf("writer killed by SIGKILL after confirming %s records\n",
              confirmed >= 20000 ? "at least 20000" : "fewer than 20000");
  std::printf("reader recovered %s the confirmed records\n",
              file.records >= confirmed ? "all of" : "NOT all of");
  std::printf("events decoded: %s\n",
              file.events.size() == file.records ? "every record" : "MISMATCH");
  return file.records >= confirmed ? 0 : 1;
}
