"""Deep-learning operators on tensors, in the form torch-mlir / IREE emit them.

Each entry is `func.func @op(tensor...) -> tensor` built from tensor.empty,
linalg.fill, linalg named ops and linalg.generic, one op per framework op (no
manual fusion). bf16 kernels take and return bf16 tensors and accumulate in f32
(arith.extf / arith.truncf), as torch-mlir does. A few kernels carry weights as
arith.constant dense<...> (folded parameters).
"""
import math

from common import Kernel, T, tt, fconst, dense_f32

SRC_T = "torch-mlir style"
SRC_I = "IREE style"
GEN = "dl.py"
KERNELS = []

NEG_INF = "0xFF800000"


def kernel(name, family, desc, sizes, entry=None, source=SRC_T):
    def deco(fn):
        KERNELS.append(Kernel(name, "dl", family, source, desc, entry or name.replace("-", "_"),
                              sizes, fn, GEN))
        return fn
    return deco


def params(n, kind, seed):
    """Deterministic, well-scaled parameter vectors for dense<> weights."""
    out = []
    for i in range(n):
        s = math.sin(0.37 * i + seed)
        c = math.cos(0.23 * i + 2 * seed)
        if kind == "mean":
            out.append(0.1 * s)
        elif kind == "var":
            out.append(0.5 + 0.25 * (1.0 + c))
        elif kind == "gamma":
            out.append(1.0 + 0.1 * s)
        else:  # beta / bias
            out.append(0.05 * c)
    return out


# ---------------------------------------------------------------------------
# matmul-like
# ---------------------------------------------------------------------------

@kernel("matmul-bias-relu", "matmul-like", "relu(X*W + b), f32 (fully connected layer)",
        {"small": dict(M=256, K=256, N=256), "medium": dict(M=384, K=512, N=384)},
        source=SRC_I)
def matmul_bias_relu(p):
    M, K, N = p["M"], p["K"], p["N"]
    return T("""
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @matmul_bias_relu(%x: ${tX}, %w: ${tW}, %b: ${tB}) -> ${tO} {
  %cst = arith.constant 0.0 : f32
  %0 = tensor.empty() : ${tO}
  %1 = linalg.fill ins(%cst : f32) outs(%0 : ${tO}) -> ${tO}
  %2 = linalg.matmul ins(%x, %w : ${tX}, ${tW}) outs(%1 : ${tO}) -> ${tO}
  %3 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%2, %b : ${tO}, ${tB}) outs(%0 : ${tO}) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %4 = arith.addf %in, %bias : f32
    %5 = arith.maximumf %4, %cst : f32
    linalg.yield %5 : f32
  } -> ${tO}
  return %3 : ${tO}
}
""", tX=tt((M, K), "f32"), tW=tt((K, N), "f32"), tB=tt((N,), "f32"), tO=tt((M, N), "f32"))


@kernel("matmul-bias-relu-bf16", "matmul-like",
        "relu(X*W + b) with bf16 inputs/output, f32 accumulation",
        {"small": dict(M=256, K=256, N=256), "medium": dict(M=384, K=512, N=384)})
def matmul_bias_relu_bf16(p):
    M, K, N = p["M"], p["K"], p["N"]
    return T("""
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @matmul_bias_relu_bf16(%x: ${tX}, %w: ${tW}, %b: ${tB}) -> ${tO} {
  %cst = arith.constant 0.0 : f32
  %0 = tensor.empty() : ${tA}
  %1 = linalg.fill ins(%cst : f32) outs(%0 : ${tA}) -> ${tA}
  // bf16 x bf16 -> f32 accumulator (the named op extends its inputs).
  %2 = linalg.matmul ins(%x, %w : ${tX}, ${tW}) outs(%1 : ${tA}) -> ${tA}
  %3 = tensor.empty() : ${tO}
  %4 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%2, %b : ${tA}, ${tB}) outs(%3 : ${tO}) {
  ^bb0(%in: f32, %bias: bf16, %out: bf16):
    %5 = arith.extf %bias : bf16 to f32
    %6 = arith.addf %in, %5 : f32
    %7 = arith.maximumf %6, %cst : f32
    %8 = arith.truncf %7 : f32 to bf16
    linalg.yield %8 : bf16
  } -> ${tO}
  return %4 : ${tO}
}
""", tX=tt((M, K), "bf16"), tW=tt((K, N), "bf16"), tB=tt((N,), "bf16"),
             tA=tt((M, N), "f32"), tO=tt((M, N), "bf16"))


@kernel("batch-matmul-bias-relu", "matmul-like", "relu(bmm(A, B) + b), f32",
        {"small": dict(B=8, M=128, K=128, N=128), "medium": dict(B=12, M=160, K=192, N=160)})
def batch_matmul_bias_relu(p):
    B, M, K, N = p["B"], p["M"], p["K"], p["N"]
    return T("""
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#last = affine_map<(d0, d1, d2) -> (d2)>
func.func @batch_matmul_bias_relu(%a: ${tA}, %b: ${tB}, %bias: ${tC}) -> ${tO} {
  %cst = arith.constant 0.0 : f32
  %0 = tensor.empty() : ${tO}
  %1 = linalg.fill ins(%cst : f32) outs(%0 : ${tO}) -> ${tO}
  %2 = linalg.batch_matmul ins(%a, %b : ${tA}, ${tB}) outs(%1 : ${tO}) -> ${tO}
  %3 = tensor.empty() : ${tO}
  %4 = linalg.generic {indexing_maps = [#id, #last, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%2, %bias : ${tO}, ${tC}) outs(%3 : ${tO}) {
  ^bb0(%in: f32, %bv: f32, %out: f32):
    %5 = arith.addf %in, %bv : f32
    linalg.yield %5 : f32
  } -> ${tO}
  %6 = tensor.empty() : ${tO}
  %7 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%4 : ${tO}) outs(%6 : ${tO}) {
  ^bb0(%in: f32, %out: f32):
    %8 = arith.maximumf %in, %cst : f32
    linalg.yield %8 : f32
  } -> ${tO}
  return %7 : ${tO}
}
""", tA=tt((B, M, K), "f32"), tB=tt((B, K, N), "f32"), tC=tt((N,), "f32"), tO=tt((B, M, N), "f32"))


