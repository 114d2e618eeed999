//===- TemporaryFile.cpp - A file holding some text, removed when done -----===//

#include "mqss/Runtime/TemporaryFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/raw_ostream.h"

namespace mqss {

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
