//===- Target.h - Code generation targets the JIT can compile for ---------===//
//
// A target is a CPU name and a feature string handed to the JIT's
// TargetMachine, so `x86-avx2` produces AVX2-only code even on an AVX-512 host.
//
//===----------------------------------------------------------------------===//
#ifndef MQSS_RUNTIME_TARGET_H
#define MQSS_RUNTIME_TARGET_H

#include "llvm/Support/Error.h"
#include "llvm/Target/TargetMachine.h"

#include <memory>
#include <string>
#include <vector>

namespace mqss {

struct TargetSpec {
  std::string name;     ///< user-facing name, e.g. "x86-avx2"
  std::string cpu;      ///< LLVM CPU name, e.g. "haswell"
  std::string features; ///< LLVM feature string, e.g. "+avx2,+fma"
  std::string description;
  /// Host CPU features the target's code needs in order to run here.
  std::vector<std::string> requiredHostFeatures;
};

/// All known targets, "host" first.
const std::vector<TargetSpec> &knownTargets();

/// What a target is resolved for: code that will run here (a measurement),
/// or decisions and code for another machine, which this host need not be
/// able to execute (selecting for x86-avx512 on an AVX2 laptop).
enum class TargetUse { Run, Compile };

/// Looks up \p name; the error lists the known names. To run, it also fails
/// when the host cannot execute the target's code (e.g. x86-avx512 on an
/// AVX2-only CPU).
llvm::Expected<TargetSpec> resolveTarget(llvm::StringRef name, TargetUse use = TargetUse::Run);

/// Builds a TargetMachine for \p target with the given codegen level (0-3).
llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(const TargetSpec &target, unsigned optLevel);

} // namespace mqss

#endif // MQSS_RUNTIME_TARGET_H
