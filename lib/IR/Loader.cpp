//===- Loader.cpp - Parse and verify a user's module -----------------------===//

#include "mqss/IR/Loader.h"

#include "mqss/IR/Context.h"
#include "mqss/IR/Diagnostics.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

namespace mqss {

char LoadError::ID = 0;

namespace {
/// An op spelled as another MLIR version spells it, and what MLIR 19 writes.
struct SpellingDrift {
  llvm::StringLiteral error; ///< in MLIR 19's parse error
  llvm::StringLiteral hint;
};
} // namespace

/// Spellings other frontends' MLIR (older or newer than 19) uses, found in
/// upstream's tests and frontends' output.
static const SpellingDrift kSpellingDrifts[] = {
    {"custom op 'linalg.pack' is unknown",
     "linalg.pack is MLIR 21's name for tensor.pack, which MLIR 19 (what mqss is built "
     "on) writes with the same operands: write tensor.pack"},
    {"custom op 'linalg.unpack' is unknown",
     "linalg.unpack is MLIR 21's name for tensor.unpack, which MLIR 19 (what mqss is built "
     "on) writes with the same operands: write tensor.unpack"},
    {"custom op 'bufferization.to_buffer' is unknown",
     "bufferization.to_buffer is MLIR 21's name for bufferization.to_memref, which MLIR 19 "
     "(what mqss is built on) writes `bufferization.to_memref %t : memref<...>`"},
    {"custom op 'linalg.elementwise' is unknown",
     "linalg.elementwise is newer than MLIR 19 (what mqss is built on): write a named op "
     "(linalg.add, linalg.mul, linalg.exp, ...) or a linalg.generic"},
    {"custom op 'linalg.init_tensor' is unknown",
     "linalg.init_tensor was replaced by tensor.empty in MLIR 16: write `tensor.empty(%d0, ...) "
     ": tensor<...>` with only the dynamic sizes as operands"},
    {"expand_shape' expected 'output_shape'",
     "MLIR 19's expand_shape names the result's sizes: `tensor.expand_shape %a [[0, 1]] "
     "output_shape [8, 8] : tensor<64xf32> into tensor<8x8xf32>` (SSA values for dynamic "
     "sizes)"},
    {"custom op 'func' is unknown",
     "`func @f` is the spelling of MLIR before 15 (builtin.func): MLIR 19 writes "
     "`func.func @f`"},
    {"custom op 'arith.maxf' is unknown",
     "arith.maxf was renamed in MLIR 18: write arith.maximumf (which propagates NaN, as "
     "maxf did) or arith.maxnumf (which returns the other operand)"},
    {"custom op 'arith.minf' is unknown",
     "arith.minf was renamed in MLIR 18: write arith.minimumf (which propagates NaN, as "
     "minf did) or arith.minnumf (which returns the other operand)"},
};

/// Version drift that MLIR's message does not name, recognized by the
/// offending source line the diagnostic quotes as well.
namespace {
struct QuotedDrift {
  llvm::StringLiteral error;  ///< in MLIR 19's parse error
  llvm::StringLiteral quoted; ///< in the source line it quotes
  llvm::StringLiteral hint;
};
} // namespace
static const QuotedDrift kQuotedDrifts[] = {
    {"CombiningKind to be one of", "<minf>",
     "the combining kind `minf` was renamed in MLIR 18: write `<minimumf>` (which "
     "propagates NaN, as minf did) or `<minnumf>`"},
    {"CombiningKind to be one of", "<maxf>",
     "the combining kind `maxf` was renamed in MLIR 18: write `<maximumf>` (which "
     "propagates NaN, as maxf did) or `<maxnumf>`"},
    {"expected ':'", "() alignment =",
     "`memref.alloc() alignment = 64` is the syntax of MLIR newer than 19 (what mqss is "
     "built on), which writes the alignment as an attribute: `memref.alloc() "
     "{alignment = 64 : i64} : memref<...>`"},
};

/// The op names of the arith dialect that the old standard dialect spelled
/// without a prefix (`addf`), as MLIR before 14 printed them.
static bool isUnprefixedArithOp(llvm::StringRef diagnostics) {
  static const char *const names[] = {
      "addf", "subf", "mulf", "divf", "addi", "subi", "muli", "cmpf", "cmpi", "constant",
      "select", "index_cast", "sitofp", "fptosi", "negf", "maxf", "minf", "remf", "divi_signed"};
  for (const char *name : names)
    if (diagnostics.contains(("custom op '" + llvm::Twine(name) + "' is unknown").str()))
      return true;
  return false;
}

const char kUnregisteredDialectNote[] =
    "note: `mqss select`, `mqss explain`, `mqss features`, `mqss apply` and "
    "`mqss-opt` take --allow-unregistered-dialect; compiling and running the "
    "module (`mqss run`, `--emit=llvm`, `--emit=run`, the measured guard) "
    "cannot: ops of an unregistered dialect have no lowering to LLVM\n";

/// Adds a hint for known cases of version drift in files written for an older
/// MLIR, so the user learns what to change rather than only what failed, and
/// says which of mqss's tools take the flag MLIR's own message advises.
static void appendHints(std::string &diagnostics, llvm::StringRef source) {
  // Upstream's tests hold several modules in one file, split by mlir-opt's
  // --split-input-file; read as one, their symbols clash.
  if (source.starts_with("// -----") || source.contains("\n// -----"))
    diagnostics += "note: the file holds `// -----` separators, which split it into "
                   "separate inputs for mlir-opt's --split-input-file: mqss reads a file "
                   "as one module, so give each part on its own (mqss-opt takes "
                   "--split-input-file too)\n";
  if (source.starts_with("\xef\xbb\xbf"))
    diagnostics += "note: the file begins with a UTF-8 byte-order mark, which MLIR's parser "
                   "does not accept: save it without one\n";
  const std::string text = diagnostics; // (appending may move diagnostics' bytes)
  llvm::StringRef said(text);
  if (said.contains("-allow-unregistered-dialect")) {
    diagnostics += kUnregisteredDialectNote;
  }
  for (const SpellingDrift &drift : kSpellingDrifts)
    if (said.contains(drift.error))
      diagnostics += ("note: " + drift.hint + "\n").str();
  for (const QuotedDrift &drift : kQuotedDrifts)
    if (said.contains(drift.error) && said.contains(drift.quoted))
      diagnostics += ("note: " + drift.hint + "\n").str();
  if (isUnprefixedArithOp(said))
    diagnostics += "note: ops without a dialect prefix (`addf`, `constant`) are the old "
                   "standard dialect's, before MLIR 14: MLIR 19 writes them in arith "
                   "(`arith.addf`, `arith.constant`)\n";
  // (Not any mention of "dlti": an unknown dialect's error lists every
  // registered one.)
  if (said.contains("dl_entry") || said.contains("data layout entry")) {
    diagnostics += "note: this module's DLTI attributes use a syntax MLIR 19 "
                   "rejects (older Polygeist output writes e.g. "
                   "`dense<64> : vector<2xi32>`; MLIR 19 expects "
                   "`vector<2xi64>`): update or drop the dlti.dl_spec entry\n";
  }
}

/// A quoted source line longer than kLongQuotedLine is cut to
/// kQuotedLineWidth characters (with room for the marks saying so: a line
/// cut once is not cut again).
constexpr size_t kQuotedLineWidth = 200;
constexpr size_t kLongQuotedLine = 256;

/// \p line cut to kQuotedLineWidth characters around column \p column
/// (0-based), with "..." where it was cut; \p shift receives how many
/// characters went from its start (before the "...").
static std::string cutAround(llvm::StringRef line, size_t column, size_t &shift) {
  size_t begin = column > kQuotedLineWidth / 2 ? column - kQuotedLineWidth / 2 : 0;
  begin = std::min(begin, line.size() > kQuotedLineWidth ? line.size() - kQuotedLineWidth : 0);
  std::string cut = (begin > 0 ? "..." : "") + line.substr(begin, kQuotedLineWidth).str();
  if (begin + kQuotedLineWidth < line.size())
    cut += llvm::formatv("... ({0} characters in all)", line.size()).str();
  shift = begin;
  return cut;
}

/// \p text with each quoted source line (a caret line below it) of over
/// kLongQuotedLine characters cut around its caret.
static std::string shortenQuotedLines(std::string text) {
  llvm::SmallVector<llvm::StringRef> lines;
  llvm::StringRef(text).split(lines, '\n');
  if (llvm::none_of(lines, [](llvm::StringRef line) { return line.size() > kLongQuotedLine; }))
    return text;
  std::string diagnostics;
  auto isCaretLine = [](llvm::StringRef line) {
    return line.contains('^') && line.find_first_not_of(" ^~") == llvm::StringRef::npos;
  };
  for (size_t i = 0; i < lines.size(); ++i) {
    llvm::StringRef line = lines[i];
    if (i)
      diagnostics += '\n';
    // A quoted source line has its caret line below it; messages and
    // notes stay whole.
    if (line.size() <= kLongQuotedLine || i + 1 == lines.size() || !isCaretLine(lines[i + 1])) {
      diagnostics += line.str();
      continue;
    }
    size_t shift = 0;
    diagnostics += cutAround(line, lines[i + 1].find('^'), shift);
    std::string caret = lines[i + 1].drop_front(std::min(shift, lines[i + 1].size())).str();
    diagnostics += "\n" + std::string(shift > 0 ? 3 : 0, ' ') + caret;
    ++i;
  }
  return diagnostics;
}

std::optional<ParserHazard> findParserHazard(llvm::StringRef text) {
  if (text.starts_with("ML\xefR")) // bytecode
    return std::nullopt;
  auto isWordChar = [](char c) { return llvm::isAlnum(c) || c == '_' || c == '.' || c == '$'; };
  unsigned depth = 0;
  bool customGeneric = false; // a linalg.generic in its custom form, before its iterator types
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') { // a string: to its closing quote
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\')
          ++i;
    } else if (c == '/' && i + 1 < text.size() && text[i + 1] == '/') { // a comment
      i = std::min(text.find('\n', i), text.size());
    } else if (llvm::isAlnum(c) || c == '_' || c == '$') {
      // A word (a name, or a number when it begins with a digit): to its
      // end, which a number must reach within kMaxNumberLength.
      size_t end = i;
      while (end < text.size() && isWordChar(text[end]))
        ++end;
      if (llvm::isDigit(c) && end - i > kMaxNumberLength)
        return ParserHazard{i, llvm::formatv("a number literal of {0} characters: refused "
                                             "before parsing, which takes time superlinear "
                                             "in its length (at most {1})",
                                             end - i, kMaxNumberLength)
                                   .str()};
      llvm::StringRef word = text.slice(i, end);
      if (word == "linalg.generic") {
        customGeneric = true; // (the generic form's name is a string: skipped)
      } else if (word == "iterator_types" && customGeneric) {
        customGeneric = false;
        size_t first = text.find_first_not_of(" \t\n=[", end);
        if (first < text.size() && text[first] == '#')
          return ParserHazard{
              first, "linalg.generic's custom form takes its iterator types as strings "
                     "([\"parallel\"]): MLIR 19's parser aborts on attributes there "
                     "(#linalg.iterator_type<parallel>, which only the generic form "
                     "\"linalg.generic\"(...) <{...}> takes); refused before parsing"};
      }
      i = end - 1;
    } else if (c == '(' || c == '[' || c == '{' || c == '<') {
      if (++depth > kMaxNesting)
        return ParserHazard{i, llvm::formatv("brackets nested deeper than {0}: refused before "
                                             "parsing, whose recursion it could overflow",
                                             kMaxNesting)
                                   .str()};
    } else if ((c == ')' || c == ']' || c == '}' || (c == '>' && (i == 0 || text[i - 1] != '-'))) &&
               depth > 0) {
      --depth;
    }
  }
  return std::nullopt;
}

