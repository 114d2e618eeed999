//===- Common.cpp - What the `mqss` and `mqss-train` commands share --------===//

#include "Commands.h"

#include "mqss/IR/Loader.h"
#include "mqss/Runtime/Target.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

#include <cmath>

using namespace llvm;

namespace mqss::tool {
cl::OptionCategory &category() {
  static cl::OptionCategory options("mqss options");
  return options;
}
Expected<std::vector<std::string>> parseTargetList(StringRef list, StringRef tool,
                                                   bool narrowToHost) {
  std::vector<std::string> targets;
  SmallVector<StringRef> names;
  list.split(names, ',', -1, false);
  for (StringRef name : names) {
    name = name.trim();
    if (name.empty())
      continue;
    // Each target is measured once: a repeated one would only double the work.
    if (llvm::is_contained(targets, name))
      return createStringError(inconvertibleErrorCode(),
                               "target " + name + " is named twice in '" + list + "'");
    // A default list keeps what this host can run, and says what it drops.
    auto resolved = mqss::resolveTarget(name);
    if (!resolved && narrowToHost) {
      WithColor::note(errs(), tool) << "left out " << name << ": "
                                    << toString(resolved.takeError()) << "\n";
      continue;
    }
    if (!resolved)
      return resolved.takeError();
    targets.push_back(name.str());
  }
  if (targets.empty() && narrowToHost)
    return createStringError(inconvertibleErrorCode(),
                             "this host runs none of the targets " + list +
                                 ": name one with --targets (e.g. host)");
  return targets;
}

Expected<std::string> measurableInput(StringRef input, std::optional<TemporaryFile> &copy) {
  if (input != "-") {
    if (!sys::fs::exists(input))
      return createStringError(inconvertibleErrorCode(),
                               "cannot read '" + input + "': no such file");
    // (A directory failed in every measurement child, one at a time.)
    if (sys::fs::is_directory(input))
      return createStringError(inconvertibleErrorCode(),
                               "cannot read '" + input + "': it is a directory");
    return input.str();
  }
  auto buffer = MemoryBuffer::getSTDIN();
  if (!buffer)
    return createStringError(inconvertibleErrorCode(),
                             "cannot read standard input: " + buffer.getError().message());
  auto file = TemporaryFile::create("mqss-stdin", (*buffer)->getBuffer());
  if (!file)
    return createStringError(inconvertibleErrorCode(),
                             "cannot store standard input: " + toString(file.takeError()));
  copy.emplace(std::move(*file));
  return copy->path();
}

Error checkMeasurementOptions(unsigned reps, double minTimeMs, double timeoutS) {
  auto refuse = [](const Twine &message) {
    return createStringError(inconvertibleErrorCode(), message);
  };
  if (reps == 0)
    return refuse("--reps must be at least 1");
  if (!(minTimeMs >= 0) || !std::isfinite(minTimeMs))
    return refuse("--min-time-ms must be a finite number of milliseconds, 0 or more");
  if (!(timeoutS >= 0) || !std::isfinite(timeoutS))
    return refuse("--timeout-s must be a finite number of seconds, 0 or more (0: none)");
  return Error::success();
}

int reportLoadError(StringRef tool, Error error, bool json) {
  // A file that cannot be read is the tool's error, said as its others are;
  // diagnostics of the module's text carry their file:line:col.
  bool unreadable = false;
  std::string diagnostics;
  handleAllErrors(
      std::move(error),
      [&](const LoadError &load) {
        unreadable = load.kind == LoadFailure::Io;
        diagnostics = load.diagnostics;
      },
      [&](const ErrorInfoBase &other) { diagnostics = other.message(); });
  errs() << (unreadable ? tool + ": " : Twine()) << diagnostics;
  if (json)
    printJsonError(StringRef(diagnostics).rtrim());
  return unreadable ? 2 : 1;
}

bool finishOutput(ToolOutputFile &out, StringRef path, StringRef tool) {
  out.os().flush();
  if (std::error_code ec = out.os().error()) {
    WithColor::error(errs(), tool) << "cannot write '" << path << "': " << ec.message() << "\n";
    out.os().clear_error();
    return false;
  }
  out.keep();
  return true;
}

void printJsonError(const Twine &message) {
  outs() << formatv("{0:2}", json::Value(json::Object{{"error", message.str()}})) << "\n";
}

int reportError(StringRef tool, const Twine &message, bool json, int code) {
  WithColor::error(errs(), tool) << message << "\n";
  if (json)
    printJsonError(message);
  return code;
}

Expected<bool> smallKernelsToDefault(StringRef value) {
  if (value != "default" && value != "policy")
    return createStringError(inconvertibleErrorCode(),
                             "--small-kernels must be default or policy, not '" + value + "'");
  return value == "default";
}
} // namespace mqss::tool
