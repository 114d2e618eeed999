//===- StoreTest.cpp - The SQLite store and the measurement cache ----------===//

#include "mqss/Actions/Catalog.h"
#include "mqss/Env/Environment.h"
#include "mqss/Store/Store.h"

#include "llvm/Support/FileSystem.h"
#include "gtest/gtest.h"

using namespace mqss;

namespace {
/// A path for a new database; the database and SQLite's write-ahead log and
/// shared-memory files beside it are removed when this goes out of scope, so
/// declare it before any store that opens it.
struct TemporaryDatabase {
  std::string path;
  TemporaryDatabase() {
    llvm::SmallString<128> name;
    EXPECT_FALSE(llvm::sys::fs::createTemporaryFile("mqss-store", "db", name));
    llvm::sys::fs::remove(name);
    path = std::string(name);
  }
  ~TemporaryDatabase() {
    for (const char *suffix : {"", "-wal", "-shm"})
      llvm::sys::fs::remove(path + suffix);
  }
};
} // namespace

TEST(Store, MeasurementsPersistAcrossOpens) {
  TemporaryDatabase database;
  const std::string &path = database.path;
  {
    auto store = Store::open(path);
    ASSERT_TRUE(static_cast<bool>(store)) << llvm::toString(store.takeError());
    CachedMeasurement m{"0xabc-O3", "x86-avx2", 7, "ok", 1.5, 3.0, 2.0, "canonicalize"};
    ASSERT_FALSE(errorToBool((*store)->putMeasurement(m)));
    auto missing = (*store)->lookupMeasurement("0xabc-O3", "x86-avx2", 8);
    ASSERT_TRUE(static_cast<bool>(missing));
    EXPECT_FALSE(missing->has_value()); // another seed is another key
  }
  auto store = Store::open(path);
  ASSERT_TRUE(static_cast<bool>(store));
  auto found = (*store)->lookupMeasurement("0xabc-O3", "x86-avx2", 7);
  ASSERT_TRUE(static_cast<bool>(found) && found->has_value());
  EXPECT_EQ((*found)->speedup, 2.0);
  EXPECT_EQ((*found)->pipeline, "canonicalize");
  EXPECT_EQ(*(*store)->countMeasurements(), 1);
}

TEST(Store, UnwritableLocationIsAClearError) {
  auto store = Store::open("/proc/mqss/cannot/store.db");
  ASSERT_FALSE(static_cast<bool>(store));
  EXPECT_NE(llvm::toString(store.takeError()).find("cannot create"), std::string::npos);
}

TEST(Evaluator, SequencesReachingTheSameIRShareOneMeasurement) {
  TemporaryDatabase database;
  const std::string &path = database.path;
  auto store = Store::open(path);
  ASSERT_TRUE(static_cast<bool>(store));
  RunRequest kernel;
  kernel.inputPath = MQSS_TEST_INPUTS "/small_matmul.mlir";
  kernel.reps = 1;
  kernel.minTimeMs = 0;
  kernel.warmup = 0;
  Evaluator evaluator(kernel, store->get());

  auto sequence = [](llvm::StringRef names) { return *parseActionList(names); };
  Evaluation first = evaluator.evaluate(sequence("linalg.canonicalize,finish-O3"));
  ASSERT_EQ(first.status, RunStatus::Ok) << first.message;
  EXPECT_FALSE(first.cached);
  EXPECT_GT(first.speedup, 0);
  // cse changes nothing either: the lowered IR is the same, so no new run.
  Evaluation second = evaluator.evaluate(sequence("linalg.cse,finish-O3"));
  EXPECT_TRUE(second.cached);
  EXPECT_EQ(second.loweredIrHash, first.loweredIrHash);
  EXPECT_EQ(second.speedup, first.speedup);
  // A different opt level is different code.
  Evaluation third = evaluator.evaluate(sequence("linalg.cse,finish-O1"));
  EXPECT_FALSE(third.cached);
  EXPECT_NE(third.loweredIrHash, first.loweredIrHash);
  EXPECT_EQ(evaluator.evaluations(), 3u);
  EXPECT_EQ(evaluator.measurements(), 2u);
  EXPECT_EQ(evaluator.cacheHits(), 1u);
}

// Rows cached before code sizes and compile times were stored serve the
// runtime objective as before; an objective that needs them measures again
// (and fills the row in), after which it is a cache hit too.
TEST(Evaluator, RowsWithoutCostsServeRuntimeOnly) {
  TemporaryDatabase database;
  const std::string &path = database.path;
  auto store = Store::open(path);
  ASSERT_TRUE(static_cast<bool>(store));
  RunRequest kernel;
  kernel.inputPath = MQSS_TEST_INPUTS "/small_matmul.mlir";
  kernel.reps = 1;
  kernel.minTimeMs = 0;
  kernel.warmup = 0;
  auto actions = *parseActionList("linalg.canonicalize,finish-O3");
  Evaluator runtime(kernel, store->get());
  Evaluation measured = runtime.evaluate(actions);
  ASSERT_EQ(measured.status, RunStatus::Ok) << measured.message;
  EXPECT_GT(measured.gains.size, 0);
  EXPECT_GT(measured.gains.compile, 0);
  EXPECT_EQ(measured.score, measured.speedup);

  auto row = (*store)->lookupMeasurement(measured.loweredIrHash, "host", kernel.inputs.seed);
  ASSERT_TRUE(row && *row);
  EXPECT_GT((*row)->codeBytes, 0u);
  EXPECT_GT((*row)->baselineCompileMs, 0);
  CachedMeasurement old = **row; // as a store from before the cost columns has it
  old.compileMs = old.baselineCompileMs = 0;
  old.codeBytes = old.baselineCodeBytes = 0;
  ASSERT_FALSE(static_cast<bool>((*store)->putMeasurement(old)));

  EXPECT_TRUE(runtime.evaluate(actions).cached);
  Evaluator size(kernel, store->get(), *parseObjective("size"));
  Evaluation remeasured = size.evaluate(actions);
  EXPECT_FALSE(remeasured.cached);
  EXPECT_GT(remeasured.gains.size, 0);
  EXPECT_EQ(remeasured.score, remeasured.gains.size);
  Evaluation hit = size.evaluate(actions);
  EXPECT_TRUE(hit.cached);
  EXPECT_EQ(hit.gains.size, remeasured.gains.size);
}