bool reportParserHazard(const llvm::SourceMgr &sourceMgr, llvm::raw_ostream &os) {
  llvm::StringRef text = sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBuffer();
  std::optional<ParserHazard> hazard = findParserHazard(text);
  if (!hazard)
    return false;
  std::string message;
  llvm::raw_string_ostream messageStream(message);
  sourceMgr.PrintMessage(messageStream, llvm::SMLoc::getFromPointer(text.data() + hazard->at),
                         llvm::SourceMgr::DK_Error, hazard->why);
  os << shortenQuotedLines(std::move(message));
  return true;
}

/// MLIR 19's verifier checks a data layout's type entries grouped in a hash
/// map keyed by pointers, so of several bad entries (a pre-19 frontend's
/// `dense<64> : vector<2xi32>`) it named a different one from run to run.
/// The first bad one in the spec's order is named here, in the verifier's
/// words, before it runs.
static LogicalResult verifyDataLayoutInOrder(ModuleOp module) {
  DataLayoutSpecInterface spec = module.getDataLayoutSpec();
  if (!spec)
    return success();
  for (DataLayoutEntryInterface entry : spec.getEntries()) {
    auto type = llvm::dyn_cast_if_present<Type>(entry.getKey());
    if (!type || !type.isIntOrFloat())
      continue;
    auto value = llvm::dyn_cast<DenseIntElementsAttr>(entry.getValue());
    if (!value || !value.getElementType().isSignlessInteger(64))
      return emitError(module.getLoc())
             << "expected a dense i64 elements attribute in the data layout entry " << entry;
  }
  return success();
}

