//===- ServeCommand.cpp - `mqss serve`: the HTTP/JSON service --------------===//

#include "Commands.h"

#include "mqss/Policy/Policy.h"
#include "mqss/Runtime/Target.h"
#include "mqss/Serve/Server.h"

#include "llvm/Support/WithColor.h"

#include <cstdlib>

using namespace llvm;

namespace mqss::tool {

cl::SubCommand serveCommand(
    "serve", "Serve decisions over HTTP/JSON: POST /v1/select, /v1/pipeline, /v1/optimize; "
             "GET /healthz, /metrics (Prometheus), / (dashboard); POST /v1/admin/reload or "
             "SIGHUP swaps the model");
static cl::opt<std::string> host("host", cl::desc("Address to bind (default: loopback only)"),
                                 cl::init("127.0.0.1"), cl::sub(serveCommand), cl::cat(category()));
static cl::opt<int> port("port", cl::desc("Port (0: any free port, printed at start)"),
                         cl::init(8470), cl::sub(serveCommand), cl::cat(category()));
static cl::opt<std::string> model("model", cl::desc("Model file (default: the shipped one)"),
                                  cl::sub(serveCommand), cl::cat(category()));
static cl::opt<std::string> db("db", cl::desc("SQLite store: measurement cache, trajectories, "
                                              "served requests (default: ~/.cache/mqss/mqss.db)"),
                               cl::sub(serveCommand), cl::cat(category()));
static cl::opt<std::string> token("token",
                                  cl::desc("Require `Authorization: Bearer TOKEN` on every "
                                           "endpoint but /healthz (default: $MQSS_TOKEN, else none)"),
                                  cl::sub(serveCommand), cl::cat(category()));
static cl::opt<unsigned> threads("threads", cl::desc("Worker threads"), cl::init(2),
                                 cl::sub(serveCommand), cl::cat(category()));
static cl::opt<double> explore("explore",
                               cl::desc("Probability of an exploratory action per step in "
                                        "measured /v1/optimize requests (online learning)"),
                               cl::init(0.05), cl::sub(serveCommand), cl::cat(category()));
static cl::opt<unsigned> maxBodyMb("max-body-mb", cl::desc("Largest request body, MiB"),
                                   cl::init(8), cl::sub(serveCommand), cl::cat(category()));
static cl::opt<double> readTimeout("read-timeout-s",
                                   cl::desc("Time a client has to send its request"),
                                   cl::init(5), cl::sub(serveCommand), cl::cat(category()));
static cl::opt<double> childTimeout("child-timeout-s",
                                    cl::desc("Limit for each child that runs passes or JITs"),
                                    cl::init(60), cl::sub(serveCommand), cl::cat(category()));
static cl::opt<unsigned> childMemoryMb(
    "child-memory-mb", cl::desc("Address-space limit of each child that runs passes or JITs"),
    cl::init(4096), cl::sub(serveCommand), cl::cat(category()));
static cl::opt<unsigned> measureReps("measure-reps",
                                     cl::desc("Timed rounds of a measured /v1/optimize"),
                                     cl::init(5), cl::sub(serveCommand), cl::cat(category()));
static cl::opt<std::string> smallKernels(
    "small-kernels",
    cl::desc("A kernel executing under half the ops of the smallest one the model was trained "
             "on gets `default`'s plan (default; a measured /v1/optimize then measures that "
             "plan and plays no episode) or the policy's (policy)"),
    cl::init("default"), cl::sub(serveCommand), cl::cat(category()));

int serveMain() {
  auto fail = [](const Twine &message) {
    WithColor::error(errs(), "mqss serve") << message << "\n";
    return 2;
  };
  if (port < 0 || port > 65535)
    return fail("--port must be in 0..65535");
  if (threads == 0 || threads > kMaxThreads)
    return fail("--threads must be in 1.." + Twine(kMaxThreads));
  if (explore < 0 || explore > 1)
    return fail("--explore must be a probability in [0, 1]");
  if (maxBodyMb == 0 || readTimeout <= 0 || childTimeout <= 0 || measureReps == 0)
    return fail("--max-body-mb, --read-timeout-s, --child-timeout-s and --measure-reps must "
                "be positive");
  // A child inherits the server's address space (about 0.5 GiB before it
  // does anything): under a small limit every child failed, as the module's
  // fault.
  if (childMemoryMb < 1024)
    return fail("--child-memory-mb must be at least 1024: each child inherits the server's "
                "address space");
  auto toDefault = smallKernelsToDefault(smallKernels);
  if (!toDefault)
    return fail(toString(toDefault.takeError()));
  ServeOptions options;
  options.host = host;
  options.port = port;
  options.modelPath = model;
  options.dbPath = db;
  options.token = token;
  if (options.token.empty())
    if (const char *fromEnvironment = std::getenv("MQSS_TOKEN"))
      options.token = fromEnvironment;
  options.threads = threads;
  options.explore = explore;
  options.smallKernelsToDefault = *toDefault;
  options.maxBodyBytes = uint64_t(maxBodyMb) << 20;
  options.readTimeoutSeconds = readTimeout;
  options.childTimeoutSeconds = childTimeout;
  options.childMemoryBytes = uint64_t(childMemoryMb) << 20;
  options.measureReps = measureReps;
  // The installed dashboard where mqss runs from an installation, else the
  // build tree's.
  if (const char *dir = std::getenv("MQSS_DASHBOARD_DIR"))
    options.dashboardDir = dir;
  else if (std::optional<std::string> installed = installedDataPath("dashboard"))
    options.dashboardDir = *installed;
  else
    options.dashboardDir = MQSS_DASHBOARD_DIR;
  return runServer(options);
}

} // namespace mqss::tool
