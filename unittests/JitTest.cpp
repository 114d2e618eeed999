//===- JitTest.cpp - Lowering, JIT and the C interface, in-process ---------===//
//
// Runs real kernels through the same pieces the harness uses (pipeline,
// mandatory lowering, JIT, seeded arguments, result readout) and compares
// with plain C++ references computed from the very same inputs.
//
//===----------------------------------------------------------------------===//

#include "mqss/IR/Context.h"
#include "mqss/IR/Loader.h"
#include "mqss/IR/Signature.h"
#include "mqss/Runtime/Buffers.h"
#include "mqss/Runtime/Jit.h"
#include "mqss/Runtime/Pipeline.h"
#include "mqss/Runtime/Target.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "gtest/gtest.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <optional>

using namespace mqss;

namespace {
struct Kernel {
  std::unique_ptr<mlir::MLIRContext> context;
  mlir::OwningOpRef<mlir::ModuleOp> module;
  Signature signature;
  std::unique_ptr<CompiledKernel> compiled;
};

Kernel compileKernel(llvm::StringRef source, llvm::StringRef pipeline,
                     llvm::StringRef targetName = "host", JitOptions jit = {}) {
  Kernel k;
  k.context = createContext();
  registerPasses();
  auto module = loadModuleSource(*k.context, source);
  EXPECT_TRUE(static_cast<bool>(module)) << llvm::toString(module.takeError());
  k.module = std::move(*module);
  auto entry = selectEntry(*k.module, "");
  EXPECT_TRUE(static_cast<bool>(entry));
  (*entry)->setAttr(mlir::LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                    mlir::UnitAttr::get(k.context.get()));
  k.signature = *describeSignature(*entry);
  if (llvm::Error error = applyPipeline(*k.module, normalizePipeline(pipeline)))
    ADD_FAILURE() << llvm::toString(std::move(error));
  if (llvm::Error error = lowerToLLVMDialect(*k.module))
    ADD_FAILURE() << llvm::toString(std::move(error));
  auto target = resolveTarget(targetName);
  EXPECT_TRUE(static_cast<bool>(target));
  auto compiled = CompiledKernel::compile(*k.module, k.signature.name, *target, jit);
  EXPECT_TRUE(static_cast<bool>(compiled)) << llvm::toString(compiled.takeError());
  k.compiled = std::move(*compiled);
  return k;
}

const char *kMatmul = R"mlir(
func.func @matmul(%A: memref<40x19xf32>, %B: memref<19x64xf32>, %C: memref<40x64xf32>) {
  linalg.matmul ins(%A, %B : memref<40x19xf32>, memref<19x64xf32>)
                outs(%C : memref<40x64xf32>)
  return
}
)mlir";

float at(const KernelArguments::Argument &arg, size_t i) {
  return static_cast<float>(loadFloat(arg.pristine.data() + 4 * i, ElementKind::F32));
}

/// One call of a compiled kernel on seeded inputs: the inputs it was given
/// (`at` reads them), then, after the call, every memref argument and every
/// result. Buffers the kernel returned stay live until releaseAll().
struct Call {
  std::optional<KernelArguments> args;
  std::vector<OutputArray> arguments, results;
};

Call callOnce(const Kernel &k, const InputOptions &options = {}) {
  Call c;
  std::vector<std::string> notes;
  auto args = KernelArguments::create(k.signature, options, notes);
  EXPECT_TRUE(static_cast<bool>(args)) << llvm::toString(args.takeError());
  if (!args)
    return c;
  c.args.emplace(std::move(*args));
  KernelCall call(k.signature, *c.args);
  k.compiled->invoke(call.packedArguments());
  c.args->readArguments(c.arguments);
  call.readResults(c.results);
  return c;
}
} // namespace

