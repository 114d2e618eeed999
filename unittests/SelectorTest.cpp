//===- SelectorTest.cpp - The C++ API: per-function decisions, explanations -===//

#include "mqss/Selector/Selector.h"

#include "mqss/Actions/Baselines.h"
#include "mqss/Actions/Catalog.h"
#include "mqss/Actions/Sequence.h"
#include "mqss/IR/Context.h"
#include "mqss/IR/Loader.h"
#include "mqss/IR/Summary.h"
#include "mqss/Policy/Network.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "gtest/gtest.h"

#include <cmath>

using namespace mqss;

namespace {
std::string printed(mlir::ModuleOp module) {
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os);
  return text;
}

struct Fixture {
  std::unique_ptr<mlir::MLIRContext> context = createContext();
  mlir::OwningOpRef<mlir::ModuleOp> load(llvm::StringRef path) {
    registerPasses();
    auto module = loadModuleFile(*context, path);
    EXPECT_TRUE(static_cast<bool>(module)) << llvm::toString(module.takeError());
    return std::move(*module);
  }
};

/// The shipped model; these tests' kernels are far smaller than its training
/// kernels, so by default they would get `default`'s plan (tested below).
std::unique_ptr<Selector> shippedSelector(llvm::StringRef target = "x86-avx2",
                                          bool deferSmallKernels = false) {
  SelectorOptions options;
  options.target = target.str();
  options.deferBelowTrainingRange = deferSmallKernels;
  auto selector = Selector::create(options);
  EXPECT_TRUE(static_cast<bool>(selector)) << llvm::toString(selector.takeError());
  return std::move(*selector);
}
} // namespace

TEST(ExecutedOps, CountsLoopTripsAndLinalgPointsAndGivesUpWhenNotStatic) {
  Fixture f;
  auto module = mlir::parseSourceString<mlir::ModuleOp>(R"(
    func.func @loops(%m: memref<8x16xf32>) {
      %c = arith.constant 1.0 : f32
      affine.for %i = 0 to 8 {
        affine.for %j = 0 to 16 step 2 {
          affine.store %c, %m[%i, %j] : memref<8x16xf32>
        }
      }
      return
    }
    func.func @matmul(%a: memref<4x6xf32>, %b: memref<6x5xf32>, %c: memref<4x5xf32>) {
      linalg.matmul ins(%a, %b : memref<4x6xf32>, memref<6x5xf32>) outs(%c : memref<4x5xf32>)
      return
    }
    func.func @triangular(%m: memref<8xf32>) {
      %c = arith.constant 1.0 : f32
      affine.for %i = 0 to 8 {
        affine.for %j = 0 to affine_map<(d0) -> (d0)>(%i) {
          affine.store %c, %m[%j] : memref<8xf32>
        }
      }
      return
    }
    func.func @dynamic(%a: memref<?x6xf32>, %b: memref<6x5xf32>, %c: memref<?x5xf32>) {
      linalg.matmul ins(%a, %b : memref<?x6xf32>, memref<6x5xf32>) outs(%c : memref<?x5xf32>)
      return
    }
  )",
                                                                 f.context.get());
  ASSERT_TRUE(module);
  auto count = [&](llvm::StringRef name) {
    return executedOps(module->lookupSymbol<mlir::func::FuncOp>(name));
  };
  // constant, outer loop, 8 x (inner loop, outer yield, 8 x (store, inner yield)), return
  EXPECT_EQ(count("loops"), std::optional<double>(1 + 1 + 8 * (1 + 1 + 8 * 2) + 1));
  // 4 x 5 x 6 points, each a multiply, an add and the yield; then return
  EXPECT_EQ(count("matmul"), std::optional<double>(4 * 5 * 6 * 3 + 1));
  EXPECT_EQ(count("triangular"), std::nullopt);
  EXPECT_EQ(count("dynamic"), std::nullopt);
}

