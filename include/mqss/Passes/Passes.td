//===- Passes.td - MQSS-Selector's passes ------------------*- tablegen -*-===//

#ifndef MQSS_PASSES_TD
#define MQSS_PASSES_TD

include "mlir/Pass/PassBase.td"

def SelectPipeline : Pass<"mqss-select", "::mlir::ModuleOp"> {
  let summary = "Let MQSS-Selector's policy choose and run the passes for each function";
  let description = [{
    For every function with a body, the trained policy picks a sequence of
    actions stage by stage (tensor -> bufferized linalg -> loops) from the
    function's own features, and the pass applies it, exactly as
    `mqss select --emit=mlir` does. The output is still above the LLVM
    dialect: follow the pass with your lowering (or `mqss run`'s).

    ```
    mqss-opt --pass-pipeline='builtin.module(mqss-select{target=x86-avx2})' in.mlir
    ```

    With `guard=measure` the top candidates are JIT-compiled and timed against
    MQSS-Selector's `default` pipeline in a sandboxed child, and the fastest is
    applied (never one slower than `default`); this needs a module with a
    runnable entry function and is available in `mqss-opt`, not in the plugin.
    `entry`, `shape` and `arg` say how to run it, as `mqss select`'s
    `--entry`, `--shape` and `--arg` do:

    ```
    mqss-opt --pass-pipeline='builtin.module(mqss-select{guard=measure entry=scale shape=arg0=4096 arg=arg1=200})' in.mlir
    ```
  }];
  let options = [
    Option<"model", "model", "std::string", /*default=*/"\"\"",
           "Model file (default: the shipped one, or $MQSS_MODEL)">,
    Option<"target", "target", "std::string", /*default=*/"\"host\"",
           "Target to decide for: host, x86-avx512, x86-avx2, x86-sse4">,
    Option<"guard", "guard", "std::string", /*default=*/"\"none\"",
           "none, or measure: time the top candidates against `default`">,
    Option<"entry", "entry", "std::string", /*default=*/"\"\"",
           "With guard=measure: the function to run (default: @main or the only "
           "public one)">,
    ListOption<"shapes", "shape", "std::string",
           "With guard=measure: argN=AxB sizes of a dynamically shaped argument "
           "(all its dimensions, or only the dynamic ones in order)">,
    ListOption<"args", "arg", "std::string",
           "With guard=measure: argN=V, the value of a scalar argument">,
    Option<"timeoutSeconds", "timeout-s", "double", /*default=*/"60",
           "With guard=measure: the most seconds one measurement may run">,
    Option<"maxSteps", "max-steps", "unsigned", /*default=*/"8",
           "Most decisions per function">,
    Option<"remarks", "remarks", "bool", /*default=*/"false",
           "Emit a remark with each function's actions and the time spent deciding "
           "(features + inference) and running the chosen passes">,
  ];
}

#endif // MQSS_PASSES_TD
