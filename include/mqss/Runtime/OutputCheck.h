//===- OutputCheck.h - Compare a candidate's outputs with the reference ----===//
//
// A pipeline that computes something else is wrong-output, never a speedup.
// Floats are compared with a relative tolerance (widened for f16/bf16, whose
// rounding alone exceeds 1e-3), integers exactly, printed output token by
// token with numbers compared like floats.
//
//===----------------------------------------------------------------------===//
#ifndef MQSS_RUNTIME_OUTPUTCHECK_H
#define MQSS_RUNTIME_OUTPUTCHECK_H

#include "mqss/Runtime/Buffers.h"

#include <string>
#include <vector>

namespace mqss {

struct OutputCheck {
  enum class Verdict { Pass, Fail, Skipped };
  Verdict verdict = Verdict::Skipped;
  double maxRelError = 0;
  size_t valuesCompared = 0;
  size_t mismatches = 0;
  /// Where the first mismatch is, e.g. "arg2[17]: 3.5 vs reference 1.25".
  std::string firstMismatch;
  /// Why the check was skipped, when it was.
  std::string reason;
};

llvm::StringRef verdictName(OutputCheck::Verdict verdict);

/// Compares \p candidate with \p reference (same names, same order).
OutputCheck compareOutputs(const std::vector<OutputArray> &reference,
                           const std::vector<OutputArray> &candidate,
                           double rtol);

/// The tolerance applied to an element kind: \p rtol, widened to a few ulps
/// for 16-bit floats.
double effectiveTolerance(ElementKind element, double rtol);

} // namespace mqss

#endif // MQSS_RUNTIME_OUTPUTCHECK_H