TEST(ExecutedOps, CountsCalleesInTheModuleOrDeclaredAndGivesUpOnUnknownOnes) {
  Fixture f;
  const char *source = R"(
    func.func @matmul(%a: memref<4x6xf32>, %b: memref<6x5xf32>, %c: memref<4x5xf32>) {
      linalg.matmul ins(%a, %b : memref<4x6xf32>, memref<6x5xf32>) outs(%c : memref<4x5xf32>)
      return
    }
    func.func @twice(%a: memref<4x6xf32>, %b: memref<6x5xf32>, %c: memref<4x5xf32>) {
      affine.for %i = 0 to 2 {
        func.call @matmul(%a, %b, %c) : (memref<4x6xf32>, memref<6x5xf32>, memref<4x5xf32>) -> ()
      }
      return
    }
    func.func @outer(%a: memref<4x6xf32>, %b: memref<6x5xf32>, %c: memref<4x5xf32>) {
      func.call @twice(%a, %b, %c) : (memref<4x6xf32>, memref<6x5xf32>, memref<4x5xf32>) -> ()
      return
    }
    func.func private @sqrtf(f32) -> f32
    func.func @external(%x: f32) -> f32 {
      %r = func.call @sqrtf(%x) : (f32) -> f32
      return %r : f32
    }
    func.func @recursive(%n: i32) {
      func.call @recursive(%n) : (i32) -> ()
      return
    }
    func.func @indirect(%f: (f32) -> f32, %x: f32) -> f32 {
      %r = func.call_indirect %f(%x) : (f32) -> f32
      return %r : f32
    }
  )";
  auto module = mlir::parseSourceString<mlir::ModuleOp>(source, f.context.get());
  ASSERT_TRUE(module);
  auto count = [&](llvm::StringRef name, const FunctionOps *declared = nullptr) {
    return executedOps(module->lookupSymbol<mlir::func::FuncOp>(name),
                       std::numeric_limits<double>::infinity(), declared);
  };
  double matmul = 4 * 5 * 6 * 3 + 1;
  ASSERT_EQ(count("matmul"), std::optional<double>(matmul));
  // loop, 2 x (call + the callee's ops, yield), return
  double twice = 1 + 2 * (1 + matmul + 1) + 1;
  EXPECT_EQ(count("twice"), std::optional<double>(twice));
  EXPECT_EQ(count("outer"), std::optional<double>(1 + twice + 1));
  EXPECT_EQ(count("external"), std::nullopt) << "sqrtf's body is nowhere";
  EXPECT_EQ(count("recursive"), std::nullopt);
  EXPECT_EQ(count("indirect"), std::nullopt);
  // Counting stops early through a call too.
  std::optional<double> early =
      executedOps(module->lookupSymbol<mlir::func::FuncOp>("outer"), 100);
  ASSERT_TRUE(early.has_value());
  EXPECT_GE(*early, 100);
  EXPECT_LT(*early, twice);

  // Cut out with its callee declared, as the selector's scratch modules
  // are: the counts taken on the whole module stand in for the body.
  FunctionOps whole = executedOpsByFunction(*module);
  EXPECT_EQ(whole.lookup("twice"), std::optional<double>(twice));
  EXPECT_EQ(whole.lookup("recursive"), std::nullopt);
  EXPECT_FALSE(whole.contains("sqrtf")) << "a declaration is not counted";
  module->lookupSymbol<mlir::func::FuncOp>("twice").eraseBody();
  module->lookupSymbol<mlir::func::FuncOp>("twice").setPrivate();
  EXPECT_EQ(count("outer"), std::nullopt);
  EXPECT_EQ(count("outer", &whole), std::optional<double>(1 + twice + 1));
  FunctionOps unknown{{"twice", std::nullopt}};
  EXPECT_EQ(count("outer", &unknown), std::nullopt);
}

TEST(ExecutedOps, CountsEachCalleeOnceHoweverOftenItIsCalled) {
  Fixture f;
  // f0 calls f1 twice, f1 calls f2 twice, ...: 2^40 calls of f40 in all,
  // which a count that followed every call would not finish.
  std::string source;
  for (int i = 0; i < 40; ++i)
    source += llvm::formatv("func.func @f{0}() {{\n  func.call @f{1}() : () -> ()\n"
                            "  func.call @f{1}() : () -> ()\n  return\n}\n",
                            i, i + 1)
                  .str();
  source += "func.func @f40() {\n  return\n}\n";
  auto module = mlir::parseSourceString<mlir::ModuleOp>(source, f.context.get());
  ASSERT_TRUE(module);
  double expected = 1; // f40: its return
  for (int i = 39; i >= 0; --i)
    expected = 2 * (1 + expected) + 1; // two calls with their callee, a return
  EXPECT_EQ(executedOps(module->lookupSymbol<mlir::func::FuncOp>("f0")),
            std::optional<double>(expected));
  FunctionOps all = executedOpsByFunction(*module);
  EXPECT_EQ(all.size(), 41u);
  EXPECT_EQ(all.lookup("f0"), std::optional<double>(expected));
  EXPECT_EQ(all.lookup("f39"), std::optional<double>(2 * 2 + 1));
}