LogicalResult refuseVerifierCrashes(ModuleOp module) {
  LogicalResult result = success();
  module.walk([&](linalg::TransposeOp transpose) {
    // Its indexing maps are built from the permutation, and MLIR 19 builds
    // a null map from an empty one (rank 0), which the verifier reads.
    if (!transpose.getPermutation().empty())
      return WalkResult::advance();
    transpose.emitError() << "'linalg.transpose' of rank 0 (permutation = []): MLIR 19's "
                             "verifier crashes on it (mlir-opt does too); a 0-d value needs "
                             "no transpose: use linalg.copy";
    result = failure();
    return WalkResult::interrupt();
  });
  return result;
}

bool reportVerifierCrashes(const llvm::SourceMgr &sourceMgr, llvm::raw_ostream &os) {
  const llvm::MemoryBuffer *buffer = sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
  llvm::StringRef text = buffer->getBuffer();
  // Bytecode names ops by dialect and name apart: it is not looked at.
  if (!text.contains("linalg.transpose") || text.starts_with("ML\xefR"))
    return false;
  // Each piece --split-input-file would take on its own (one that does not
  // parse must not keep the others from being checked), placed at its own
  // lines.
  llvm::SmallVector<llvm::StringRef> pieces;
  constexpr llvm::StringLiteral kSplitMarker = "// -----";
  text.split(pieces, kSplitMarker);
  std::unique_ptr<MLIRContext> context = createContext();
  context->allowUnregisteredDialects();
  context->printOpOnDiagnostic(false);
  size_t lines = 0;
  for (llvm::StringRef piece : pieces) {
    size_t linesBefore = lines;
    lines += piece.count('\n');
    if (!piece.contains("linalg.transpose"))
      continue;
    auto pieceManager = std::make_shared<llvm::SourceMgr>();
    pieceManager->AddNewSourceBuffer(
        llvm::MemoryBuffer::getMemBufferCopy(std::string(linesBefore, '\n') + piece.str(),
                                             buffer->getBufferIdentifier()),
        llvm::SMLoc());
    OwningOpRef<ModuleOp> module;
    {
      mqss::DiagnosticCollector quiet(*context); // MlirOptMain reports what does not parse
      module = parseSourceFile<ModuleOp>(pieceManager, ParserConfig(context.get(), false));
    }
    SourceMgrDiagnosticHandler handler(*pieceManager, context.get(), os);
    if (module && failed(refuseVerifierCrashes(*module)))
      return true;
  }
  return false;
}

