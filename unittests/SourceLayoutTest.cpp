//===- SourceLayoutTest.cpp - Functions found in a module's text -----------===//

#include "mqss/IR/SourceLayout.h"

#include "mqss/IR/Context.h"
#include "mqss/IR/Diagnostics.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "gtest/gtest.h"

using namespace mqss;

namespace {
/// What tools print, and what people write: a module with attributes, a
/// function with an attribute dictionary and its body on the next line, a
/// declaration spanning lines, a global, braces and '@' inside strings and
/// comments, locations after bodies, and a resource section.
constexpr llvm::StringLiteral printedModule = R"mlir(#map = affine_map<(d0) -> (d0)>
module attributes {test.note = "{ not a body @nothing"} {
  memref.global "private" constant @table : memref<2xf32> = dense<[1.0, 2.0]>
  func.func private @external(memref<4xf32>,
                              memref<4xf32>) -> i32
  // func.func @commented() { @nothing }
  func.func @first(%a: memref<4xf32> {test.noalias}) -> (f32 {test.tag}) attributes {test.marks = [@table]}
  {
    %t = memref.get_global @table : memref<2xf32>
    %c0 = arith.constant 0 : index
    %v = memref.load %t[%c0] : memref<2xf32>
    return %v : f32
  } loc("first.c":1:1)
  func.func @second(%a: memref<4xf32>) -> f32 {
    %r = func.call @first(%a) : (memref<4xf32>) -> f32
    %n = func.call @external(%a, %a) : (memref<4xf32>, memref<4xf32>) -> i32
    return %r : f32
  }
  func.func @third(%a: memref<4xf32>) -> f32 {
    %r = call @second(%a) : (memref<4xf32>) -> f32
    "test.note"() {text = "}}} @first"} : () -> ()
    return %r : f32
  }
  func.func @fourth(%a: memref<4xf32>) {
    return
  }
}
{-#
  dialect_resources: { builtin: { blob: "0x04000000" } }
#-}
)mlir";

std::vector<std::string> names(const SourceLayout &layout) {
  std::vector<std::string> result;
  for (const SourceFunction &function : layout.functions)
    result.push_back(function.name.str());
  return result;
}

std::vector<std::string> references(const SourceFunction &function) {
  return {function.references.begin(), function.references.end()};
}

mlir::OwningOpRef<mlir::ModuleOp> parse(mlir::MLIRContext &context, llvm::StringRef text) {
  context.allowUnregisteredDialects();
  mlir::ParserConfig config(&context, /*verifyAfterParse=*/false);
  return mlir::parseSourceString<mlir::ModuleOp>(text, config, "in.mlir");
}
} // namespace

TEST(SourceLayout, FindsTheFunctionsWithBodiesOfAPrintedModule) {
  std::optional<SourceLayout> layout = scanFunctions(printedModule);
  ASSERT_TRUE(layout.has_value());
  EXPECT_EQ(names(*layout), (std::vector<std::string>{"first", "second", "third", "fourth"}));
  llvm::StringRef text = printedModule;
  for (const SourceFunction &function : layout->functions) {
    llvm::StringRef range = text.slice(function.begin, function.end);
    // Whole lines: from the line's start to the end of the line the body
    // closes on, its location included.
    EXPECT_TRUE(range.ltrim().starts_with("func.func @" + function.name.str())) << range.str();
    EXPECT_TRUE(function.begin == 0 || text[function.begin - 1] == '\n');
    EXPECT_EQ(text[function.end], '\n');
    EXPECT_TRUE(range.rtrim().ends_with("}") || range.rtrim().ends_with(")")) << range.str();
  }
  EXPECT_TRUE(text.slice(layout->functions[0].begin, layout->functions[0].end)
                  .ends_with("loc(\"first.c\":1:1)"));
  EXPECT_EQ(references(layout->functions[0]), (std::vector<std::string>{"table", "table"}));
  EXPECT_EQ(references(layout->functions[1]), (std::vector<std::string>{"first", "external"}));
  EXPECT_EQ(references(layout->functions[2]), (std::vector<std::string>{"second"}));
  EXPECT_TRUE(layout->functions[3].references.empty());
  // The global's name is named outside a function.
  EXPECT_EQ(std::vector<std::string>(layout->outsideReferences.begin(),
                                     layout->outsideReferences.end()),
            (std::vector<std::string>{"table"}));
}

TEST(SourceLayout, FindsFunctionsWithoutAModuleAroundThem) {
  std::optional<SourceLayout> layout = scanFunctions(R"mlir(
func.func private @decl(i32)
func.func @a() {
  return
}
func.func @b() { return }
)mlir");
  ASSERT_TRUE(layout.has_value());
  EXPECT_EQ(names(*layout), (std::vector<std::string>{"a", "b"}));
}

TEST(SourceLayout, LeavesTextItCannotTellApartToTheParser) {
  for (llvm::StringRef text : {
           // a quoted symbol name
           llvm::StringRef("func.func @\"a b\"() {\n  return\n}\n"),
           // two functions of one name (the verifier's error to report)
           llvm::StringRef("func.func @a() {\n  return\n}\nfunc.func @a() {\n  return\n}\n"),
           // brackets that do not close, a string that does not end
           llvm::StringRef("module {\n  func.func @a() {\n    return\n  }\n"),
           llvm::StringRef("func.func @a() {\n  \"test.op\"() {s = \"open} : () -> ()\n}\n"),
           // two ops on a line, and a second op after the module
           llvm::StringRef("module {\n  func.func @a() { return } func.func @b() { return }\n}\n"),
           llvm::StringRef("module {\n}\nfunc.func @a() {\n  return\n}\n"),
       })
    EXPECT_FALSE(scanFunctions(text).has_value()) << text.str();
}

