//===- Pipeline.cpp - Textual pass pipelines and the mandatory lowering ---===//

#include "mqss/Runtime/Pipeline.h"

#include "mqss/IR/Context.h"
#include "mqss/IR/Diagnostics.h"
#include "mqss/Runtime/BoundsChecks.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/IR/DialectResourceBlobManager.h"
#include "mlir/Dialect/Linalg/Transforms/Transforms.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Tensor/Transforms/Transforms.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Dialect/Vector/Transforms/LoweringPatterns.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/LLVMTranslationInterface.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Parser/Parser.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/LoopLikeInterface.h"
#include "mlir/Dialect/Transform/IR/TransformOps.h"
#include "llvm/Support/CrashRecoveryContext.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Regex.h"

#include <mutex>
#include <optional>

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
  if (pipeline.starts_with(kPerFunctionListingHeader))
    return pipelineError(
        PipelineFailure::Invalid,
        "invalid pass pipeline: this is `mqss select --emit=pipeline`'s listing of one "
        "pipeline per function (its functions were given different ones), not one "
        "pipeline: take the line under one function's `// @name`, or use "
        "--pipeline=policy, which runs the policy's choice for each function");
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

/// What to do about an op that one-shot bufferization left alone ("op was
/// not bufferized"): MLIR 19 has no bufferization for some ops frontends
/// emit. Empty when \p diagnostics are about something else.
static std::string bufferizationHint(llvm::StringRef diagnostics) {
  if (!diagnostics.contains("op was not bufferized"))
    return "";
  llvm::SmallVector<llvm::StringRef> match;
  std::string op;
  if (llvm::Regex("see current operation: [^\n]*\"([a-z_0-9]+\\.[a-z_0-9.]+)\"")
          .match(diagnostics, &match))
    op = match[1].str();
  if (op == "tensor.concat")
    return "note: MLIR 19 cannot bufferize tensor.concat: decompose it first, into "
           "tensor.empty and one tensor.insert_slice per operand (the pipelines mqss "
           "chooses and its baselines begin with transform-interpreter"
           "{entry-point=decompose_concat} for this)\n";
  if (op == "tensor.pack" || op == "tensor.unpack")
    return "note: MLIR 19 cannot bufferize " + op + ": lower it to pad, reshape and "
           "transpose first, which needs the inner tiles static in the op (integers in "
           "inner_tiles = [8, 8], not SSA values, even constant ones; the pipelines mqss "
           "chooses and its baselines begin with transform-interpreter"
           "{entry-point=lower_pack_unpack} for this)\n";
  if (op == "ml_program.global_load_const")
    return "note: MLIR 19 bufferizes ml_program.global_load but not global_load_const: "
           "use an arith.constant holding the global's value, or ml_program.global_load\n";
  if (llvm::StringRef(op).starts_with("arith.") || llvm::StringRef(op).starts_with("math."))
    return "note: MLIR 19 bufferizes " + op + " on scalars and vectors, not on whole "
           "tensors: run func.func(convert-elementwise-to-linalg) before bufferizing (the "
           "pipelines mqss chooses and its baselines begin with it)\n";
  if (llvm::StringRef(op).starts_with("tosa."))
    return "note: this pipeline bufferizes TOSA ops: run the tosa-to-linalg passes "
           "before it (the pipelines mqss chooses and its baselines begin with them)\n";
  return "note: MLIR 19 has no bufferization for " + (op.empty() ? "this op" : "'" + op + "'") +
         ": lower it to tensor ops that bufferize (linalg, tensor, arith) first\n";
}

/// The signal handlers crash recovery needs, installed while some thread
/// runs passes: a sandboxed child resets them (so that generated code's
/// crashes end the child), and nothing outside pass execution is meant to
/// be recovered. They are process-wide, so they go when the last thread
/// running passes (Selector::selectSource decides on several) is done.
class RecoveryHandlers {
public:
  RecoveryHandlers() {
    std::lock_guard<std::mutex> lock(mutex());
    if (users()++ == 0)
      llvm::CrashRecoveryContext::Enable();
  }
  ~RecoveryHandlers() {
    std::lock_guard<std::mutex> lock(mutex());
    if (--users() == 0)
      llvm::CrashRecoveryContext::Disable();
  }

private:
  static std::mutex &mutex() {
    static std::mutex instance;
    return instance;
  }
  static unsigned &users() {
    static unsigned count = 0;
    return count;
  }
};

/// Runs \p pm on \p module. Upstream passes can crash on IR they do not
/// expect (MLIR 19's affine-super-vectorize on some tiled nests, for one).
/// When the run stays on this thread, such a crash is recovered from: the
/// result is std::nullopt, and the module's half-rewritten body is detached
/// and leaked, since destroying it could crash again, leaving the module
/// empty for the caller to restore. A multithreaded context spreads nested
/// pipelines and verification over the isolated ops (functions) of the
/// module; with more than one, other threads could still be working on the
/// module when this one unwinds, so then it just runs.
static std::optional<LogicalResult> runRecoveringFromCrashes(PassManager &pm,
                                                             ModuleOp module) {
  auto isolated = [](Operation &op) { return op.hasTrait<OpTrait::IsIsolatedFromAbove>(); };
  if (module.getContext()->isMultithreadingEnabled() &&
      llvm::count_if(module.getBody()->getOperations(), isolated) > 1)
    return pm.run(module);
  // Inside another recovery context (a nested run), that one recovers.
  if (llvm::CrashRecoveryContext::GetCurrent())
    return pm.run(module);
  LogicalResult result = failure();
  bool completed;
  {
    RecoveryHandlers handlers;
    llvm::CrashRecoveryContext recovery;
    completed = recovery.RunSafely([&] { result = pm.run(module); });
  }
  if (completed)
    return result;
  auto *abandoned = new Region(); // never freed: its ops may be inconsistent
  abandoned->takeBody(module.getBodyRegion());
  module.getBodyRegion().push_back(new Block());
  return std::nullopt;
}

