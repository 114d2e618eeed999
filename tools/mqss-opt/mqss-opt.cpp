//===- mqss-opt.cpp - mlir-opt with every upstream pass plus mqss-select ---===//
//
//   mqss-opt --pass-pipeline='builtin.module(mqss-select{target=x86-avx2})' in.mlir
//
//===----------------------------------------------------------------------===//

#include "mqss/IR/Context.h"
#include "mqss/Passes/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mqss::registerPasses();
  mqss::registerMQSSPasses();
  mlir::DialectRegistry registry;
  mqss::registerDialects(registry);
  return mlir::asMainReturnCode(mlir::MlirOptMain(
      argc, argv, "MQSS-Selector optimizer driver: mlir-opt plus the mqss-select pass\n",
      registry));
}
