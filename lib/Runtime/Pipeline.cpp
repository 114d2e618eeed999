//===- Pipeline.cpp - Textual pass pipelines and the mandatory lowering ---===//

#include "mqss/Runtime/Pipeline.h"

#include "mqss/IR/Context.h"
#include "mqss/IR/Diagnostics.h"

#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Parser/Parser.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "llvm/Support/FormatVariadic.h"

using namespace mlir;

namespace mqss {

char PipelineError::ID = 0;

static llvm::Error pipelineError(PipelineFailure kind, const llvm::Twine &message) {
  return llvm::make_error<PipelineError>(kind, message.str());
}

std::string normalizePipeline(llvm::StringRef text) {
  llvm::StringRef trimmed = text.trim();
  if (trimmed == kNaivePipelineName)
    return "";
  // Accept mlir-opt's fully spelled form: builtin.module(...) or
  // any(...) around the whole pipeline.
  for (llvm::StringRef prefix : {"builtin.module(", "any("}) {
    if (!trimmed.starts_with(prefix) || !trimmed.ends_with(")"))
      continue;
    // Only strip when the outer parenthesis closes at the very end.
    int depth = 0;
    size_t closing = llvm::StringRef::npos;
    for (size_t i = prefix.size() - 1; i < trimmed.size(); ++i) {
      if (trimmed[i] == '(')
        ++depth;
      else if (trimmed[i] == ')' && --depth == 0) {
        closing = i;
        break;
      }
    }
    if (closing == trimmed.size() - 1)
      return normalizePipeline(
          trimmed.drop_front(prefix.size()).drop_back().str());
  }
  return trimmed.str();
}

static llvm::Error parseInto(PassManager &pm, llvm::StringRef pipeline) {
  registerPasses();
  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  if (failed(parsePassPipeline(pipeline, pm, errorStream)))
    return pipelineError(PipelineFailure::Invalid,
                         llvm::formatv("invalid pass pipeline '{0}': {1}",
                                       pipeline, llvm::StringRef(errors).trim()));
  return llvm::Error::success();
}

llvm::Error validatePipeline(MLIRContext &context, llvm::StringRef pipeline) {
  PassManager pm(&context);
  return parseInto(pm, pipeline);
}

static llvm::Error runPipeline(ModuleOp module, llvm::StringRef pipeline,
                               PipelineFailure failureKind,
                               llvm::StringRef what) {
  MLIRContext &context = *module.getContext();
  PassManager pm(&context);
  if (llvm::Error error = parseInto(pm, pipeline))
    return error;
  pm.enableVerifier(true);
  DiagnosticCollector diagnostics(context);
  if (failed(pm.run(module))) {
    std::string text = diagnostics.take();
    if (text.empty())
      text = "a pass failed without a diagnostic\n";
    return pipelineError(failureKind,
                         llvm::formatv("{0} failed:\n{1}", what, text));
  }
  return llvm::Error::success();
}

/// Loads a transform library file into the context's transform dialect,
/// unless its named sequences are already there: the upstream preload pass
/// fails with "doubly defined symbol" when a context sees a library twice
/// (a candidate and a baseline using the same schedules, or an action
/// sequence applied step by step).
static llvm::Error preloadLibraryOnce(MLIRContext &context, llvm::StringRef path) {
  DiagnosticCollector diagnostics(context);
  ParserConfig config(&context);
  OwningOpRef<ModuleOp> library = parseSourceFile<ModuleOp>(path, config);
  if (!library)
    return pipelineError(PipelineFailure::Invalid,
                         "cannot load the transform library '" + path + "':\n" +
                             diagnostics.take());
  auto *dialect = context.getOrLoadDialect<transform::TransformDialect>();
  if (ModuleOp loaded = dialect->getLibraryModule()) {
    bool present = false;
    for (auto sequence : library->getOps<transform::NamedSequenceOp>()) {
      present = SymbolTable::lookupSymbolIn(loaded, sequence.getSymName()) != nullptr;
      break;
    }
    if (present)
      return llvm::Error::success();
  }
  if (failed(dialect->loadIntoLibraryModule(std::move(library))))
    return pipelineError(PipelineFailure::Invalid,
                         "cannot load the transform library '" + path + "':\n" +
                             diagnostics.take());
  return llvm::Error::success();
}

/// Handles a leading transform-preload-library element itself (see
/// preloadLibraryOnce) and returns the rest of the pipeline.
static llvm::Expected<std::string> takePreloads(MLIRContext &context,
                                                llvm::StringRef pipeline) {
  static constexpr llvm::StringLiteral prefix =
      "transform-preload-library{transform-library-paths=";
  pipeline = pipeline.trim();
  while (pipeline.starts_with(prefix)) {
    size_t close = pipeline.find('}');
    if (close == llvm::StringRef::npos)
      return std::string(pipeline); // malformed: let the parser report it
    llvm::SmallVector<llvm::StringRef> paths;
    pipeline.slice(prefix.size(), close).split(paths, ',', -1, false);
    for (llvm::StringRef path : paths)
      if (llvm::Error error = preloadLibraryOnce(context, path.trim()))
        return std::move(error);
    pipeline = pipeline.drop_front(close + 1).ltrim();
    pipeline.consume_front(",");
    pipeline = pipeline.ltrim();
  }
  return pipeline.str();
}

llvm::Error applyPipeline(ModuleOp module, llvm::StringRef pipeline) {
  auto rest = takePreloads(*module.getContext(), pipeline);
  if (!rest)
    return rest.takeError();
  if (llvm::StringRef(*rest).trim().empty())
    return llvm::Error::success();
  return runPipeline(module, *rest, PipelineFailure::PassFailed,
                     ("pipeline '" + pipeline + "'").str());
}

std::string mandatoryLoweringPipeline(bool bufferize) {
  std::string pipeline;
  if (bufferize)
    pipeline += "one-shot-bufferize{bufferize-function-boundaries "
                "function-boundary-type-conversion=identity-layout-map},";
  pipeline += "func.func(convert-linalg-to-loops),"
              "convert-bufferization-to-memref,"
              "scf-forall-to-for,"
              "convert-complex-to-standard,"
              "convert-vector-to-scf,"
              "expand-strided-metadata,"
              "lower-affine,"
              "convert-scf-to-cf,"
              "convert-math-to-funcs,"
              // Intrinsics first; libm calls for the rest (tanh, erf, ...),
              // which unrolls vectors into vector.extract/insert, so both
              // must run before the vector dialect is lowered.
              "convert-math-to-llvm,"
              "convert-math-to-libm,"
              "convert-vector-to-llvm,"
              "arith-expand,"
              "convert-arith-to-llvm,"
              "convert-index-to-llvm,"
              "convert-complex-to-llvm,"
              "finalize-memref-to-llvm,"
              "convert-func-to-llvm,"
              "convert-cf-to-llvm,"
              "convert-ub-to-llvm,"
              "reconcile-unrealized-casts";
  return pipeline;
}

/// True if any value, block argument or function type in \p module is a
/// tensor: then bufferization must run before anything can be called.
static bool containsTensors(ModuleOp module) {
  auto isTensor = [](Type type) { return isa<TensorType>(type); };
  bool found = false;
  module.walk([&](Operation *op) {
    if (llvm::any_of(op->getResultTypes(), isTensor) ||
        llvm::any_of(op->getOperandTypes(), isTensor)) {
      found = true;
      return WalkResult::interrupt();
    }
    for (Region &region : op->getRegions())
      for (Block &block : region)
        if (llvm::any_of(block.getArgumentTypes(), isTensor)) {
          found = true;
          return WalkResult::interrupt();
        }
    return WalkResult::advance();
  });
  return found;
}

/// Transform schedules left inside the payload cannot be translated to LLVM
/// IR; they have done their work once the interpreter ran.
static void eraseTransformSchedules(ModuleOp module) {
  llvm::SmallVector<Operation *> schedules;
  for (Operation &op : module.getBody()->getOperations())
    if (isa<transform::TransformDialect>(op.getDialect()))
      schedules.push_back(&op);
  for (Operation *op : schedules)
    op->erase();
  module->removeAttr(transform::TransformDialect::kWithNamedSequenceAttrName);
}

/// convert-vector-to-llvm lowers contractions, transposes and broadcasts but
/// not vector.multi_reduction, which vectorised reductions leave behind.
static llvm::Error lowerMultiReductions(ModuleOp module) {
  bool any = false;
  module.walk([&](vector::MultiDimReductionOp) {
    any = true;
    return WalkResult::interrupt();
  });
  if (!any)
    return llvm::Error::success();
  RewritePatternSet patterns(module.getContext());
  vector::populateVectorMultiReductionLoweringPatterns(
      patterns, vector::VectorMultiReductionLowering::InnerReduction);
  DiagnosticCollector diagnostics(*module.getContext());
  if (failed(applyPatternsAndFoldGreedily(module, std::move(patterns))))
    return pipelineError(PipelineFailure::LoweringFailed,
                         "lowering to LLVM failed: vector.multi_reduction "
                         "lowering did not converge\n" + diagnostics.take());
  return llvm::Error::success();
}

llvm::Error lowerToLLVMDialect(ModuleOp module) {
  eraseTransformSchedules(module);
  if (llvm::Error error = lowerMultiReductions(module))
    return error;
  return runPipeline(module, mandatoryLoweringPipeline(containsTensors(module)),
                     PipelineFailure::LoweringFailed, "lowering to LLVM");
}

} // namespace mqss
