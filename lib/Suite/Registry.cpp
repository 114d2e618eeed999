//===- Registry.cpp - The benchmark suite's registry -----------------------===//

#include "mqss/Suite/Registry.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cstdlib>
#include <set>

namespace mqss {

static constexpr llvm::StringLiteral kSplits[] = {"train", "validation", "test"};
static constexpr llvm::StringLiteral kSizes[] = {"small", "medium", "large"};

static llvm::Error registryError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

std::string Registry::defaultPath() {
  if (const char *root = std::getenv("MQSS_BENCHMARKS"))
    return (llvm::Twine(root) + "/registry.json").str();
  return MQSS_SOURCE_DIR "/benchmarks/registry.json";
}

static bool parseEntry(const llvm::json::Value &value, BenchmarkEntry &entry,
                       llvm::json::Path path) {
  llvm::json::ObjectMapper mapper(value, path);
  return mapper && mapper.map("name", entry.name) &&
         mapper.map("kernel", entry.kernel) &&
         mapper.map("path", entry.relativePath) &&
         mapper.map("entry", entry.entry) && mapper.map("family", entry.family) &&
         mapper.map("size", entry.size) && mapper.map("split", entry.split) &&
         mapper.mapOptional("source", entry.source) &&
         mapper.mapOptional("shapes", entry.shapes) &&
         mapper.mapOptional("args", entry.args);
}

llvm::Expected<Registry> Registry::load(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/true);
  if (!buffer)
    return registryError(llvm::formatv("cannot read the benchmark registry '{0}': {1}",
                                       path, buffer.getError().message()));
  auto json = llvm::json::parse((*buffer)->getBuffer());
  if (!json)
    return registryError(llvm::formatv("{0}: invalid JSON: {1}", path,
                                       llvm::toString(json.takeError())));
  const llvm::json::Array *array = json->getAsArray();
  if (!array)
    return registryError(path + ": expected a JSON array of benchmarks");

  llvm::SmallString<256> root(path);
  llvm::sys::path::remove_filename(root);
  if (root.empty())
    root = ".";

  Registry registry;
  llvm::StringSet<> names;
  std::map<std::string, std::string> splitOfKernel;
  for (auto [index, value] : llvm::enumerate(*array)) {
    BenchmarkEntry entry;
    llvm::json::Path::Root jsonRoot("registry");
    if (!parseEntry(value, entry, jsonRoot))
      return registryError(llvm::formatv("{0}: entry {1}: {2}", path, index,
                                         llvm::toString(jsonRoot.getError())));
    auto where = llvm::formatv("{0}: entry {1} ({2})", path, index, entry.name).str();
    if (!llvm::is_contained(kSplits, entry.split))
      return registryError(where + ": split must be train, validation or test, not '" +
                           entry.split + "'");
    if (!llvm::is_contained(kSizes, entry.size))
      return registryError(where + ": size must be small, medium or large, not '" +
                           entry.size + "'");
    if (!names.insert(entry.name).second)
      return registryError(where + ": duplicate name");
    auto [it, inserted] = splitOfKernel.emplace(entry.kernel, entry.split);
    if (!inserted && it->second != entry.split)
      return registryError(where + ": kernel '" + entry.kernel + "' is in split '" +
                           it->second + "' for another size; a kernel's sizes must "
                           "share one split");
    llvm::SmallString<256> file(root);
    llvm::sys::path::append(file, entry.relativePath);
    entry.path = std::string(file);
    if (!llvm::sys::fs::exists(entry.path))
      return registryError(where + ": file '" + entry.path + "' does not exist");
    registry.all.push_back(std::move(entry));
  }
  return registry;
}

std::vector<std::string> Registry::families() const {
  std::set<std::string> unique;
  for (const BenchmarkEntry &entry : all)
    unique.insert(entry.family);
  return {unique.begin(), unique.end()};
}

static std::string joinNames(llvm::ArrayRef<std::string> names) {
  std::string text;
  for (const std::string &name : names)
    text += (text.empty() ? "" : ", ") + name;
  return text;
}

llvm::Expected<std::vector<BenchmarkEntry>>
Registry::select(const RegistryFilter &filter) const {
  if (!filter.split.empty() && !llvm::is_contained(kSplits, filter.split))
    return registryError("unknown split '" + filter.split +
                         "' (known: train, validation, test)");
  if (!filter.size.empty() && filter.size != "smallest" &&
      !llvm::is_contained(kSizes, filter.size))
    return registryError("unknown size '" + filter.size +
                         "' (known: small, medium, large, smallest)");
  std::vector<std::string> known = families();
  if (!filter.family.empty() && !llvm::is_contained(known, filter.family))
    return registryError("unknown family '" + filter.family + "' (known: " +
                         joinNames(known) + ")");

  auto sizeRank = [](llvm::StringRef size) {
    return llvm::find(kSizes, size) - std::begin(kSizes);
  };
  std::map<std::string, long> smallest;
  for (const BenchmarkEntry &entry : all) {
    auto [it, inserted] = smallest.emplace(entry.kernel, sizeRank(entry.size));
    if (!inserted)
      it->second = std::min(it->second, sizeRank(entry.size));
  }

  std::vector<BenchmarkEntry> selected;
  for (const BenchmarkEntry &entry : all) {
    if (!filter.split.empty() && entry.split != filter.split)
      continue;
    if (!filter.family.empty() && entry.family != filter.family)
      continue;
    if (!filter.kernel.empty() && entry.kernel != filter.kernel &&
        entry.name != filter.kernel)
      continue;
    if (filter.size == "smallest" ? sizeRank(entry.size) != smallest[entry.kernel]
                                  : !filter.size.empty() && entry.size != filter.size)
      continue;
    selected.push_back(entry);
  }
  return selected;
}

} // namespace mqss