TEST(Selector, GivesDefaultsPlanToKernelsFarBelowTheTrainingRange) {
  Fixture f;
  auto module = f.load(MQSS_TEST_INPUTS "/two_kernels.mlir");
  ASSERT_TRUE(shippedSelector()->policy().metadata().minTrainedLog2Ops.has_value())
      << "the shipped model records the sizes it was trained on";
  auto deferring = shippedSelector("x86-avx2", /*deferSmallKernels=*/true);
  auto selection = deferring->select(*module);
  ASSERT_TRUE(static_cast<bool>(selection)) << llvm::toString(selection.takeError());
  // The kernels (64x64) are far below it, and so is main, which calls them
  // (2^19.6 ops per call).
  ASSERT_EQ(selection->functions.size(), 3u);
  // Each function's own plan; they differ (the matmul's schedule is not the
  // relu's), so the selection is not the whole module's `default` plan.
  EXPECT_FALSE(selection->uniform());
  EXPECT_EQ(selection->chosen, "default-per-function");
  for (const FunctionSelection &function : selection->functions) {
    EXPECT_EQ(function.chosen, "default") << function.name;
    EXPECT_NE(function.note.find("under half the smallest kernel"), std::string::npos);
    EXPECT_TRUE(function.decisionMicros.empty()) << "no policy decision was made";
    EXPECT_EQ(function.actions.back()->kind, ActionKind::Finish);
  }
  EXPECT_NE(selection->functions[2].note.find("2^19.6"), std::string::npos)
      << selection->functions[2].note;
  // The plan is the default baseline's on that function.
  mlir::OwningOpRef<mlir::ModuleOp> matmul = module->clone();
  for (auto function : llvm::to_vector(matmul->getOps<mlir::func::FuncOp>()))
    if (function.getSymName() != "matmul")
      function.erase();
  auto expected = planDefault(*matmul);
  ASSERT_TRUE(static_cast<bool>(expected)) << llvm::toString(expected.takeError());
  expected->push_back(lookupAction("finish-O3"));
  EXPECT_EQ(selection->functions[0].actions, *expected);
  // One decision at a time (/v1/select) follows the same plan, the rule
  // judged on the module as the chain began, as the server gives it (the
  // vectorized IR executes more ops: 1,536 scalar extracts and inserts per
  // iteration of the 8x32 block).
  mlir::OwningOpRef<mlir::ModuleOp> alone = module->clone();
  for (auto function : llvm::to_vector(alone->getOps<mlir::func::FuncOp>()))
    if (function.getSymName() != "matmul")
      function.erase();
  mlir::OwningOpRef<mlir::ModuleOp> began = alone->clone();
  std::vector<const Action *> history;
  for (const Action *action : *expected) {
    auto next = deferring->next(*alone, Chain{history, *began});
    ASSERT_TRUE(static_cast<bool>(next)) << llvm::toString(next.takeError());
    EXPECT_EQ(next->chosen, "default");
    EXPECT_EQ(next->action, action) << "step " << history.size();
    if (action->kind == ActionKind::Finish)
      break;
    ASSERT_FALSE(errorToBool(applyAction(*alone, *action)));
    history.push_back(action);
  }
  // A module with a function the policy decides (its count is not static)
  // stays the policy's.
  auto dynamic = mlir::parseSourceString<mlir::ModuleOp>(R"(
    func.func @dynamic(%a: memref<?x6xf32>, %b: memref<6x5xf32>, %c: memref<?x5xf32>) {
      linalg.matmul ins(%a, %b : memref<?x6xf32>, memref<6x5xf32>) outs(%c : memref<?x5xf32>)
      return
    })",
                                                         f.context.get());
  ASSERT_TRUE(dynamic);
  mlir::OwningOpRef<mlir::ModuleOp> withDynamic = module->clone();
  withDynamic->push_back(dynamic->lookupSymbol("dynamic")->clone());
  auto mixed = deferring->next(*withDynamic);
  ASSERT_TRUE(static_cast<bool>(mixed)) << llvm::toString(mixed.takeError());
  EXPECT_EQ(mixed->chosen, "policy");
  auto policySelection = shippedSelector()->select(*module);
  ASSERT_TRUE(static_cast<bool>(policySelection));
  EXPECT_EQ(policySelection->chosen, "policy");
  EXPECT_FALSE(policySelection->functions[0].decisionMicros.empty());
}

TEST(Selector, DecidesPerFunctionAndApplyMatchesOptimize) {
  Fixture f;
  auto module = f.load(MQSS_TEST_INPUTS "/two_kernels.mlir");
  auto selector = shippedSelector();
  auto selection = selector->select(*module);
  ASSERT_TRUE(static_cast<bool>(selection)) << llvm::toString(selection.takeError());
  ASSERT_EQ(selection->functions.size(), 3u);
  EXPECT_EQ(selection->functions[0].name, "matmul");
  EXPECT_EQ(selection->functions[1].name, "relu");
  EXPECT_EQ(selection->functions[2].name, "main");
  for (const FunctionSelection &function : selection->functions) {
    EXPECT_FALSE(function.actions.empty());
    EXPECT_EQ(function.actions.back()->kind, ActionKind::Finish);
    EXPECT_EQ(function.decisionMicros.size() + (function.actions.size() > 8 ? 1 : 0),
              function.actions.size());
  }
  // A matmul and an elementwise kernel are not decided alike.
  EXPECT_NE(selection->functions[0].actions, selection->functions[1].actions);

  std::string before = printed(*module);
  auto again = selector->select(*module);
  ASSERT_TRUE(static_cast<bool>(again));
  EXPECT_EQ(printed(*module), before) << "select() must not change the module";

  mlir::OwningOpRef<mlir::ModuleOp> applied = module->clone();
  ASSERT_FALSE(errorToBool(selector->apply(*applied, *selection)));
  mlir::OwningOpRef<mlir::ModuleOp> optimized = module->clone();
  auto optimizedSelection = selector->optimize(*optimized);
  ASSERT_TRUE(static_cast<bool>(optimizedSelection));
  EXPECT_TRUE(mlir::succeeded(mlir::verify(*optimized)));
  EXPECT_EQ(printed(*applied), printed(*optimized));
  // Every function was transformed: no linalg op is left in the kernels.
  EXPECT_EQ(printed(*optimized).find("linalg.matmul"), std::string::npos);

  // A per-function selection applied to another module names what it
  // lacks (it said a function "disappeared while it was optimized").
  auto other = f.load(MQSS_TEST_INPUTS "/small_matmul.mlir");
  llvm::Error mismatch = selector->apply(*other, *selection);
  ASSERT_TRUE(static_cast<bool>(mismatch));
  EXPECT_NE(llvm::toString(std::move(mismatch)).find("which this module does not define"),
            std::string::npos);
}

