//===- DecisionBench.cpp - Decision latency: features + inference, JSON ----===//
//
// One policy step as a deployed selector pays it: summarise the IR, encode
// the features, compute the mask and run the model. Target: p50 < 100 us.
//
// Usage: mqss-bench-decision [--model=M] [FILE]
//
//===----------------------------------------------------------------------===//

#include "BenchOptions.h"
#include "mqss/Features/Encoder.h"
#include "mqss/IR/Context.h"
#include "mqss/IR/Loader.h"
#include "mqss/IR/Summary.h"
#include "mqss/Policy/Model.h"
#include "mqss/Policy/Policy.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>

using namespace mqss;

static llvm::cl::opt<std::string>
    input(llvm::cl::Positional, llvm::cl::init(MQSS_EXAMPLES "/matmul.mlir"),
          llvm::cl::desc("<module.mlir>"), llvm::cl::cat(benchOptions()));
static llvm::cl::opt<std::string>
    model("model", llvm::cl::init(""),
          llvm::cl::desc("Model file (default: the shipped model)"),
          llvm::cl::cat(benchOptions()));
static llvm::cl::opt<unsigned> iterations("iterations", llvm::cl::init(2000),
                                          llvm::cl::desc("Timed decisions"),
                                          llvm::cl::cat(benchOptions()));

/// The dense-layer copy decisions run on this CPU (see denseKernels()).
static std::string inferenceIsa() {
  for (const DenseKernel &kernel : denseKernels())
    if (kernel.supported)
      return kernel.isa;
  return "none";
}

int main(int argc, char **argv) {
  parseBenchCommandLine(argc, argv, "Decision latency\n");
  auto policy =
      loadPolicy(model.empty() ? defaultModelPath() : std::string(model));
  if (!policy) {
    llvm::errs() << llvm::toString(policy.takeError()) << "\n";
    return 1;
  }
  auto context = createContext();
  auto module = loadModuleFile(*context, input);
  if (!module) {
    llvm::errs() << llvm::toString(module.takeError());
    return 1;
  }
  EncoderContext encoder;
  encoder.vectorBits = targetVectorBits("host");
  std::vector<double> total, inference;
  unsigned checksum = 0;
  for (unsigned i = 0; i < iterations; ++i) {
    auto start = std::chrono::steady_clock::now();
    IRSummary summary = summarize(**module);
    encoder.stage = summary.stage();
    FeatureVector features = encodeFeatures(summary, encoder);
    std::vector<bool> mask = legalMask(summary, encoder.stage);
    auto middle = std::chrono::steady_clock::now();
    Decision decision = (*policy)->decide(features, mask);
    auto end = std::chrono::steady_clock::now();
    checksum += actionIndex(*decision.action);
    total.push_back(
        std::chrono::duration<double, std::micro>(end - start).count());
    inference.push_back(
        std::chrono::duration<double, std::micro>(end - middle).count());
  }
  auto pct = [](std::vector<double> v, double p) {
    std::sort(v.begin(), v.end());
    return v[static_cast<size_t>(p * (v.size() - 1))];
  };
  llvm::outs() << llvm::formatv(
      "{0:2}\n", llvm::json::Value(llvm::json::Object{
                     {"benchmark", "decision"},
                     {"module", input.getValue()},
                     {"iterations", iterations.getValue()},
                     {"step_us_p50", pct(total, 0.5)},
                     {"step_us_p99", pct(total, 0.99)},
                     {"inference_us_p50", pct(inference, 0.5)},
                     {"inference_isa", inferenceIsa()},
                     {"target_step_us_p50", 100},
                     {"checksum", checksum}}));
  return 0;
}
