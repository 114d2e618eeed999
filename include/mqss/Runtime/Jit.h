//===- Jit.h - JIT-compile a lowered module and call its entry -------------===//
#ifndef MQSS_RUNTIME_JIT_H
#define MQSS_RUNTIME_JIT_H

#include "mqss/Runtime/Target.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/Support/Error.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir {
class ExecutionEngine;
} // namespace mlir
namespace llvm {
class Module;
class TargetMachine;
} // namespace llvm

namespace mqss {

/// Lowers LLVM's matrix intrinsics (what vector.matrix_multiply and
/// vector.flat_transpose become) where \p module uses them: LLVM's code
/// generators cannot select them, and its optimization pipelines lower them
/// only under -enable-matrix. The JIT does it before optimizing; LLVM IR
/// printed for other tools needs it too.
void lowerMatrixIntrinsics(llvm::Module &module, llvm::TargetMachine *machine = nullptr);

struct JitOptions {
  /// LLVM optimisation and codegen level, 0-3.
  unsigned optLevel = 3;
  /// Measure the size of the generated machine code (costs an object dump).
  bool measureCodeSize = true;
  /// Hide what malloc and aligned_alloc are from LLVM's optimizer: it then
  /// cannot fold a read of memory the kernel never wrote (to any constant),
  /// which so sees the harness' fill bytes. For the output check's
  /// reference, whose reruns with other fills tell an undefined kernel.
  bool opaqueHeap = false;
};

/// A module in the LLVM dialect, compiled for one target, ready to call.
class CompiledKernel {
public:
  /// Translates \p module (already lowered to the LLVM dialect, entry marked
  /// with `llvm.emit_c_interface`) and compiles it for \p target.
  static llvm::Expected<std::unique_ptr<CompiledKernel>>
  compile(mlir::ModuleOp module, llvm::StringRef entry, const TargetSpec &target,
          const JitOptions &options);
  ~CompiledKernel();

  /// Calls the entry with packed arguments (see KernelCall).
  void invoke(llvm::MutableArrayRef<void *> packedArgs) const { entryFn(packedArgs.data()); }

  /// Puts the module's mutable globals (C `static` arrays, state a kernel
  /// updates) back to their initial values, so that every call starts from
  /// the same state: without it a kernel's output depends on how often it
  /// ran before.
  void restoreGlobals() const;

  /// Bytes of machine code in the executable sections.
  uint64_t codeSizeBytes() const { return codeSize; }
  /// Wall time of translation to LLVM IR, LLVM optimisation and codegen.
  double jitMilliseconds() const { return jitMs; }
  /// True when LLVM's optimisation left the entry a bare return: nothing it
  /// computes reaches an argument or a result, or what it returns is a
  /// constant, so calling it measures an empty call.
  bool entryDoesNothing() const { return emptyEntry; }
  /// True when that bare return returns a constant.
  bool entryReturnsConstant() const { return constantEntry; }

private:
  CompiledKernel() = default;
  std::unique_ptr<mlir::ExecutionEngine> engine;
  std::unique_ptr<llvm::TargetMachine> optimizerMachine;
  std::function<llvm::Error(llvm::Module *)> transformer;
  void (*entryFn)(void **) = nullptr;
  uint64_t codeSize = 0;
  double jitMs = 0;
  bool emptyEntry = false;
  bool constantEntry = false;
  struct GlobalState {
    std::string name;
    void *address = nullptr;
    std::vector<char> initial;
  };
  std::vector<GlobalState> globals;
};

/// JIT-compiled code allocates through these hooks instead of malloc, so the
/// harness can free what a call leaked or returned, and report exhaustion as
/// out-of-memory instead of a crash.
namespace allocation {
/// Called when an allocation fails; must not return.
using ExhaustedHandler = void (*)(size_t requestedBytes);
void setExhaustedHandler(ExhaustedHandler handler);
/// Frees everything the JIT'd code allocated and did not free.
void releaseAll();
/// Number of live allocations made by JIT'd code.
size_t liveCount();
/// Fills each block the JIT'd code allocates (malloc, aligned_alloc) with
/// \p byte from now on, or stops filling (nullopt, the default): two runs
/// with different bytes tell whether a kernel reads memory it never wrote.
void setFillByte(std::optional<uint8_t> byte);
} // namespace allocation

/// `rtclock()` of MLIR's runner utilities, which kernels call to time
/// themselves and then print the elapsed time, as the kernels of the
/// buddy-mlir examples do.
namespace timer {
/// From now on (\p counting), rtclock() returns the number of calls made
/// since this call, in milliseconds, instead of the time, so that what a
/// kernel prints from it is the same in every run and its printed output
/// can be checked; or it returns the time again (the default).
void setCounting(bool counting);
} // namespace timer

/// JIT-compiled code's abort() (a failed cf.assert calls it after printing
/// its message to stdout) writes this to stderr, then the end of what the
/// kernel printed, before aborting: the message is not lost with stdout.
inline constexpr llvm::StringLiteral kAbortMarker = "mqss: the kernel called abort(); it printed: ";

} // namespace mqss

#endif // MQSS_RUNTIME_JIT_H
