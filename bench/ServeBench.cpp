//===- ServeBench.cpp - `mqss serve` under load: throughput, latency, RSS --===//
//
// Starts a real `mqss serve` on a free loopback port, then keeps C client
// connections busy with POST /v1/select on a module of about 1,000 lines
// (real PolyBench kernels) for D seconds. Reports throughput, client-side
// latency percentiles, the server's own parse and decision times (from the
// replies), errors, and the server's resident memory after warm-up and at
// the end (the soak: run with --duration=600). Prints JSON.
//
// Usage: mqss-bench-serve [--clients=2] [--server-threads=2] [--duration=20] [--lines=1000]
//                         [--unique=true (false: repeated modules, the decision cache)]
//                         [--rate=0 (requests/s per client, 0: as fast as possible)]
//
//===----------------------------------------------------------------------===//

#include "BenchOptions.h"
#include "BenchModules.h"
#include "mqss/IR/Context.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/Regex.h"

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <fstream>
#include <mutex>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>

using namespace mqss;

static llvm::cl::opt<unsigned>
    clients("clients", llvm::cl::init(2),
            llvm::cl::desc("Concurrent keep-alive clients"),
            llvm::cl::cat(benchOptions()));
static llvm::cl::opt<unsigned> threads("server-threads", llvm::cl::init(2),
                                       llvm::cl::desc("Server worker threads"),
                                       llvm::cl::cat(benchOptions()));
static llvm::cl::opt<double>
    duration("duration", llvm::cl::desc("Seconds of measured load"),
             llvm::cl::init(20), llvm::cl::cat(benchOptions()));
static llvm::cl::opt<double>
    warmup("warmup", llvm::cl::desc("Seconds of load before measuring"),
           llvm::cl::init(3), llvm::cl::cat(benchOptions()));
static llvm::cl::opt<unsigned> lines("lines", llvm::cl::init(1000),
                                     llvm::cl::desc("Lines of the module sent"),
                                     llvm::cl::cat(benchOptions()));
static llvm::cl::opt<double>
    rate("rate", llvm::cl::desc("requests/s per client, 0: unlimited"),
         llvm::cl::init(0), llvm::cl::cat(benchOptions()));
static llvm::cl::opt<bool> unique(
    "unique",
    llvm::cl::desc(
        "Make every request's module text unique (a comment line), so the "
        "server's decision cache never answers: the cold path (default)"),
    llvm::cl::init(true), llvm::cl::cat(benchOptions()));

namespace {
using Clock = std::chrono::steady_clock;

double percentile(std::vector<double> values, double p) {
  if (values.empty())
    return 0;
  std::sort(values.begin(), values.end());
  return values[std::min(values.size() - 1,
                         size_t(p * (values.size() - 1) + 0.5))];
}

double rssMiB(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line))
    if (line.rfind("VmRSS:", 0) == 0)
      return std::stod(line.substr(6)) / 1024.0;
  return 0;
}

/// Starts `mqss serve --port=0` with its stderr in a pipe; returns its port.
pid_t startServer(int &port, std::string &db) {
  int fds[2];
  if (pipe(fds) != 0)
    return -1;
  db = "/tmp/mqss-bench-serve-" + std::to_string(getpid()) + ".db";
  pid_t pid = fork();
  if (pid == 0) {
    dup2(fds[1], STDERR_FILENO);
    close(fds[0]);
    std::string threadsArg = "--threads=" + std::to_string(threads);
    std::string dbArg = "--db=" + db;
    execl(MQSS_TOOLS_DIR "/mqss", "mqss", "serve", "--port=0", threadsArg.c_str(), dbArg.c_str(),
          static_cast<char *>(nullptr));
    _exit(127);
  }
  close(fds[1]);
  std::string text;
  char buffer[512];
  ssize_t got;
  llvm::SmallVector<llvm::StringRef> match;
  while ((got = read(fds[0], buffer, sizeof(buffer))) > 0) {
    text.append(buffer, got);
    if (llvm::Regex("listening on http://127.0.0.1:([0-9]+)").match(text, &match)) {
      port = std::stoi(match[1].str());
      std::thread([fd = fds[0]] { // keep draining the server's log
        char sink[512];
        while (read(fd, sink, sizeof(sink)) > 0) {
        }
      }).detach();
      return pid;
    }
  }
  llvm::errs() << "the server did not start:\n" << text << "\n";
  return -1;
}
} // namespace