static llvm::Expected<OwningOpRef<ModuleOp>>
parseAndVerify(MLIRContext &context, std::unique_ptr<llvm::MemoryBuffer> buffer,
               llvm::function_ref<bool(ModuleOp)> vouch = nullptr) {
  auto sourceMgr = std::make_shared<llvm::SourceMgr>();
  sourceMgr->AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());

  std::string diagnostics;
  llvm::raw_string_ostream diagStream(diagnostics);
  SourceMgrDiagnosticHandler handler(*sourceMgr, &context, diagStream);

  if (reportParserHazard(*sourceMgr, diagStream))
    return llvm::make_error<LoadError>(LoadFailure::Parse, diagnostics);

  // Verification is separate from parsing so that "does not parse" and "parses
  // but is invalid" reach the user as different statuses.
  ParserConfig config(&context, /*verifyAfterParse=*/false);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(sourceMgr, config);
  if (!module) {
    appendHints(diagnostics,
                sourceMgr->getMemoryBuffer(sourceMgr->getMainFileID())->getBuffer());
    return llvm::make_error<LoadError>(LoadFailure::Parse, diagnostics);
  }
  if (failed(refuseVerifierCrashes(*module)))
    return llvm::make_error<LoadError>(LoadFailure::Verify, diagnostics);
  if (vouch) {
    bool valid;
    {
      // Its diagnostics would be the full verifier's, in another order.
      mqss::DiagnosticCollector quiet(context);
      valid = vouch(*module);
    }
    if (valid)
      return std::move(module);
  }
  if (failed(verifyDataLayoutInOrder(*module)) || failed(verify(*module))) {
    appendHints(diagnostics,
                sourceMgr->getMemoryBuffer(sourceMgr->getMainFileID())->getBuffer());
    return llvm::make_error<LoadError>(LoadFailure::Verify, diagnostics);
  }
  return std::move(module);
}

LoadError::LoadError(LoadFailure kind, std::string text)
    : kind(kind), diagnostics(shortenQuotedLines(std::move(text))) {}

llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> readModuleFile(llvm::StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFileOrSTDIN(path, /*IsText=*/true);
  if (std::error_code ec = buffer.getError())
    return llvm::make_error<LoadError>(
        LoadFailure::Io, ("error: cannot read '" + path + "': " + ec.message() + "\n").str());
  return std::move(*buffer);
}

llvm::Expected<OwningOpRef<ModuleOp>> loadModuleFile(MLIRContext &context,
                                                     llvm::StringRef path) {
  auto buffer = readModuleFile(path);
  if (!buffer)
    return buffer.takeError();
  return parseAndVerify(context, std::move(*buffer));
}

llvm::Expected<OwningOpRef<ModuleOp>>
loadModuleSource(MLIRContext &context, llvm::StringRef source,
                 llvm::StringRef bufferName, llvm::function_ref<bool(ModuleOp)> vouch) {
  return parseAndVerify(context,
                        llvm::MemoryBuffer::getMemBufferCopy(source, bufferName), vouch);
}

} // namespace mqss
