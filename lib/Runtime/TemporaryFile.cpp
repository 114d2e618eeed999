//===- TemporaryFile.cpp - A file holding some text, removed when done -----===//

#include "mqss/Runtime/TemporaryFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <unistd.h>

namespace mqss {

/// Writes \p contents to \p path opened with \p flags, closed, and says
/// how that went: a write error is returned, not left to the stream's
/// destructor, which aborts on one.
static std::error_code writeWhole(llvm::StringRef path, llvm::StringRef contents,
                                  llvm::sys::fs::OpenFlags flags) {
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec, flags);
  if (ec)
    return ec;
  os << contents;
  os.close();
  ec = os.error();
  os.clear_error();
  return ec;
}

static llvm::Error cannotWrite(llvm::StringRef path, std::error_code ec) {
  return llvm::createStringError(ec, "cannot write '" + path + "': " + ec.message());
}

llvm::Error writeFileAtomically(llvm::StringRef path, llvm::StringRef contents) {
  std::string temporary = (path + llvm::formatv(".{0}.tmp", ::getpid())).str();
  std::error_code ec = writeWhole(temporary, contents, llvm::sys::fs::OF_None);
  if (!ec)
    ec = llvm::sys::fs::rename(temporary, path);
  if (!ec)
    return llvm::Error::success();
  llvm::sys::fs::remove(temporary);
  return cannotWrite(path, ec);
}

llvm::Error appendToFile(llvm::StringRef path, llvm::StringRef contents) {
  if (std::error_code ec = writeWhole(path, contents, llvm::sys::fs::OF_Append))
    return cannotWrite(path, ec);
  return llvm::Error::success();
}

llvm::Expected<TemporaryFile> TemporaryFile::create(llvm::StringRef prefix,
                                                    llvm::StringRef contents) {
  int fd = -1;
  llvm::SmallString<128> path;
  if (std::error_code ec = llvm::sys::fs::createTemporaryFile(prefix, "mlir", fd, path))
    return llvm::createStringError(ec, "cannot create a temporary file: " + ec.message());
  TemporaryFile file(path.str().str());
  llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
  os << contents;
  os.close();
  if (os.has_error())
    return llvm::createStringError(os.error(), "cannot write '" + file.path() + "'");
  return std::move(file);
}

TemporaryFile::~TemporaryFile() {
  if (!filePath.empty())
    llvm::sys::fs::remove(filePath);
}

} // namespace mqss
