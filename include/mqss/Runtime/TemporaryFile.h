//===- TemporaryFile.h - A file holding some text, removed when done -------===//
//
// The measurement child reads its module from a path (its stdin is
// /dev/null): modules that arrive as text (piped, over HTTP, transformed in
// memory) are kept in one of these while children need them.
//
//===----------------------------------------------------------------------===//
#ifndef MQSS_RUNTIME_TEMPORARYFILE_H
#define MQSS_RUNTIME_TEMPORARYFILE_H

#include "llvm/Support/Error.h"

#include <string>

namespace mqss {

class TemporaryFile {
public:
  /// Creates "<tmp>/<prefix>-XXXXXX.mlir" holding \p contents.
  static llvm::Expected<TemporaryFile> create(llvm::StringRef prefix, llvm::StringRef contents);
  TemporaryFile(TemporaryFile &&other) noexcept : filePath(std::move(other.filePath)) {
    other.filePath.clear();
  }
  TemporaryFile &operator=(TemporaryFile &&) = delete;
  ~TemporaryFile();
  const std::string &path() const { return filePath; }

private:
  explicit TemporaryFile(std::string path) : filePath(std::move(path)) {}
  std::string filePath;
};

} // namespace mqss

#endif // MQSS_RUNTIME_TEMPORARYFILE_H
