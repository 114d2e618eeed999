//===- Diagnostics.cpp - Collect MLIR diagnostics as text ------------------===//

#include "mqss/IR/Diagnostics.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "llvm/Support/raw_ostream.h"

using namespace mlir;

namespace mqss {

std::optional<std::string> fileLineColumn(Location loc) {
  if (auto fileLoc = dyn_cast<FileLineColLoc>(loc))
    return (fileLoc.getFilename().getValue() + ":" + llvm::Twine(fileLoc.getLine()) + ":" +
            llvm::Twine(fileLoc.getColumn()))
        .str();
  if (auto nameLoc = dyn_cast<NameLoc>(loc))
    return fileLineColumn(nameLoc.getChildLoc());
  if (auto callLoc = dyn_cast<CallSiteLoc>(loc))
    return fileLineColumn(callLoc.getCallee());
  if (auto fused = dyn_cast<FusedLoc>(loc)) {
    for (Location inner : fused.getLocations())
      if (!isa<UnknownLoc>(inner))
        return fileLineColumn(inner);
  }
  return std::nullopt;
}

static void printLocation(Location loc, llvm::raw_ostream &os) {
  if (std::optional<std::string> where = fileLineColumn(loc))
    os << *where;
  else
    os << loc;
}

static llvm::StringRef severityName(DiagnosticSeverity severity) {
  switch (severity) {
  case DiagnosticSeverity::Error: return "error";
  case DiagnosticSeverity::Warning: return "warning";
  case DiagnosticSeverity::Note: return "note";
  case DiagnosticSeverity::Remark: return "remark";
  }
  return "error";
}

static void printDiagnostic(Diagnostic &diag, llvm::raw_ostream &os) {
  printLocation(diag.getLocation(), os);
  os << ": " << severityName(diag.getSeverity()) << ": " << diag.str() << "\n";
  for (Diagnostic &note : diag.getNotes())
    printDiagnostic(note, os);
}

DiagnosticCollector::DiagnosticCollector(MLIRContext &context)
    : context(context) {
  handlerId = context.getDiagEngine().registerHandler([this](Diagnostic &diag) {
    llvm::raw_string_ostream os(collected);
    printDiagnostic(diag, os);
    return success();
  });
}

DiagnosticCollector::~DiagnosticCollector() {
  context.getDiagEngine().eraseHandler(handlerId);
}

std::string DiagnosticCollector::take() {
  std::string text = std::move(collected);
  collected.clear();
  return text;
}

} // namespace mqss