/// What to do about a pointer in another address space reaching a call
/// that takes a plain one: MLIR 19 lowers memref.alloc/dealloc of a memref in
/// a memory space other than 0 (a DMA or scratchpad buffer written for an
/// accelerator) to malloc/free, which take address space 0. Empty when
/// \p diagnostics are about something else.
static std::string addressSpaceHint(llvm::StringRef diagnostics) {
  llvm::SmallVector<llvm::StringRef> match;
  if (!llvm::Regex("'!llvm\\.ptr<([0-9]+)>' != '!llvm\\.ptr'").match(diagnostics, &match))
    return "";
  return ("note: a memref in memory space " + match[1] +
          " reaches code for the host's memory: MLIR 19 lowers memref.alloc and "
          "memref.dealloc of such a memref to malloc and free, which take memory space 0. "
          "Give host kernels memrefs in the default space (drop the memory space)\n")
      .str();
}

static llvm::Error runPipeline(ModuleOp module, llvm::StringRef pipeline,
                               PipelineFailure failureKind,
                               llvm::StringRef what) {
  MLIRContext &context = *module.getContext();
  auto pm = std::make_unique<PassManager>(&context);
  if (llvm::Error error = parseInto(*pm, pipeline))
    return error;
  pm->enableVerifier(true);
  DiagnosticCollector diagnostics(context);
  std::optional<LogicalResult> result = runRecoveringFromCrashes(*pm, module);
  if (!result) {
    // The crashed passes' state is as unknown as the IR's: leaked too.
    (void)pm.release();
    return pipelineError(failureKind,
                         llvm::formatv("{0} crashed on this module (a bug in an upstream "
                                       "pass); the half-rewritten module was set aside\n{1}",
                                       what, diagnostics.take()));
  }
  if (failed(*result)) {
    std::string text = diagnostics.take();
    if (text.empty())
      text = "a pass failed without a diagnostic\n";
    text += bufferizationHint(text) + addressSpaceHint(text);
    return pipelineError(failureKind,
                         llvm::formatv("{0} failed:\n{1}", what, text));
  }
  return llvm::Error::success();
}

/// A leading transform-preload-library element is handled here rather than
/// by the upstream pass, which loads into a library shared by the whole
/// context: there a candidate's and a baseline's schedules (both named
/// @__transform_main, as user schedules are) would collide, and a library
/// cannot be loaded twice. Instead the library's sequences are spliced into
/// the module being transformed for this one pipeline run; the interpreter
/// looks for its entry point in the payload first. The result is the same
/// as with the upstream preload, so printed pipelines stay pasteable.
struct SplicedLibraries {
  std::string rest;                      ///< the pipeline after the preloads
  std::vector<OwningOpRef<ModuleOp>> libraries;
};

static llvm::Expected<SplicedLibraries> takePreloads(MLIRContext &context,
                                                     llvm::StringRef pipeline) {
  static constexpr llvm::StringLiteral prefix =
      "transform-preload-library{transform-library-paths=";
  SplicedLibraries result;
  pipeline = pipeline.trim();
  while (pipeline.starts_with(prefix)) {
    size_t close = pipeline.find('}');
    if (close == llvm::StringRef::npos)
      break; // malformed: let the pipeline parser report it
    llvm::SmallVector<llvm::StringRef> paths;
    pipeline.slice(prefix.size(), close).split(paths, ',', -1, false);
    for (llvm::StringRef path : paths) {
      DiagnosticCollector diagnostics(context);
      ParserConfig config(&context);
      OwningOpRef<ModuleOp> library = parseSourceFile<ModuleOp>(path.trim(), config);
      if (!library)
        return pipelineError(PipelineFailure::Invalid,
                             "cannot load the transform library '" + path.trim() + "':\n" +
                                 diagnostics.take());
      result.libraries.push_back(std::move(library));
    }
    pipeline = pipeline.drop_front(close + 1).ltrim();
    pipeline.consume_front(",");
    pipeline = pipeline.ltrim();
  }
  result.rest = pipeline.str();
  return result;
}

bool isTransformScript(Operation &op) {
  if (isa<transform::TransformDialect>(op.getDialect()))
    return true;
  auto nested = dyn_cast<ModuleOp>(op);
  return nested && (nested->hasAttr(transform::TransformDialect::kWithNamedSequenceAttrName) ||
                    llvm::any_of(nested.getBody()->getOperations(), [](Operation &child) {
                      return isa<transform::TransformDialect>(child.getDialect());
                    }));
}

/// Takes the module's transform scripts out while a pipeline runs and puts
/// them back (at the end, in their order) afterwards. They are not payload:
/// a module-level canonicalize would erase their result-less matchers and a
/// symbol-dce their private sequences, silently changing what they mean.
class TransformScriptsSetAside {
public:
  explicit TransformScriptsSetAside(ModuleOp module)
      : module(module), holding(ModuleOp::create(module.getLoc())) {
    for (Operation &op : llvm::make_early_inc_range(module.getBody()->getOperations()))
      if (isTransformScript(op))
        op.moveBefore(holding->getBody(), holding->getBody()->end());
  }
  ~TransformScriptsSetAside() {
    for (Operation &op : llvm::make_early_inc_range(holding->getBody()->getOperations()))
      op.moveBefore(module.getBody(), module.getBody()->end());
  }

private:
  ModuleOp module;
  OwningOpRef<ModuleOp> holding;
};

