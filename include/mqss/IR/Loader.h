//===- Loader.h - Parse and verify a user's module with clear diagnostics -===//
#ifndef MQSS_IR_LOADER_H
#define MQSS_IR_LOADER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <optional>
#include <string>

namespace llvm {
class SourceMgr;
class raw_ostream;
} // namespace llvm

namespace mqss {

/// Why a module could not be loaded; each maps to a user-visible status.
enum class LoadFailure { Io, Parse, Verify };

/// Error carrying the failure class and the diagnostics exactly as mlir-opt
/// would print them (`file:line:col: error: ...` with the source line).
class LoadError : public llvm::ErrorInfo<LoadError> {
public:
  static char ID;
  /// Source lines \p diagnostics quotes (a caret line below them) past 256
  /// characters are cut to 200 around the caret: a reply or a terminal gets
  /// the place, not a line of a megabyte.
  LoadError(LoadFailure kind, std::string diagnostics);
  void log(llvm::raw_ostream &os) const override { os << diagnostics; }
  std::error_code convertToErrorCode() const override {
    return llvm::inconvertibleErrorCode();
  }
  LoadFailure kind;
  std::string diagnostics;
};

/// Brackets nested deeper than this are refused before parsing: such
/// nesting could exhaust the stack of MLIR's recursive parser and verifier
/// (5,000 nested scf.if end mlir-opt with a segfault); modules from real
/// frontends stay far below it.
constexpr unsigned kMaxNesting = 256;

/// Number literals longer than this are refused before parsing: MLIR's
/// parser takes time superlinear in a literal's length (10,000 digits took
/// 1.3 s, 40,000 took 84 s, and 500,000 did not finish in 9 minutes),
/// where no timeout applies. i4096's largest value has 1,234 digits.
constexpr size_t kMaxNumberLength = 4096;

/// What in a module's text is refused before parsing, and where.
struct ParserHazard {
  size_t at; ///< offset in the text
  std::string why;
};

/// The first place in \p text, outside strings and comments, where bracket
/// nesting exceeds kMaxNesting, a number literal (a token that begins with
/// a digit) exceeds kMaxNumberLength, or a linalg.generic in its custom form
/// gives its iterator types as attributes (MLIR 19's parser aborts); none
/// for bytecode.
std::optional<ParserHazard> findParserHazard(llvm::StringRef text);

/// findParserHazard() on \p sourceMgr's main buffer: when it finds one,
/// prints the error there (file:line:col and the line) to \p os and
/// returns true.
bool reportParserHazard(const llvm::SourceMgr &sourceMgr, llvm::raw_ostream &os);

/// Ops MLIR 19's verifier crashes on (a linalg.transpose of rank 0): an
/// error at the first, reported before verify() would take the process
/// down (a server's, with it every request in flight). Every parse of
/// untrusted text checks this before verifying.
mlir::LogicalResult refuseVerifierCrashes(mlir::ModuleOp module);

/// refuseVerifierCrashes() on \p sourceMgr's main buffer, for a tool that
/// parses and verifies it itself (mqss-opt, through MlirOptMain): when the
/// text holds such an op, prints the error to \p os and returns true. Each
/// `// -----` piece is checked on its own, as --split-input-file takes it.
/// Bytecode is not checked.
bool reportVerifierCrashes(const llvm::SourceMgr &sourceMgr, llvm::raw_ostream &os);

/// Reads \p path (or stdin for "-"); a LoadError (Io) when it cannot.
llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> readModuleFile(llvm::StringRef path);

/// Parses \p path (or stdin for "-") into \p context and verifies it.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
loadModuleFile(mlir::MLIRContext &context, llvm::StringRef path);

/// Parses \p source (named \p bufferName in diagnostics) and verifies it.
/// With \p vouch, the parsed module is taken as valid when it returns true
/// (it verified the module in parts, on several threads); otherwise MLIR's
/// verifier runs and its diagnostics are the error's.
llvm::Expected<mlir::OwningOpRef<mlir::ModuleOp>>
loadModuleSource(mlir::MLIRContext &context, llvm::StringRef source,
                 llvm::StringRef bufferName = "<input>",
                 llvm::function_ref<bool(mlir::ModuleOp)> vouch = nullptr);

/// The note a module with ops of an unregistered dialect gets, after MLIR's
/// own advice to pass --allow-unregistered-dialect: which of mqss's tools
/// take that flag. (The server, which takes no such option, says its own.)
extern const char kUnregisteredDialectNote[];

} // namespace mqss

#endif // MQSS_IR_LOADER_H
