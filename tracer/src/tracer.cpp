#include "tracer.h"

#include "streamrace/report/finding_text.h"

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <pthread.h>
#include <string>
#include <sys/syscall.h>
#include <unistd.h>

namespace streamrace::tracer {

namespace {

thread_local int library_call_depth = 0;

std::uint64_t now_ns() {
  timespec time{};
  clock_gettime(CLOCK_REALTIME, &time);
  return static_cast<std::uint64_t>(time.tv_sec) * 1'000'000'000ull +
         static_cast<std::uint64_t>(time.tv_nsec);
}

ThreadId current_thread() {
  thread_local const ThreadId id = static_cast<ThreadId>(syscall(SYS_gettid));
  return id;
}

// torchrun and the launchers that imitate it name each process's rank in RANK.
RankId rank_from_environment() {
  const char* rank = std::getenv("RANK");
  return rank != nullptr ? static_cast<RankId>(std::strtoul(rank, nullptr, 10)) : 0;
}

std::string trace_path(const std::string& directory) {
  char host[256] = "host";
  gethostname(host, sizeof host - 1);
  return directory + "/" + host + "-" + std::to_string(getpid()) + ".srtrace";
}

void remap_sites(Finding& finding, const std::vector<CallSiteId>& ids) {
  auto remap = [&](CallSiteId& site) {
    if (site != 0 && site <= ids.size()) site = ids[site - 1];
  };
  remap(finding.first.access.site);
  remap(finding.second.access.site);
  if (finding.unrecorded_wait) remap(finding.unrecorded_wait->site);
  if (finding.collective) {
    remap(finding.collective->first.site);
    remap(finding.collective->second.site);
  }
}

// SIGTERM too: launchers stop the other ranks of a failed job with it.
constexpr int kFatalSignals[] = {SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTERM};
struct sigaction previous_actions[std::size(kFatalSignals)];
Tracer* installed_tracer = nullptr;

void on_fatal_signal(int signal) {
  if (installed_tracer != nullptr) installed_tracer->flush_for_crash();
  // Hand the signal to whoever had it before, so the program dies (or recovers) as it would
  // have without the tracer, with the same status.
  for (std::size_t i = 0; i < std::size(kFatalSignals); ++i)
    if (kFatalSignals[i] == signal) sigaction(signal, &previous_actions[i], nullptr);
  raise(signal);
}

void install_fatal_signal_handlers(Tracer* tracer) {
  installed_tracer = tracer;
  struct sigaction action {};
  action.sa_handler = on_fatal_signal;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND | SA_NODEFER;
  for (std::size_t i = 0; i < std::size(kFatalSignals); ++i)
    sigaction(kFatalSignals[i], &action, &previous_actions[i]);
}

void finish_at_exit() {
  if (Tracer* tracer = Tracer::get()) tracer->finish();
}

void prepare_fork() {
  if (installed_tracer != nullptr) installed_tracer->before_fork();
}
void parent_after_fork() {
  if (installed_tracer != nullptr) installed_tracer->after_fork_in_parent();
}
void child_after_fork() {
  if (installed_tracer != nullptr) installed_tracer->after_fork_in_child();
}

} // namespace

InsideLibraryCall::InsideLibraryCall() {
  ++library_call_depth;
}
InsideLibraryCall::~InsideLibraryCall() {
  --library_call_depth;
}
bool InsideLibraryCall::active() {
  return library_call_depth > 0;
}

Tracer::Tracer() = default;

Tracer* Tracer::get() {
  // Never destroyed: runtime threads may still call back while the process exits.
  static Tracer* const tracer = [] {
    Tracer* created = std::unique_ptr<Tracer>(new Tracer()).release();
    created->start();
    return created;
  }();
  return tracer->enabled() ? tracer : nullptr;
}

void Tracer::start() {
  try {
    options_.cross_rank_ordering = false; // one rank per process unless the user says otherwise
    if (const char* text = std::getenv("STREAMRACE_OPTIONS")) {
      if (std::string error = parse_options(text, options_); !error.empty())
        throw std::runtime_error("STREAMRACE_OPTIONS: " + error);
    }
    rank_ = rank_from_environment();
    engine_ = std::make_unique<Engine>(options_, [](std::string_view warning) {
      std::fprintf(stderr, "streamrace: warning: %.*s\n", static_cast<int>(warning.size()),
                   warning.data());
    });
    if (const char* directory = std::getenv("STREAMRACE_OUTPUT_DIR"); directory && *directory) {
      std::filesystem::create_directories(directory);
      writer_ = std::make_unique<trace::TraceWriter>(
          trace_path(directory), static_cast<std::uint64_t>(getpid()), now_ns());
    }
    RawStack warm_up; // the first capture loads the unwinder: better not inside a callback
    capture_stack(warm_up);
    std::atexit(finish_at_exit);
    install_fatal_signal_handlers(this);
    pthread_atfork(prepare_fork, parent_after_fork, child_after_fork);
  } catch (const std::exception& error) {
    disable(error.what());
  }
}

void Tracer::disable(std::string_view reason) {
  enabled_.store(false);
  if (!disabled_reported_.exchange(true))
    std::fprintf(stderr, "streamrace: internal error: %.*s; tracing disabled\n",
                 static_cast<int>(reason.size()), reason.data());
}

NameId Tracer::intern_name(std::string_view text) {
  std::lock_guard lock(mutex_);
  return names_.intern(text);
}

void Tracer::record(std::string_view api, Payload payload) {
  RawStack stack;
  capture_stack(stack);
  Event event{EventHeader{rank_, current_thread(), 0, 0, 0}, std::move(payload)};
  std::lock_guard lock(mutex_);
  if (finished_ || !enabled()) return;
  // Stamped under the lock: replay orders a trace by time, and must see the events in the order
  // the online engine did.
  event.header.time_ns = now_ns();
  bool new_site = false;
  event.header.site = sites_.intern(api, stack, new_site);
  engine_->process(event);
  if (writer_) {
    if (new_site)
      writer_->define_call_site(event.header.site, sites_.unsymbolized(event.header.site));
    writer_->define_symbols(names_);
    writer_->write(event);
  }
  if (options_.halt_on_error && engine_->findings().size() > findings_reported_) {
    report_findings(*engine_, false);
    if (writer_) writer_->flush();
    std::fflush(nullptr);
    _exit(66);
  }
}

void Tracer::report_findings(const Engine& engine, bool final) {
  const std::vector<CallSite> symbolized = sites_.symbolize_all();
  if (writer_)
    for (std::size_t i = 0; i < symbolized.size(); ++i)
      writer_->define_call_site(static_cast<CallSiteId>(i + 1), symbolized[i]);
  if (!options_.report_at_exit && final) return;
  // Sites that symbolize alike become one, as they do when a trace is replayed.
  SymbolTable symbols = names_;
  std::vector<CallSiteId> ids;
  for (const CallSite& site : symbolized)
    ids.push_back(symbols.add_call_site(site));
  std::vector<Finding> findings;
  for (std::size_t i = findings_reported_; i < engine.findings().all().size(); ++i) {
    findings.push_back(engine.findings().all()[i]);
    remap_sites(findings.back(), ids);
  }
  findings_reported_ = engine.findings().size();
  for (const Finding& finding : findings)
    std::fputs(describe_finding(finding, engine, symbols).c_str(), stderr);
  if (!findings.empty()) std::fprintf(stderr, "%s\n", summary_line(findings).c_str());
}

void Tracer::finish() {
  try {
    std::lock_guard lock(mutex_);
    if (finished_) return;
    finished_ = true;
    engine_->finish();
    report_findings(*engine_, true);
    if (writer_) writer_->flush();
  } catch (const std::exception& error) {
    disable(error.what());
  }
}

void Tracer::before_fork() {
  mutex_.lock();
}

void Tracer::after_fork_in_parent() {
  mutex_.unlock();
}

void Tracer::after_fork_in_child() {
  // The writer's file and unwritten records belong to the parent: writing or even flushing
  // them here would duplicate them in the parent's trace, so the child lets go of the writer
  // without running its destructor.
  static_cast<void>(writer_.release());
  finished_ = true;
  enabled_.store(false);
  disabled_reported_.store(true);
  mutex_.unlock();
}

void Tracer::flush_for_crash() {
  if (!mutex_.try_lock()) return;
  try {
    if (writer_) writer_->flush();
  } catch (const std::exception&) {
    // The process is dying of its own fault; a trace that cannot be written stays a prefix.
  }
  mutex_.unlock();
}

} // namespace streamrace::tracer