/// \p pipeline's top-level passes (commas inside options and nested
/// pipelines do not split).
static llvm::SmallVector<llvm::StringRef> topLevelPasses(llvm::StringRef pipeline) {
  llvm::SmallVector<llvm::StringRef> passes;
  int depth = 0;
  size_t start = 0;
  for (size_t i = 0; i <= pipeline.size(); ++i) {
    char c = i < pipeline.size() ? pipeline[i] : ',';
    if (c == '(' || c == '{')
      ++depth;
    else if (c == ')' || c == '}')
      --depth;
    else if (c == ',' && depth == 0) {
      if (llvm::StringRef pass = pipeline.slice(start, i).trim(); !pass.empty())
        passes.push_back(pass);
      start = i + 1;
    }
  }
  return passes;
}

/// Runs \p segment with \p libraries' schedules spliced into \p module, and
/// takes them out again; \p context names the whole pipeline in errors.
static llvm::Error runWithLibraries(ModuleOp module, llvm::StringRef segment,
                                    llvm::ArrayRef<OwningOpRef<ModuleOp>> libraries,
                                    llvm::StringRef context) {
  // Remembered by name: a pass of the pipeline may have erased them.
  llvm::SmallVector<std::string> inserted;
  bool hadAttr = module->hasAttr(transform::TransformDialect::kWithNamedSequenceAttrName);
  auto takeOut = [&] {
    for (const std::string &name : inserted)
      if (Operation *op = SymbolTable::lookupSymbolIn(module, name))
        if (isa<transform::TransformDialect>(op->getDialect()))
          op->erase();
    if (!hadAttr)
      module->removeAttr(transform::TransformDialect::kWithNamedSequenceAttrName);
  };
  for (const OwningOpRef<ModuleOp> &library : libraries) {
    for (Operation &op : library.get().getBody()->getOperations()) {
      auto symbol = dyn_cast<SymbolOpInterface>(op);
      if (symbol && SymbolTable::lookupSymbolIn(module, symbol.getName())) {
        takeOut();
        return pipelineError(PipelineFailure::Invalid,
                             "transform library symbol @" + symbol.getName() +
                                 " is already defined in the module or another library");
      }
      if (symbol)
        inserted.push_back(symbol.getName().str());
      module.getBody()->push_back(op.clone());
    }
  }
  module->setAttr(transform::TransformDialect::kWithNamedSequenceAttrName,
                  UnitAttr::get(module.getContext()));
  llvm::Error error = runPipeline(module, segment, PipelineFailure::PassFailed, context);
  takeOut();
  return error;
}

llvm::Error applyPipeline(ModuleOp module, llvm::StringRef pipeline) {
  auto spliced = takePreloads(*module.getContext(), pipeline);
  if (!spliced)
    return spliced.takeError();
  llvm::StringRef rest = llvm::StringRef(spliced->rest).trim();
  if (rest.empty())
    return llvm::Error::success();
  // A pipeline that interprets the module's own schedule needs it in place.
  std::optional<TransformScriptsSetAside> setAside;
  if (!spliced->libraries.empty() || !rest.contains("transform-interpreter"))
    setAside.emplace(module);
  std::string context = ("pipeline '" + pipeline + "'").str();
  if (spliced->libraries.empty())
    return runPipeline(module, rest, PipelineFailure::PassFailed, context);

  // The preloaded schedules are in the module only while interpreters run:
  // mlir-opt keeps a preloaded library out of the payload, where a
  // module-level cse or canonicalize would erase its result-less matchers
  // (and `match_returned_linalg` would then match any op).
  llvm::SmallVector<llvm::StringRef> passes = topLevelPasses(rest);
  for (size_t begin = 0; begin < passes.size();) {
    bool interprets = passes[begin].contains("transform-interpreter");
    size_t end = begin + 1;
    while (end < passes.size() && passes[end].contains("transform-interpreter") == interprets)
      ++end;
    std::string segment = llvm::join(llvm::ArrayRef(passes).slice(begin, end - begin), ",");
    llvm::Error error =
        interprets ? runWithLibraries(module, segment, spliced->libraries, context)
                   : runPipeline(module, segment, PipelineFailure::PassFailed, context);
    if (error)
      return error;
    begin = end;
  }
  return llvm::Error::success();
}

/// The first op of \p dialect in \p module, outermost first.
static Operation *firstOpOfDialect(ModuleOp module, llvm::StringRef dialect) {
  Operation *found = nullptr;
  module.walk<WalkOrder::PreOrder>([&](Operation *op) {
    if (op->getDialect() && op->getDialect()->getNamespace() == dialect)
      found = op;
    return found ? WalkResult::interrupt() : WalkResult::advance();
  });
  return found;
}

std::string frontendLoweringPipeline(ModuleOp module) {
  if (!firstOpOfDialect(module, "tosa"))
    return "";
  // The passes of upstream's tosa-to-linalg-pipeline, without its
  // tosa-validate (that checks a TOSA profile, and the default one rejects
  // f32), with control flow made scf once shapes are inferred:
  // tosa-infer-shapes reaches into cond_if and while_loop bodies but not
  // into scf regions, and tosa-to-linalg cannot legalize the bodies'
  // tosa.yield. Then constants and shape ops; tosa-to-arith also expands
  // the tosa.apply_scale ops that the lowering of quantized rescale and
  // mul leaves behind, which nothing else lowers.
  return "func.func(tosa-optional-decompositions,tosa-infer-shapes,tosa-to-scf,"
         "tosa-make-broadcastable,tosa-to-linalg-named,tosa-layerwise-constant-fold,"
         "tosa-make-broadcastable,tosa-to-linalg,tosa-to-arith{include-apply-rescale=true},"
         "tosa-to-tensor)";
}

