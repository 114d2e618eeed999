//===- TemporaryFile.cpp - A file holding some text, removed when done -----===//

#include "mqss/Runtime/TemporaryFile.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/raw_ostream.h"

#include <unistd.h>

namespace mqss {

llvm::Error writeFileAtomically(llvm::StringRef path, llvm::StringRef contents) {
  std::string temporary = (path + llvm::formatv(".{0}.tmp", ::getpid())).str();
  auto fail = [&](std::error_code ec) {
    llvm::sys::fs::remove(temporary);
    return llvm::createStringError(ec, "cannot write '" + path + "': " + ec.message());
  };
  std::error_code ec;
  {
    llvm::raw_fd_ostream os(temporary, ec);
    if (ec)
      return fail(ec);
    os << contents;
    os.close();
    ec = os.error();
    os.clear_error(); // reported here, not by the destructor's abort
  }
  if (ec)
    return fail(ec);
  if (std::error_code renamed = llvm::sys::fs::rename(temporary, path))
    return fail(renamed);
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
