//===- Sequence.cpp - Action sequences as pipelines, and their application -===//

#include "mqss/Actions/Sequence.h"

#include "mqss/IR/Diagnostics.h"
#include "mqss/Runtime/Pipeline.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Support/xxhash.h"

#include <cstdlib>
#include <mutex>
#include <unistd.h>

namespace mqss {

#include "ScheduleLibrary.inc"

llvm::StringRef scheduleLibrarySource() { return kScheduleLibrarySource; }

static std::string cacheDirectory() {
  if (const char *dir = std::getenv("MQSS_CACHE_DIR"))
    return dir;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"))
    return (llvm::Twine(xdg) + "/mqss").str();
  if (const char *home = std::getenv("HOME"))
    return (llvm::Twine(home) + "/.cache/mqss").str();
  return "/tmp/mqss-cache";
}

static llvm::Error writeScheduleLibrary(const std::string &path);

llvm::Expected<std::string> scheduleLibraryPath() {
  // Every printed pipeline asks for the path: after the first time, one
  // stat (the file may have been removed from the cache since) instead of
  // creating directories and hashing the library again.
  static std::mutex mutex;
  static std::string known;
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (!known.empty() && llvm::sys::fs::exists(known))
      return known;
  }
  std::string dir = cacheDirectory();
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return llvm::createStringError(ec, "cannot create the cache directory '" + dir +
                                           "': " + ec.message());
  std::string path = llvm::formatv("{0}/schedules-{1:x16}.mlir", dir,
                                   llvm::xxh3_64bits(scheduleLibrarySource()))
                         .str();
  if (!llvm::sys::fs::exists(path)) {
    if (llvm::Error error = writeScheduleLibrary(path))
      return std::move(error);
  }
  std::lock_guard<std::mutex> lock(mutex);
  known = path;
  return path;
}

static llvm::Error writeScheduleLibrary(const std::string &path) {
  // Write to a private name, then rename: concurrent writers never expose a
  // half-written file.
  std::string temporary = path + llvm::formatv(".{0}.tmp", ::getpid()).str();
  {
    std::error_code ec;
    llvm::raw_fd_ostream os(temporary, ec);
    if (ec)
      return llvm::createStringError(ec, "cannot write '" + temporary + "': " + ec.message());
    os << scheduleLibrarySource();
  }
  if (std::error_code ec = llvm::sys::fs::rename(temporary, path))
    return llvm::createStringError(ec, "cannot write '" + path + "': " + ec.message());
  return llvm::Error::success();
}

static std::string preloadElement(llvm::StringRef libraryPath) {
  return ("transform-preload-library{transform-library-paths=" + libraryPath + "}").str();
}

llvm::Expected<std::string> pipelineForActions(llvm::ArrayRef<const Action *> actions) {
  std::string pipeline;
  bool usesSchedules = llvm::any_of(
      actions, [](const Action *a) { return a->kind == ActionKind::Schedule; });
  if (usesSchedules) {
    auto path = scheduleLibraryPath();
    if (!path)
      return path.takeError();
    pipeline = preloadElement(*path);
  }
  for (const Action *action : actions) {
    std::string fragment = action->pipelineFragment();
    if (fragment.empty())
      continue;
    pipeline += (pipeline.empty() ? "" : ",") + fragment;
  }
  return pipeline;
}

llvm::Expected<std::string> prepareForStages(mlir::ModuleOp module) {
  std::string preparation = frontendLoweringPipeline(module);
  if (!preparation.empty())
    if (llvm::Error error = applyPipeline(module, preparation))
      return std::move(error);
  if (!containsOp<mlir::tensor::ConcatOp>(module))
    return preparation;
  auto path = scheduleLibraryPath();
  if (!path)
    return path.takeError();
  // The preload goes first, where applyPipeline and mlir-opt both expect it.
  std::string preload = preloadElement(*path);
  std::string decompose = "transform-interpreter{entry-point=decompose_concat}";
  if (llvm::Error error = applyPipeline(module, preload + "," + decompose))
    return std::move(error);
  return preload + "," + joinPipelines(preparation, decompose);
}

std::string joinAfterPreparation(llvm::StringRef preparation, llvm::StringRef pipeline) {
  // Both begin with the same preload when the preparation decomposed a
  // concat and the actions use a schedule: the library is loaded once.
  llvm::StringRef rest = pipeline;
  if (preparation.starts_with("transform-preload-library{")) {
    llvm::StringRef preload = preparation.take_until([](char c) { return c == '}'; });
    if (rest.starts_with(preload) && rest.drop_front(preload.size()).starts_with("}")) {
      rest = rest.drop_front(preload.size() + 1);
      rest.consume_front(",");
    }
  }
  return joinPipelines(preparation, rest);
}

unsigned llvmOptLevelFor(llvm::ArrayRef<const Action *> actions) {
  for (const Action *action : actions)
    if (action->kind == ActionKind::Finish)
      return action->llvmOptLevel;
  return 3;
}

llvm::Error applyAction(mlir::ModuleOp module, const Action &action) {
  if (action.kind == ActionKind::Finish)
    return llvm::Error::success();
  // With the schedule library's preload, which applyPipeline performs once
  // per context.
  auto pipeline = pipelineForActions({&action});
  if (!pipeline)
    return pipeline.takeError();
  return applyPipeline(module, *pipeline);
}

} // namespace mqss
