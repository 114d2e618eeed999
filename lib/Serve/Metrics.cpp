//===- Metrics.cpp - Prometheus text exposition ----------------------------===//

#include "mqss/Serve/Metrics.h"

#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <charconv>

namespace mqss {

std::vector<double> Metrics::latencyBuckets() {
  return {0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
          0.05,   0.1,     0.25,   0.5,   1,      2.5,   5,     10};
}

void Metrics::declare(llvm::StringRef name, llvm::StringRef type, llvm::StringRef help,
                      std::vector<double> buckets) {
  std::lock_guard<std::mutex> lock(mutex);
  Family &family = families[name.str()];
  family.type = type.str();
  family.help = help.str();
  family.buckets = std::move(buckets);
}

void Metrics::increment(llvm::StringRef name, const Labels &labels, double by) {
  std::lock_guard<std::mutex> lock(mutex);
  families[name.str()].values[labels] += by;
}

void Metrics::set(llvm::StringRef name, const Labels &labels, double value) {
  std::lock_guard<std::mutex> lock(mutex);
  families[name.str()].values[labels] = value;
}

void Metrics::observe(llvm::StringRef name, const Labels &labels, double value) {
  std::lock_guard<std::mutex> lock(mutex);
  Family &family = families[name.str()];
  Histogram &histogram = family.histograms[labels];
  histogram.counts.resize(family.buckets.size() + 1);
  size_t bucket = std::lower_bound(family.buckets.begin(), family.buckets.end(), value) -
                  family.buckets.begin();
  ++histogram.counts[bucket];
  ++histogram.count;
  histogram.sum += value;
}

double Metrics::value(llvm::StringRef name, const Labels &labels) const {
  std::lock_guard<std::mutex> lock(mutex);
  auto family = families.find(name);
  if (family == families.end())
    return 0;
  auto it = family->second.values.find(labels);
  return it == family->second.values.end() ? 0 : it->second;
}

namespace {
std::string escape(llvm::StringRef value) {
  std::string out;
  for (char c : value) {
    if (c == '\\' || c == '"')
      out += '\\';
    if (c == '\n') {
      out += "\\n";
      continue;
    }
    out += c;
  }
  return out;
}

std::string renderLabels(const Labels &labels, const std::string &extra = "") {
  std::string text;
  for (const auto &[key, value] : labels)
    text += (text.empty() ? "" : ",") + key + "=\"" + escape(value) + "\"";
  if (!extra.empty())
    text += (text.empty() ? "" : ",") + extra;
  return text.empty() ? "" : "{" + text + "}";
}

/// \p value in the fewest digits that read back as it: bucket bounds such
/// as 0.0005 and 0.001 must stay apart (as "le" labels they name series),
/// and sums of seconds keep their microseconds.
std::string number(double value) {
  if (value == static_cast<double>(static_cast<int64_t>(value)))
    return std::to_string(static_cast<int64_t>(value));
  char buffer[400]; // the longest fixed-notation double
  auto [end, error] = std::to_chars(buffer, buffer + sizeof(buffer), value, std::chars_format::fixed);
  return error == std::errc() ? std::string(buffer, end) : std::to_string(value);
}
} // namespace

std::string Metrics::render() const {
  std::lock_guard<std::mutex> lock(mutex);
  std::string text;
  llvm::raw_string_ostream os(text);
  for (const auto &[name, family] : families) {
    os << "# HELP " << name << " " << family.help << "\n";
    os << "# TYPE " << name << " " << family.type << "\n";
    for (const auto &[labels, value] : family.values)
      os << name << renderLabels(labels) << " " << number(value) << "\n";
    for (const auto &[labels, histogram] : family.histograms) {
      uint64_t cumulative = 0;
      for (size_t i = 0; i < family.buckets.size(); ++i) {
        cumulative += histogram.counts[i];
        os << name << "_bucket"
           << renderLabels(labels, "le=\"" + number(family.buckets[i]) + "\"") << " "
           << cumulative << "\n";
      }
      os << name << "_bucket" << renderLabels(labels, "le=\"+Inf\"") << " " << histogram.count
         << "\n";
      os << name << "_sum" << renderLabels(labels) << " " << number(histogram.sum)
         << "\n";
      os << name << "_count" << renderLabels(labels) << " " << histogram.count << "\n";
    }
  }
  return text;
}

} // namespace mqss