void replaceModuleContents(ModuleOp module, OwningOpRef<ModuleOp> with) {
  module.getBodyRegion().takeBody(with->getBodyRegion());
  module->setAttrs(with.get()->getAttrs());
}

bool hasTensorSignature(func::FuncOp function) {
  auto isTensor = [](Type type) { return isa<TensorType>(type); };
  return llvm::any_of(function.getArgumentTypes(), isTensor) ||
         llvm::any_of(function.getResultTypes(), isTensor);
}

std::vector<func::FuncOp> unusedTensorDeclarations(ModuleOp module) {
  std::vector<func::FuncOp> unused;
  for (auto function : module.getOps<func::FuncOp>())
    if (function.isExternal() &&
        llvm::any_of(function.getResultTypes(), [](Type type) { return isa<TensorType>(type); }) &&
        SymbolTable::symbolKnownUseEmpty(function, module))
      unused.push_back(function);
  return unused;
}

void eraseUnusedTensorDeclarations(ModuleOp module) {
  for (func::FuncOp function : unusedTensorDeclarations(module))
    function.erase();
}

std::vector<ModuleOp> nestedPayloadModules(ModuleOp module) {
  std::vector<ModuleOp> nested;
  for (auto inner : module.getOps<ModuleOp>())
    if (!isTransformScript(*inner) &&
        (!inner.getName() || SymbolTable::symbolKnownUseEmpty(inner, module)))
      nested.push_back(inner);
  return nested;
}

void eraseNestedPayloadModules(ModuleOp module) {
  for (ModuleOp inner : nestedPayloadModules(module))
    inner.erase();
}

void stripToTopLevelPayload(ModuleOp module) {
  eraseUnusedTensorDeclarations(module);
  eraseNestedPayloadModules(module);
}

