//===- SelectPassTest.cpp - The mqss-select pass in a multithreaded context -===//

#include "mqss/Passes/Passes.h"

#include "mqss/IR/Context.h"
#include "mqss/IR/Loader.h"

#include "mlir/Pass/PassManager.h"
#include "llvm/Support/ThreadPool.h"
#include "gtest/gtest.h"

#include <atomic>

using namespace mqss;

namespace {
/// A thread pool that runs each task at once on the calling thread and
/// counts them: what MLIR hands to the context's threads becomes visible.
class CountingPool final : public llvm::ThreadPoolInterface {
public:
  std::atomic<unsigned> tasks{0};
  void wait() override {}
  void wait(llvm::ThreadPoolTaskGroup &) override {}
  unsigned getMaxConcurrency() const override { return 2; }

private:
  void asyncEnqueue(std::function<void()> task, llvm::ThreadPoolTaskGroup *) override {
    ++tasks;
    task();
  }
};
} // namespace

TEST(SelectPass, DecidesOnTheCallingThreadInAMultithreadedContext) {
  // The selection runs pipelines on scratch modules; in a multithreaded
  // context MLIR would hand their nested pipelines to the context's threads,
  // where a crashing upstream pass ends the process instead of being
  // recovered from. At the root op the pass switches threading off.
  auto context = createContext();
  CountingPool pool;
  context->setThreadPool(pool);
  ASSERT_TRUE(context->isMultithreadingEnabled());
  registerPasses();
  // @main calls both kernels: its scratch module holds three functions.
  auto module = loadModuleFile(*context, MQSS_TEST_INPUTS "/two_kernels.mlir");
  ASSERT_TRUE(static_cast<bool>(module)) << llvm::toString(module.takeError());

  // The pool sees what a nested pipeline hands out on this module.
  {
    mlir::OwningOpRef<mlir::ModuleOp> copy = (*module)->clone();
    mlir::PassManager pm(context.get());
    pm.enableVerifier(false);
    ASSERT_TRUE(mlir::succeeded(mlir::parsePassPipeline("builtin.module(func.func(canonicalize))", pm)));
    ASSERT_TRUE(mlir::succeeded(pm.run(*copy)));
    EXPECT_GT(pool.tasks.load(), 0u);
  }

  pool.tasks = 0;
  mlir::PassManager pm(context.get());
  pm.enableVerifier(false); // MLIR's verifier would use the pool itself
  SelectPipelineOptions options;
  options.target = "x86-avx2";
  pm.addPass(createSelectPipeline(options));
  ASSERT_TRUE(mlir::succeeded(pm.run(**module)));
  EXPECT_EQ(pool.tasks.load(), 0u);
  EXPECT_TRUE(context->isMultithreadingEnabled()) << "threading must be switched back on";
  // The kernels were transformed.
  std::string text;
  llvm::raw_string_ostream os(text);
  (*module)->print(os);
  EXPECT_EQ(text.find("linalg.matmul"), std::string::npos);
}