TEST(Jit, MatmulMatchesCppReferenceUnderSeveralPipelines) {
  for (llvm::StringRef pipeline :
       {"naive", "func.func(convert-linalg-to-affine-loops,affine-loop-tile{tile-size=8})",
        "transform-preload-library{transform-library-paths=" MQSS_EXAMPLES
        "/matmul_schedule.mlir},transform-interpreter"}) {
    Kernel k = compileKernel(kMatmul, pipeline);
    ASSERT_TRUE(k.compiled);
    InputOptions options;
    options.seed = 3;
    Call c = callOnce(k, options);
    ASSERT_TRUE(c.args);
    std::vector<OutputArray> &outputs = c.arguments;
    ASSERT_EQ(outputs.size(), 3u);

    auto &a = c.args->arguments();
    double maxError = 0;
    for (int i = 0; i < 40; ++i)
      for (int j = 0; j < 64; ++j) {
        float expected = at(a[2], i * 64 + j); // C += A * B
        for (int p = 0; p < 19; ++p)
          expected += at(a[0], i * 19 + p) * at(a[1], p * 64 + j);
        maxError = std::max(maxError,
                            std::fabs(outputs[2].floats[i * 64 + j] - expected));
      }
    EXPECT_LT(maxError, 1e-4) << pipeline.str();
    // The inputs were not written.
    EXPECT_EQ(outputs[0].floats[5], at(a[0], 5));
    allocation::releaseAll();
  }
}

TEST(Jit, TensorAndScalarResultsComeBackThroughTheCInterface) {
  const char *source = R"mlir(
func.func @stats(%x: tensor<16x8xf32>, %scale: f32) -> (tensor<16xf32>, f32) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<16xf32>) -> tensor<16xf32>
  %rows = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x8xf32>) outs(%init : tensor<16xf32>) {
  ^bb0(%v: f32, %acc: f32):
    %m = arith.mulf %v, %scale : f32
    %s = arith.addf %m, %acc : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  %c3 = arith.constant 3 : index
  %third = tensor.extract %rows[%c3] : tensor<16xf32>
  return %rows, %third : tensor<16xf32>, f32
}
)mlir";
  Kernel k = compileKernel(source, "naive");
  ASSERT_TRUE(k.compiled);
  InputOptions options;
  options.scalars["arg1"] = 2.0;
  Call c = callOnce(k, options);
  ASSERT_TRUE(c.args);
  std::vector<OutputArray> &results = c.results;
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].shape, (std::vector<int64_t>{16}));
  auto &x = c.args->arguments()[0];
  for (int i = 0; i < 16; ++i) {
    float expected = 0;
    for (int j = 0; j < 8; ++j)
      expected += 2.0f * at(x, i * 8 + j);
    EXPECT_NEAR(results[0].floats[i], expected, 1e-5);
  }
  EXPECT_EQ(results[1].floats[0], results[0].floats[3]);
  // The returned buffer was allocated by the kernel through the hooks.
  EXPECT_GE(allocation::liveCount(), 1u);
  allocation::releaseAll();
  EXPECT_EQ(allocation::liveCount(), 0u);
}