/// Every function declaration nothing in \p module refers to. Lowered,
/// one returning a tensor stops bufferization, and the C wrapper of one
/// marked llvm.emit_c_interface calls _mlir_ciface_NAME, which nothing
/// defines (the JIT then fails to link the kernel, as mlir-cpu-runner does).
static void eraseUnusedDeclarations(ModuleOp module) {
  for (auto function : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
    if (function.isExternal() && SymbolTable::symbolKnownUseEmpty(function, module))
      function.erase();
}

void eraseFunctionsUnreachableFrom(ModuleOp module, llvm::StringRef entry) {
  SymbolTable symbols(module);
  auto entryFunction = symbols.lookup<func::FuncOp>(entry);
  if (!entryFunction)
    return;
  llvm::SmallPtrSet<Operation *, 16> reached;
  SmallVector<Operation *> work;
  auto reach = [&](Operation *op) {
    if (reached.insert(op).second)
      work.push_back(op);
  };
  reach(entryFunction);
  // Whatever is not a function is kept, and what it refers to with it.
  for (Operation &op : module.getBody()->getOperations())
    if (!isa<func::FuncOp>(op))
      reach(&op);
  while (!work.empty()) {
    Operation *op = work.pop_back_val();
    std::optional<SymbolTable::UseRange> uses = SymbolTable::getSymbolUses(op);
    if (!uses) // an op whose uses cannot be known: keep everything
      return;
    for (const SymbolTable::SymbolUse &use : *uses)
      if (Operation *target =
              symbols.lookup(use.getSymbolRef().getRootReference().getValue()))
        reach(target);
  }
  for (auto function : llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
    if (!reached.contains(function))
      function.erase();
}

std::string joinPipelines(llvm::StringRef first, llvm::StringRef second) {
  if (first.empty() || second.empty())
    return (first + second).str();
  return (first + "," + second).str();
}

/// Elementwise ops on whole tensors (arith.addf %a, %b : tensor<..>) do not
/// bufferize: linalg.generic ops first.
static constexpr llvm::StringLiteral kBufferization =
    "func.func(convert-elementwise-to-linalg),"
    "one-shot-bufferize{bufferize-function-boundaries "
    "function-boundary-type-conversion=identity-layout-map allow-return-allocs-from-loops}";

/// The mandatory lowering in two halves: to loops (which is where
/// convert-vector-to-scf leaves its temporary buffers), then to LLVM.
static constexpr llvm::StringLiteral kLoweringToLoops =
    "func.func(convert-linalg-to-loops),"
    "convert-bufferization-to-memref,"
    "scf-forall-to-for,"
    "convert-complex-to-standard,"
    // vector.mask regions (what vectorizing with vector sizes makes) as
    // masked ops: vector-to-scf fails inside one.
    "func.func(lower-vector-mask),"
    "convert-vector-to-scf,"
    // memref.realloc as alloc + copy + dealloc: nothing else lowers it.
    "expand-realloc,"
    "expand-strided-metadata,"
    "lower-affine";
static constexpr llvm::StringLiteral kLoweringLoopsToLLVM =
    "convert-scf-to-cf,"
    "convert-math-to-funcs,"
    // Intrinsics first; libm calls for the rest (tanh, erf, ...), which
    // unrolls vectors into vector.extract/insert, so both must run before
    // the vector dialect is lowered.
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

std::string mandatoryLoweringPipeline(bool bufferize) {
  std::string pipeline;
  if (bufferize)
    pipeline += (kBufferization + ",").str();
  return pipeline + (kLoweringToLoops + "," + kLoweringLoopsToLLVM).str();
}

/// The first affine.for, affine.if or affine.parallel in \p module that
/// carries a tensor (in iter_args or results, as HEIR writes its loops):
/// MLIR 19 has no bufferization for the affine ops, while it has one for
/// scf's, so such modules get lower-affine before bufferizing.
static Operation *affineOpCarryingTensors(ModuleOp module) {
  Operation *found = nullptr;
  module.walk([&](Operation *op) {
    if (isa<affine::AffineForOp, affine::AffineIfOp, affine::AffineParallelOp>(op) &&
        llvm::any_of(op->getResultTypes(), llvm::IsaPred<TensorType>)) {
      found = op;
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return found;
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
/// IR; they have done their work once the interpreter ran. They may sit at
/// the top level or in a nested module of their own (upstream's integration
/// tests put `module attributes {transform.with_named_sequence}` next to the
/// payload); such a module, left empty, goes too.
static void eraseTransformSchedules(ModuleOp module) {
  llvm::SmallVector<Operation *> schedules;
  module.walk([&](ModuleOp scope) {
    for (Operation &op : scope.getBody()->getOperations())
      if (isa<transform::TransformDialect>(op.getDialect()))
        schedules.push_back(&op);
    scope->removeAttr(transform::TransformDialect::kWithNamedSequenceAttrName);
  });
  for (Operation *op : schedules)
    op->erase();
  for (auto nested : llvm::make_early_inc_range(module.getOps<ModuleOp>()))
    if (nested.getBody()->empty())
      nested->erase();
}

/// convert-vector-to-llvm lowers contractions, transposes and broadcasts but
/// not vector.multi_reduction, which vectorised reductions leave behind, nor
/// vector.scan: upstream's own patterns rewrite both first.
static llvm::Error lowerMultiReductionsAndScans(ModuleOp module) {
  bool multiReductions = containsOp<vector::MultiDimReductionOp>(module);
  bool scans = containsOp<vector::ScanOp>(module);
  if (!multiReductions && !scans)
    return llvm::Error::success();
  RewritePatternSet patterns(module.getContext());
  if (multiReductions)
    vector::populateVectorMultiReductionLoweringPatterns(
        patterns, vector::VectorMultiReductionLowering::InnerReduction);
  if (scans)
    vector::populateVectorScanLoweringPatterns(patterns);
  DiagnosticCollector diagnostics(*module.getContext());
  if (failed(applyPatternsAndFoldGreedily(module, std::move(patterns))))
    return pipelineError(PipelineFailure::LoweringFailed,
                         "lowering to LLVM failed: the lowering of vector.multi_reduction "
                         "and vector.scan did not converge\n" + diagnostics.take());
  return llvm::Error::success();
}

/// tensor.concat as tensor.empty plus insert_slice ops (what the schedule
/// library's decompose_concat does for selections): MLIR 19 cannot
/// bufferize it.
static void decomposeConcats(ModuleOp module) {
  if (!containsOp<tensor::ConcatOp>(module))
    return;
  RewritePatternSet patterns(module.getContext());
  tensor::populateDecomposeTensorConcatPatterns(patterns);
  (void)applyPatternsAndFoldGreedily(module, std::move(patterns));
}

bool isIdentityTranspose(Operation *op) {
  auto transpose = dyn_cast<linalg::TransposeOp>(op);
  return transpose && isIdentityPermutation(transpose.getPermutation());
}

/// Identity linalg.transpose ops as linalg.generic copies (what the schedule
/// library's generalize_identity_transposes does for selections): the
/// buffer deallocation's canonicalizer would erase them on buffers.
static void generalizeIdentityTransposes(ModuleOp module) {
  SmallVector<linalg::TransposeOp> transposes;
  module.walk([&](linalg::TransposeOp op) {
    if (isIdentityTranspose(op))
      transposes.push_back(op);
  });
  IRRewriter rewriter(module.getContext());
  for (linalg::TransposeOp op : transposes) {
    rewriter.setInsertionPoint(op);
    (void)linalg::generalizeNamedOp(rewriter, op);
  }
}

/// linalg.softmax as the linalg.generic ops of its definition (what the
/// schedule library's decompose_softmax does for selections): nothing lowers
/// it to loops. On tensors only: its decomposition makes tensor ops.
static llvm::Error decomposeSoftmaxes(ModuleOp module) {
  SmallVector<linalg::SoftmaxOp> softmaxes;
  module.walk([&](linalg::SoftmaxOp op) { softmaxes.push_back(op); });
  IRRewriter rewriter(module.getContext());
  for (linalg::SoftmaxOp op : softmaxes) {
    if (!op.hasPureTensorSemantics())
      continue; // left for the lowering to report
    rewriter.setInsertionPoint(op);
    FailureOr<SmallVector<Value>> results =
        cast<linalg::AggregatedOpInterface>(op.getOperation()).decomposeOperation(rewriter);
    if (failed(results))
      return pipelineError(PipelineFailure::LoweringFailed,
                           fileLineColumn(op.getLoc()).value_or("") +
                               ": linalg.softmax could not be decomposed");
    rewriter.replaceOp(op, *results);
  }
  return llvm::Error::success();
}

/// tensor.pack and tensor.unpack with static tiles as pad, reshape and
/// transpose (what the schedule library's lower_pack_unpack does for
/// selections): MLIR 19 cannot bufferize them. Those with dynamic tiles
/// stay, and the bufferization says so.
static void lowerPacks(ModuleOp module) {
  SmallVector<Operation *> packs;
  module.walk([&](Operation *op) {
    if (isa<tensor::PackOp, tensor::UnPackOp>(op))
      packs.push_back(op);
  });
  IRRewriter rewriter(module.getContext());
  for (Operation *op : packs) {
    rewriter.setInsertionPoint(op);
    if (auto pack = dyn_cast<tensor::PackOp>(op))
      (void)linalg::lowerPack(rewriter, pack);
    else
      (void)linalg::lowerUnPack(rewriter, cast<tensor::UnPackOp>(op));
  }
}

/// memref.alloca_scope as a stack save before its body and a restore after
/// it, which is what its LLVM lowering does. Lowering it later, as that
/// does, fails on a scope holding a loop (ClangIR's output for every C
/// `while`): convert-scf-to-cf leaves the scope with several blocks, which
/// it may not have.
static void inlineAllocaScopes(ModuleOp module) {
  SmallVector<memref::AllocaScopeOp> scopes;
  module.walk([&](memref::AllocaScopeOp scope) { scopes.push_back(scope); });
  if (scopes.empty())
    return;
  MLIRContext *context = module.getContext();
  context->getOrLoadDialect<LLVM::LLVMDialect>();
  IRRewriter rewriter(context);
  for (memref::AllocaScopeOp scope : scopes) { // inner scopes first
    Location loc = scope.getLoc();
    rewriter.setInsertionPoint(scope);
    Value stack = rewriter.create<LLVM::StackSaveOp>(loc, LLVM::LLVMPointerType::get(context));
    Block *body = &scope.getBodyRegion().front();
    auto terminator = cast<memref::AllocaScopeReturnOp>(body->getTerminator());
    SmallVector<Value> results(terminator.getResults());
    rewriter.setInsertionPoint(terminator);
    rewriter.create<LLVM::StackRestoreOp>(loc, stack);
    rewriter.eraseOp(terminator);
    rewriter.inlineBlockBefore(body, scope);
    rewriter.replaceOp(scope, results);
  }
}

/// arith.ceildivsi as q + 1 where the division leaves a remainder of the
/// divisor's sign (q = divsi, r = remsi). MLIR 19's arith-expand computes
/// both of its branches with wrapping arithmetic: ceildivsi(-128, 7) : i8
/// gave 18, not -18, and ceildivsi(127, -1) divided -128 by -1, which traps
/// (SIGFPE) on x86. Found by upstream's Arith integration tests.
static void expandSignedCeilDivisions(ModuleOp module) {
  SmallVector<arith::CeilDivSIOp> divisions;
  module.walk([&](arith::CeilDivSIOp op) { divisions.push_back(op); });
  for (arith::CeilDivSIOp op : divisions) {
    OpBuilder b(op);
    Location loc = op.getLoc();
    Type type = op.getType();
    Value zero = b.create<arith::ConstantOp>(loc, b.getZeroAttr(type));
    Value one = b.create<arith::ConstantOp>(loc, b.getOneAttr(type));
    Value quotient = b.create<arith::DivSIOp>(loc, op.getLhs(), op.getRhs());
    Value remainder = b.create<arith::RemSIOp>(loc, op.getLhs(), op.getRhs());
    Value inexact = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::ne, remainder, zero);
    Value positiveRemainder =
        b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sgt, remainder, zero);
    Value positiveDivisor =
        b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::sgt, op.getRhs(), zero);
    Value positive = b.create<arith::CmpIOp>(loc, arith::CmpIPredicate::eq, positiveRemainder,
                                             positiveDivisor);
    Value roundUp = b.create<arith::AndIOp>(loc, inexact, positive);
    Value increment = b.create<arith::SelectOp>(loc, roundUp, one, zero);
    op.replaceAllUsesWith(b.create<arith::AddIOp>(loc, quotient, increment).getResult());
    op.erase();
  }
}

/// memref.alloca ops of static size inside loops, moved to the start of the
/// function (the nearest allocation scope that is not a loop), where clang
/// puts a C block's variables too. scf.for and affine.for are allocation
/// scopes, so an alloca in their body is freed after each iteration, but
/// their lowering to LLVM forgets it: each iteration then takes more stack.
/// convert-vector-to-scf leaves its temporary buffers in the loop that holds
/// the transfer, so below -O2 (which promotes them to registers) a loop of a
/// million transfers overflowed the stack. Each iteration still finds the
/// buffer uninitialized as far as the IR can tell, as before.
static void hoistStaticAllocasOutOfLoops(ModuleOp module) {
  SmallVector<std::pair<memref::AllocaOp, Operation *>> moves;
  module.walk([&](memref::AllocaOp alloca) {
    if (alloca->getNumOperands() != 0)
      return; // a dynamic size may be computed in the loop
    // Up past the loops (allocation scopes or not) to the first other scope.
    bool inLoop = false;
    for (Operation *parent = alloca->getParentOp(); parent; parent = parent->getParentOp()) {
      if (isa<LoopLikeOpInterface>(parent))
        inLoop = true;
      else if (parent->hasTrait<OpTrait::AutomaticAllocationScope>()) {
        if (inLoop)
          moves.emplace_back(alloca, parent);
        return;
      }
    }
  });
  for (auto [alloca, scope] : moves) {
    Block &entry = scope->getRegion(0).front();
    alloca->moveBefore(&entry, entry.begin());
  }
}

/// Frees the buffers bufferization allocated after their last use
/// (ownership-based deallocation, as MLIR's own CPU pipelines do). Without
/// it a kernel with intermediate tensors leaks them at every call: the
/// harness frees what a run leaves, but the code `--emit=llvm` prints would
/// leak. A module that frees memory itself (memref.dealloc: C-style code) is
/// left as it is, since the pass refuses such IR; one the pass fails on for
/// another reason keeps its allocations as they were.
static void deallocateBuffers(ModuleOp module) {
  if (!containsOp<memref::AllocOp>(module) || containsOp<memref::DeallocOp>(module) ||
      containsOp<memref::ReallocOp>(module))
    return;
  OwningOpRef<ModuleOp> before = module.clone();
  if (llvm::Error error = runPipeline(module, "buffer-deallocation-pipeline",
                                      PipelineFailure::LoweringFailed, "buffer deallocation")) {
    llvm::consumeError(std::move(error));
    replaceModuleContents(module, std::move(before));
  }
}

/// A lowering failure about \p op, its message prefixed by where it is.
static llvm::Error loweringErrorAt(Operation *op, const std::string &message) {
  std::string where = fileLineColumn(op->getLoc()).value_or("");
  return pipelineError(PipelineFailure::LoweringFailed,
                       (where.empty() ? "" : where + ": ") + message);
}

/// Nothing can lower a constant without data, and the translation to LLVM
/// IR would only say "resource does not exist" after blaming an op left
/// behind.
llvm::Error checkResourceData(ModuleOp module) {
  Operation *user = nullptr;
  std::string key;
  module.walk([&](Operation *op) {
    op->getAttrDictionary().walk([&](DenseResourceElementsAttr attr) {
      if (!user && !attr.getRawHandle().getBlob()) {
        user = op;
        key = attr.getRawHandle().getKey().str();
      }
    });
    return user ? WalkResult::interrupt() : WalkResult::advance();
  });
  if (!user)
    return llvm::Error::success();
  return loweringErrorAt(
      user,
      "dense_resource<" + key + "> has no data: " +
          (key == "__elided__" ? "the module was printed with its large constants elided"
                               : "the file's {-# dialect_resources #-} section does not "
                                 "define it") +
          ". Export the module with its constants (weights) to optimize, compile or run it");
}

/// The first op, in walk order, one of whose types (those \p typesOf
/// gives it) \p matches, with that type; a null op when there is none.
static std::pair<Operation *, Type>
firstOpWithType(ModuleOp module, llvm::function_ref<llvm::SmallVector<Type>(Operation *)> typesOf,
                llvm::function_ref<bool(Type)> matches) {
  std::pair<Operation *, Type> found{nullptr, Type()};
  module.walk([&](Operation *op) {
    for (Type type : typesOf(op))
      if (matches(type)) {
        found = {op, type};
        return WalkResult::interrupt();
      }
    return WalkResult::advance();
  });
  return found;
}

static std::string typeText(Type type) {
  std::string text;
  llvm::raw_string_ostream os(text);
  type.print(os);
  return text;
}

/// A memref whose layout is an affine map with no strided form (a
/// transpose map, a tiled layout): MLIR lowers only strided layouts to LLVM,
/// and its func-to-llvm conversion would leave the function behind, for the
/// translation to blame func.func.
static llvm::Error checkLayouts(ModuleOp module) {
  auto [user, found] = firstOpWithType(
      module,
      [](Operation *op) {
        llvm::SmallVector<Type> types(op->getResultTypes());
        if (auto function = dyn_cast<func::FuncOp>(op))
          llvm::append_range(types, function.getArgumentTypes());
        return types;
      },
      [](Type type) {
        auto memref = dyn_cast<MemRefType>(type);
        return memref && !isStrided(memref);
      });
  if (!user)
    return llvm::Error::success();
  std::string what = "'" + user->getName().getStringRef().str() + "'";
  if (auto function = dyn_cast<func::FuncOp>(user))
    what += " @" + function.getSymName().str();
  return loweringErrorAt(
      user, what + " has type " + typeText(found) +
                ", whose layout is not strided: MLIR lowers memrefs with strided layouts "
                "only. Where every use is an affine load or store (or an alloc), "
                "mlir-opt-19 --normalize-memrefs rewrites the layout into the accesses");
}

/// memref.generic_atomic_rmw on floats: MLIR 19 lowers it to an
/// llvm.cmpxchg of the floats themselves, which the LLVM dialect's verifier
/// rejects (integers and pointers only) with a message about an op the
/// user never wrote.
static llvm::Error checkFloatAtomics(ModuleOp module) {
  auto [user, element] = firstOpWithType(
      module,
      [](Operation *op) {
        llvm::SmallVector<Type> types;
        if (auto rmw = dyn_cast<memref::GenericAtomicRMWOp>(op))
          types.push_back(rmw.getMemref().getType().getElementType());
        return types;
      },
      [](Type type) { return isa<FloatType>(type); });
  if (!user)
    return llvm::Error::success();
  return loweringErrorAt(
      user, "'memref.generic_atomic_rmw' on " + typeText(element) +
                ": MLIR 19 lowers it to an llvm.cmpxchg of the floats themselves, which LLVM "
                "allows on integers and pointers only. Use memref.atomic_rmw (addf, "
                "maximumf, ...), or update the value's bits as an integer");
}

/// An op the lowering to LLVM left in another dialect: MLIR 19 has no
/// lowering for it here (memref.atomic_rmw maxnumf, a 2-D
/// affine.vector_load). The translation to LLVM IR would blame the
/// unrealized_conversion_cast next to it, located at a function argument.
static llvm::Error checkFullyLowered(ModuleOp module) {
  Operation *left = nullptr;
  module.walk([&](Operation *op) {
    Dialect *dialect = op->getDialect();
    if (isa<ModuleOp, UnrealizedConversionCastOp>(op) ||
        (dialect && dialect->getRegisteredInterface<LLVMTranslationDialectInterface>()))
      return WalkResult::advance(); // what the translation takes
    left = op;
    return WalkResult::interrupt();
  });
  if (!left)
    return llvm::Error::success();
  return loweringErrorAt(left, "'" + left->getName().getStringRef().str() +
                                   "' has no lowering to LLVM in MLIR 19 as written here: the "
                                   "lowering left it unconverted");
}

/// The async dialect: its lowering calls MLIR's async runtime (a thread
/// pool), which the JIT does not load, and the translation to LLVM IR would
/// only name an op it has no registration for.
static llvm::Error checkAsync(ModuleOp module) {
  Operation *user = firstOpOfDialect(module, "async"); // the async.execute
  if (!user)
    return llvm::Error::success();
  return loweringErrorAt(
      user, "'" + user->getName().getStringRef().str() +
                "': mqss does not compile or run the async dialect (its code calls MLIR's "
                "async runtime, which mqss does not load); run it with mlir-cpu-runner-19 "
                "and -shared-libs=libmlir_async_runtime.so, or express the work without async");
}

/// Arithmetic on 8-bit floats (f8E4M3FN, f8E5M2, ...): MLIR 19 lowers
/// their storage (as i8: loads, stores, constants, selects, bitcasts) but
/// neither their arithmetic nor their conversions, and the LLVM dialect's
/// verifier would only complain about an i8 operand of some llvm.fpext or
/// llvm.fadd.
static llvm::Error checkEightBitFloatArithmetic(ModuleOp module) {
  auto [user, eightBit] = firstOpWithType(
      module,
      [](Operation *op) {
        llvm::SmallVector<Type> types;
        llvm::StringRef dialect = op->getDialect() ? op->getDialect()->getNamespace() : "";
        if ((dialect != "arith" && dialect != "math") ||
            isa<arith::ConstantOp, arith::SelectOp, arith::BitcastOp>(op))
          return types;
        llvm::append_range(types, op->getOperandTypes());
        llvm::append_range(types, op->getResultTypes());
        return types;
      },
      [](Type type) {
        auto element = dyn_cast<FloatType>(getElementTypeOrSelf(type));
        return element && element.getWidth() == 8;
      });
  if (!user)
    return llvm::Error::success();
  return loweringErrorAt(user, "'" + user->getName().getStringRef().str() + "' computes on " +
                                   typeText(getElementTypeOrSelf(eightBit)) +
                                   ": MLIR 19 lowers 8-bit floats' storage to LLVM but "
                                   "not their arithmetic or conversions, so this module "
                                   "cannot be compiled");
}

/// A data layout that makes `index` narrower than 64 bits (dlti.dl_spec,
/// as some frontends for 32-bit targets emit it): the lowering's passes
/// would disagree on the width (casts of i64 to index left behind), and the
/// harness passes memref descriptors with 64-bit sizes and strides.
static llvm::Error checkIndexWidth(ModuleOp module) {
  unsigned bits =
      mlir::DataLayout(module).getTypeSizeInBits(IndexType::get(module.getContext()));
  if (bits == 64)
    return llvm::Error::success();
  return loweringErrorAt(module, llvm::formatv("the module's data layout (dlti.dl_spec) makes "
                                               "index {0} bits wide: mqss compiles and calls "
                                               "kernels with a 64-bit index only; remove the "
                                               "index entry (or make it 64) to run it here",
                                               bits)
                                     .str());
}

llvm::Error checkLowerable(ModuleOp module) {
  if (llvm::Error error = checkResourceData(module))
    return error;
  if (llvm::Error error = checkIndexWidth(module))
    return error;
  return checkAsync(module);
}

llvm::Error lowerToLLVMDialect(ModuleOp module, bool boundsChecks) {
  if (llvm::Error error = checkLowerable(module))
    return error;
  // Checked here, not before the pipelines, which may rewrite what they
  // find (normalize-memrefs).
  if (llvm::Error error = checkLayouts(module))
    return error;
  if (llvm::Error error = checkFloatAtomics(module))
    return error;
  eraseTransformSchedules(module);
  eraseUnusedDeclarations(module);
  if (llvm::Error error = lowerMultiReductionsAndScans(module))
    return error;
  std::string frontend = frontendLoweringPipeline(module);
  if (!frontend.empty())
    if (llvm::Error error = runPipeline(module, frontend, PipelineFailure::LoweringFailed,
                                        "lowering TOSA to linalg"))
      return error;
  decomposeConcats(module);
  lowerPacks(module);
  generalizeIdentityTransposes(module);
  if (llvm::Error error = decomposeSoftmaxes(module))
    return error;
  if (affineOpCarryingTensors(module))
    if (llvm::Error error = runPipeline(module, "lower-affine", PipelineFailure::LoweringFailed,
                                        "lowering affine loops that carry tensors to scf"))
      return error;
  if (containsTensors(module))
    if (llvm::Error error = runPipeline(module, kBufferization,
                                        PipelineFailure::LoweringFailed, "lowering to LLVM"))
      return error;
  deallocateBuffers(module);
  inlineAllocaScopes(module);
  if (llvm::Error error = runPipeline(module, kLoweringToLoops, PipelineFailure::LoweringFailed,
                                      "lowering to LLVM"))
    return error;
  hoistStaticAllocasOutOfLoops(module);
  expandSignedCeilDivisions(module);
  if (boundsChecks)
    insertBoundsChecks(module);
  if (llvm::Error error = checkEightBitFloatArithmetic(module)) // also what TOSA's made
    return error;
  if (llvm::Error error = runPipeline(module, kLoweringLoopsToLLVM,
                                      PipelineFailure::LoweringFailed, "lowering to LLVM"))
    return error;
  return checkFullyLowered(module);
}

} // namespace mqss
