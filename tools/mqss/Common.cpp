//===- Common.cpp - What the `mqss` and `mqss-train` commands share --------===//

#include "Commands.h"

#include "mqss/Runtime/Target.h"

#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/WithColor.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace mqss::tool {
cl::OptionCategory &category() {
  static cl::OptionCategory options("mqss options");
  return options;
}
bool parseTargetList(StringRef list, StringRef tool, std::vector<std::string> &targets) {
  targets.clear();
  SmallVector<StringRef> names;
  list.split(names, ',', -1, false);
  for (StringRef name : names) {
    if (name.trim().empty())
      continue;
    if (auto resolved = mqss::resolveTarget(name.trim()); !resolved) {
      WithColor::error(errs(), tool) << toString(resolved.takeError()) << "\n";
      return false;
    }
    targets.push_back(name.trim().str());
  }
  return true;
}

void printJsonError(const Twine &message) {
  outs() << formatv("{0:2}", json::Value(json::Object{{"error", message.str()}})) << "\n";
}
} // namespace mqss::tool
