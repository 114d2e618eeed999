//===- Commands.h - The `mqss` subcommands ---------------------------------===//
#ifndef MQSS_TOOLS_MQSS_COMMANDS_H
#define MQSS_TOOLS_MQSS_COMMANDS_H

#include "llvm/Support/CommandLine.h"

namespace mqss::tool {

/// Options shown in `--help`; LLVM's own options stay hidden.
llvm::cl::OptionCategory &category();

extern llvm::cl::SubCommand runCommand;
int runMain();

extern llvm::cl::SubCommand benchCommand;
int benchMain();

extern llvm::cl::SubCommand actionsCommand;
int actionsMain();

extern llvm::cl::SubCommand applyCommand;
int applyMain();

extern llvm::cl::SubCommand featuresCommand;
int featuresMain();

extern llvm::cl::SubCommand searchCommand;
int searchMain();

extern llvm::cl::SubCommand selectCommand;
int selectMain();

extern llvm::cl::SubCommand collectCommand;
int collectMain();

extern llvm::cl::SubCommand evaluateCommand;
int evaluateMain();

extern llvm::cl::SubCommand trainCommand;
int trainMain(int argc, char **argv);

} // namespace mqss::tool

#endif // MQSS_TOOLS_MQSS_COMMANDS_H