TEST(Jit, ComplexValuesTravelAsRealImaginaryPairs) {
  // complex<f32> memrefs and scalars in, a complex<f64> tensor and scalar
  // out: LLVM lays each element out as {real, imaginary}.
  const char *source = R"mlir(
func.func @cscale(%a: memref<6xcomplex<f32>>, %w: complex<f32>, %b: memref<6xcomplex<f32>>,
                  %z: complex<f64>) -> (tensor<6xcomplex<f64>>, complex<f64>) {
  affine.for %i = 0 to 6 {
    %x = affine.load %a[%i] : memref<6xcomplex<f32>>
    %y = complex.mul %x, %w : complex<f32>
    affine.store %y, %b[%i] : memref<6xcomplex<f32>>
  }
  %t = bufferization.to_tensor %a restrict : memref<6xcomplex<f32>>
  %e = tensor.empty() : tensor<6xcomplex<f64>>
  %wide = linalg.map ins(%t : tensor<6xcomplex<f32>>) outs(%e : tensor<6xcomplex<f64>>)
    (%v: complex<f32>) {
      %re = complex.re %v : complex<f32>
      %im = complex.im %v : complex<f32>
      %re64 = arith.extf %re : f32 to f64
      %im64 = arith.extf %im : f32 to f64
      %c = complex.create %re64, %im64 : complex<f64>
      linalg.yield %c : complex<f64>
    }
  %zz = complex.add %z, %z : complex<f64>
  return %wide, %zz : tensor<6xcomplex<f64>>, complex<f64>
}
)mlir";
  Kernel k = compileKernel(source, "naive");
  ASSERT_TRUE(k.compiled);
  ASSERT_TRUE(k.signature.args[1].isComplex());
  ASSERT_EQ(k.signature.results[1].elementBytes(), 16u);
  Call c = callOnce(k);
  ASSERT_TRUE(c.args);
  auto &in = c.args->arguments();
  float w[2];
  std::memcpy(w, in[1].scalarBits, sizeof(w));
  double z[2];
  std::memcpy(z, in[3].scalarBits, sizeof(z));
  EXPECT_NE(w[1], 0.0f); // both parts of a complex scalar are drawn
  // arg2 = arg0 * w, element by element, as (re, im) pairs.
  ASSERT_EQ(c.arguments.size(), 2u);
  EXPECT_EQ(c.arguments[1].shape, (std::vector<int64_t>{6, 2}));
  for (int i = 0; i < 6; ++i) {
    float re = at(in[0], 2 * i), im = at(in[0], 2 * i + 1);
    EXPECT_NEAR(c.arguments[1].floats[2 * i], re * w[0] - im * w[1], 1e-6);
    EXPECT_NEAR(c.arguments[1].floats[2 * i + 1], re * w[1] + im * w[0], 1e-6);
  }
  ASSERT_EQ(c.results.size(), 2u);
  EXPECT_EQ(c.results[0].element, ElementKind::F64);
  EXPECT_EQ(c.results[0].shape, (std::vector<int64_t>{6, 2}));
  for (int i = 0; i < 12; ++i)
    EXPECT_EQ(c.results[0].floats[i], at(in[0], i));
  EXPECT_EQ(c.results[1].shape, (std::vector<int64_t>{2}));
  EXPECT_EQ(c.results[1].floats, (std::vector<double>{2 * z[0], 2 * z[1]}));
  allocation::releaseAll();
}

TEST(Jit, ASingleComplexResultComesBackThroughThePointer) {
  const char *source = R"mlir(
func.func @conj(%z: complex<f64>) -> complex<f64> {
  %c = complex.conj %z : complex<f64>
  return %c : complex<f64>
}
)mlir";
  Kernel k = compileKernel(source, "naive");
  ASSERT_TRUE(k.compiled);
  InputOptions options;
  options.scalars["arg0"] = 1.5; // the real part; the imaginary part is 0
  Call c = callOnce(k, options);
  ASSERT_EQ(c.results.size(), 1u);
  EXPECT_EQ(c.results[0].floats, (std::vector<double>{1.5, -0.0}));
}

TEST(Jit, AllocasInLoopsLiveInTheFunctionFrame) {
  // A 4x4 transfer that may be out of bounds goes through a temporary
  // buffer, which convert-vector-to-scf allocates in the loop body (scf.for
  // is an allocation scope, but its lowering to LLVM does not free it). In
  // the loop, at -O0, 131072 iterations of 128 bytes overflowed the 8 MiB
  // stack.
  const char *source = R"mlir(
func.func @tiles(%src: memref<2048x1024xf32>, %dst: memref<2048x1024xf32>) {
  %pad = arith.constant 0.0 : f32
  scf.forall (%i, %j) in (512, 256) {
    %r = affine.apply affine_map<(d0) -> (d0 * 4)>(%i)
    %c = affine.apply affine_map<(d0) -> (d0 * 4)>(%j)
    %v = vector.transfer_read %src[%r, %c], %pad : memref<2048x1024xf32>, vector<4x4xf32>
    vector.transfer_write %v, %dst[%r, %c] : vector<4x4xf32>, memref<2048x1024xf32>
  }
  return
}
)mlir";
  JitOptions jit;
  jit.optLevel = 0;
  Kernel k = compileKernel(source, "naive", "host", jit);
  ASSERT_TRUE(k.compiled);
  unsigned allocas = 0;
  k.module->walk([&](mlir::LLVM::AllocaOp alloca) {
    ++allocas;
    EXPECT_TRUE(alloca->getBlock()->isEntryBlock()) << "an alloca outside the entry block";
  });
  EXPECT_GT(allocas, 0u);
  Call c = callOnce(k);
  ASSERT_EQ(c.arguments.size(), 2u);
  EXPECT_EQ(c.arguments[1].floats, c.arguments[0].floats); // every tile copied
}

