//===- Jit.cpp - JIT-compile a lowered module and call its entry -----------===//

#include "mqss/Runtime/Jit.h"

#include "mqss/IR/Context.h"
#include "mqss/IR/Diagnostics.h"

#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Module.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Transforms/Scalar/LowerMatrixIntrinsics.h"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <unistd.h>

namespace mqss {

//===----------------------------------------------------------------------===//
// Allocation hooks
//===----------------------------------------------------------------------===//

namespace {
struct AllocationState {
  llvm::DenseSet<void *> live;
  allocation::ExhaustedHandler onExhausted = nullptr;
  std::optional<uint8_t> fill;
};
AllocationState &allocationState() {
  static AllocationState state;
  return state;
}

void *trackAllocation(void *ptr, size_t size) {
  if (!ptr) {
    if (size == 0)
      return ptr;
    if (allocationState().onExhausted)
      allocationState().onExhausted(size);
    return nullptr;
  }
  allocationState().live.insert(ptr);
  return ptr;
}

/// An allocation not meant to be zeroed, filled when asked to be.
void *trackUninitialized(void *ptr, size_t size) {
  if (ptr && allocationState().fill)
    std::memset(ptr, *allocationState().fill, size);
  return trackAllocation(ptr, size);
}

extern "C" void *mqssMalloc(size_t size) {
  return trackUninitialized(std::malloc(size), size);
}
extern "C" void *mqssCalloc(size_t count, size_t size) {
  return trackAllocation(std::calloc(count, size), count * size);
}
extern "C" void *mqssAlignedAlloc(size_t alignment, size_t size) {
  return trackUninitialized(std::aligned_alloc(alignment, size), size);
}
extern "C" void *mqssRealloc(void *ptr, size_t size) {
  if (ptr)
    allocationState().live.erase(ptr);
  return trackAllocation(std::realloc(ptr, size), size);
}
extern "C" void mqssFree(void *ptr) {
  if (ptr)
    allocationState().live.erase(ptr);
  std::free(ptr);
}
} // namespace

void allocation::setExhaustedHandler(ExhaustedHandler handler) {
  allocationState().onExhausted = handler;
}

void allocation::releaseAll() {
  for (void *ptr : allocationState().live)
    std::free(ptr);
  allocationState().live.clear();
}

size_t allocation::liveCount() { return allocationState().live.size(); }

void allocation::setFillByte(std::optional<uint8_t> byte) { allocationState().fill = byte; }

namespace {
struct TimerState {
  bool counting = false;
  uint64_t calls = 0;
};
TimerState &timerState() {
  static TimerState state;
  return state;
}

extern "C" double mqssRtclock() {
  TimerState &state = timerState();
  if (state.counting)
    return 1e-3 * static_cast<double>(++state.calls);
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}
} // namespace

void timer::setCounting(bool counting) { timerState() = TimerState{counting, 0}; }

namespace {
/// A failed cf.assert prints its message with puts, to the kernel's stdout
/// (a captured file during the output check, else discarded), then calls
/// abort(). The end of what it printed is repeated on stderr, which the
/// harness reads back, after kAbortMarker.
extern "C" [[noreturn]] void mqssAbort() {
  std::fflush(stdout);
  char tail[1024];
  ssize_t got = 0;
  off_t end = lseek(STDOUT_FILENO, 0, SEEK_CUR);
  if (end > 0) {
    off_t from = end > off_t(sizeof(tail)) ? end - off_t(sizeof(tail)) : 0;
    got = pread(STDOUT_FILENO, tail, size_t(end - from), from);
  }
  auto say = [](const char *text, size_t size) {
    while (size > 0) {
      ssize_t written = ::write(STDERR_FILENO, text, size);
      if (written <= 0)
        return;
      text += written;
      size -= size_t(written);
    }
  };
  say(kAbortMarker.data(), kAbortMarker.size());
  if (got > 0)
    say(tail, size_t(got));
  if (got <= 0 || tail[got - 1] != '\n')
    say("\n", 1);
  std::abort();
}
} // namespace

//===----------------------------------------------------------------------===//
// CompiledKernel
//===----------------------------------------------------------------------===//

CompiledKernel::~CompiledKernel() = default;

/// The kernel's heap functions and clock, routed through the harness' hooks:
/// these definitions take precedence over the process' libc and the runner
/// utilities.
static const std::pair<llvm::StringLiteral, void *> kHarnessSymbols[] = {
    {"malloc", reinterpret_cast<void *>(&mqssMalloc)},
    {"calloc", reinterpret_cast<void *>(&mqssCalloc)},
    {"aligned_alloc", reinterpret_cast<void *>(&mqssAlignedAlloc)},
    {"realloc", reinterpret_cast<void *>(&mqssRealloc)},
    {"free", reinterpret_cast<void *>(&mqssFree)},
    {"rtclock", reinterpret_cast<void *>(&mqssRtclock)},
    {"abort", reinterpret_cast<void *>(&mqssAbort)}};

/// The allocation functions JitOptions::opaqueHeap renames, what to, and
/// the hook the new name links to.
struct OpaqueHeapFunction {
  llvm::StringLiteral known, opaque;
  void *hook;
};
static const OpaqueHeapFunction kOpaqueHeap[] = {
    {"malloc", "mqss_opaque_malloc", reinterpret_cast<void *>(&mqssMalloc)},
    {"aligned_alloc", "mqss_opaque_aligned_alloc", reinterpret_cast<void *>(&mqssAlignedAlloc)}};

/// Functions \p module only declares and refers to that neither the
/// harness nor this process (libc, libm, the MLIR runtime libraries)
/// defines: calls to them cannot be linked.
static std::vector<std::string> unresolvableDeclarations(mlir::ModuleOp module) {
  std::vector<std::string> names;
  for (auto function : module.getOps<mlir::LLVM::LLVMFuncOp>()) {
    std::string name = function.getName().str();
    bool harnessDefined = llvm::any_of(
        kHarnessSymbols, [&](const auto &symbol) { return symbol.first == name; });
    if (function.isExternal() && !harnessDefined &&
        !mlir::SymbolTable::symbolKnownUseEmpty(function, module) &&
        !dlsym(RTLD_DEFAULT, name.c_str()))
      names.push_back("@" + name);
  }
  return names;
}

static llvm::Expected<uint64_t> textSectionBytes(mlir::ExecutionEngine &engine) {
  llvm::SmallString<128> path;
  if (std::error_code ec =
          llvm::sys::fs::createTemporaryFile("mqss-code", "o", path))
    return llvm::errorCodeToError(ec);
  engine.dumpToObjectFile(path);
  auto object = llvm::object::ObjectFile::createObjectFile(path);
  if (!object) {
    llvm::sys::fs::remove(path);
    return object.takeError();
  }
  uint64_t bytes = 0;
  for (const llvm::object::SectionRef &section : object->getBinary()->sections())
    if (section.isText())
      bytes += section.getSize();
  llvm::sys::fs::remove(path);
  return bytes;
}

void CompiledKernel::restoreGlobals() const {
  for (const GlobalState &global : globals)
    std::memcpy(global.address, global.initial.data(), global.initial.size());
}

void lowerMatrixIntrinsics(llvm::Module &module, llvm::TargetMachine *machine) {
  if (llvm::none_of(module.functions(), [](const llvm::Function &function) {
        return function.getIntrinsicID() == llvm::Intrinsic::matrix_multiply ||
               function.getIntrinsicID() == llvm::Intrinsic::matrix_transpose ||
               function.getIntrinsicID() == llvm::Intrinsic::matrix_column_major_load ||
               function.getIntrinsicID() == llvm::Intrinsic::matrix_column_major_store;
      }))
    return;
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager sccs;
  llvm::ModuleAnalysisManager modules;
  llvm::PassBuilder builder(machine);
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(sccs);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, sccs, modules);
  llvm::ModulePassManager passes;
  passes.addPass(llvm::createModuleToFunctionPassAdaptor(llvm::LowerMatrixIntrinsicsPass()));
  passes.run(module, modules);
}