TEST(Selector, AttributionIsGradientTimesInput) {
  // Finite differences of log p(action) against the analytic gradient, on a
  // freshly initialised network (weights of ordinary size, not the tiny
  // initial policy head) and a real module's features.
  configureTorchThreads();
  torch::manual_seed(11);
  ActorCritic network(kNumFeatures, actionCatalog().size());
  {
    torch::NoGradGuard noGrad;
    network->policyHead->weight.normal_(0, 0.3);
  }
  ModelMetadata metadata = currentMetadata();
  metadata.hidden = {128, 64, 32};
  auto policy = createNetworkPolicy(network, metadata);

  Fixture f;
  auto module = f.load(MQSS_EXAMPLES "/matmul.mlir");
  IRSummary summary = summarize(*module);
  EncoderContext context;
  context.stage = summary.stage();
  FeatureVector features = encodeFeatures(summary, context);
  std::vector<bool> mask = legalMask(summary, context.stage);
  Decision decision = policy->decide(features, mask);
  unsigned action = actionIndex(*decision.action);
  std::vector<float> weights = policy->attribute(features, mask, action);
  ASSERT_EQ(weights.size(), kNumFeatures);

  auto logProbability = [&](const FeatureVector &x) {
    return std::log(double(policy->decide(x, mask).probabilities[action]));
  };
  unsigned checked = 0;
  for (unsigned i = 0; i < kNumFeatures; ++i) {
    if (features[i] == 0) {
      EXPECT_EQ(weights[i], 0.0f) << featureSpec()[i].name.str();
      continue;
    }
    const float h = 1e-2f * std::max(1.0f, std::fabs(features[i]));
    FeatureVector up = features, down = features;
    up[i] += h;
    down[i] -= h;
    double numeric = (logProbability(up) - logProbability(down)) / (2 * h) * features[i];
    EXPECT_NEAR(weights[i], numeric, 2e-3 + 0.05 * std::fabs(numeric))
        << featureSpec()[i].name.str();
    ++checked;
  }
  EXPECT_GT(checked, 10u);
}

// A second affine loop tiling is masked after the first because it changes
// nothing: checked here on the IR, so an MLIR that starts retiling tiled
// bands fails this test instead of silently losing an option.
/// What a selection decided, function by function, in one comparable string.
std::string decisions(const Selection &selection) {
  std::string text = selection.chosen + "\n";
  for (const FunctionSelection &function : selection.functions)
    text += function.name + " [" + function.chosen + "] " + function.pipeline + " | " +
            function.note + "\n";
  return text;
}

TEST(Selector, SelectSourceOnSeveralThreadsDecidesAsSelect) {
  // Every kind of function: moved or copied into its scratch module, a
  // refused tiling, a failed bufferization (the scratch rebuilt).
  Fixture f;
  std::string path = MQSS_TEST_INPUTS "/several_functions.mlir";
  auto buffer = llvm::MemoryBuffer::getFile(path);
  ASSERT_TRUE(static_cast<bool>(buffer));
  llvm::StringRef source = (*buffer)->getBuffer();
  auto module = f.load(path);
  std::string expected;
  {
    auto selection = shippedSelector()->select(*module);
    ASSERT_TRUE(static_cast<bool>(selection)) << llvm::toString(selection.takeError());
    ASSERT_EQ(selection->functions.size(), 7u);
    expected = decisions(*selection);
  }
  for (unsigned threads : {1u, 2u, 3u}) {
    SelectorOptions options;
    options.target = "x86-avx2";
    options.deferBelowTrainingRange = false;
    options.threads = threads;
    auto selector = Selector::create(options);
    ASSERT_TRUE(static_cast<bool>(selector));
    for (int round = 0; round < 2; ++round) { // the helpers' contexts are reused
      auto selection = (*selector)->selectSource(*f.context, source, path);
      ASSERT_TRUE(static_cast<bool>(selection)) << llvm::toString(selection.takeError());
      EXPECT_EQ(decisions(*selection), expected) << threads << " threads";
      ASSERT_EQ(selection->threads.size(), threads);
      unsigned decided = 0;
      for (const Selection::ThreadTime &time : selection->threads) {
        decided += time.functions;
        EXPECT_GE(time.busyMicros, time.passMicros);
      }
      EXPECT_EQ(decided, 7u);
      EXPECT_GT(selection->threads.front().functions, 0u);
      // Each thread parsed its part of the text (its functions and what
      // they call), not the whole module.
      for (const Selection::ThreadTime &time : selection->threads) {
        EXPECT_GE(time.parsedFunctions, time.functions);
        if (threads > 1)
          EXPECT_LT(time.parsedFunctions, 7u);
      }
    }
    // Handed back, the module is as parsed: its functions were copied.
    mlir::OwningOpRef<mlir::ModuleOp> parsed;
    auto selection = (*selector)->selectSource(*f.context, source, path, &parsed);
    ASSERT_TRUE(static_cast<bool>(selection));
    ASSERT_TRUE(parsed);
    EXPECT_EQ(printed(*parsed), printed(*module));
    EXPECT_EQ(selection->threads.front().parsedFunctions, 7u);
  }
}