@kernel("mlp-block", "matmul-like",
        "two linear layers (torch weight layout [out, in], transposed) with dense<> biases and ReLU",
        {"small": dict(B=32, D=256, H=1024), "medium": dict(B=64, D=256, H=1024)})
def mlp_block(p):
    B, D, H = p["B"], p["D"], p["H"]
    tX, tW1, tW1t = tt((B, D), "f32"), tt((H, D), "f32"), tt((D, H), "f32")
    tH, tW2, tW2t, tO = tt((B, H), "f32"), tt((D, H), "f32"), tt((H, D), "f32"), tt((B, D), "f32")
    return T("""
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @mlp_block(%x: ${tX}, %w1: ${tW1}, %w2: ${tW2}) -> ${tO} {
  %cst = arith.constant 0.0 : f32
  %b1 = arith.constant dense<${b1}> : tensor<${H}xf32>
  %b2 = arith.constant dense<${b2}> : tensor<${D}xf32>
  // fc1: x @ w1^T + b1
  %0 = tensor.empty() : ${tW1t}
  %w1t = linalg.transpose ins(%w1 : ${tW1}) outs(%0 : ${tW1t}) permutation = [1, 0]
  %1 = tensor.empty() : ${tH}
  %2 = linalg.fill ins(%cst : f32) outs(%1 : ${tH}) -> ${tH}
  %3 = linalg.matmul ins(%x, %w1t : ${tX}, ${tW1t}) outs(%2 : ${tH}) -> ${tH}
  %4 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%3, %b1 : ${tH}, tensor<${H}xf32>) outs(%1 : ${tH}) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %5 = arith.addf %in, %b : f32
    linalg.yield %5 : f32
  } -> ${tH}
  // relu
  %6 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%4 : ${tH}) outs(%1 : ${tH}) {
  ^bb0(%in: f32, %out: f32):
    %7 = arith.maximumf %in, %cst : f32
    linalg.yield %7 : f32
  } -> ${tH}
  // fc2: h @ w2^T + b2
  %8 = tensor.empty() : ${tW2t}
  %w2t = linalg.transpose ins(%w2 : ${tW2}) outs(%8 : ${tW2t}) permutation = [1, 0]
  %9 = tensor.empty() : ${tO}
  %10 = linalg.fill ins(%cst : f32) outs(%9 : ${tO}) -> ${tO}
  %11 = linalg.matmul ins(%6, %w2t : ${tH}, ${tW2t}) outs(%10 : ${tO}) -> ${tO}
  %12 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%11, %b2 : ${tO}, tensor<${D}xf32>) outs(%9 : ${tO}) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %13 = arith.addf %in, %b : f32
    linalg.yield %13 : f32
  } -> ${tO}
  return %12 : ${tO}
}
""", H=H, D=D, tX=tX, tW1=tW1, tW1t=tW1t, tH=tH, tW2=tW2, tW2t=tW2t, tO=tO,
             b1=dense_f32(params(H, "bias", 1)), b2=dense_f32(params(D, "bias", 2)))


@kernel("matmul-dyn", "matmul-like",
        "relu(X*W + b) on dynamically shaped tensors (tensor<?x?xf32>)",
        {"small": dict(M=200, K=300, N=250), "medium": dict(M=400, K=384, N=360)},
        source=SRC_I)
def matmul_dyn(p):
    M, K, N = p["M"], p["K"], p["N"]
    return T("""
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @matmul_dyn(%x: tensor<?x?xf32>, %w: tensor<?x?xf32>, %b: tensor<?xf32>) -> tensor<?x?xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %cst = arith.constant 0.0 : f32
  %m = tensor.dim %x, %c0 : tensor<?x?xf32>
  %n = tensor.dim %w, %c1 : tensor<?x?xf32>
  %0 = tensor.empty(%m, %n) : tensor<?x?xf32>
  %1 = linalg.fill ins(%cst : f32) outs(%0 : tensor<?x?xf32>) -> tensor<?x?xf32>
  %2 = linalg.matmul ins(%x, %w : tensor<?x?xf32>, tensor<?x?xf32>) outs(%1 : tensor<?x?xf32>) -> tensor<?x?xf32>
  %3 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%2, %b : tensor<?x?xf32>, tensor<?xf32>) outs(%0 : tensor<?x?xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %4 = arith.addf %in, %bias : f32
    %5 = arith.maximumf %4, %cst : f32
    linalg.yield %5 : f32
  } -> tensor<?x?xf32>
  return %3 : tensor<?x?xf32>
}
"""), {"arg0": [M, K], "arg1": [K, N], "arg2": [N]}, {}


# ---------------------------------------------------------------------------
# conv
# ---------------------------------------------------------------------------

def _pad_nhwc(val, shape, pad, et, padval="%cst"):
    n, h, w, c = shape
    out = (n, h + 2 * pad, w + 2 * pad, c)
    return T("""
  %${val}_pad = tensor.pad %${val} low[0, ${p}, ${p}, 0] high[0, ${p}, ${p}, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield ${pv} : ${et}
  } : ${tin} to ${tout}""", val=val, p=pad, pv=padval, et=et, tin=tt(shape, et), tout=tt(out, et)), out


def conv_out(h, k, s, pad):
    return (h + 2 * pad - k) // s + 1


@kernel("conv2d-nhwc-3x3-s1", "conv",
        "3x3 conv, stride 1, padding 1, NHWC/HWCF, + dense<> bias + ReLU (f32)",
        {"small": dict(N=1, H=28, W=28, C=64, F=64), "medium": dict(N=1, H=48, W=48, C=64, F=64)})
