//===- Plugin.cpp - The mqss-select pass as an mlir-opt pass plugin --------===//
//
//   mlir-opt-19 --load-pass-plugin=libMQSSPlugin.so \
//     --pass-pipeline='builtin.module(mqss-select{target=x86-avx2})' in.mlir
//
// The plugin does not link MLIR: its MLIR symbols resolve against the
// mlir-opt that loads it (Debian's links MLIR statically and exports them),
// so there is one copy of MLIR in the process. It links libLLVM (shared, the
// same one mlir-opt uses) and libtorch (model loading).
//
//===----------------------------------------------------------------------===//

#include "mqss/Passes/Passes.h"

#include "mlir/Tools/Plugins/PassPlugin.h"
#include "llvm/Config/llvm-config.h"

extern "C" LLVM_ATTRIBUTE_WEAK ::mlir::PassPluginLibraryInfo mlirGetPassPluginInfo() {
  return {MLIR_PLUGIN_API_VERSION, "MQSSPlugin", LLVM_VERSION_STRING,
          [] { mqss::registerMQSSPasses(); }};
}