TEST(Selector, SelectSourceReportsBadInputAsTheLoaderDoes) {
  Fixture f;
  registerPasses();
  SelectorOptions options;
  options.target = "x86-avx2";
  options.threads = 2;
  auto selector = Selector::create(options);
  ASSERT_TRUE(static_cast<bool>(selector));
  auto text = [](llvm::StringRef path) {
    auto buffer = llvm::MemoryBuffer::getFile(path);
    EXPECT_TRUE(static_cast<bool>(buffer)) << path.str();
    return (*buffer)->getBuffer().str();
  };
  std::string good = text(MQSS_TEST_INPUTS "/several_functions.mlir");
  // A use before its definition in the last function: in the share of the
  // module a helper verifies.
  std::string badLast = good;
  size_t call = badLast.rfind("call @relu(%c)");
  ASSERT_NE(call, std::string::npos);
  badLast.replace(call, 14, "call @relu(%d)");
  badLast.insert(badLast.rfind("return"), "%d = memref.alloc() : memref<64x64xf32>\n  ");
  // And in the first function: this thread's share.
  std::string badFirst = good;
  badFirst.replace(badFirst.find("outs(%c : memref<64x64xf32>)"), 28, "outs(%e : memref<64x64xf32>)");
  badFirst.insert(badFirst.find("  return"), "  %e = memref.alloc() : memref<64x64xf32>\n");
  std::string unparsable = good + "\nfunc.func @broken(";
  // When each thread parses only its part of the text: a syntax error in
  // the last part, a call there to a function of the first part with the
  // wrong types, and a name defined in both parts.
  std::string syntaxLast = good;
  syntaxLast.replace(syntaxLast.rfind(": (memref<64x64xf32>) -> ()"), 27,
                     ": memref<64x64xf32> -> ()");
  std::string wrongCall = good;
  wrongCall.insert(wrongCall.rfind("  return"),
                   "  %s = call @scale(%a) : (memref<64x64xf32>) -> memref<64x64xf32>\n");
  std::string twice = good + "func.func @matmul() {\n  return\n}\n";
  for (const std::string &source :
       {badLast, badFirst, unparsable, syntaxLast, wrongCall, twice,
        text(MQSS_TEST_INPUTS "/sparse_csr_scale.mlir"), std::string("module {}\n")}) {
    std::string expected;
    auto loaded = loadModuleSource(*f.context, source, "in.mlir");
    if (loaded) {
      auto selection = (*selector)->select(**loaded);
      ASSERT_FALSE(static_cast<bool>(selection));
      expected = llvm::toString(selection.takeError());
    } else {
      expected = llvm::toString(loaded.takeError());
    }
    EXPECT_FALSE(expected.empty());
    for (int round = 0; round < 2; ++round) {
      auto selection = (*selector)->selectSource(*f.context, source, "in.mlir");
      ASSERT_FALSE(static_cast<bool>(selection));
      EXPECT_EQ(llvm::toString(selection.takeError()), expected);
    }
  }
}

TEST(Selector, NextSkipsActionsWhosePreconditionFails) {
  // `default`'s first loop action, loops.tile-32, would reorder the Seidel
  // stencil's dependent iterations: select() leaves it out when applying it
  // fails, and next(), which applies nothing, must not suggest it either.
  Fixture f;
  auto module = f.load(MQSS_TEST_INPUTS "/seidel_1d.mlir");
  auto deferring = shippedSelector("x86-avx2", /*deferSmallKernels=*/true);
  auto selection = deferring->select(*module);
  ASSERT_TRUE(static_cast<bool>(selection)) << llvm::toString(selection.takeError());
  ASSERT_EQ(selection->functions.size(), 1u);
  EXPECT_NE(selection->functions[0].note.find("left out loops.tile-32"), std::string::npos)
      << selection->functions[0].note;
  auto next = deferring->next(*module);
  ASSERT_TRUE(static_cast<bool>(next)) << llvm::toString(next.takeError());
  EXPECT_EQ(next->chosen, "default");
  EXPECT_EQ(next->action->precondition, nullptr) << next->action->name.str();
  EXPECT_EQ(next->action, selection->functions[0].actions.front());
}

TEST(Selector, NextDecidesAgainWithoutAnActionThatFails) {
  // A caller that can run passes (the server's child) tells next() which
  // proposals fail on the module: the decision is made again without them
  // and the actions failing with them, for the policy and for `default`.
  Fixture f;
  auto module = f.load(MQSS_TEST_INPUTS "/small_matmul.mlir");
  for (bool deferSmall : {false, true}) {
    auto selector = shippedSelector("x86-avx2", deferSmall);
    auto first = selector->next(*module);
    ASSERT_TRUE(static_cast<bool>(first)) << llvm::toString(first.takeError());
    ASSERT_NE(first->action->kind, ActionKind::Finish);
    std::vector<const Action *> tried;
    auto fails = [&](const Action &action) {
      tried.push_back(&action);
      return &action == first->action;
    };
    auto next = selector->next(*module, Chain{{}, nullptr, fails});
    ASSERT_TRUE(static_cast<bool>(next)) << llvm::toString(next.takeError());
    EXPECT_EQ(next->chosen, first->chosen);
    EXPECT_NE(next->action, first->action);
    EXPECT_FALSE(llvm::is_contained(actionsFailingWith(*first->action), next->action))
        << next->action->name.str();
    ASSERT_FALSE(tried.empty());
    EXPECT_EQ(tried.front(), first->action);
  }
}