def conv2d_nhwc_3x3_s1(p):
    N, H, W, C, F = p["N"], p["H"], p["W"], p["C"], p["F"]
    padtxt, pshape = _pad_nhwc("x", (N, H, W, C), 1, "f32")
    OH, OW = conv_out(H, 3, 1, 1), conv_out(W, 3, 1, 1)
    tO = tt((N, OH, OW, F), "f32")
    return T("""
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func @conv2d_nhwc_3x3_s1(%x: ${tX}, %w: ${tW}) -> ${tO} {
  %cst = arith.constant 0.0 : f32
  %bias = arith.constant dense<${bias}> : tensor<${F}xf32>
${pad}
  %0 = tensor.empty() : ${tO}
  %1 = linalg.fill ins(%cst : f32) outs(%0 : ${tO}) -> ${tO}
  %2 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x_pad, %w : ${tP}, ${tW}) outs(%1 : ${tO}) -> ${tO}
  %3 = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%2, %bias : ${tO}, tensor<${F}xf32>) outs(%0 : ${tO}) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %4 = arith.addf %in, %b : f32
    %5 = arith.maximumf %4, %cst : f32
    linalg.yield %5 : f32
  } -> ${tO}
  return %3 : ${tO}
}
""", F=F, tX=tt((N, H, W, C), "f32"), tW=tt((3, 3, C, F), "f32"), tP=tt(pshape, "f32"),
             tO=tO, pad=padtxt, bias=dense_f32(params(F, "bias", 3)))


@kernel("conv2d-nhwc-1x1-s1", "conv", "1x1 (pointwise) conv, stride 1, NHWC/HWCF (f32)",
        {"small": dict(N=1, H=28, W=28, C=128, F=128), "medium": dict(N=1, H=56, W=56, C=128, F=128)},
        source=SRC_I)
def conv2d_nhwc_1x1_s1(p):
    N, H, W, C, F = p["N"], p["H"], p["W"], p["C"], p["F"]
    tO = tt((N, H, W, F), "f32")
    return T("""
func.func @conv2d_nhwc_1x1_s1(%x: ${tX}, %w: ${tW}) -> ${tO} {
  %cst = arith.constant 0.0 : f32
  %0 = tensor.empty() : ${tO}
  %1 = linalg.fill ins(%cst : f32) outs(%0 : ${tO}) -> ${tO}
  %2 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : ${tX}, ${tW}) outs(%1 : ${tO}) -> ${tO}
  return %2 : ${tO}
}
""", tX=tt((N, H, W, C), "f32"), tW=tt((1, 1, C, F), "f32"), tO=tO)


@kernel("conv2d-nhwc-3x3-s2", "conv", "3x3 conv, stride 2, no padding, NHWC/HWCF (f32)",
        {"small": dict(N=1, H=57, W=57, C=64, F=64), "medium": dict(N=1, H=113, W=113, C=32, F=64)},
        source=SRC_I)
def conv2d_nhwc_3x3_s2(p):
    N, H, W, C, F = p["N"], p["H"], p["W"], p["C"], p["F"]
    OH, OW = conv_out(H, 3, 2, 0), conv_out(W, 3, 2, 0)
    tO = tt((N, OH, OW, F), "f32")
    return T("""
func.func @conv2d_nhwc_3x3_s2(%x: ${tX}, %w: ${tW}) -> ${tO} {
  %cst = arith.constant 0.0 : f32
  %0 = tensor.empty() : ${tO}
  %1 = linalg.fill ins(%cst : f32) outs(%0 : ${tO}) -> ${tO}
  %2 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : ${tX}, ${tW}) outs(%1 : ${tO}) -> ${tO}
  return %2 : ${tO}
}
""", tX=tt((N, H, W, C), "f32"), tW=tt((3, 3, C, F), "f32"), tO=tO)


@kernel("conv2d-nchw-3x3-s1", "conv", "3x3 conv, stride 1, no padding, NCHW/FCHW, + bias + ReLU (f32)",
        {"small": dict(N=1, C=64, H=28, W=28, F=64), "medium": dict(N=2, C=64, H=34, W=34, F=64)})
def conv2d_nchw_3x3_s1(p):
    N, C, H, W, F = p["N"], p["C"], p["H"], p["W"], p["F"]
    OH, OW = conv_out(H, 3, 1, 0), conv_out(W, 3, 1, 0)
    tO = tt((N, F, OH, OW), "f32")
    return T("""
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>
func.func @conv2d_nchw_3x3_s1(%x: ${tX}, %w: ${tW}, %b: ${tB}) -> ${tO} {
  %cst = arith.constant 0.0 : f32
  // torch-mlir broadcasts the bias into the accumulator, then convolves.
  %0 = tensor.empty() : ${tO}
  %1 = linalg.generic {indexing_maps = [#ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%b : ${tB}) outs(%0 : ${tO}) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> ${tO}
  %2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x, %w : ${tX}, ${tW}) outs(%1 : ${tO}) -> ${tO}
  %3 = tensor.empty() : ${tO}
  %4 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%2 : ${tO}) outs(%3 : ${tO}) {
  ^bb0(%in: f32, %out: f32):
    %5 = arith.maximumf %in, %cst : f32
    linalg.yield %5 : f32
  } -> ${tO}
  return %4 : ${tO}
}
""", tX=tt((N, C, H, W), "f32"), tW=tt((F, C, 3, 3), "f32"), tB=tt((F,), "f32"), tO=tO)


@kernel("conv2d-nchw-1x1-s2", "conv", "1x1 conv, stride 2 (ResNet downsample shortcut), NCHW/FCHW (f32)",
        {"small": dict(N=1, C=128, H=56, W=56, F=256), "medium": dict(N=2, C=128, H=56, W=56, F=256)})
