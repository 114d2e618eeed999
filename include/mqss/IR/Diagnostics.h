//===- Diagnostics.h - Collect MLIR diagnostics as text --------------------===//
#ifndef MQSS_IR_DIAGNOSTICS_H
#define MQSS_IR_DIAGNOSTICS_H

#include "mlir/IR/Diagnostics.h"

#include <optional>
#include <string>

namespace mqss {

/// \p loc as `file:line:col` (through names, call sites and fused
/// locations, as mlir-opt reports them); none when it holds no file position.
std::optional<std::string> fileLineColumn(mlir::Location loc);

/// While alive, captures every diagnostic emitted in the context as
/// `file:line:col: error: message` lines (notes included), the way mlir-opt
/// prints them, instead of letting them go to stderr.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(mlir::MLIRContext &context);
  ~DiagnosticCollector();
  const std::string &text() const { return collected; }
  /// Returns the collected text and starts afresh.
  std::string take();

private:
  mlir::MLIRContext &context;
  mlir::DiagnosticEngine::HandlerID handlerId;
  std::string collected;
};

} // namespace mqss

#endif // MQSS_IR_DIAGNOSTICS_H