TEST(Catalog, MasksActionsWhereUpstreamPassesMiscompile) {
  // Each input made an upstream MLIR 19 pass compute something else (found
  // by a random search over the actions, checked against naive lowering).
  Fixture f;
  const std::pair<const char *, const char *> cases[] = {
      {"datacopy_tiled_step2", "loops.data-copy"}, {"datacopy_tri", "loops.data-copy"},
      {"datacopy_affine_if", "loops.data-copy"},
      {"fusion_rowfill", "loops.fusion"},          {"scalrep_scffor", "loops.scalrep"},
      {"scalrep_while", "loops.scalrep"},          {"spec_copy_yield_out", "linalg.specialize"},
      {"spec_mm_extui", "tensor.specialize"},      {"spec_mm_neg", "tensor.specialize"},
      {"vec_step2", "loops.vectorize-4"},          {"vec_step2", "loops.vectorize-8"},
      {"vec_stride2", "loops.vectorize-8"},        {"vec_reverse", "loops.vectorize-8"},
      {"vec_floordiv", "loops.vectorize-4"},       {"unroll_shared_inits", "loops.unroll-4"},
      {"unroll_yield_iv", "loops.unroll-2"},      {"scalrep_else_branch", "loops.scalrep"},
      {"vec_else_branch", "loops.vectorize-8"}};
  for (const auto &[file, name] : cases) {
    auto module = f.load((MQSS_TEST_INPUTS "/miscompiles/" + llvm::Twine(file) + ".mlir").str());
    IRSummary summary = summarize(*module);
    const Action *action = lookupAction(name);
    ASSERT_TRUE(action) << name;
    EXPECT_EQ(action->stage, summary.stage()) << file;
    EXPECT_FALSE(legalMask(summary, summary.stage())[actionIndex(*action)]) << file << ": " << name;
  }
  // The same actions stay legal where those passes are right: a plain gemm
  // nest (unit steps, rectangular, no scf loop) and a plain matmul generic.
  auto gemm = f.load(MQSS_TEST_INPUTS "/polygeist_gemm.mlir");
  std::vector<bool> mask = legalMask(summarize(*gemm), Stage::Loops);
  for (const char *name : {"loops.data-copy", "loops.scalrep"})
    EXPECT_TRUE(mask[actionIndex(*lookupAction(name))]) << name;
  // The vectorizer corrupts the heap on a tiled nest carrying a value.
  auto rowSums = f.load(MQSS_TEST_INPUTS "/row_reduction_iter_args.mlir");
  ASSERT_FALSE(llvm::errorToBool(applyAction(*rowSums, *lookupAction("loops.tile-32"))));
  std::vector<bool> tiled = legalMask(summarize(*rowSums), Stage::Loops);
  for (const char *name : {"loops.vectorize-4", "loops.vectorize-8", "loops.vectorize-16"})
    EXPECT_FALSE(tiled[actionIndex(*lookupAction(name))]) << name;
  auto matmul = f.load(MQSS_EXAMPLES "/matmul.mlir");
  ASSERT_FALSE(llvm::errorToBool(applyAction(*matmul, *lookupAction("linalg.generalize"))));
  IRSummary generic = summarize(*matmul);
  EXPECT_TRUE(legalMask(generic, generic.stage())[actionIndex(*lookupAction("linalg.specialize"))]);
}

TEST(Catalog, EveryLegalityRuleSaysWhatItNeeds) {
  // An empty module satisfies no rule but `always`: each refusal a user
  // meets (`actions:` lists) names what the action needs.
  Fixture f;
  mlir::OwningOpRef<mlir::ModuleOp> empty = 
      mlir::ModuleOp::create(mlir::UnknownLoc::get(f.context.get()));
  IRSummary summary = summarize(*empty);
  for (const Action &action : actionCatalog()) {
    std::string why = illegalBecause(action, summary);
    if (action.legal(summary))
      EXPECT_TRUE(why.empty()) << action.name.str();
    else
      EXPECT_NE(why.find("it needs "), std::string::npos) << action.name.str() << ": " << why;
  }
}

TEST(Catalog, ApplyActionRecoversFromACrashingPass) {
  // MLIR 19's block packing aborts on a complex matmul (its legality rule
  // keeps it out; applyAction itself does not look): the action fails, and
  // the half-rewritten module is set aside, leaving a valid one.
  Fixture f;
  auto module = f.load(MQSS_TEST_INPUTS "/complex.mlir");
  llvm::Error error = applyAction(*module, *lookupAction("tensor.block-pack-matmul"));
  ASSERT_TRUE(static_cast<bool>(error));
  EXPECT_NE(llvm::toString(std::move(error)).find("crashed on this module"), std::string::npos);
  EXPECT_TRUE(mlir::succeeded(mlir::verify(*module)));
}

