//===- mqss.cpp - The MQSS-Selector command line ---------------------------===//
//
// A thin dispatcher: each subcommand parses its options and calls the library.
// `train` and `retrain` learn with libtorch, which takes 0.4 s to load: they
// are the mqss-train executable beside this one, which `mqss` runs for them,
// so that every other command starts in milliseconds.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cerrno>
#include <cstring>
#include <unistd.h>

using namespace llvm;

// Listed by --help; runTrainingCommand runs them before options are parsed.
static cl::SubCommand trainListed("train", mqss::tool::kTrainDescription);
static cl::SubCommand retrainListed("retrain", mqss::tool::kRetrainDescription);

/// Runs mqss-train, the executable beside this one, with \p argv; returns
/// only when it cannot.
static int runTrainingCommand(char **argv) {
  std::string self = sys::fs::getMainExecutable(argv[0], (void *)&runTrainingCommand);
  SmallString<256> path(sys::path::parent_path(self));
  sys::path::append(path, "mqss-train");
  execv(path.c_str(), argv);
  errs() << "mqss: error: cannot run '" << path << "' for `mqss " << argv[1]
         << "`: " << std::strerror(errno)
         << " (training is that executable, installed beside mqss)\n";
  return 1;
}


int main(int argc, char **argv) {
  if (argc > 1 && (StringRef(argv[1]) == "train" || StringRef(argv[1]) == "retrain"))
    return runTrainingCommand(argv);
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(mqss::tool::category());
  // LLVM's --help exits 0 even after "Unknown subcommand": check first.
  if (argc > 1 && argv[1][0] != '-') {
    bool known = false;
    for (cl::SubCommand *sub : cl::getRegisteredSubcommands())
      known |= sub->getName() == argv[1];
    if (!known) {
      errs() << "mqss: unknown subcommand '" << argv[1] << "'; run `mqss --help`\n";
      return 2;
    }
  }
  // Errors in the options (an unknown flag, a missing FILE) exit 2, as the
  // values mqss checks itself do; LLVM's parser alone would exit 1, the
  // status of a measurement that is not `ok`.
  if (!cl::ParseCommandLineOptions(
      argc, argv,
      "MQSS-Selector: a learned pass-pipeline selector for MLIR\n\n"
      "  mqss run FILE --pipeline=P [--baseline=P]   measure a pipeline on a "
      "kernel\n"
      "  mqss bench list|run [--split=S] [--pipeline=P]  the benchmark suite\n"
      "  mqss actions [--stage=S]                        the action catalog\n"
      "  mqss apply FILE --actions=a,b,c [--emit=...]    apply a sequence of actions\n"
      "  mqss features FILE [--json]                     the policy's view of a module\n"
      "  mqss search FILE --strategy=random|greedy|beam  search with real measurements\n"
      "  mqss select FILE [--emit=pipeline|mlir|llvm|json]  the policy's pipeline per function\n"
      "  mqss explain FILE [--json]                      why the policy chose what it chose\n"
      "  mqss serve [--port=P] [--token=T]               decisions over HTTP/JSON, online learning\n"
      "  mqss retrain [--since=24h] [--server=URL]       learn from served traffic, A/B, promote\n"
      "  mqss collect [--split=train] [--workers=N]      trajectories into the store\n"
      "  mqss train --out=DIR [--updates=N]              train the policy (BC, then PPO)\n"
      "  mqss evaluate [--split=test] [--model=M]        the policy against the baselines\n\n"
      "Run `mqss SUBCOMMAND --help` for a subcommand's options.\n",
      &errs()))
    return 2;

  if (mqss::tool::runCommand)
    return mqss::tool::runMain();
  if (mqss::tool::benchCommand)
    return mqss::tool::benchMain();
  if (mqss::tool::actionsCommand)
    return mqss::tool::actionsMain();
  if (mqss::tool::applyCommand)
    return mqss::tool::applyMain();
  if (mqss::tool::featuresCommand)
    return mqss::tool::featuresMain();
  if (mqss::tool::searchCommand)
    return mqss::tool::searchMain();
  if (mqss::tool::selectCommand)
    return mqss::tool::selectMain();
  if (mqss::tool::explainCommand)
    return mqss::tool::explainMain();
  if (mqss::tool::serveCommand)
    return mqss::tool::serveMain();
  if (mqss::tool::collectCommand)
    return mqss::tool::collectMain();
  if (mqss::tool::evaluateCommand)
    return mqss::tool::evaluateMain();

  errs() << "mqss: no subcommand given; run `mqss --help`\n";
  return 2;
}
