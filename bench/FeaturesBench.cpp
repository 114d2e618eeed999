//===- FeaturesBench.cpp - State encoder latency on a 1,000-op module ------===//
//
// Times summarize + encodeFeatures (what every policy step pays) on a
// generated module of about 1,000 operations mixing linalg on tensors, affine
// loop nests and arithmetic. Prints percentiles as JSON; target p50 < 100 us.
//
//===----------------------------------------------------------------------===//

#include "BenchOptions.h"
#include "mqss/Features/Encoder.h"
#include "mqss/IR/Context.h"
#include "mqss/IR/Loader.h"
#include "mqss/IR/Summary.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <chrono>

using namespace mqss;

static llvm::cl::opt<unsigned> blocks("blocks",
                                      llvm::cl::desc("repeated kernel bodies"),
                                      llvm::cl::init(40),
                                      llvm::cl::cat(benchOptions()));
static llvm::cl::opt<unsigned> iterations("iterations", llvm::cl::init(2000),
                                          llvm::cl::desc("Timed encodings"),
                                          llvm::cl::cat(benchOptions()));

/// One function per block: a linalg.generic on tensors plus an affine nest.
static std::string generateModule(unsigned count) {
  std::string text;
  llvm::raw_string_ostream os(text);
  for (unsigned i = 0; i < count; ++i) {
    os << llvm::formatv(R"mlir(
func.func @f{0}(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %t: tensor<64x64xf32>) -> tensor<64x64xf32> {{
  %c = arith.constant 2.0 : f32
  affine.for %i = 0 to 64 {{
    affine.for %j = 0 to 64 {{
      %x = affine.load %a[%i, %j] : memref<64x64xf32>
      %y = affine.load %b[%j, %i] : memref<64x64xf32>
      %m = arith.mulf %x, %c : f32
      %s = arith.addf %m, %y : f32
      %e = math.exp %s : f32
      affine.store %e, %b[%i, %j] : memref<64x64xf32>
    }
  }
  %e = tensor.empty() : tensor<64x64xf32>
  %r = linalg.generic {{indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%t : tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) {{
  ^bb0(%v: f32, %o: f32):
    %w = arith.mulf %v, %c : f32
    linalg.yield %w : f32
  } -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}
)mlir",
                        i);
  }
  return text;
}

int main(int argc, char **argv) {
  parseBenchCommandLine(argc, argv, "State encoder latency\n");
  auto context = createContext();
  auto module = loadModuleSource(*context, generateModule(blocks));
  if (!module) {
    llvm::errs() << llvm::toString(module.takeError());
    return 1;
  }
  unsigned numOps = summarize(**module).numOps;
  EncoderContext encoder;
  encoder.vectorBits = 512;
  std::vector<double> micros;
  float sink = 0;
  for (unsigned i = 0; i < iterations; ++i) {
    auto start = std::chrono::steady_clock::now();
    IRSummary summary = summarize(**module);
    encoder.stage = summary.stage();
    FeatureVector features = encodeFeatures(summary, encoder);
    micros.push_back(std::chrono::duration<double, std::micro>(
                         std::chrono::steady_clock::now() - start)
                         .count());
    sink += features[0];
  }
  std::sort(micros.begin(), micros.end());
  auto pct = [&](double p) { return micros[static_cast<size_t>(p * (micros.size() - 1))]; };
  llvm::outs() << llvm::formatv(
      "{0:2}\n", llvm::json::Value(llvm::json::Object{
                     {"benchmark", "features"},
                     {"module_ops", numOps},
                     {"num_features", kNumFeatures},
                     {"iterations", iterations.getValue()},
                     {"encode_us_p50", pct(0.5)},
                     {"encode_us_p90", pct(0.9)},
                     {"encode_us_p99", pct(0.99)},
                     {"target_us_p50", 100},
                     {"checksum", sink}}));
  return 0;
}