llvm::Expected<std::unique_ptr<CompiledKernel>>
CompiledKernel::compile(mlir::ModuleOp module, llvm::StringRef entry,
                        const TargetSpec &target, const JitOptions &options) {
  initializeNativeTarget();
  auto start = std::chrono::steady_clock::now();
  std::unique_ptr<CompiledKernel> kernel(new CompiledKernel());

  auto machine = createTargetMachine(target, options.optLevel);
  if (!machine)
    return machine.takeError();
  auto optimizerMachine = createTargetMachine(target, options.optLevel);
  if (!optimizerMachine)
    return optimizerMachine.takeError();
  kernel->optimizerMachine = std::move(*optimizerMachine);

  static const llvm::StringRef runtimeLibraries[] = {MQSS_C_RUNNER_UTILS,
                                                     MQSS_RUNNER_UTILS};
  // Optimises, then looks at what is left of the entry. Kept in the kernel:
  // the engine's options only refer to it.
  kernel->transformer = [optimize = mlir::makeOptimizingTransformer(
                             options.optLevel, /*sizeLevel=*/0, kernel->optimizerMachine.get()),
                         compiled = kernel.get(), opaqueHeap = options.opaqueHeap,
                         name = entry.str()](llvm::Module *llvmModule) -> llvm::Error {
    if (opaqueHeap)
      for (const OpaqueHeapFunction &renamed : kOpaqueHeap)
        if (llvm::Function *function = llvmModule->getFunction(renamed.known))
          if (function->isDeclaration())
            function->setName(renamed.opaque);
    lowerMatrixIntrinsics(*llvmModule, compiled->optimizerMachine.get());
    if (llvm::Error error = optimize(llvmModule))
      return error;
    llvm::Function *function = llvmModule->getFunction(name);
    compiled->emptyEntry = function && !function->isDeclaration() && function->size() == 1 &&
                           function->front().size() == 1 &&
                           llvm::isa<llvm::ReturnInst>(function->front().front());
    compiled->constantEntry =
        compiled->emptyEntry &&
        llvm::isa_and_nonnull<llvm::Constant>(
            llvm::cast<llvm::ReturnInst>(function->front().front()).getReturnValue());
    // Mutable globals that survived optimisation, made visible to lookup()
    // (memref.global private is private here) to be saved and restored.
    const llvm::DataLayout &layout = llvmModule->getDataLayout();
    for (llvm::GlobalVariable &global : llvmModule->globals()) {
      if (global.isConstant() || global.isDeclaration() || !global.hasName())
        continue;
      global.setLinkage(llvm::GlobalValue::ExternalLinkage);
      global.setVisibility(llvm::GlobalValue::DefaultVisibility);
      CompiledKernel::GlobalState state;
      state.name = global.getName().str();
      state.initial.resize(layout.getTypeAllocSize(global.getValueType()));
      compiled->globals.push_back(std::move(state));
    }
    return llvm::Error::success();
  };
  mlir::ExecutionEngineOptions engineOptions;
  engineOptions.transformer = kernel->transformer;
  engineOptions.jitCodeGenOptLevel =
      llvm::CodeGenOpt::getLevel(static_cast<int>(options.optLevel));
  engineOptions.sharedLibPaths = runtimeLibraries;
  engineOptions.enableObjectDump = options.measureCodeSize;
  engineOptions.enableGDBNotificationListener = false;
  engineOptions.enablePerfNotificationListener = false;

  // A failed translation to LLVM IR names the op in a diagnostic.
  DiagnosticCollector diagnostics(*module.getContext());
  auto engine =
      mlir::ExecutionEngine::create(module, engineOptions, std::move(*machine));
  if (!engine)
    return llvm::createStringError(llvm::inconvertibleErrorCode(),
                                   llvm::toString(engine.takeError()) + "\n" +
                                       diagnostics.take());
  kernel->engine = std::move(*engine);

  // Only the hooks the module does not define itself: ORC refuses a batch
  // of symbols as a whole when one of them is already defined.
  llvm::SmallVector<std::pair<llvm::StringRef, void *>> hooks;
  for (const auto &[name, address] : kHarnessSymbols) {
    auto defined = module.lookupSymbol<mlir::LLVM::LLVMFuncOp>(name);
    if (!defined || defined.isExternal())
      hooks.push_back({name, address});
  }
  if (options.opaqueHeap)
    for (const OpaqueHeapFunction &renamed : kOpaqueHeap)
      hooks.push_back({renamed.opaque, renamed.hook});
  kernel->engine->registerSymbols([&hooks](llvm::orc::MangleAndInterner interner) {
    llvm::orc::SymbolMap symbols;
    for (const auto &[name, address] : hooks)
      symbols[interner(name)] = {llvm::orc::ExecutorAddr::fromPtr(address),
                                 llvm::JITSymbolFlags::Exported};
    return symbols;
  });

  std::string cInterface = ("_mlir_ciface_" + entry).str();
  auto entryFn = kernel->engine->lookupPacked(cInterface);
  if (!entryFn) {
    // Linking fails as a whole, and the engine then blames the entry point.
    if (std::vector<std::string> missing = unresolvableDeclarations(module); !missing.empty()) {
      llvm::consumeError(entryFn.takeError());
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          llvm::formatv("the kernel calls {0}, declared without a body and defined by no "
                        "library the JIT can see (libc, libm, MLIR's runtime): give {1} a "
                        "definition in the module",
                        llvm::join(missing, ", "), missing.size() == 1 ? "it" : "them"));
    }
    return llvm::joinErrors(
        llvm::createStringError(
            llvm::inconvertibleErrorCode(),
            llvm::formatv("entry @{0} has no C interface after lowering", entry)),
        entryFn.takeError());
  }
  kernel->entryFn = *entryFn;
  for (GlobalState &global : kernel->globals) {
    auto address = kernel->engine->lookup(global.name);
    if (!address)
      return llvm::joinErrors(
          llvm::createStringError(llvm::inconvertibleErrorCode(),
                                  "cannot find the kernel's global @" + global.name),
          address.takeError());
    global.address = *address;
    std::memcpy(global.initial.data(), global.address, global.initial.size());
  }
  kernel->jitMs = std::chrono::duration<double, std::milli>(
                      std::chrono::steady_clock::now() - start)
                      .count();

  if (options.measureCodeSize) {
    auto bytes = textSectionBytes(*kernel->engine);
    if (!bytes)
      return bytes.takeError();
    kernel->codeSize = *bytes;
  }
  return kernel;
}

} // namespace mqss
