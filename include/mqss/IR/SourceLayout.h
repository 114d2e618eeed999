//===- SourceLayout.h - Where a module's functions lie in its text --------===//
//
// Parsing is most of what selecting for a large module costs, and one MLIR
// parse uses one thread. Found without parsing, where each top-level
// function lies in the text lets several threads each parse a part of the
// module: the text with the other parts blanked out, so that every line and
// column (and so every location and diagnostic) stays where it was.
//
//===----------------------------------------------------------------------===//
#ifndef MQSS_IR_SOURCELAYOUT_H
#define MQSS_IR_SOURCELAYOUT_H

#include "llvm/ADT/StringRef.h"

#include <optional>
#include <string>
#include <vector>

namespace mqss {

/// A top-level `func.func` with a body, as it lies in the text. The names
/// refer into the scanned text.
struct SourceFunction {
  llvm::StringRef name;        ///< without '@'
  size_t begin = 0, end = 0;   ///< from its line's start to the end of the
                               ///< line its body closes on
  std::vector<llvm::StringRef> references; ///< every @name in its text
};

/// The functions with a body of a module's text, in order, and the symbols
/// named outside them (by globals, declarations, the module's attributes).
struct SourceLayout {
  std::vector<SourceFunction> functions;
  std::vector<llvm::StringRef> outsideReferences;
};

/// Scans \p source as MLIR's lexer would (strings, comments, brackets) for
/// the functions of its module, written as `mlir-opt` and other tools print
/// them: one module (or top-level ops without one), each `func.func` on a
/// line of its own. None when the text is laid out otherwise (generic form,
/// quoted symbol names, unbalanced brackets, two functions of one name):
/// then only MLIR's parser can tell, and the caller parses it whole.
std::optional<SourceLayout> scanFunctions(llvm::StringRef source);

/// Which functions a part of the module owning \p owned needs in its text:
/// those, every function their text names (transitively), and every
/// function named outside a function.
std::vector<bool> neededFunctions(const SourceLayout &layout, const std::vector<bool> &owned);

/// \p source with the functions not marked in \p keep blanked: spaces,
/// with the newlines kept, so what stays is where it was.
std::string blankFunctions(llvm::StringRef source, const SourceLayout &layout,
                           const std::vector<bool> &keep);

} // namespace mqss

#endif // MQSS_IR_SOURCELAYOUT_H
