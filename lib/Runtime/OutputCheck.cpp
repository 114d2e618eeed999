//===- OutputCheck.cpp - Compare a candidate's outputs with the reference --===//

#include "mqss/Runtime/OutputCheck.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace mqss {

llvm::StringRef verdictName(OutputCheck::Verdict verdict) {
  switch (verdict) {
  case OutputCheck::Verdict::Pass: return "pass";
  case OutputCheck::Verdict::Fail: return "fail";
  case OutputCheck::Verdict::Skipped: return "skipped";
  }
  return "skipped";
}

double effectiveTolerance(ElementKind element, double rtol) {
  // Four units in the last place: reassociating a reduction in a 16-bit
  // type moves results by a few ulps.
  if (element == ElementKind::BF16)
    return std::max(rtol, 4 * std::ldexp(1.0, -7));
  if (element == ElementKind::F16)
    return std::max(rtol, 4 * std::ldexp(1.0, -10));
  return rtol;
}

/// Relative error of \p value against \p expected, with a floor so that
/// elements near zero (cancellation) are judged against the array's scale.
static double relativeError(double value, double expected, double floor) {
  if (std::isnan(value) || std::isnan(expected))
    return std::isnan(value) && std::isnan(expected) ? 0 : INFINITY;
  if (std::isinf(value) || std::isinf(expected))
    return value == expected ? 0 : INFINITY;
  return std::fabs(value - expected) / std::max(std::fabs(expected), floor);
}

static double scaleFloor(const std::vector<double> &values) {
  double maxAbs = 0;
  for (double v : values)
    if (std::isfinite(v))
      maxAbs = std::max(maxAbs, std::fabs(v));
  return std::max(1e-2 * maxAbs, 1e-30);
}

/// Enough digits to show any difference between two doubles.
static std::string exact(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.9g", value);
  return text;
}

static void recordMismatch(OutputCheck &check, const llvm::Twine &where) {
  if (check.mismatches++ == 0)
    check.firstMismatch = where.str();
}

static void compareFloats(const OutputArray &ref, const OutputArray &cand,
                          double rtol, OutputCheck &check) {
  double tolerance = effectiveTolerance(ref.element, rtol);
  double floor = scaleFloor(ref.floats);
  for (size_t i = 0; i < ref.floats.size(); ++i) {
    double error = relativeError(cand.floats[i], ref.floats[i], floor);
    check.maxRelError = std::max(check.maxRelError, error);
    if (!(error <= tolerance))
      recordMismatch(check, llvm::formatv("{0}[{1}]: {2} vs reference {3}",
                                          ref.name, i, exact(cand.floats[i]),
                                          exact(ref.floats[i])));
  }
  check.valuesCompared += ref.floats.size();
}

static void compareInts(const OutputArray &ref, const OutputArray &cand,
                        OutputCheck &check) {
  for (size_t i = 0; i < ref.ints.size(); ++i) {
    if (ref.ints[i] == cand.ints[i])
      continue;
    check.maxRelError = INFINITY;
    recordMismatch(check, llvm::formatv("{0}[{1}]: {2} vs reference {3}",
                                        ref.name, i, cand.ints[i], ref.ints[i]));
  }
  check.valuesCompared += ref.ints.size();
}

/// Splits printed output into tokens; brackets and commas separate tokens.
static std::vector<llvm::StringRef> tokenize(llvm::StringRef text) {
  std::vector<llvm::StringRef> tokens;
  size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && llvm::StringRef(" \t\n\r[],=").contains(text[i]))
      ++i;
    size_t start = i;
    while (i < text.size() && !llvm::StringRef(" \t\n\r[],=").contains(text[i]))
      ++i;
    if (i > start)
      tokens.push_back(text.slice(start, i));
  }
  return tokens;
}

/// Whether \p token is a whole number of more digits than a printed float
/// has: printMemref and vector.print write floats with 6 significant digits
/// (`1.23457e+06`), so only an integer printer wrote it, and it is compared
/// exactly. (Compared with a tolerance, and setting the scale that small
/// values are judged against, uninitialised memory printed as i32 or i64
/// passed for equal.)
static bool isWideInteger(llvm::StringRef token) {
  token.consume_front("-");
  return token.size() > 6 && llvm::all_of(token, llvm::isDigit);
}

