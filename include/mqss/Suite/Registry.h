//===- Registry.h - The benchmark suite's registry -------------------------===//
//
// benchmarks/registry.json lists every module of the suite: where it is, how
// to call it, which kernel and family it belongs to, its size class and its
// split. The split is by kernel, so test kernels are never seen in training.
//
//===----------------------------------------------------------------------===//
#ifndef MQSS_SUITE_REGISTRY_H
#define MQSS_SUITE_REGISTRY_H

#include "llvm/Support/Error.h"

#include <map>
#include <string>
#include <vector>

namespace mqss {

struct BenchmarkEntry {
  std::string name;   ///< unique per module, e.g. "gemm-small"
  std::string kernel; ///< shared by the sizes of one kernel, e.g. "gemm"
  std::string path;   ///< absolute path of the .mlir file
  std::string relativePath; ///< as written in the registry
  std::string entry;
  std::string family;
  std::string size;  ///< small | medium | large
  std::string split; ///< train | validation | test
  std::string source;
  std::map<std::string, std::vector<int64_t>> shapes;
  std::map<std::string, double> args;
};

/// Which entries to take from the registry; empty fields match everything.
struct RegistryFilter {
  std::string split;
  std::string family;
  std::string kernel;
  /// small | medium | large, or "smallest" for each kernel's smallest size.
  std::string size;
};

class Registry {
public:
  /// Loads and validates \p path: required fields, known splits and sizes,
  /// unique names, existing files, one split per kernel.
  static llvm::Expected<Registry> load(llvm::StringRef path);

  /// $MQSS_BENCHMARKS/registry.json if set, else the source tree's.
  static std::string defaultPath();

  const std::vector<BenchmarkEntry> &entries() const { return all; }
  /// Entries matching \p filter, in registry order. Errors for an unknown
  /// split, size or family, listing the known ones.
  llvm::Expected<std::vector<BenchmarkEntry>> select(const RegistryFilter &filter) const;
  std::vector<std::string> families() const;

private:
  std::vector<BenchmarkEntry> all;
};

} // namespace mqss

#endif // MQSS_SUITE_REGISTRY_H
