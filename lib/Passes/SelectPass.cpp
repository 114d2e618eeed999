//===- SelectPass.cpp - The `mqss-select` pass ----------------------------===//
//
// Wraps mqss::Selector: the model is loaded once when the pass manager
// initializes the pass; each module is then optimized function by function.
// Errors (missing model, unknown target, a function the chosen passes fail
// on) are diagnostics and a pass failure, never a crash.
//
//===----------------------------------------------------------------------===//

#include "mqss/Passes/Passes.h"

#include "mqss/IR/Signature.h"
#include "mqss/Runtime/Buffers.h"
#include "mqss/Selector/Selector.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Transform/IR/TransformDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/Support/FormatVariadic.h"

namespace mqss {

#define GEN_PASS_DEF_SELECTPIPELINE
#include "mqss/Passes/Passes.h.inc"

namespace {
/// Switches the context's multithreading off while it lives, when the pass
/// runs on the root op: then no other thread is using the context. The
/// selection runs pass pipelines on scratch modules; in a multithreaded
/// context their nested pipelines would spread over the context's threads,
/// where a crashing upstream pass cannot be recovered from, and where it
/// ends the process (mqss-opt, or mlir-opt with the plugin).
class SingleThreadedAtRoot {
public:
  explicit SingleThreadedAtRoot(mlir::ModuleOp module) {
    if (module->getParentOp() || !module.getContext()->isMultithreadingEnabled())
      return;
    context = module.getContext();
    context->disableMultithreading();
  }
  ~SingleThreadedAtRoot() {
    if (context)
      context->enableMultithreading();
  }
  SingleThreadedAtRoot(const SingleThreadedAtRoot &) = delete;
  SingleThreadedAtRoot &operator=(const SingleThreadedAtRoot &) = delete;

private:
  mlir::MLIRContext *context = nullptr;
};

class SelectPipelinePass : public impl::SelectPipelineBase<SelectPipelinePass> {
public:
  using SelectPipelineBase::SelectPipelineBase;

  void getDependentDialects(mlir::DialectRegistry &registry) const override {
    // What the chosen actions produce.
    registry.insert<mlir::affine::AffineDialect, mlir::arith::ArithDialect,
                    mlir::bufferization::BufferizationDialect, mlir::func::FuncDialect,
                    mlir::linalg::LinalgDialect, mlir::math::MathDialect,
                    mlir::memref::MemRefDialect, mlir::scf::SCFDialect,
                    mlir::tensor::TensorDialect, mlir::transform::TransformDialect,
                    mlir::vector::VectorDialect>();
  }

  mlir::LogicalResult initialize(mlir::MLIRContext *context) override {
    auto fail = [&](const llvm::Twine &message) {
      mlir::emitError(mlir::UnknownLoc::get(context)) << "mqss-select: " << message;
      return mlir::failure();
    };
    if (guard != "none" && guard != "measure")
      return fail("guard must be none or measure, not '" + guard + "'");
    if (guard != "measure" && (!entry.empty() || !shapes.empty() || !args.empty() ||
                               timeoutSeconds != 60))
      return fail("entry, shape, arg and timeout-s say how to run the kernel: they need "
                  "guard=measure");
    if (!(timeoutSeconds > 0))
      return fail("timeout-s must be a positive number of seconds");
    SelectorOptions options;
    options.modelPath = model;
    options.target = target;
    options.maxSteps = maxSteps;
    options.guardEntry = entry;
    options.guardTimeoutSeconds = timeoutSeconds;
    if (llvm::Error error = options.parseGuardInputs(shapes, args))
      return fail(llvm::toString(std::move(error)));
    auto created = Selector::create(options);
    if (!created)
      return fail(llvm::toString(created.takeError()));
    selector = std::shared_ptr<Selector>(std::move(*created));
    return mlir::success();
  }