def conv2d_nchw_1x1_s2(p):
    N, C, H, W, F = p["N"], p["C"], p["H"], p["W"], p["F"]
    OH, OW = conv_out(H, 1, 2, 0), conv_out(W, 1, 2, 0)
    tO = tt((N, F, OH, OW), "f32")
    return T("""
func.func @conv2d_nchw_1x1_s2(%x: ${tX}, %w: ${tW}) -> ${tO} {
  %cst = arith.constant 0.0 : f32
  %0 = tensor.empty() : ${tO}
  %1 = linalg.fill ins(%cst : f32) outs(%0 : ${tO}) -> ${tO}
  %2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %w : ${tX}, ${tW}) outs(%1 : ${tO}) -> ${tO}
  return %2 : ${tO}
}
""", tX=tt((N, C, H, W), "f32"), tW=tt((F, C, 1, 1), "f32"), tO=tO)


@kernel("conv2d-nhwc-3x3-bf16", "conv",
        "3x3 conv, stride 1, padding 1, NHWC/HWCF, bf16 in/out with f32 accumulation",
        {"small": dict(N=1, H=28, W=28, C=32, F=32), "medium": dict(N=1, H=28, W=28, C=64, F=64)})
def conv2d_nhwc_3x3_bf16(p):
    N, H, W, C, F = p["N"], p["H"], p["W"], p["C"], p["F"]
    padtxt, pshape = _pad_nhwc("x", (N, H, W, C), 1, "bf16", "%zero_bf16")
    tA, tO = tt((N, H, W, F), "f32"), tt((N, H, W, F), "bf16")
    return T("""
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @conv2d_nhwc_3x3_bf16(%x: ${tX}, %w: ${tW}) -> ${tO} {
  %cst = arith.constant 0.0 : f32
  %zero_bf16 = arith.constant 0.0 : bf16
${pad}
  %0 = tensor.empty() : ${tA}
  %1 = linalg.fill ins(%cst : f32) outs(%0 : ${tA}) -> ${tA}
  %2 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x_pad, %w : ${tP}, ${tW}) outs(%1 : ${tA}) -> ${tA}
  %3 = tensor.empty() : ${tO}
  %4 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%2 : ${tA}) outs(%3 : ${tO}) {
  ^bb0(%in: f32, %out: bf16):
    %5 = arith.truncf %in : f32 to bf16
    linalg.yield %5 : bf16
  } -> ${tO}
  return %4 : ${tO}
}
""", tX=tt((N, H, W, C), "bf16"), tW=tt((3, 3, C, F), "bf16"), tP=tt(pshape, "bf16"),
             tA=tA, tO=tO, pad=padtxt)


@kernel("depthwise-conv-3x3", "conv",
        "depthwise 3x3 conv, stride 1, padding 1, NHWC/HWC, + bias + ReLU6 (MobileNet block, f32)",
        {"small": dict(N=2, H=112, W=112, C=64), "medium": dict(N=4, H=112, W=112, C=96)})
def depthwise_conv_3x3(p):
    N, H, W, C = p["N"], p["H"], p["W"], p["C"]
    padtxt, pshape = _pad_nhwc("x", (N, H, W, C), 1, "f32")
    tO = tt((N, H, W, C), "f32")
    return T("""
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func @depthwise_conv_3x3(%x: ${tX}, %w: ${tW}, %b: ${tB}) -> ${tO} {
  %cst = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
${pad}
  %0 = tensor.empty() : ${tO}
  %1 = linalg.fill ins(%cst : f32) outs(%0 : ${tO}) -> ${tO}
  %2 = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%x_pad, %w : ${tP}, ${tW}) outs(%1 : ${tO}) -> ${tO}
  %3 = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%2, %b : ${tO}, ${tB}) outs(%0 : ${tO}) {
  ^bb0(%in: f32, %bv: f32, %out: f32):
    %4 = arith.addf %in, %bv : f32
    %5 = arith.maximumf %4, %cst : f32
    %6 = arith.minimumf %5, %six : f32
    linalg.yield %6 : f32
  } -> ${tO}
  return %3 : ${tO}
}
""", tX=tt((N, H, W, C), "f32"), tW=tt((3, 3, C), "f32"), tB=tt((C,), "f32"),
             tP=tt(pshape, "f32"), tO=tO, pad=padtxt)


# ---------------------------------------------------------------------------
# pooling
# ---------------------------------------------------------------------------

@kernel("maxpool-3x3-s2", "pooling", "max pooling 3x3, stride 2, padding 1 (-inf), NHWC (f32)",
        {"small": dict(N=4, H=112, W=112, C=64), "medium": dict(N=16, H=112, W=112, C=64)})
def maxpool(p):
    N, H, W, C = p["N"], p["H"], p["W"], p["C"]
    padtxt, pshape = _pad_nhwc("x", (N, H, W, C), 1, "f32", "%ninf")
    OH, OW = conv_out(H, 3, 2, 1), conv_out(W, 3, 2, 1)
    tO = tt((N, OH, OW, C), "f32")
    return T("""
func.func @maxpool_3x3_s2(%x: ${tX}) -> ${tO} {
  %ninf = arith.constant ${NEG_INF} : f32
${pad}
  %win = tensor.empty() : tensor<3x3xf32>
  %0 = tensor.empty() : ${tO}
  %1 = linalg.fill ins(%ninf : f32) outs(%0 : ${tO}) -> ${tO}
  %2 = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x_pad, %win : ${tP}, tensor<3x3xf32>) outs(%1 : ${tO}) -> ${tO}
  return %2 : ${tO}
}
""", NEG_INF=NEG_INF, tX=tt((N, H, W, C), "f32"), tP=tt(pshape, "f32"), tO=tO, pad=padtxt)