static void compareText(const OutputArray &ref, const OutputArray &cand,
                        double rtol, OutputCheck &check) {
  std::vector<llvm::StringRef> refTokens = tokenize(ref.text);
  std::vector<llvm::StringRef> candTokens = tokenize(cand.text);
  if (refTokens.size() != candTokens.size()) {
    check.maxRelError = INFINITY;
    recordMismatch(check, llvm::formatv("stdout: {0} tokens vs reference {1}",
                                        candTokens.size(), refTokens.size()));
    return;
  }
  std::vector<double> numbers;
  for (llvm::StringRef token : refTokens) {
    double value;
    if (!token.starts_with("0x") && !isWideInteger(token) && !token.getAsDouble(value))
      numbers.push_back(value);
  }
  double floor = scaleFloor(numbers);
  // A printed memref's header (`rank = 2 offset = 0 sizes = [4, 4] strides =
  // [4, 1] data = ...`) gives its layout, which a pipeline may change: the
  // data is printed in logical order either way, so offset and strides are
  // not compared.
  unsigned rank = 0, layoutTokens = 0;
  size_t numbersBefore = check.valuesCompared;
  size_t mismatchesBefore = check.mismatches;
  for (size_t i = 0; i < refTokens.size(); ++i) {
    llvm::StringRef r = refTokens[i], c = candTokens[i];
    if (layoutTokens > 0) {
      --layoutTokens;
      continue;
    }
    if (r == c && (r == "rank" || r == "offset" || r == "strides")) {
      if (r == "rank" && i + 1 < refTokens.size())
        (void)refTokens[i + 1].getAsInteger(10, rank);
      layoutTokens = r == "offset" ? 1 : r == "strides" ? rank : 0;
      continue;
    }
    // Addresses (`base@ = 0x55...`) differ between any two runs.
    if (r.starts_with("0x") && c.starts_with("0x"))
      continue;
    double rv, cv;
    if (isWideInteger(r) || isWideInteger(c)) {
      ++check.valuesCompared;
      if (r != c) {
        check.maxRelError = INFINITY;
        recordMismatch(check, llvm::formatv("stdout token {0}: {1} vs reference {2}", i, c, r));
      }
    } else if (!r.getAsDouble(rv) && !c.getAsDouble(cv)) {
      double error = relativeError(cv, rv, floor);
      check.maxRelError = std::max(check.maxRelError, error);
      ++check.valuesCompared;
      if (!(error <= rtol))
        recordMismatch(check, llvm::formatv("stdout token {0}: {1} vs reference {2}",
                                            i, c, r));
    } else if (r != c) {
      check.maxRelError = INFINITY;
      recordMismatch(check, llvm::formatv("stdout token {0}: '{1}' vs reference '{2}'",
                                          i, c, r));
    }
  }
  // Printed text without numbers (vector.print str "Hello\n") was compared
  // too, token by token: its tokens are the values.
  if (check.valuesCompared == numbersBefore && check.mismatches == mismatchesBefore)
    check.valuesCompared += refTokens.size();
}

OutputCheck compareOutputs(const std::vector<OutputArray> &reference,
                           const std::vector<OutputArray> &candidate,
                           double rtol) {
  OutputCheck check;
  if (reference.empty()) {
    check.reason = "the entry has no outputs to compare";
    return check;
  }
  for (size_t i = 0; i < reference.size(); ++i) {
    const OutputArray &ref = reference[i];
    if (i >= candidate.size() || candidate[i].name != ref.name) {
      check.maxRelError = INFINITY;
      recordMismatch(check, "output " + ref.name + " is missing");
      continue;
    }
    const OutputArray &cand = candidate[i];
    if (cand.shape != ref.shape || cand.floats.size() != ref.floats.size() ||
        cand.ints.size() != ref.ints.size()) {
      check.maxRelError = INFINITY;
      recordMismatch(check, "output " + ref.name + " has a different shape");
      continue;
    }
    if (ref.name == "stdout")
      compareText(ref, cand, rtol, check);
    else if (isFloatKind(ref.element))
      compareFloats(ref, cand, rtol, check);
    else
      compareInts(ref, cand, check);
  }
  if (check.valuesCompared == 0 && check.mismatches == 0) {
    // Outputs of no elements (a tensor<0x4xf32>) are outputs all the same:
    // the user is told they are empty, not that there are none.
    std::vector<std::string> empty;
    for (const OutputArray &ref : reference)
      if (ref.name != "stdout")
        empty.push_back(ref.name + " (" +
                        llvm::join(llvm::map_range(ref.shape,
                                                   [](int64_t size) {
                                                     return std::to_string(size);
                                                   }),
                                   "x") +
                        ")");
    check.reason = empty.empty()
                       ? "the entry writes no memref, returns nothing and prints nothing"
                       : "the entry's outputs hold no elements: " + llvm::join(empty, ", ");
    return check; // skipped: nothing observable to compare
  }
  check.verdict = check.mismatches == 0 ? OutputCheck::Verdict::Pass
                                        : OutputCheck::Verdict::Fail;
  return check;
}

} // namespace mqss