TEST(Jit, SoftmaxMatchesItsDefinition) {
  // linalg.softmax is decomposed by the lowering (nothing lowers it to
  // loops); the result must still be exp(x - max) / sum over the row.
  const char *source = R"mlir(
func.func @softmax(%x: tensor<5x12xf32>) -> tensor<5x12xf32> {
  %out = tensor.empty() : tensor<5x12xf32>
  %y = linalg.softmax dimension(1) ins(%x : tensor<5x12xf32>) outs(%out : tensor<5x12xf32>) -> tensor<5x12xf32>
  return %y : tensor<5x12xf32>
}
)mlir";
  Kernel k = compileKernel(source, "naive");
  ASSERT_TRUE(k.compiled);
  Call c = callOnce(k);
  ASSERT_TRUE(c.args);
  std::vector<OutputArray> &results = c.results;
  ASSERT_EQ(results.size(), 1u);
  auto &x = c.args->arguments()[0];
  for (int i = 0; i < 5; ++i) {
    double max = -INFINITY, sum = 0;
    for (int j = 0; j < 12; ++j)
      max = std::max(max, double(at(x, i * 12 + j)));
    for (int j = 0; j < 12; ++j)
      sum += std::exp(at(x, i * 12 + j) - max);
    for (int j = 0; j < 12; ++j)
      EXPECT_NEAR(results[0].floats[i * 12 + j], std::exp(at(x, i * 12 + j) - max) / sum, 1e-6)
          << "row " << i << ", column " << j;
  }
  allocation::releaseAll();
}

/// \p source lowered naively, and one call of it on seeded inputs; the
/// kernel lives as long as the call, whose arguments refer to its signature.
struct NaiveCall : Call {
  Kernel kernel;
};
NaiveCall callNaive(const char *source) {
  NaiveCall c;
  c.kernel = compileKernel(source, "naive");
  if (c.kernel.compiled)
    static_cast<Call &>(c) = callOnce(c.kernel);
  return c;
}

int64_t intInput(Call &c, size_t argument, size_t i) {
  const KernelArguments::Argument &arg = c.args->arguments()[argument];
  switch (arg.spec->element) {
  case ElementKind::I8:
    return static_cast<int8_t>(arg.pristine[i]);
  case ElementKind::I32: {
    int32_t value;
    std::memcpy(&value, arg.pristine.data() + 4 * i, 4);
    return value;
  }
  case ElementKind::I1:
    return arg.pristine[i] != 0;
  default:
    ADD_FAILURE() << "not an i1, i8 or i32 argument";
    return 0;
  }
}

TEST(Jit, TosaQuantizedRescaleAndShiftedMulMatchTheirDefinitions) {
  // Both lower to linalg with tosa.apply_scale left in the body, which only
  // tosa-to-arith with include-apply-rescale expands.
  NaiveCall rescale = callNaive(R"mlir(
func.func @rescale(%a: tensor<16xi8>) -> tensor<16xi32> {
  %r = tosa.rescale %a {input_zp = 3 : i32, output_zp = 0 : i32, multiplier = array<i32: 1073741824>,
                        shift = array<i8: 31>, scale32 = true, double_round = false,
                        per_channel = false} : (tensor<16xi8>) -> tensor<16xi32>
  return %r : tensor<16xi32>
}
)mlir");
  ASSERT_TRUE(rescale.args);
  ASSERT_EQ(rescale.results.size(), 1u);
  for (size_t i = 0; i < 16; ++i) {
    int64_t x = intInput(rescale, 0, i) - 3; // minus the input zero point
    // (x * 2^30 + 2^30) >> 31: x / 2 rounded half up.
    EXPECT_EQ(rescale.results[0].ints[i], (x * (int64_t(1) << 30) + (int64_t(1) << 30)) >> 31)
        << "element " << i << " (x - zp = " << x << ")";
  }
  allocation::releaseAll();

  NaiveCall mul = callNaive(R"mlir(
func.func @mul(%a: tensor<16xi32>, %b: tensor<16xi32>) -> tensor<16xi32> {
  %r = tosa.mul %a, %b {shift = 1 : i8} : (tensor<16xi32>, tensor<16xi32>) -> tensor<16xi32>
  return %r : tensor<16xi32>
}
)mlir");
  ASSERT_TRUE(mul.args);
  ASSERT_EQ(mul.results.size(), 1u);
  for (size_t i = 0; i < 16; ++i) {
    int64_t product = intInput(mul, 0, i) * intInput(mul, 1, i);
    EXPECT_EQ(mul.results[0].ints[i], (product + 1) >> 1) << "element " << i; // rounded
  }
  allocation::releaseAll();
}