TEST(SourceLayout, APartOfTheTextParsesWithItsCalleesWhereTheyWere) {
  std::optional<SourceLayout> layout = scanFunctions(printedModule);
  ASSERT_TRUE(layout.has_value());
  // @third needs @second, which needs @first; @fourth needs nothing.
  EXPECT_EQ(neededFunctions(*layout, {false, false, true, false}),
            (std::vector<bool>{true, true, true, false}));
  EXPECT_EQ(neededFunctions(*layout, {false, false, false, true}),
            (std::vector<bool>{false, false, false, true}));

  std::unique_ptr<mlir::MLIRContext> context = createContext();
  auto whole = parse(*context, printedModule);
  ASSERT_TRUE(whole);
  std::string part = blankFunctions(printedModule, *layout, {false, true, false, true});
  ASSERT_EQ(part.size(), printedModule.size());
  auto parsed = parse(*context, part);
  ASSERT_TRUE(parsed);
  std::vector<std::string> defined;
  for (auto function : parsed->getBody()->getOps<mlir::func::FuncOp>())
    if (!function.isExternal())
      defined.push_back(function.getSymName().str());
  EXPECT_EQ(defined, (std::vector<std::string>{"second", "fourth"}));
  // Every op of the part is where it is in the whole module.
  auto locations = [](mlir::Operation *root) {
    std::vector<std::string> all;
    root->walk([&](mlir::Operation *op) {
      if (auto function = llvm::dyn_cast_if_present<mlir::func::FuncOp>(op->getParentOp()))
        if (function.getSymName() == "fourth" || function.getSymName() == "second")
          all.push_back(fileLineColumn(op->getLoc()).value_or("?"));
    });
    return all;
  };
  EXPECT_EQ(locations(*parsed), locations(*whole));
  EXPECT_EQ(locations(*parsed).front(), "in.mlir:15:10");
  // Without its callee the part is not valid: it is not a module of its own.
  DiagnosticCollector quiet(*context);
  EXPECT_TRUE(mlir::failed(mlir::verify(*parsed)));
  auto withCallee = parse(*context, blankFunctions(printedModule, *layout,
                                                   neededFunctions(*layout, {false, true, false, false})));
  ASSERT_TRUE(withCallee);
  EXPECT_TRUE(mlir::succeeded(mlir::verify(*withCallee)));
}

TEST(SourceLayout, FindsWhatTheParserFindsInEveryInputOfTheRepository) {
  // Where the scan gives an answer, it is the parser's: the same functions
  // with bodies, in order; and the text of each one alone (with what it
  // names) parses to that function with its ops where they were.
  std::unique_ptr<mlir::MLIRContext> context = createContext();
  DiagnosticCollector quiet(*context);
  unsigned scanned = 0, declined = 0;
  for (const char *root : {MQSS_TEST_INPUTS, MQSS_EXAMPLES, MQSS_BENCHMARKS_DIR}) {
    std::error_code ec;
    for (llvm::sys::fs::recursive_directory_iterator entry(root, ec), end; entry != end && !ec;
         entry.increment(ec)) {
      if (!llvm::StringRef(entry->path()).ends_with(".mlir"))
        continue;
      auto buffer = llvm::MemoryBuffer::getFile(entry->path());
      ASSERT_TRUE(static_cast<bool>(buffer));
      llvm::StringRef text = (*buffer)->getBuffer();
      auto whole = parse(*context, text);
      if (!whole)
        continue; // inputs of the bad-input tests
      std::optional<SourceLayout> layout = scanFunctions(text);
      if (!layout) {
        ++declined;
        continue;
      }
      ++scanned;
      std::vector<std::string> defined;
      for (auto function : whole->getBody()->getOps<mlir::func::FuncOp>())
        if (!function.isExternal())
          defined.push_back(function.getSymName().str());
      ASSERT_EQ(names(*layout), defined) << entry->path();
      for (unsigned i = 0; i < layout->functions.size(); ++i) {
        std::vector<bool> owned(layout->functions.size(), false);
        owned[i] = true;
        auto part = parse(*context, blankFunctions(text, *layout, neededFunctions(*layout, owned)));
        ASSERT_TRUE(part) << entry->path() << " @" << defined[i];
        auto inPart = part->lookupSymbol<mlir::func::FuncOp>(defined[i]);
        auto inWhole = whole->lookupSymbol<mlir::func::FuncOp>(defined[i]);
        ASSERT_TRUE(inPart && !inPart.isExternal()) << entry->path() << " @" << defined[i];
        std::vector<mlir::Location> partLocations, wholeLocations;
        inPart->walk([&](mlir::Operation *op) { partLocations.push_back(op->getLoc()); });
        inWhole->walk([&](mlir::Operation *op) { wholeLocations.push_back(op->getLoc()); });
        // One context: the same location is the same attribute.
        EXPECT_EQ(partLocations, wholeLocations) << entry->path() << " @" << defined[i];
      }
    }
  }
  EXPECT_GT(scanned, 150u);
  EXPECT_LT(declined, scanned / 10);
}