  void runOnOperation() override {
    mlir::ModuleOp module = getOperation();
    // The pass decides the functions of the module it runs on: those of a
    // module nested in it would be left as they are without a word.
    for (mlir::ModuleOp inner : module.getOps<mlir::ModuleOp>())
      if (definesFunctions(inner))
        mlir::emitWarning(inner.getLoc())
            << "mqss-select: the functions of this nested module are not decided by the "
               "pass on the module around it: nest the pass "
               "(builtin.module(builtin.module(mqss-select)))";
    if (!definesFunctions(module)) {
      // Nothing to decide. Functions of another kind (llvm.func: the pass
      // placed after the lowering) are worth a warning; with remarks, any
      // such module gets the reason, as `mqss select` gives it.
      bool otherFunctions = llvm::any_of(module.getOps<mlir::FunctionOpInterface>(),
                                         [](mlir::FunctionOpInterface f) {
                                           return !f.isExternal();
                                         });
      if (otherFunctions || remarks) {
        llvm::Expected<Selection> none = selector->select(module);
        std::string why = none ? "nothing to decide" : llvm::toString(none.takeError());
        (otherFunctions ? mlir::emitWarning(reportedAt(module)) : mlir::emitRemark(reportedAt(module)))
            << "mqss-select: " << why << ": the module is left as it is";
      }
      return markAllAnalysesPreserved();
    }
    llvm::Expected<Selection> selection = Selection();
    {
      SingleThreadedAtRoot singleThreaded(module);
      selection = guard == "measure" ? measuredSelection(module) : selector->optimize(module);
    }
    if (!selection) {
      mlir::emitError(reportedAt(module))
          << "mqss-select: " << llvm::toString(selection.takeError());
      return signalPassFailure();
    }
    // An action a plan left out because it failed here (tensor.bufferize
    // on an op MLIR 19 cannot bufferize) leaves IR the next step may fail
    // on: said as `mqss select` says it, not only among remarks.
    for (const FunctionSelection &function : selection->functions)
      if (!function.leftOut.empty())
        if (auto decided = module.lookupSymbol<mlir::func::FuncOp>(function.name))
          mlir::emitWarning(decided.getLoc())
              << "mqss-select: @" << function.name << " " << function.note;
    if (!remarks)
      return;
    auto remark = mlir::emitRemark(module.getLoc()) << "mqss-select: ";
    for (const FunctionSelection &function : selection->functions) {
      remark << "@" << function.name << ": ";
      llvm::interleave(
          function.actions, [&](const Action *action) { remark << action->name; },
          [&] { remark << ","; });
      if (function.chosen != "policy")
        remark << " (" << function.chosen << (function.note.empty() ? "" : ": ")
               << function.note << ")";
      remark << "; ";
    }
    remark << llvm::formatv("decision_us={0:F1} pass_us={1:F1}", selection->decisionMicros,
                            selection->passMicros)
                  .str();
  }

private:
  /// Where a diagnostic about the whole of \p module goes: at a location,
  /// not on the module op (a diagnostic on an op makes MLIR print the op,
  /// here the whole module, after the message). A file without `module {`
  /// gives its module line 0: then its first op's.
  static mlir::Location reportedAt(mlir::ModuleOp module) {
    mlir::Location where = module.getLoc();
    if (auto file = llvm::dyn_cast<mlir::FileLineColLoc>(where);
        file && file.getLine() == 0 && !module.getBody()->empty())
      where = module.getBody()->front().getLoc();
    return where;
  }

  llvm::Expected<Selection> measuredSelection(mlir::ModuleOp module) {
    auto selection = selector->selectMeasured(module);
    if (!selection)
      return inPassTerms(selection.takeError());
    if (llvm::Error error = selector->apply(module, *selection))
      return std::move(error);
    return selection;
  }

  /// The measurement's advice names mqss's command-line flags: adds how the
  /// pass takes them.
  static llvm::Error inPassTerms(llvm::Error error) {
    std::string message = llvm::toString(std::move(error));
    if (advisesRunOptions(message))
      message += " (as options of the pass: mqss-select{guard=measure entry=NAME "
                 "shape=argN=AxB arg=argN=V})";
    return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
  }

  /// Shared by the copies the pass manager makes of this pass.
  std::shared_ptr<Selector> selector;
};
} // namespace

} // namespace mqss