TEST(Catalog, ActionsListsRefuseWhatTheRulesGuardAgainst) {
  // A rule that keeps an upstream pass from IR it gets wrong refuses the
  // action by name (the lower bound passes the upper one, and the unroller
  // would run iterations the loop does not); a rule that only says there is
  // nothing to do lets it run.
  Fixture f;
  auto module = f.load(MQSS_TEST_INPUTS "/miscompiles/unroll_lb_above_ub.mlir");
  llvm::Error refused = applyActionsInTurn(*module, {lookupAction("loops.unroll-2")});
  ASSERT_TRUE(static_cast<bool>(refused));
  EXPECT_NE(llvm::toString(std::move(refused))
                .find("action loops.unroll-2 refused: its legality rule does not hold on this "
                      "IR: it needs affine loops whose bounds cannot cross"),
            std::string::npos);
  EXPECT_FALSE(llvm::errorToBool(applyActionsInTurn(*module, {lookupAction("linalg.to-affine")})));
  // Rules that guard against IR do not refuse where the action has nothing
  // to act on: fusion of a single nest, a matmul schedule without matmuls.
  bool unsafe = true;
  EXPECT_FALSE(illegalBecause(*lookupAction("loops.fusion"), summarize(*module), &unsafe).empty());
  EXPECT_FALSE(unsafe);
  EXPECT_FALSE(llvm::errorToBool(applyActionsInTurn(*module, {lookupAction("loops.fusion")})));
  auto generic = f.load(MQSS_TEST_INPUTS "/conv_relu_payload.mlir");
  IRSummary genericSummary = summarize(*generic);
  ASSERT_FALSE(genericSummary.linalgOps.empty());
  EXPECT_FALSE(illegalBecause(*lookupAction("linalg.matmul-8x32x1"), genericSummary, &unsafe).empty());
  EXPECT_FALSE(unsafe);
}

TEST(Selector, LoopTilingIsMaskedOnceItHasRun) {
  Fixture f;
  auto module = f.load(MQSS_EXAMPLES "/matmul.mlir");
  for (const char *name : {"linalg.to-affine", "loops.tile-32", "loops.canonicalize"})
    ASSERT_FALSE(llvm::errorToBool(applyAction(*module, *lookupAction(name)))) << name;
  std::string tiled;
  llvm::raw_string_ostream(tiled) << *module;
  for (const char *name : {"loops.tile-8", "loops.tile-32", "loops.tile-64"}) {
    mlir::OwningOpRef<mlir::ModuleOp> again = module->clone();
    ASSERT_FALSE(llvm::errorToBool(applyAction(*again, *lookupAction(name)))) << name;
    std::string retiled;
    llvm::raw_string_ostream(retiled) << *again;
    EXPECT_EQ(retiled, tiled) << name << " changed a tiled nest";
  }

  IRSummary summary = summarize(*module);
  std::vector<const Action *> untiled{lookupAction("linalg.to-affine")};
  std::vector<const Action *> history{lookupAction("linalg.to-affine"),
                                      lookupAction("loops.tile-32"),
                                      lookupAction("loops.canonicalize")};
  unsigned tile16 = actionIndex(*lookupAction("loops.tile-16"));
  EXPECT_TRUE(legalMask(summary, Stage::Loops, untiled)[tile16]);
  std::vector<bool> mask = legalMask(summary, Stage::Loops, history);
  for (const char *name : {"loops.tile-8", "loops.tile-16", "loops.tile-32", "loops.tile-64"})
    EXPECT_FALSE(mask[actionIndex(*lookupAction(name))]) << name;
  EXPECT_TRUE(mask[actionIndex(*lookupAction("loops.unroll-4"))] ||
              mask[actionIndex(*lookupAction("loops.vectorize-8"))]);
}

TEST(Selector, ExplanationsFollowTheDecisions) {
  Fixture f;
  auto module = f.load(MQSS_EXAMPLES "/matmul.mlir");
  auto selector = shippedSelector();
  auto selection = selector->select(*module);
  auto explanations = selector->explain(*module, 3);
  ASSERT_TRUE(static_cast<bool>(selection) && static_cast<bool>(explanations));
  const auto &actions = selection->functions.front().actions;
  ASSERT_LE(explanations->size(), actions.size());
  for (size_t i = 0; i < explanations->size(); ++i) {
    const DecisionExplanation &e = (*explanations)[i];
    EXPECT_EQ(e.action, actions[i]);
    EXPECT_EQ(e.step, i);
    ASSERT_EQ(e.topFeatures.size(), 3u);
    EXPECT_GE(std::fabs(e.topFeatures[0].weight), std::fabs(e.topFeatures[1].weight));
    EXPECT_GE(std::fabs(e.topFeatures[1].weight), std::fabs(e.topFeatures[2].weight));
    float total = e.probability;
    for (const ActionProbability &alternative : e.alternatives) {
      EXPECT_NE(alternative.action, e.action);
      EXPECT_LE(alternative.probability, e.probability + 1e-6f) << "greedy picks the most probable";
      total += alternative.probability;
    }
    EXPECT_LE(total, 1.0f + 1e-5f);
  }
}

