//===- SourceLayout.cpp - Where a module's functions lie in its text ------===//

#include "mqss/IR/SourceLayout.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <array>
#include <cstring>

namespace mqss {

namespace {

bool isIdentifierStart(char c) { return llvm::isAlpha(c) || c == '_'; }
/// MLIR's bare-id characters after the first: letters, digits, `_$.`.
bool isIdentifierChar(char c) { return llvm::isAlnum(c) || c == '_' || c == '$' || c == '.'; }

/// One pass over the text. Only what tells where a top-level function
/// begins and ends is looked at: brackets (outside strings and comments),
/// the words that begin a line, `attributes`, and symbol names.
class Scanner {
public:
  explicit Scanner(llvm::StringRef source) : s(source) {}
  std::optional<SourceLayout> run();

private:
  /// Where the module's ops are: in the braces of a `module` op, or at the
  /// top level when the text has none.
  enum class Module { Unknown, Header, Body, Closed, Implicit };
  /// The function being read: its name comes first, then (unless it is a
  /// declaration) its body; its range goes on to the end of the line the
  /// body closes on, which may still hold its `loc(...)`.
  struct Reading {
    SourceFunction function;
    bool named = false, inBody = false, closed = false;
  };

  bool word(llvm::StringRef text, bool firstOnLine);
  void symbol(llvm::StringRef name);
  bool openBrace();
  bool close(char c);
  void endOfLine(size_t at);
  /// The function read was a declaration: what it names is named outside.
  void endDeclaration() {
    llvm::append_range(layout.outsideReferences, reading->function.references);
    reading.reset();
  }
  bool atTop() const {
    return (module == Module::Body || module == Module::Implicit) && open.size() == topDepth;
  }