int main(int argc, char **argv) {
  parseBenchCommandLine(argc, argv, "mqss serve under load\n");
  auto context = createContext();
  unsigned functions = 0;
  std::string module = buildPolyBenchModule(*context, lines, functions);
  auto bodyFor = [&](uint64_t n) {
    std::string ir = unique ? "// request " + std::to_string(n) + "\n" + module : module;
    return llvm::formatv("{0}", llvm::json::Value(llvm::json::Object{{"ir", std::move(ir)},
                                                                     {"target", "x86-avx2"}}))
        .str();
  };
  std::atomic<uint64_t> counter{0};
  int port = 0;
  std::string db;
  pid_t server = startServer(port, db);
  if (server < 0)
    return 1;

  std::mutex mutex;
  std::vector<double> latencyMs, parseUs, decisionUs;
  std::atomic<uint64_t> errors{0}, requests{0};
  std::atomic<bool> measuring{false}, stop{false};
  double rssAfterWarmup = 0;
  auto client = [&] {
    httplib::Client http("127.0.0.1", port);
    http.set_keep_alive(true);
    http.set_tcp_nodelay(true);
    http.set_read_timeout(30);
    auto next = Clock::now();
    while (!stop) {
      if (rate > 0) {
        next += std::chrono::microseconds(int64_t(1e6 / rate));
        std::this_thread::sleep_until(next);
      }
      std::string body = bodyFor(counter++);
      auto start = Clock::now();
      auto response = http.Post("/v1/select", body, "application/json");
      double ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
      if (!measuring)
        continue;
      ++requests;
      if (!response || response->status != 200) {
        ++errors;
        continue;
      }
      auto reply = llvm::json::parse(response->body);
      std::lock_guard<std::mutex> lock(mutex);
      latencyMs.push_back(ms);
      if (reply && reply->getAsObject()) {
        parseUs.push_back(reply->getAsObject()->getNumber("parse_us").value_or(0));
        decisionUs.push_back(reply->getAsObject()->getNumber("decision_us").value_or(0));
      } else {
        llvm::consumeError(reply.takeError());
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned i = 0; i < clients; ++i)
    pool.emplace_back(client);
  std::this_thread::sleep_for(std::chrono::duration<double>(warmup));
  rssAfterWarmup = rssMiB(server);
  measuring = true;
  auto start = Clock::now();
  std::vector<llvm::json::Value> rssTrace;
  while (std::chrono::duration<double>(Clock::now() - start).count() < duration) {
    std::this_thread::sleep_for(std::chrono::duration<double>(std::min(10.0, double(duration))));
    rssTrace.push_back(rssMiB(server));
  }
  measuring = false;
  double elapsed = std::chrono::duration<double>(Clock::now() - start).count();
  stop = true;
  for (std::thread &t : pool)
    t.join();
  double rssEnd = rssMiB(server);
  kill(server, SIGTERM);
  int status = 0;
  waitpid(server, &status, 0);
  unlink(db.c_str());

  std::vector<double> decisionPart;
  for (size_t i = 0; i < parseUs.size(); ++i)
    decisionPart.push_back((parseUs[i] + decisionUs[i]) / 1000.0);
  llvm::json::Object result{
      {"benchmark", "serve"},
      {"endpoint", "/v1/select"},
      {"unique_modules", static_cast<bool>(unique)},
      {"module_lines", int64_t(llvm::count(module, '\n'))},
      {"functions", functions},
      {"clients", static_cast<unsigned>(clients)},
      {"server_threads", static_cast<unsigned>(threads)},
      {"duration_s", elapsed},
      {"requests", int64_t(requests)},
      {"errors", int64_t(errors)},
      {"throughput_rps", requests / elapsed},
      {"latency_ms", llvm::json::Object{{"p50", percentile(latencyMs, 0.5)},
                                        {"p90", percentile(latencyMs, 0.9)},
                                        {"p99", percentile(latencyMs, 0.99)}}},
      {"server_parse_ms_p50", percentile(parseUs, 0.5) / 1000},
      {"server_decision_us_p50", percentile(decisionUs, 0.5)},
      {"decision_part_ms", llvm::json::Object{{"p50", percentile(decisionPart, 0.5)},
                                              {"p99", percentile(decisionPart, 0.99)}}},
      {"target_decision_part_ms_p50", 1.0},
      {"server_rss_mib", llvm::json::Object{{"after_warmup", rssAfterWarmup},
                                            {"end", rssEnd},
                                            {"trace", llvm::json::Array(rssTrace)}}},
      {"server_exit_status", WIFEXITED(status) ? WEXITSTATUS(status) : -1}};
  llvm::outs() << llvm::formatv("{0:2}", llvm::json::Value(std::move(result))) << "\n";
  return errors ? 1 : 0;
}