@kernel("avgpool-2x2", "pooling", "average pooling 2x2, stride 2, NCHW (sum pool + divide) (f32)",
        {"small": dict(N=8, C=64, H=112, W=112), "medium": dict(N=16, C=128, H=112, W=112)})
def avgpool(p):
    N, C, H, W = p["N"], p["C"], p["H"], p["W"]
    tO = tt((N, C, H // 2, W // 2), "f32")
    return T("""
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @avgpool_2x2(%x: ${tX}) -> ${tO} {
  %cst = arith.constant 0.0 : f32
  %div = arith.constant 4.0 : f32
  %win = tensor.empty() : tensor<2x2xf32>
  %0 = tensor.empty() : ${tO}
  %1 = linalg.fill ins(%cst : f32) outs(%0 : ${tO}) -> ${tO}
  %2 = linalg.pooling_nchw_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%x, %win : ${tX}, tensor<2x2xf32>) outs(%1 : ${tO}) -> ${tO}
  %3 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%2 : ${tO}) outs(%0 : ${tO}) {
  ^bb0(%in: f32, %out: f32):
    %4 = arith.divf %in, %div : f32
    linalg.yield %4 : f32
  } -> ${tO}
  return %3 : ${tO}
}
""", tX=tt((N, C, H, W), "f32"), tO=tO)


# ---------------------------------------------------------------------------
# elementwise
# ---------------------------------------------------------------------------

GELU_BODY_F32 = """
    %x3 = arith.mulf %v, %v : f32
    %x3b = arith.mulf %x3, %v : f32
    %t0 = arith.mulf %x3b, %c0044715 : f32
    %t1 = arith.addf %v, %t0 : f32
    %t2 = arith.mulf %t1, %sqrt2pi : f32
    %t3 = math.tanh %t2 : f32
    %t4 = arith.addf %t3, %one : f32
    %t5 = arith.mulf %v, %half : f32
    %r = arith.mulf %t5, %t4 : f32"""


@kernel("gelu-tanh", "elementwise",
        "GELU, tanh approximation: 0.5*x*(1 + tanh(sqrt(2/pi)*(x + 0.044715*x^3))) (f32)",
        {"small": dict(M=512, N=2048), "medium": dict(M=1024, N=3072)})
def gelu(p):
    M, N = p["M"], p["N"]
    ty = tt((M, N), "f32")
    return T("""
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @gelu_tanh(%x: ${ty}) -> ${ty} {
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %c0044715 = arith.constant 4.471500e-02 : f32
  %sqrt2pi = arith.constant 0.797884583 : f32
  %0 = tensor.empty() : ${ty}
  %1 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : ${ty}) outs(%0 : ${ty}) {
  ^bb0(%v: f32, %out: f32):${body}
    linalg.yield %r : f32
  } -> ${ty}
  return %1 : ${ty}
}
""", ty=ty, body=GELU_BODY_F32)


@kernel("gelu-bf16", "elementwise",
        "bias add + GELU (tanh form) on bf16 activations, computed in f32",
        {"small": dict(M=512, N=2048), "medium": dict(M=1024, N=3072)})
def gelu_bf16(p):
    M, N = p["M"], p["N"]
    ty, tb = tt((M, N), "bf16"), tt((N,), "bf16")
    return T("""
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @gelu_bf16(%x: ${ty}, %b: ${tb}) -> ${ty} {
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %c0044715 = arith.constant 4.471500e-02 : f32
  %sqrt2pi = arith.constant 0.797884583 : f32
  %0 = tensor.empty() : ${ty}
  // aten.add (bf16)
  %1 = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %b : ${ty}, ${tb}) outs(%0 : ${ty}) {
  ^bb0(%xv: bf16, %bv: bf16, %out: bf16):
    %a = arith.extf %xv : bf16 to f32
    %c = arith.extf %bv : bf16 to f32
    %s = arith.addf %a, %c : f32
    %t = arith.truncf %s : f32 to bf16
    linalg.yield %t : bf16
  } -> ${ty}
  // aten.gelu(approximate="tanh") (bf16 in/out, f32 math)
  %2 = tensor.empty() : ${ty}
  %3 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%1 : ${ty}) outs(%2 : ${ty}) {
  ^bb0(%in: bf16, %out: bf16):
    %v = arith.extf %in : bf16 to f32${body}
    %rb = arith.truncf %r : f32 to bf16
    linalg.yield %rb : bf16
  } -> ${ty}
  return %3 : ${ty}
}
""", ty=ty, tb=tb, body=GELU_BODY_F32)


@kernel("elementwise-chain", "elementwise",
        "x*scale + shift -> sigmoid -> *x (SiLU-like gate) -> + residual -> clamp, one linalg.generic per op (f32)",
        {"small": dict(N=4, C=64, H=56, W=56), "medium": dict(N=16, C=64, H=56, W=56)})
def elementwise_chain(p):
    N, C, H, W = p["N"], p["C"], p["H"], p["W"]
    ty, tc = tt((N, C, H, W), "f32"), tt((C,), "f32")
    ID = "#id, #id"
    PAR = '["parallel", "parallel", "parallel", "parallel"]'

    def unary(res, src, body, yv):
        return T("""
  %e${res} = tensor.empty() : ${ty}
  %${res} = linalg.generic {indexing_maps = [#id, #id], iterator_types = ${PAR}}
      ins(%${src} : ${ty}) outs(%e${res} : ${ty}) {
  ^bb0(%in: f32, %out: f32):${body}
    linalg.yield ${yv} : f32
  } -> ${ty}""", res=res, src=src, body=body, yv=yv, ty=ty, PAR=PAR)

    def binary(res, a, b, mapb, tb, body):
        return T("""
  %e${res} = tensor.empty() : ${ty}
  %${res} = linalg.generic {indexing_maps = [#id, ${mapb}, #id], iterator_types = ${PAR}}
      ins(%${a}, %${b} : ${ty}, ${tb}) outs(%e${res} : ${ty}) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %r = ${body} %in, %in2 : f32
    linalg.yield %r : f32
  } -> ${ty}""", res=res, a=a, b=b, mapb=mapb, tb=tb, body=body, ty=ty, PAR=PAR)

    text = T("""
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>
func.func @elementwise_chain(%x: ${ty}, %scale: ${tc}, %shift: ${tc}, %res: ${ty}) -> ${ty} {
  %one = arith.constant 1.0 : f32
  %lo = arith.constant -4.0 : f32
  %hi = arith.constant 4.0 : f32""", ty=ty, tc=tc)
    text += binary("a", "x", "scale", "#ch", tc, "arith.mulf")
    text += binary("b", "a", "shift", "#ch", tc, "arith.addf")
    text += unary("c", "b", """
    %n = arith.negf %in : f32
    %e = math.exp %n : f32
    %d = arith.addf %one, %e : f32
    %s = arith.divf %one, %d : f32""", "%s")
    text += binary("d", "c", "x", "#id", ty, "arith.mulf")
    text += binary("f", "d", "res", "#id", ty, "arith.addf")
    text += unary("g", "f", """
    %m = arith.maximumf %in, %lo : f32
    %s = arith.minimumf %m, %hi : f32""", "%s")
    text += T("""
  return %g : ${ty}
}
""", ty=ty)
    return text


@kernel("transpose", "elementwise", "NCHW -> NHWC layout transpose (linalg.transpose, f32)",
        {"small": dict(N=16, C=96, H=56, W=56), "medium": dict(N=32, C=128, H=56, W=56)})
def transpose(p):
    N, C, H, W = p["N"], p["C"], p["H"], p["W"]
    tI, tO = tt((N, C, H, W), "f32"), tt((N, H, W, C), "f32")
    return T("""
func.func @transpose(%x: ${tI}) -> ${tO} {
  %0 = tensor.empty() : ${tO}
  %1 = linalg.transpose ins(%x : ${tI}) outs(%0 : ${tO}) permutation = [0, 2, 3, 1]
  return %1 : ${tO}
}
""", tI=tI, tO=tO)


# ---------------------------------------------------------------------------
# reduction
# ---------------------------------------------------------------------------

@kernel("reduce-sum", "reduction", "sum over the last dimension (aten.sum(dim=-1)), f32",
        {"small": dict(M=2048, N=2048), "medium": dict(M=4096, N=4096)})
def reduce_sum(p):
    M, N = p["M"], p["N"]
    tI, tO = tt((M, N), "f32"), tt((M,), "f32")
    return T("""
#id = affine_map<(d0, d1) -> (d0, d1)>
#red = affine_map<(d0, d1) -> (d0)>
func.func @reduce_sum(%x: ${tI}) -> ${tO} {
  %cst = arith.constant 0.0 : f32
  %0 = tensor.empty() : ${tO}
  %1 = linalg.fill ins(%cst : f32) outs(%0 : ${tO}) -> ${tO}
  %2 = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["parallel", "reduction"]}
      ins(%x : ${tI}) outs(%1 : ${tO}) {
  ^bb0(%in: f32, %acc: f32):
    %3 = arith.addf %in, %acc : f32
    linalg.yield %3 : f32
  } -> ${tO}
  return %2 : ${tO}
}
""", tI=tI, tO=tO)


@kernel("reduce-mean-hw", "reduction",
        "global average pool: mean over H and W of NCHW (aten.mean(dim=[2,3])), f32",
        {"small": dict(N=16, C=256, H=28, W=28), "medium": dict(N=32, C=512, H=28, W=28)})
def reduce_mean_hw(p):
    N, C, H, W = p["N"], p["C"], p["H"], p["W"]
    tI, tO = tt((N, C, H, W), "f32"), tt((N, C), "f32")
    return T("""
#in = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#out = affine_map<(d0, d1, d2, d3) -> (d0, d1)>
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @reduce_mean_hw(%x: ${tI}) -> ${tO} {
  %cst = arith.constant 0.0 : f32
  %cnt = arith.constant ${HW} : f32
  %0 = tensor.empty() : ${tO}
  %1 = linalg.fill ins(%cst : f32) outs(%0 : ${tO}) -> ${tO}
  %2 = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "parallel", "reduction", "reduction"]}
      ins(%x : ${tI}) outs(%1 : ${tO}) {
  ^bb0(%in: f32, %acc: f32):
    %3 = arith.addf %in, %acc : f32
    linalg.yield %3 : f32
  } -> ${tO}
  %4 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%2 : ${tO}) outs(%0 : ${tO}) {
  ^bb0(%in: f32, %out: f32):
    %5 = arith.divf %in, %cnt : f32
    linalg.yield %5 : f32
  } -> ${tO}
  return %4 : ${tO}
}
""", tI=tI, tO=tO, HW=fconst(H * W))


# ---------------------------------------------------------------------------
# normalization
# ---------------------------------------------------------------------------

def _softmax_body(ty, tr, src, dst, rows_map="#red", prefix="sm_"):
    """max-reduce, sub+exp, sum-reduce, div over the last dim of a 2-D or 3-D tensor."""
    return T("""
  %${p}ninf = arith.constant ${NEG_INF} : f32
  %${p}zero = arith.constant 0.0 : f32
  %${p}m0 = tensor.empty() : ${tr}
  %${p}m1 = linalg.fill ins(%${p}ninf : f32) outs(%${p}m0 : ${tr}) -> ${tr}
  %${p}max = linalg.generic {indexing_maps = [#id, ${rm}], iterator_types = ${ITR}}
      ins(%${src} : ${ty}) outs(%${p}m1 : ${tr}) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.maximumf %in, %acc : f32
    linalg.yield %r : f32
  } -> ${tr}
  %${p}e0 = tensor.empty() : ${ty}
  %${p}exp = linalg.generic {indexing_maps = [#id, ${rm}, #id], iterator_types = ${ITP}}
      ins(%${src}, %${p}max : ${ty}, ${tr}) outs(%${p}e0 : ${ty}) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> ${ty}
  %${p}s0 = tensor.empty() : ${tr}
  %${p}s1 = linalg.fill ins(%${p}zero : f32) outs(%${p}s0 : ${tr}) -> ${tr}
  %${p}sum = linalg.generic {indexing_maps = [#id, ${rm}], iterator_types = ${ITR}}
      ins(%${p}exp : ${ty}) outs(%${p}s1 : ${tr}) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> ${tr}
  %${p}o0 = tensor.empty() : ${ty}
  %${dst} = linalg.generic {indexing_maps = [#id, ${rm}, #id], iterator_types = ${ITP}}
      ins(%${p}exp, %${p}sum : ${ty}, ${tr}) outs(%${p}o0 : ${ty}) {
  ^bb0(%in: f32, %s: f32, %out: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  } -> ${ty}""", p=prefix, src=src, dst=dst, ty=ty, tr=tr, rm=rows_map, NEG_INF=NEG_INF,
             ITR=("[" + ", ".join(['"parallel"'] * (ty.count("x") - 1) + ['"reduction"']) + "]"),
             ITP=("[" + ", ".join(['"parallel"'] * ty.count("x")) + "]"))


@kernel("softmax", "normalization",
        "softmax over the last dim as torch-mlir decomposes it: max-reduce, sub, exp, sum-reduce, div (f32)",
        {"small": dict(M=512, N=1024), "medium": dict(M=2048, N=2048)})
def softmax(p):
    M, N = p["M"], p["N"]
    ty, tr = tt((M, N), "f32"), tt((M,), "f32")
    return T("""
#id = affine_map<(d0, d1) -> (d0, d1)>
#red = affine_map<(d0, d1) -> (d0)>
func.func @softmax(%x: ${ty}) -> ${ty} {${body}
  return %probs : ${ty}
}
""", ty=ty, body=_softmax_body(ty, tr, "x", "probs"))


@kernel("layernorm", "normalization",
        "layer normalisation over the last dim with gamma/beta (aten.native_layer_norm), f32",
        {"small": dict(M=2048, D=768), "medium": dict(M=8192, D=768)})
def layernorm(p):
    M, D = p["M"], p["D"]
    ty, tr, tg = tt((M, D), "f32"), tt((M,), "f32"), tt((D,), "f32")
    return T("""
#id = affine_map<(d0, d1) -> (d0, d1)>
#red = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
#v = affine_map<(d0) -> (d0)>
func.func @layernorm(%x: ${ty}, %gamma: ${tg}, %beta: ${tg}) -> ${ty} {
  %zero = arith.constant 0.0 : f32
  %dim = arith.constant ${DF} : f32
  %eps = arith.constant 9.99999974E-6 : f32
  // mean
  %0 = tensor.empty() : ${tr}
  %1 = linalg.fill ins(%zero : f32) outs(%0 : ${tr}) -> ${tr}
  %2 = linalg.generic {indexing_maps = [#id, #red], iterator_types = ["parallel", "reduction"]}
      ins(%x : ${ty}) outs(%1 : ${tr}) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> ${tr}
  %mean = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
      ins(%2 : ${tr}) outs(%0 : ${tr}) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.divf %in, %dim : f32
    linalg.yield %r : f32
  } -> ${tr}
  // variance (biased)
  %3 = linalg.generic {indexing_maps = [#id, #red, #red], iterator_types = ["parallel", "reduction"]}
      ins(%x, %mean : ${ty}, ${tr}) outs(%1 : ${tr}) {
  ^bb0(%in: f32, %m: f32, %acc: f32):
    %d = arith.subf %in, %m : f32
    %d2 = arith.mulf %d, %d : f32
    %r = arith.addf %d2, %acc : f32
    linalg.yield %r : f32
  } -> ${tr}
  %4 = tensor.empty() : ${tr}
  %rstd = linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
      ins(%3 : ${tr}) outs(%4 : ${tr}) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.divf %in, %dim : f32
    %ve = arith.addf %v, %eps : f32
    %r = math.rsqrt %ve : f32
    linalg.yield %r : f32
  } -> ${tr}
  // (x - mean) * rstd * gamma + beta
  %5 = tensor.empty() : ${ty}
  %6 = linalg.generic {indexing_maps = [#id, #red, #red, #col, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %mean, %rstd, %gamma, %beta : ${ty}, ${tr}, ${tr}, ${tg}, ${tg}) outs(%5 : ${ty}) {
  ^bb0(%in: f32, %m: f32, %rs: f32, %g: f32, %b: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %n = arith.mulf %d, %rs : f32
    %s = arith.mulf %n, %g : f32
    %r = arith.addf %s, %b : f32
    linalg.yield %r : f32
  } -> ${ty}
  return %6 : ${ty}
}
""", ty=ty, tr=tr, tg=tg, DF=fconst(D))


@kernel("batchnorm", "normalization",
        "batch normalisation, inference mode, NCHW, running stats and affine params as dense<> constants (f32)",
        {"small": dict(N=24, C=128, H=56, W=56), "medium": dict(N=32, C=128, H=56, W=56)})
def batchnorm(p):
    N, C, H, W = p["N"], p["C"], p["H"], p["W"]
    ty, tc = tt((N, C, H, W), "f32"), tt((C,), "f32")
    return T("""
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>
func.func @batchnorm(%x: ${ty}) -> ${ty} {
  %eps = arith.constant 9.99999974E-6 : f32
  %mean = arith.constant dense<${mean}> : ${tc}
  %var = arith.constant dense<${var}> : ${tc}
  %gamma = arith.constant dense<${gamma}> : ${tc}
  %beta = arith.constant dense<${beta}> : ${tc}
  %0 = tensor.empty() : ${ty}
  %1 = linalg.generic {indexing_maps = [#id, #ch, #ch, #ch, #ch, #id],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%x, %mean, %var, %gamma, %beta : ${ty}, ${tc}, ${tc}, ${tc}, ${tc}) outs(%0 : ${ty}) {
  ^bb0(%in: f32, %m: f32, %v: f32, %g: f32, %b: f32, %out: f32):
    %d = arith.subf %in, %m : f32
    %ve = arith.addf %v, %eps : f32
    %sd = math.sqrt %ve : f32
    %n = arith.divf %d, %sd : f32
    %s = arith.mulf %n, %g : f32
    %r = arith.addf %s, %b : f32
    linalg.yield %r : f32
  } -> ${ty}
  return %1 : ${ty}
}
""", ty=ty, tc=tc, mean=dense_f32(params(C, "mean", 4)), var=dense_f32(params(C, "var", 5)),
             gamma=dense_f32(params(C, "gamma", 6)), beta=dense_f32(params(C, "bias", 7)))


# ---------------------------------------------------------------------------
# attention
# ---------------------------------------------------------------------------

@kernel("attention", "attention",
        "scaled dot-product attention: softmax(Q K^T / sqrt(d)) V, batched over heads (f32)",
        {"small": dict(BH=8, S=128, D=64), "medium": dict(BH=8, S=256, D=64)})
def attention(p):
    BH, S, D = p["BH"], p["S"], p["D"]
    tq, ts = tt((BH, S, D), "f32"), tt((BH, S, S), "f32")
    tr = tt((BH, S), "f32")
    return T("""
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#red = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @attention(%q: ${tq}, %k: ${tq}, %v: ${tq}) -> ${tq} {
  %cst = arith.constant 0.0 : f32
  %scale = arith.constant ${SCALE} : f32
  // scores = Q K^T
  %0 = tensor.empty() : ${ts}
  %1 = linalg.fill ins(%cst : f32) outs(%0 : ${ts}) -> ${ts}
  %2 = linalg.batch_matmul_transpose_b ins(%q, %k : ${tq}, ${tq}) outs(%1 : ${ts}) -> ${ts}
  // scores * 1/sqrt(d)
  %3 = tensor.empty() : ${ts}
  %scaled = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%2 : ${ts}) outs(%3 : ${ts}) {
  ^bb0(%s: f32, %o: f32):
    %r = arith.mulf %s, %scale : f32
    linalg.yield %r : f32
  } -> ${ts}
  // softmax over the key dimension${sm}
  // out = P V
  %4 = tensor.empty() : ${tq}
  %5 = linalg.fill ins(%cst : f32) outs(%4 : ${tq}) -> ${tq}
  %6 = linalg.batch_matmul ins(%probs, %v : ${ts}, ${tq}) outs(%5 : ${tq}) -> ${tq}
  return %6 : ${tq}
}
""", tq=tq, ts=ts, SCALE="%.9e" % (1.0 / math.sqrt(D)), sm=_softmax_body(ts, tr, "scaled", "probs"))


@kernel("attention-bf16", "attention",
        "scaled dot-product attention with bf16 Q/K/V/output; f32 scores, softmax and accumulation",
        {"small": dict(BH=8, S=128, D=64), "medium": dict(BH=8, S=256, D=64)})
def attention_bf16(p):
    BH, S, D = p["BH"], p["S"], p["D"]
    tq, ts = tt((BH, S, D), "bf16"), tt((BH, S, S), "f32")
    tsb, tr, tqf = tt((BH, S, S), "bf16"), tt((BH, S), "f32"), tt((BH, S, D), "f32")
    return T("""
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#red = affine_map<(d0, d1, d2) -> (d0, d1)>
func.func @attention_bf16(%q: ${tq}, %k: ${tq}, %v: ${tq}) -> ${tq} {
  %cst = arith.constant 0.0 : f32
  %scale = arith.constant ${SCALE} : f32
  // scores = Q K^T (bf16 x bf16 -> f32)
  %0 = tensor.empty() : ${ts}
  %1 = linalg.fill ins(%cst : f32) outs(%0 : ${ts}) -> ${ts}
  %2 = linalg.batch_matmul_transpose_b ins(%q, %k : ${tq}, ${tq}) outs(%1 : ${ts}) -> ${ts}
  %3 = tensor.empty() : ${ts}
  %scaled = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%2 : ${ts}) outs(%3 : ${ts}) {
  ^bb0(%s: f32, %o: f32):
    %r = arith.mulf %s, %scale : f32
    linalg.yield %r : f32
  } -> ${ts}
  // softmax in f32${sm}
  // P to bf16, out = P V (f32 accumulation), out to bf16
  %4 = tensor.empty() : ${tsb}
  %pb = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%probs : ${ts}) outs(%4 : ${tsb}) {
  ^bb0(%s: f32, %o: bf16):
    %r = arith.truncf %s : f32 to bf16
    linalg.yield %r : bf16
  } -> ${tsb}
  %5 = tensor.empty() : ${tqf}
  %6 = linalg.fill ins(%cst : f32) outs(%5 : ${tqf}) -> ${tqf}
  %7 = linalg.batch_matmul ins(%pb, %v : ${tsb}, ${tq}) outs(%6 : ${tqf}) -> ${tqf}
  %8 = tensor.empty() : ${tq}
  %9 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%7 : ${tqf}) outs(%8 : ${tq}) {
  ^bb0(%s: f32, %o: bf16):
    %r = arith.truncf %s : f32 to bf16
    linalg.yield %r : bf16
  } -> ${tq}
  return %9 : ${tq}
}
""", tq=tq, ts=ts, tsb=tsb, tqf=tqf, SCALE="%.9e" % (1.0 / math.sqrt(D)), sm=_softmax_body(ts, tr, "scaled", "probs"))
