//===- Target.cpp - Code generation targets the JIT can compile for -------===//

#include "mqss/Runtime/Target.h"

#include "mqss/IR/Context.h"

#include "llvm/ADT/StringMap.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/TargetParser/Host.h"

#include <algorithm>

namespace mqss {

namespace {
/// The host's CPU, asked once: cpuid and the formatting are not free, and
/// the server resolves a target on every request.
struct HostCPU {
  std::string name = llvm::sys::getHostCPUName().str();
  llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();

  std::string featureString() const {
    std::vector<std::string> enabled;
    for (auto &entry : features)
      enabled.push_back((entry.second ? "+" : "-") + entry.getKey().str());
    std::sort(enabled.begin(), enabled.end());
    std::string joined;
    for (auto &f : enabled)
      joined += (joined.empty() ? "" : ",") + f;
    return joined;
  }
};

const HostCPU &hostCPU() {
  static const HostCPU host;
  return host;
}
} // namespace

const std::vector<TargetSpec> &knownTargets() {
  static const std::vector<TargetSpec> targets = {
      {"host", hostCPU().name, hostCPU().featureString(),
       "the machine this runs on, with all its CPU features",
       {}},
      {"x86-avx512", "skylake-avx512", "+avx512f,+avx512bw,+avx512dq,+avx512vl,+avx2,+fma",
       "x86-64 with AVX-512 (Skylake-SP class), 512-bit vectors",
       {"avx512f", "avx512bw", "avx512dq", "avx512vl", "avx2", "fma"}},
      {"x86-avx2", "haswell", "+avx2,+fma,-avx512f",
       "x86-64 with AVX2 and FMA (Haswell class), 256-bit vectors",
       {"avx2", "fma"}},
      {"x86-sse4", "nehalem", "+sse4.2,-avx,-avx2,-avx512f",
       "x86-64 with SSE4.2 (Nehalem class), 128-bit vectors",
       {"sse4.2"}},
  };
  return targets;
}

llvm::Expected<TargetSpec> resolveTarget(llvm::StringRef name, TargetUse use) {
  const std::vector<TargetSpec> &targets = knownTargets();
  for (const TargetSpec &target : targets) {
    if (target.name != name)
      continue;
    if (use == TargetUse::Compile)
      return target;
    std::string missing;
    for (const std::string &feature : target.requiredHostFeatures)
      if (!hostCPU().features.lookup(feature))
        missing += (missing.empty() ? "" : ", ") + feature;
    if (!missing.empty())
      return llvm::createStringError(
          llvm::inconvertibleErrorCode(),
          llvm::formatv("target '{0}' cannot run on this host (CPU {1} lacks "
                        "{2}); use --target=host or a smaller target",
                        name, hostCPU().name, missing));
    return target;
  }
  std::string names;
  for (const TargetSpec &target : targets)
    names += (names.empty() ? "" : ", ") + target.name;
  return llvm::createStringError(
      llvm::inconvertibleErrorCode(),
      llvm::formatv("unknown target '{0}' (known targets: {1})", name, names));
}

llvm::Expected<std::unique_ptr<llvm::TargetMachine>>
createTargetMachine(const TargetSpec &target, unsigned optLevel) {
  initializeNativeTarget();
  auto builder = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!builder)
    return builder.takeError();
  builder->setCPU(target.cpu);
  builder->setFeatures(target.features);
  auto level = llvm::CodeGenOpt::getLevel(static_cast<int>(optLevel));
  builder->setCodeGenOptLevel(level.value_or(llvm::CodeGenOptLevel::Aggressive));
  auto machine = builder->createTargetMachine();
  if (!machine)
    return machine.takeError();
  return std::move(*machine);
}

} // namespace mqss
