//===- TemporaryFile.h - Files written whole: temporary ones, replacements -===//
//
// The measurement child reads its module from a path (its stdin is
// /dev/null): modules that arrive as text (piped, over HTTP, transformed in
// memory) are kept in a TemporaryFile while children need them. Files a
// reader must never see half written (models, checkpoints, reports) are
// replaced whole with writeFileAtomically.
//
//===----------------------------------------------------------------------===//
#ifndef MQSS_RUNTIME_TEMPORARYFILE_H
#define MQSS_RUNTIME_TEMPORARYFILE_H

#include "llvm/Support/Error.h"

#include <string>

namespace mqss {

/// Writes \p contents to \p path through a temporary file beside it (named
/// for this process), renamed over \p path once complete: a reader, or a
/// concurrent writer, never sees half of it. A write that fails (a full
/// disk) removes the temporary, leaves \p path as it was and is an error
/// naming \p path. (llvm::writeToOutput renames first and then aborts on
/// the stream's error, leaving an empty file.)
llvm::Error writeFileAtomically(llvm::StringRef path, llvm::StringRef contents);

/// Appends \p contents to the file at \p path (a log), made if missing. A
/// write that fails is an error naming \p path, not the stream's abort.
llvm::Error appendToFile(llvm::StringRef path, llvm::StringRef contents);

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