TEST(Selector, RefusesWhatItCannotUse) {
  SelectorOptions unknownTarget;
  unknownTarget.target = "riscv";
  auto a = Selector::create(unknownTarget);
  ASSERT_FALSE(static_cast<bool>(a));
  EXPECT_NE(llvm::toString(a.takeError()).find("unknown target 'riscv'"), std::string::npos);
  SelectorOptions manyThreads;
  manyThreads.threads = 100000; // a context each: it aborted after 3.6 GB
  auto many = Selector::create(manyThreads);
  ASSERT_FALSE(static_cast<bool>(many));
  EXPECT_NE(llvm::toString(many.takeError()).find("threads must be at most 256"),
            std::string::npos);

  // A model made by another MLIR version.
  configureTorchThreads();
  ActorCritic network(kNumFeatures, actionCatalog().size());
  ModelMetadata metadata = currentMetadata();
  metadata.hidden = {128, 64, 32};
  metadata.mlirVersion = "18.1.8";
  llvm::SmallString<128> path;
  ASSERT_FALSE(llvm::sys::fs::createTemporaryFile("mqss-model", "pt", path));
  ASSERT_FALSE(errorToBool(saveModel(network, metadata, path)));
  SelectorOptions stale;
  stale.modelPath = std::string(path);
  auto b = Selector::create(stale);
  ASSERT_FALSE(static_cast<bool>(b));
  std::string message = llvm::toString(b.takeError());
  EXPECT_NE(message.find("trained against MLIR 18.1.8, but this build has 19"), std::string::npos)
      << message;
  EXPECT_NE(message.find("retrain it with `mqss train`"), std::string::npos);
  llvm::sys::fs::remove(path);

  Fixture f;
  auto selector = shippedSelector();
  mlir::OwningOpRef<mlir::ModuleOp> declarations = mlir::ModuleOp::create(
      mlir::UnknownLoc::get(f.context.get()));
  auto none = selector->select(*declarations);
  ASSERT_FALSE(static_cast<bool>(none));
  EXPECT_NE(llvm::toString(none.takeError()).find("no function with a body"), std::string::npos);
}

// A compiler's own context, holding only its module's dialects: the selector
// adds what it needs (the schedule library's transform ops, bufferization),
// and decides as in createContext()'s. It silently lost every schedule
// action, or failed to bufferize and blamed MLIR 19.
TEST(Selector, DecidesInAConsumersOwnContextAsInItsOwn) {
  Fixture f;
  auto reference = f.load(MQSS_TEST_INPUTS "/two_kernels.mlir");
  mlir::DialectRegistry registry;
  registry.insert<mlir::func::FuncDialect, mlir::arith::ArithDialect, mlir::linalg::LinalgDialect,
                  mlir::tensor::TensorDialect>();
  mlir::MLIRContext own(registry, mlir::MLIRContext::Threading::DISABLED);
  auto module = loadModuleFile(own, MQSS_TEST_INPUTS "/two_kernels.mlir");
  ASSERT_TRUE(static_cast<bool>(module)) << llvm::toString(module.takeError());
  auto selector = shippedSelector();
  auto expected = selector->select(*reference);
  auto got = selector->optimize(**module);
  ASSERT_TRUE(static_cast<bool>(expected)) << llvm::toString(expected.takeError());
  ASSERT_TRUE(static_cast<bool>(got)) << llvm::toString(got.takeError());
  ASSERT_EQ(got->functions.size(), expected->functions.size());
  for (auto [a, b] : llvm::zip(got->functions, expected->functions)) {
    EXPECT_EQ(a.actions, b.actions) << a.name;
    EXPECT_TRUE(a.leftOut.empty()) << a.name << ": " << llvm::join(a.leftOut, "; ");
  }
  // So does apply(), given a selection made elsewhere, in a context of its own.
  mlir::MLIRContext another(registry, mlir::MLIRContext::Threading::DISABLED);
  auto fresh = loadModuleFile(another, MQSS_TEST_INPUTS "/two_kernels.mlir");
  ASSERT_TRUE(static_cast<bool>(fresh)) << llvm::toString(fresh.takeError());
  EXPECT_FALSE(errorToBool(selector->apply(**fresh, *expected)));
  EXPECT_EQ(printed(**fresh), printed(**module));
}

TEST(Selector, PreparationDecomposesConcatAndPreloadsTheLibraryOnce) {
  Fixture f;
  registerPasses();
  auto module = loadModuleSource(*f.context, R"mlir(
    func.func @cat(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x8xf32> {
      %c = tensor.concat dim(1) %a, %b : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x8xf32>
      return %c : tensor<4x8xf32>
    })mlir");
  ASSERT_TRUE(static_cast<bool>(module)) << llvm::toString(module.takeError());
  auto preparation = prepareForStages(**module);
  ASSERT_TRUE(static_cast<bool>(preparation)) << llvm::toString(preparation.takeError());
  EXPECT_TRUE(llvm::StringRef(*preparation).ends_with("transform-interpreter{entry-point=decompose_concat}"));
  std::string text = printed(**module);
  EXPECT_EQ(text.find("tensor.concat"), std::string::npos) << text;
  EXPECT_NE(text.find("tensor.insert_slice"), std::string::npos) << text;

  // A schedule action's pipeline preloads the same library: once is enough.
  auto scheduled = pipelineForActions({lookupAction("tensor.tile-fuse-32x32")});
  ASSERT_TRUE(static_cast<bool>(scheduled)) << llvm::toString(scheduled.takeError());
  std::string joined = joinAfterPreparation(*preparation, *scheduled);
  llvm::StringRef rest(joined);
  EXPECT_EQ(rest.count("transform-preload-library"), 1u) << joined;
  EXPECT_TRUE(rest.ends_with(",transform-interpreter{entry-point=decompose_concat},"
                             "transform-interpreter{entry-point=tile_fuse_32x32}"))
      << joined;
  // Nothing to prepare: nothing to prepend.
  EXPECT_EQ(joinAfterPreparation("", "canonicalize"), "canonicalize");
}
