//===- mqss-train.cpp - `mqss train` and `mqss retrain` ---------------------===//
//
// The commands that learn, with libtorch. `mqss train ...` and `mqss retrain
// ...` run this executable with their arguments (see mqss.cpp), so that the
// other commands do not load libtorch.
//
//===----------------------------------------------------------------------===//

#include "Commands.h"

#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

int main(int argc, char **argv) {
  InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions(mqss::tool::category());
  if (argc < 2 || (StringRef(argv[1]) != "train" && StringRef(argv[1]) != "retrain")) {
    errs() << "mqss-train: run as `mqss train ...` or `mqss retrain ...`; see `mqss --help`\n";
    return 2;
  }
  if (!cl::ParseCommandLineOptions(argc, argv,
                                   "MQSS-Selector: training the policy (`mqss train`, "
                                   "`mqss retrain`)\n",
                                   &errs()))
    return 2; // as mqss does

  if (mqss::tool::retrainCommand)
    return mqss::tool::retrainMain(argc, argv);
  if (mqss::tool::trainCommand)
    return mqss::tool::trainMain(argc, argv);
  errs() << "mqss-train: no subcommand given; run `mqss --help`\n";
  return 2;
}