  llvm::StringRef s;
  SourceLayout layout;
  llvm::SmallVector<char, 32> open; ///< brackets not closed yet
  Module module = Module::Unknown;
  unsigned topDepth = 0; ///< brackets around the module's ops
  bool attributesNext = false; ///< the next '{' opens an attribute dictionary
  std::optional<Reading> reading;
  size_t lineBegin = 0;
};

bool Scanner::word(llvm::StringRef text, bool firstOnLine) {
  bool opName = firstOnLine && (text.contains('.') || text == "module");
  if (module == Module::Unknown && open.empty() && firstOnLine) {
    if (text == "module" || text == "builtin.module") {
      module = Module::Header;
      return true;
    }
    if (opName)
      module = Module::Implicit; // top-level ops without a module around them
  }
  if (module == Module::Header && open.empty()) {
    if (text == "attributes")
      attributesNext = true;
    return true;
  }
  if (module == Module::Closed && open.empty() && opName)
    return false; // a second op after the module: the parser says what then
  if (!atTop())
    return true;
  // A module nested in the module: its functions are not the module's, and
  // the whole parse says what becomes of them.
  if (firstOnLine && (text == "module" || text == "builtin.module"))
    return false;
  if (reading && reading->closed)
    return text == "loc"; // only its location may follow a body on its line
  if (reading && !reading->inBody) {
    if (opName) {
      endDeclaration(); // the next op begins: that was a declaration
    } else {
      if (text == "attributes")
        attributesNext = true;
      return true;
    }
  }
  if (text == "func.func") {
    if (!firstOnLine)
      return false;
    reading.emplace();
    reading->function.begin = lineBegin;
    attributesNext = false;
  }
  return true;
}

void Scanner::symbol(llvm::StringRef name) {
  if (reading && !reading->named && open.size() == topDepth) {
    reading->function.name = name;
    reading->named = true;
  } else if (reading) {
    reading->function.references.push_back(name);
  } else {
    layout.outsideReferences.push_back(name);
  }
}

bool Scanner::openBrace() {
  if (module == Module::Header && open.empty()) {
    if (attributesNext) {
      attributesNext = false;
    } else {
      module = Module::Body;
      topDepth = 1;
    }
  } else if (reading && !reading->inBody && open.size() == topDepth) {
    if (attributesNext)
      attributesNext = false;
    else if (!reading->named)
      return false;
    else
      reading->inBody = true;
  }
  open.push_back('{');
  return true;
}

bool Scanner::close(char c) {
  char expected = c == '}' ? '{' : c == ')' ? '(' : '[';
  if (open.empty() || open.back() != expected)
    return false;
  open.pop_back();
  if (reading && reading->inBody && !reading->closed && open.size() == topDepth && c == '}')
    reading->closed = true;
  if (module == Module::Body && open.empty()) {
    module = Module::Closed;
    if (reading && !reading->closed)
      endDeclaration(); // a declaration last in the module
  }
  return true;
}

void Scanner::endOfLine(size_t at) {
  if (reading && reading->closed) {
    reading->function.end = at;
    layout.functions.push_back(std::move(reading->function));
    reading.reset();
  }
  lineBegin = at + 1;
}

std::optional<SourceLayout> Scanner::run() {
  // Below the module's ops (in function bodies: most of the text) only
  // strings, comments, brackets and symbol names matter.
  static const std::array<bool, 256> deepInterest = [] {
    std::array<bool, 256> table{};
    for (char c : llvm::StringRef("\"/{}()[]@"))
      table[static_cast<unsigned char>(c)] = true;
    return table;
  }();
  bool firstOnLine = true;
  size_t i = 0, n = s.size();
  while (i < n) {
    if (open.size() > topDepth) {
      while (i < n && !deepInterest[static_cast<unsigned char>(s[i])])
        ++i;
      if (i == n)
        break;
      firstOnLine = false;
    }
    char c = s[i];
    if (c == '\n') {
      endOfLine(i);
      firstOnLine = true;
      ++i;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\r') {
      ++i;
      continue;
    }
    bool first = firstOnLine;
    firstOnLine = false;
    if (c == '/' && i + 1 < n && s[i + 1] == '/') {
      i = s.find('\n', i);
      if (i == llvm::StringRef::npos)
        i = n;
      firstOnLine = first;
      continue;
    }
    if (c == '"') {
      if (first && atTop() && reading && !reading->inBody)
        endDeclaration(); // a generic op begins
      for (++i; i < n && s[i] != '"'; ++i) {
        if (s[i] == '\n')
          return std::nullopt;
        if (s[i] == '\\')
          ++i;
      }
      if (i >= n)
        return std::nullopt; // not closed
      ++i;
      continue;
    }
    if (c == '@') {
      size_t b = ++i;
      while (i < n && isIdentifierChar(s[i]))
        ++i;
      if (i == b)
        return std::nullopt; // a quoted name (@"...")
      symbol(s.slice(b, i));
      continue;
    }
    if (c == '%' || c == '^' || c == '#' || c == '!') {
      if (c == '%' && first && atTop() && reading && !reading->inBody)
        endDeclaration(); // an op with results begins
      for (++i; i < n && (isIdentifierChar(s[i]) || s[i] == '-'); ++i)
        ;
      continue;
    }
    if (isIdentifierStart(c)) {
      size_t b = i;
      while (i < n && isIdentifierChar(s[i]))
        ++i;
      if (!word(s.slice(b, i), first))
        return std::nullopt;
      continue;
    }
    if (llvm::isDigit(c)) {
      while (i < n && (isIdentifierChar(s[i])))
        ++i;
      continue;
    }
    ++i;
    if (c == '{' && s.substr(i).starts_with("-#")) {
      if (reading && !reading->inBody)
        endDeclaration(); // the file's resources follow a declaration
      open.push_back('{');
    } else if (c == '{') {
      if (!openBrace())
        return std::nullopt;
    } else if (c == '(' || c == '[') {
      open.push_back(c);
    } else if (c == '}' || c == ')' || c == ']') {
      if (!close(c))
        return std::nullopt;
    }
  }
  endOfLine(n);
  if (!open.empty() || module == Module::Header || module == Module::Body)
    return std::nullopt;
  llvm::StringSet<> names;
  for (const SourceFunction &function : layout.functions)
    if (!names.insert(function.name).second)
      return std::nullopt;
  return std::move(layout);
}

} // namespace

std::optional<SourceLayout> scanFunctions(llvm::StringRef source) {
  return Scanner(source).run();
}

std::vector<bool> neededFunctions(const SourceLayout &layout, const std::vector<bool> &owned) {
  llvm::StringMap<unsigned> byName;
  for (unsigned i = 0; i < layout.functions.size(); ++i)
    byName[layout.functions[i].name] = i;
  std::vector<bool> needed(layout.functions.size(), false);
  llvm::SmallVector<unsigned> worklist;
  auto need = [&](llvm::StringRef name) {
    auto found = byName.find(name);
    if (found != byName.end() && !needed[found->second]) {
      needed[found->second] = true;
      worklist.push_back(found->second);
    }
  };
  for (unsigned i = 0; i < owned.size(); ++i)
    if (owned[i])
      need(layout.functions[i].name);
  for (llvm::StringRef name : layout.outsideReferences)
    need(name);
  while (!worklist.empty())
    for (llvm::StringRef name : layout.functions[worklist.pop_back_val()].references)
      need(name);
  return needed;
}

std::string blankFunctions(llvm::StringRef source, const SourceLayout &layout,
                           const std::vector<bool> &keep) {
  std::string text = source.str();
  for (unsigned i = 0; i < layout.functions.size(); ++i) {
    if (keep[i])
      continue;
    // Line by line: each up to its newline turns into spaces.
    char *at = text.data() + layout.functions[i].begin;
    char *end = text.data() + layout.functions[i].end;
    while (at < end) {
      char *newline = static_cast<char *>(std::memchr(at, '\n', end - at));
      char *lineEnd = newline ? newline : end;
      std::memset(at, ' ', lineEnd - at);
      at = lineEnd + 1;
    }
  }
  return text;
}

} // namespace mqss