TEST(Jit, TosaControlFlowWithUnrankedBodiesMatchesItsDefinition) {
  // tosa-to-linalg cannot legalize the bodies' tosa.yield, so tosa-to-scf
  // must run first, but only after tosa-infer-shapes, which ranks the
  // bodies' unranked results through cond_if and while_loop, not scf.
  NaiveCall loop = callNaive(R"mlir(
func.func @count_up(%i0: tensor<i32>) -> tensor<i32> {
  %r = tosa.while_loop (%i = %i0) : (tensor<i32>) -> tensor<i32> {
    %ten = "tosa.const"() {value = dense<10> : tensor<i32>} : () -> tensor<i32>
    %more = tosa.greater %ten, %i : (tensor<i32>, tensor<i32>) -> tensor<*xi1>
    %m = tosa.reshape %more {new_shape = array<i64>} : (tensor<*xi1>) -> tensor<i1>
    tosa.yield %m : tensor<i1>
  } do {
  ^bb0(%i: tensor<i32>):
    %one = "tosa.const"() {value = dense<1> : tensor<i32>} : () -> tensor<i32>
    %next = tosa.add %i, %one : (tensor<i32>, tensor<i32>) -> tensor<*xi32>
    %n = tosa.reshape %next {new_shape = array<i64>} : (tensor<*xi32>) -> tensor<i32>
    tosa.yield %n : tensor<i32>
  }
  return %r : tensor<i32>
}
)mlir");
  ASSERT_TRUE(loop.args);
  ASSERT_EQ(loop.results.size(), 1u);
  EXPECT_EQ(loop.results[0].ints[0], 10); // seeded integers are at most 8
  allocation::releaseAll();

  NaiveCall select = callNaive(R"mlir(
func.func @select(%c: tensor<i1>, %a: tensor<4xi32>, %b: tensor<4xi32>) -> tensor<4xi32> {
  %r = tosa.cond_if %c -> (tensor<4xi32>) {
    %x = tosa.add %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<*xi32>
    %y = tosa.reshape %x {new_shape = array<i64: 4>} : (tensor<*xi32>) -> tensor<4xi32>
    tosa.yield %y : tensor<4xi32>
  } else {
    %x = tosa.sub %a, %b : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi32>
    tosa.yield %x : tensor<4xi32>
  }
  return %r : tensor<4xi32>
}
)mlir");
  ASSERT_TRUE(select.args);
  ASSERT_EQ(select.results.size(), 1u);
  bool taken = intInput(select, 0, 0);
  for (size_t i = 0; i < 4; ++i) {
    int64_t a = intInput(select, 1, i), b = intInput(select, 2, i);
    EXPECT_EQ(select.results[0].ints[i], taken ? a + b : a - b) << "element " << i;
  }
  allocation::releaseAll();
}

TEST(Jit, RtclockTellsTheTimeExceptInOutputCheckRuns) {
  // The harness' rtclock: the wall clock (seconds since the epoch, as the
  // runner utilities' rtclock), or while counting, its calls in ms.
  NaiveCall c = callNaive(R"mlir(
func.func private @rtclock() -> f64
func.func @clock() -> f64 {
  %t = call @rtclock() : () -> f64
  return %t : f64
}
)mlir");
  ASSERT_TRUE(c.kernel.compiled);
  auto now = [&] {
    Call call = callOnce(c.kernel);
    return call.results.empty() ? -1.0 : call.results[0].floats[0];
  };
  EXPECT_GT(now(), 1.7e9); // after 2023
  timer::setCounting(true);
  EXPECT_EQ(now(), 0.001);
  EXPECT_EQ(now(), 0.002);
  timer::setCounting(true); // each check run counts from 0
  EXPECT_EQ(now(), 0.001);
  timer::setCounting(false);
  EXPECT_GT(now(), 1.7e9);
}

