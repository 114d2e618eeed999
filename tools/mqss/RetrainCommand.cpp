//===- RetrainCommand.cpp - `mqss retrain`: learn from served traffic ------===//

#include "Commands.h"

#include "mqss/Train/Retrain.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/WithColor.h"

#include <httplib.h>

using namespace llvm;

namespace mqss::tool {

cl::SubCommand retrainCommand("retrain", kRetrainDescription);
static cl::opt<std::string> since("since", cl::desc("Trajectories logged in this window (24h, 30m, 2d)"),
                                  cl::init("24h"), cl::sub(retrainCommand), cl::cat(category()));
static cl::opt<std::string> model("model",
                                  cl::desc("The served model: fine-tuned from, replaced on promotion "
                                           "(default: the shipped one)"),
                                  cl::sub(retrainCommand), cl::cat(category()));
static cl::opt<std::string> candidate("candidate",
                                      cl::desc("Compare (and promote) this model instead of "
                                               "fine-tuning one"),
                                      cl::sub(retrainCommand), cl::cat(category()));
static cl::opt<std::string> out("out", cl::desc("Where the fine-tuned candidate goes "
                                                "(default: MODEL.candidate)"),
                                cl::sub(retrainCommand), cl::cat(category()));
static cl::opt<std::string> db("db", cl::desc("The store the server logs to"),
                               cl::sub(retrainCommand), cl::cat(category()));
static cl::opt<std::string> targets("targets", cl::desc("Targets of the comparison"),
                                    cl::init("x86-avx2"), cl::sub(retrainCommand),
                                    cl::cat(category()));
static cl::opt<std::string> split("split", cl::desc("Split of the comparison"),
                                  cl::init("validation"), cl::sub(retrainCommand),
                                  cl::cat(category()));
static cl::opt<std::string> kernel("kernel", cl::desc("Compare on this kernel only"),
                                   cl::sub(retrainCommand), cl::cat(category()));
static cl::opt<std::string> registry("registry", cl::desc("Benchmark registry"),
                                     cl::sub(retrainCommand), cl::cat(category()));
static cl::opt<unsigned> epochs("epochs", cl::desc("PPO epochs over the logged episodes"),
                                cl::init(4), cl::sub(retrainCommand), cl::cat(category()));
static cl::opt<double> tolerance("tolerance",
                                 cl::desc("Relative slack on the geomean speedup (noise)"),
                                 cl::init(0.0), cl::sub(retrainCommand), cl::cat(category()));
static cl::opt<bool> noPromote("no-promote", cl::desc("Compare only"), cl::sub(retrainCommand),
                               cl::cat(category()));
static cl::opt<std::string> server("server",
                                   cl::desc("After a promotion, reload this server "
                                            "(e.g. http://127.0.0.1:8470)"),
                                   cl::sub(retrainCommand), cl::cat(category()));
static cl::opt<std::string> token("token", cl::desc("The server's bearer token"),
                                  cl::sub(retrainCommand), cl::cat(category()));
static cl::opt<bool> json("json", cl::desc("Print the comparison as JSON"),
                          cl::sub(retrainCommand), cl::cat(category()));

int retrainMain(int argc, char **argv) {
  auto fail = [](const Twine &message, int code = 1) {
    return reportError("mqss retrain", message, json, code);
  };
  auto window = parseDuration(since);
  if (!window)
    return fail(toString(window.takeError()), 2);
  RetrainOptions options;
  options.sinceSeconds = *window;
  options.modelPath = model;
  options.candidatePath = candidate;
  options.outPath = out;
  options.dbPath = db;
  options.split = split;
  options.kernel = kernel;
  options.registryPath = registry;
  if (epochs == 0)
    return fail("--epochs must be at least 1 (0 fine-tunes nothing)", 2);
  options.epochs = epochs;
  // (NaN would refuse every candidate, 1 or more promote any.)
  if (!(tolerance >= 0 && tolerance < 1))
    return fail("--tolerance must be in [0, 1): the share of the current geomean a "
                "candidate may fall short by (noise)",
                2);
  options.tolerance = tolerance;
  options.promote = !noPromote;
  auto parsedTargets = parseTargetList(targets, "mqss retrain");
  if (!parsedTargets)
    return fail(toString(parsedTargets.takeError()), 2);
  options.targets = std::move(*parsedTargets);
  for (int i = 0; i < argc; ++i)
    options.command += (i ? " " : "") + std::string(argv[i]);

  auto result = retrain(options);
  if (!result)
    return fail(toString(result.takeError()));
  json::Object object = result->toJSON();
  if (result->promoted && !server.empty()) {
    httplib::Client client(server);
    client.set_connection_timeout(5);
    httplib::Headers headers;
    if (!token.empty())
      headers.emplace("Authorization", "Bearer " + token);
    auto response = client.Post("/v1/admin/reload", headers, "", "application/json");
    bool reloaded = response && response->status == 200;
    object["server_reloaded"] = reloaded;
    if (!reloaded)
      WithColor::warning(errs(), "mqss retrain")
          << "promoted, but the server at " << server << " did not reload"
          << (response ? " (HTTP " + std::to_string(response->status) + ")" : "") << "\n";
  }
  if (json) {
    outs() << formatv("{0:2}", json::Value(std::move(object))) << "\n";
  } else {
    outs() << formatv("A/B on {0} tasks ({1}): current {2:F3}x over default ({3} failures), "
                      "candidate {4:F3}x ({5} failures)\n",
                      result->tasks, split, result->currentGeomean, result->currentFailures,
                      result->candidateGeomean, result->candidateFailures);
    outs() << (result->promoted ? "promoted: " : "not promoted: ") << result->reason << "\n";
  }
  return 0;
}

} // namespace mqss::tool
