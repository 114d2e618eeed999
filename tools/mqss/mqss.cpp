//===- mqss.cpp - The MQSS-Selector command line ---------------------------===//
//
// A thin dispatcher: each subcommand parses its options and calls the library.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "mqss/Runtime/Target.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace mqss::tool {
cl::OptionCategory &category() {
  static cl::OptionCategory options("mqss options");
  return options;
}
bool parseTargetList(StringRef list, StringRef tool, std::vector<std::string> &targets) {
  targets.clear();
  SmallVector<StringRef> names;
  list.split(names, ',', -1, false);
  for (StringRef name : names) {
    if (name.trim().empty())
      continue;
    if (auto resolved = mqss::resolveTarget(name.trim()); !resolved) {
      WithColor::error(errs(), tool) << toString(resolved.takeError()) << "\n";
      return false;
    }
    targets.push_back(name.trim().str());
  }
  return true;
}

void printJsonError(const Twine &message) {
  outs() << formatv("{0:2}", json::Value(json::Object{{"error", message.str()}})) << "\n";
}
} // namespace mqss::tool

int main(int argc, char **argv) {
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
  cl::ParseCommandLineOptions(
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
      "Run `mqss SUBCOMMAND --help` for a subcommand's options.\n");

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
  if (mqss::tool::retrainCommand)
    return mqss::tool::retrainMain(argc, argv);
  if (mqss::tool::collectCommand)
    return mqss::tool::collectMain();
  if (mqss::tool::evaluateCommand)
    return mqss::tool::evaluateMain();
  if (mqss::tool::trainCommand)
    return mqss::tool::trainMain(argc, argv);

  errs() << "mqss: no subcommand given; run `mqss --help`\n";
  return 2;
}