TEST(Jit, TargetsGenerateDifferentCode) {
  // 16-wide vector arithmetic: one zmm op on AVX-512, four xmm ops on SSE4.
  const char *source = R"mlir(
func.func @axpy(%x: memref<4096xf32>, %y: memref<4096xf32>) {
  affine.for %i = 0 to 4096 {
    %a = affine.load %x[%i] : memref<4096xf32>
    %b = affine.load %y[%i] : memref<4096xf32>
    %s = arith.addf %a, %b : f32
    affine.store %s, %y[%i] : memref<4096xf32>
  }
  return
}
)mlir";
  const char *vectorize = "func.func(affine-super-vectorize{virtual-vector-size=16})";
  Kernel sse = compileKernel(source, vectorize, "x86-sse4");
  Kernel avx2 = compileKernel(source, vectorize, "x86-avx2");
  ASSERT_TRUE(sse.compiled && avx2.compiled);
  EXPECT_GT(sse.compiled->codeSizeBytes(), avx2.compiled->codeSizeBytes());
  auto host = resolveTarget("host");
  ASSERT_TRUE(static_cast<bool>(host));
  auto machine = createTargetMachine(*resolveTarget("x86-avx2"), 3);
  ASSERT_TRUE(static_cast<bool>(machine));
  EXPECT_EQ((*machine)->getTargetCPU(), "haswell");
  EXPECT_NE((*machine)->getTargetFeatureString().find("-avx512f"), std::string::npos);
}

TEST(Jit, UnknownTargetIsAnError) {
  auto target = resolveTarget("x86-avx1024");
  ASSERT_FALSE(static_cast<bool>(target));
  EXPECT_NE(llvm::toString(target.takeError()).find("known targets: host"),
            std::string::npos);
}

TEST(Jit, EveryKnownTargetCanBeCompiledForOnAnyHost) {
  // Deciding and compiling for another machine need no CPU feature here;
  // running does (the names of what is missing are then in the error).
  for (const TargetSpec &known : knownTargets()) {
    auto target = resolveTarget(known.name, TargetUse::Compile);
    ASSERT_TRUE(static_cast<bool>(target)) << llvm::toString(target.takeError());
    EXPECT_EQ(target->cpu, known.cpu);
    if (auto runnable = resolveTarget(known.name); !runnable)
      EXPECT_NE(llvm::toString(runnable.takeError()).find("cannot run on this host"),
                std::string::npos);
  }
  auto unknown = resolveTarget("x86-avx1024", TargetUse::Compile);
  ASSERT_FALSE(static_cast<bool>(unknown));
  llvm::consumeError(unknown.takeError());
}

TEST(Jit, SignedCeilAndFloorDivisionRoundTheWayTheyAreNamed) {
  // MLIR 19's arith-expand gets ceildivsi wrong where it negates the type's
  // minimum (ceildivsi(-128, 7) : i8 gave 18); the lowering expands it itself.
  const char *source = R"mlir(
func.func @divide(%a: i8, %b: i8) -> (i8, i8) {
  %ceil = arith.ceildivsi %a, %b : i8
  %floor = arith.floordivsi %a, %b : i8
  return %ceil, %floor : i8, i8
}
)mlir";
  Kernel k = compileKernel(source, "naive");
  ASSERT_TRUE(k.compiled);
  for (int b : {-128, -7, -2, -1, 1, 2, 7, 127}) {
    for (int a = -128; a <= 127; ++a) {
      if (a == -128 && b == -1)
        continue; // overflows: undefined
      InputOptions options;
      options.scalars["arg0"] = a;
      options.scalars["arg1"] = b;
      Call c = callOnce(k, options);
      ASSERT_EQ(c.results.size(), 2u);
      int floor = a / b - ((a % b != 0) && ((a < 0) != (b < 0)));
      int ceil = a / b + ((a % b != 0) && ((a < 0) == (b < 0)));
      ASSERT_EQ(c.results[0].ints[0], ceil) << "ceildivsi(" << a << ", " << b << ")";
      ASSERT_EQ(c.results[1].ints[0], floor) << "floordivsi(" << a << ", " << b << ")";
    }
  }
}
