"""Rodinia-style kernels (f32 / i32), written by hand in MLIR (upstream MLIR 19).

These follow the OpenMP reference versions of Rodinia 3.1 (hotspot,
pathfinder, srad_v1, nw, lud, backprop, kmeans) at the level of the timed
kernel; I/O, command-line parsing and the CPU blocking of the originals are
not reproduced (the loop order of the computation is).
"""
from common import Kernel, T, mr, fconst

SRC = "Rodinia 3.1 (style)"
GEN = "rodinia.py"
KERNELS = []


def kernel(name, family, desc, sizes, entry):
    def deco(fn):
        KERNELS.append(Kernel(name, "rodinia", family, SRC, desc, entry, sizes, fn, GEN))
        return fn
    return deco


# ---------------------------------------------------------------------------
@kernel("hotspot", "stencil",
        "thermal simulation of a chip: explicit 2-D stencil with power input, ping-pong buffers",
        {"small": dict(ROWS=512, COLS=512, ITERS=8), "medium": dict(ROWS=1024, COLS=1024, ITERS=8)},
        "hotspot")
def hotspot(p):
    R, C = p["ROWS"], p["COLS"]
    # Constants of Rodinia's hotspot_openmp.cpp.
    t_chip, chip_h, chip_w, amb = 0.0005, 0.016, 0.016, 80.0
    MAX_PD, PRECISION, SPEC_HEAT_SI, K_SI, FACTOR_CHIP = 3.0e6, 0.001, 1.75e6, 100.0, 0.5
    grid_h, grid_w = chip_h / R, chip_w / C
    Cap = FACTOR_CHIP * SPEC_HEAT_SI * t_chip * grid_w * grid_h
    Rx = grid_w / (2.0 * K_SI * t_chip * grid_h)
    Ry = grid_h / (2.0 * K_SI * t_chip * grid_w)
    Rz = t_chip / (K_SI * grid_h * grid_w)
    max_slope = MAX_PD / (FACTOR_CHIP * t_chip * SPEC_HEAT_SI)
    step = PRECISION / max_slope / 1000.0
    ty = mr((R, C), "f32")
    return T("""
#up = affine_map<(d0) -> (d0 - 1, 0)>
#down = affine_map<(d0) -> (d0 + 1, ${RM1})>
#left = affine_map<(d0) -> (d0 - 1, 0)>
#right = affine_map<(d0) -> (d0 + 1, ${CM1})>
// One time step: result = temp + Cap_1 * (power + vertical + horizontal + ambient
// terms). Rodinia special-cases the 4 edges and 4 corners; clamping the
// neighbour index to the grid gives exactly those formulas (the missing
// neighbour contributes temp - temp = 0).
func.func private @single_iteration(%result: ${ty}, %temp: ${ty}, %power: ${ty}) {
  %Cap_1 = arith.constant ${Cap_1} : f32
  %Rx_1 = arith.constant ${Rx_1} : f32
  %Ry_1 = arith.constant ${Ry_1} : f32
  %Rz_1 = arith.constant ${Rz_1} : f32
  %amb_temp = arith.constant ${amb} : f32
  %two = arith.constant 2.0 : f32
  affine.for %r = 0 to ${R} {
    %rn = affine.max #up(%r)
    %rs = affine.min #down(%r)
    affine.for %c = 0 to ${C} {
      %cw = affine.max #left(%c)
      %ce = affine.min #right(%c)
      %t = affine.load %temp[%r, %c] : ${ty}
      %pw = affine.load %power[%r, %c] : ${ty}
      %tn = memref.load %temp[%rn, %c] : ${ty}
      %ts = memref.load %temp[%rs, %c] : ${ty}
      %tw = memref.load %temp[%r, %cw] : ${ty}
      %te = memref.load %temp[%r, %ce] : ${ty}
      %t2 = arith.mulf %two, %t : f32
      %v0 = arith.addf %ts, %tn : f32
      %v1 = arith.subf %v0, %t2 : f32
      %v = arith.mulf %v1, %Ry_1 : f32
      %h0 = arith.addf %te, %tw : f32
      %h1 = arith.subf %h0, %t2 : f32
      %h = arith.mulf %h1, %Rx_1 : f32
      %a0 = arith.subf %amb_temp, %t : f32
      %a = arith.mulf %a0, %Rz_1 : f32
      %s0 = arith.addf %pw, %v : f32
      %s1 = arith.addf %s0, %h : f32
      %s2 = arith.addf %s1, %a : f32
      %delta = arith.mulf %Cap_1, %s2 : f32
      %new = arith.addf %t, %delta : f32
      affine.store %new, %result[%r, %c] : ${ty}
    }
  }
  return
}

// compute_tran_temp: num_iterations steps, swapping the two buffers after
// each step (as Rodinia swaps pointers). After an even number of steps the
// final temperatures are in %temp, after an odd number in %result.
func.func @hotspot(%temp: ${ty}, %power: ${ty}, %result: ${ty}, %num_iterations: i32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %n = arith.index_cast %num_iterations : i32 to index
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%t = %temp, %res = %result) -> (${ty}, ${ty}) {
    func.call @single_iteration(%res, %t, %power) : (${ty}, ${ty}, ${ty}) -> ()
    scf.yield %res, %t : ${ty}, ${ty}
  }
  return
}
""", R=R, C=C, RM1=R - 1, CM1=C - 1, ty=ty,
             Cap_1="%.9e" % (step / Cap), Rx_1="%.9e" % (1.0 / Rx), Ry_1="%.9e" % (1.0 / Ry),
             Rz_1="%.9e" % (1.0 / Rz), amb=fconst(amb)), {}, {"arg3": p["ITERS"]}


# ---------------------------------------------------------------------------
@kernel("pathfinder", "dynamic-programming",
        "min-cost path through a grid, row by row (int dynamic programming)",
        {"small": dict(ROWS=400, COLS=10000), "medium": dict(ROWS=1000, COLS=16000)},
        "pathfinder")
def pathfinder(p):
    R, C = p["ROWS"], p["COLS"]
    tw, tv = mr((R, C), "i32"), mr((C,), "i32")
    return T("""
#left = affine_map<(d0) -> (d0 - 1, 0)>
#right = affine_map<(d0) -> (d0 + 1, ${CM1})>
func.func @pathfinder(%wall: ${tw}, %result: ${tv}) {
  %src = memref.alloc() : ${tv}
  // result = wall[0]
  affine.for %n = 0 to ${C} {
    %w = affine.load %wall[0, %n] : ${tw}
    affine.store %w, %result[%n] : ${tv}
  }
  affine.for %t = 0 to ${RM1} {
    // src = result (Rodinia swaps pointers; the copy keeps the output in %result)
    affine.for %n = 0 to ${C} {
      %v = affine.load %result[%n] : ${tv}
      affine.store %v, %src[%n] : ${tv}
    }
    affine.for %n = 0 to ${C} {
      // min over src[n-1], src[n], src[n+1] (neighbours that exist)
      %l = affine.max #left(%n)
      %r = affine.min #right(%n)
      %m = affine.load %src[%n] : ${tv}
      %vl = memref.load %src[%l] : ${tv}
      %vr = memref.load %src[%r] : ${tv}
      %m1 = arith.minsi %m, %vl : i32
      %m2 = arith.minsi %m1, %vr : i32
      %w = affine.load %wall[%t + 1, %n] : ${tw}
      %d = arith.addi %w, %m2 : i32
      affine.store %d, %result[%n] : ${tv}
    }
  }
  memref.dealloc %src : ${tv}
  return
}
""", C=C, CM1=C - 1, RM1=R - 1, tw=tw, tv=tv)


# ---------------------------------------------------------------------------
@kernel("srad", "stencil",
        "speckle-reducing anisotropic diffusion (srad_v1): ROI statistics, diffusion coefficients, update",
        {"small": dict(NR=320, NC=320, NITER=8), "medium": dict(NR=512, NC=512, NITER=8)},
        "srad")
def srad(p):
    NR, NC, NITER = p["NR"], p["NC"], p["NITER"]
    ty = mr((NC, NR), "f32")  # Rodinia stores the image column-major: J[i + Nr*j]
    return T("""
#up = affine_map<(d0) -> (d0 - 1, 0)>
#down = affine_map<(d0) -> (d0 + 1, ${NRM1})>
#left = affine_map<(d0) -> (d0 - 1, 0)>
#right = affine_map<(d0) -> (d0 + 1, ${NCM1})>
// image is column-major as in Rodinia: image[j][i] is pixel (row i, column j).
func.func @srad(%image: ${ty}) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %half = arith.constant 0.5 : f32
  %quarter = arith.constant 0.25 : f32
  %sixteenth = arith.constant 0.0625 : f32
  %c255 = arith.constant 255.0 : f32
  %lambda = arith.constant 0.5 : f32
  %NeROI = arith.constant ${NE} : f32
  %J = memref.alloc() : ${ty}
  %dN = memref.alloc() : ${ty}
  %dS = memref.alloc() : ${ty}
  %dW = memref.alloc() : ${ty}
  %dE = memref.alloc() : ${ty}
  %c = memref.alloc() : ${ty}
  // extract: J = exp(image) (Rodinia: exp(image/255) of an 8-bit image; the
  // harness input is already in [-1, 1)), so J > 0.
  affine.for %j = 0 to ${NC} {
    affine.for %i = 0 to ${NR} {
      %v = affine.load %image[%j, %i] : ${ty}
      %e = math.exp %v : f32
      affine.store %e, %J[%j, %i] : ${ty}
    }
  }
  %ql = arith.constant 0.25 : f32
  affine.for %iter = 0 to ${NITER} {
    // ROI statistics (ROI = whole image, as in srad_v1).
    %s:2 = affine.for %j = 0 to ${NC} iter_args(%sum = %zero, %sum2 = %zero) -> (f32, f32) {
      %t:2 = affine.for %i = 0 to ${NR} iter_args(%a = %sum, %b = %sum2) -> (f32, f32) {
        %tmp = affine.load %J[%j, %i] : ${ty}
        %a1 = arith.addf %a, %tmp : f32
        %sq = arith.mulf %tmp, %tmp : f32
        %b1 = arith.addf %b, %sq : f32
        affine.yield %a1, %b1 : f32, f32
      }
      affine.yield %t#0, %t#1 : f32, f32
    }
    %meanROI = arith.divf %s#0, %NeROI : f32
    %m2 = arith.divf %s#1, %NeROI : f32
    %mm = arith.mulf %meanROI, %meanROI : f32
    %varROI = arith.subf %m2, %mm : f32
    %q0sqr = arith.divf %varROI, %mm : f32
    %q0p1 = arith.addf %one, %q0sqr : f32
    %q0den = arith.mulf %q0sqr, %q0p1 : f32
    // Directional derivatives and diffusion coefficient.
    affine.for %j = 0 to ${NC} {
      %jw = affine.max #left(%j)
      %je = affine.min #right(%j)
      affine.for %i = 0 to ${NR} {
        %in = affine.max #up(%i)
        %is = affine.min #down(%i)
        %Jc = affine.load %J[%j, %i] : ${ty}
        %vn = memref.load %J[%j, %in] : ${ty}
        %vs = memref.load %J[%j, %is] : ${ty}
        %vw = memref.load %J[%jw, %i] : ${ty}
        %ve = memref.load %J[%je, %i] : ${ty}
        %n = arith.subf %vn, %Jc : f32
        %s_ = arith.subf %vs, %Jc : f32
        %w = arith.subf %vw, %Jc : f32
        %e = arith.subf %ve, %Jc : f32
        affine.store %n, %dN[%j, %i] : ${ty}
        affine.store %s_, %dS[%j, %i] : ${ty}
        affine.store %w, %dW[%j, %i] : ${ty}
        affine.store %e, %dE[%j, %i] : ${ty}
        %n2 = arith.mulf %n, %n : f32
        %s2 = arith.mulf %s_, %s_ : f32
        %w2 = arith.mulf %w, %w : f32
        %e2 = arith.mulf %e, %e : f32
        %g0 = arith.addf %n2, %s2 : f32
        %g1 = arith.addf %g0, %w2 : f32
        %g2 = arith.addf %g1, %e2 : f32
        %jc2 = arith.mulf %Jc, %Jc : f32
        %G2 = arith.divf %g2, %jc2 : f32
        %l0 = arith.addf %n, %s_ : f32
        %l1 = arith.addf %l0, %w : f32
        %l2 = arith.addf %l1, %e : f32
        %L = arith.divf %l2, %Jc : f32
        %num0 = arith.mulf %half, %G2 : f32
        %LL = arith.mulf %L, %L : f32
        %num1 = arith.mulf %sixteenth, %LL : f32
        %num = arith.subf %num0, %num1 : f32
        %den0 = arith.mulf %ql, %L : f32
        %den = arith.addf %one, %den0 : f32
        %dd = arith.mulf %den, %den : f32
        %qsqr = arith.divf %num, %dd : f32
        %dq = arith.subf %qsqr, %q0sqr : f32
        %den2 = arith.divf %dq, %q0den : f32
        %op = arith.addf %one, %den2 : f32
        %cv = arith.divf %one, %op : f32
        // saturate to [0, 1]
        %lt0 = arith.cmpf olt, %cv, %zero : f32
        %gt1 = arith.cmpf ogt, %cv, %one : f32
        %c1v = arith.select %gt1, %one, %cv : f32
        %c0v = arith.select %lt0, %zero, %c1v : f32
        affine.store %c0v, %c[%j, %i] : ${ty}
      }
    }
    // Divergence and image update.
    affine.for %j = 0 to ${NC} {
      %je = affine.min #right(%j)
      affine.for %i = 0 to ${NR} {
        %is = affine.min #down(%i)
        %cN = affine.load %c[%j, %i] : ${ty}
        %cS = memref.load %c[%j, %is] : ${ty}
        %cW = affine.load %c[%j, %i] : ${ty}
        %cE = memref.load %c[%je, %i] : ${ty}
        %n = affine.load %dN[%j, %i] : ${ty}
        %s_ = affine.load %dS[%j, %i] : ${ty}
        %w = affine.load %dW[%j, %i] : ${ty}
        %e = affine.load %dE[%j, %i] : ${ty}
        %d0 = arith.mulf %cN, %n : f32
        %d1 = arith.mulf %cS, %s_ : f32
        %d2 = arith.mulf %cW, %w : f32
        %d3 = arith.mulf %cE, %e : f32
        %D0 = arith.addf %d0, %d1 : f32
        %D1 = arith.addf %D0, %d2 : f32
        %D = arith.addf %D1, %d3 : f32
        %Jv = affine.load %J[%j, %i] : ${ty}
        %f0 = arith.mulf %quarter, %lambda : f32
        %f1 = arith.mulf %f0, %D : f32
        %Jn = arith.addf %Jv, %f1 : f32
        affine.store %Jn, %J[%j, %i] : ${ty}
      }
    }
  }
  // compress: image = log(J) * 255
  affine.for %j = 0 to ${NC} {
    affine.for %i = 0 to ${NR} {
      %v = affine.load %J[%j, %i] : ${ty}
      %l = math.log %v : f32
      %o = arith.mulf %l, %c255 : f32
      affine.store %o, %image[%j, %i] : ${ty}
    }
  }
  memref.dealloc %J : ${ty}
  memref.dealloc %dN : ${ty}
  memref.dealloc %dS : ${ty}
  memref.dealloc %dW : ${ty}
  memref.dealloc %dE : ${ty}
  memref.dealloc %c : ${ty}
  return
}
""", NR=NR, NC=NC, NRM1=NR - 1, NCM1=NC - 1, NITER=NITER, NE=fconst(NR * NC), ty=ty)


# ---------------------------------------------------------------------------
@kernel("nw", "dynamic-programming",
        "Needleman-Wunsch global sequence alignment score matrix (int)",
        {"small": dict(N=2048), "medium": dict(N=4096)}, "nw")
def nw(p):
    N = p["N"]
    M = N + 1
    ty = mr((M, M), "i32")
    return T("""
#im1 = affine_map<(d0) -> (d0 - 1)>
func.func @nw(%reference: ${ty}, %input_itemsets: ${ty}) {
  %penalty = arith.constant 10 : i32
  %c0 = arith.constant 0 : i32
  // Borders: F[i][0] = -i*penalty, F[0][j] = -j*penalty.
  affine.store %c0, %input_itemsets[0, 0] : ${ty}
  affine.for %i = 1 to ${M} {
    %ii = arith.index_cast %i : index to i32
    %v = arith.muli %ii, %penalty : i32
    %nv = arith.subi %c0, %v : i32
    affine.store %nv, %input_itemsets[%i, 0] : ${ty}
    affine.store %nv, %input_itemsets[0, %i] : ${ty}
  }
  // F[i][j] = max(F[i-1][j-1] + ref[i][j], F[i][j-1] - penalty, F[i-1][j] - penalty)
  affine.for %i = 1 to ${M} {
    affine.for %j = 1 to ${M} {
      %nwv = affine.load %input_itemsets[%i - 1, %j - 1] : ${ty}
      %ref = affine.load %reference[%i, %j] : ${ty}
      %wv = affine.load %input_itemsets[%i, %j - 1] : ${ty}
      %nv = affine.load %input_itemsets[%i - 1, %j] : ${ty}
      %a = arith.addi %nwv, %ref : i32
      %b = arith.subi %wv, %penalty : i32
      %c = arith.subi %nv, %penalty : i32
      %m0 = arith.maxsi %a, %b : i32
      %m1 = arith.maxsi %m0, %c : i32
      affine.store %m1, %input_itemsets[%i, %j] : ${ty}
    }
  }
  return
}
""", M=M, ty=ty)


# ---------------------------------------------------------------------------
@kernel("lud", "solver", "in-place LU decomposition (Rodinia lud_base, f32)",
        {"small": dict(N=256), "medium": dict(N=448)}, "lud")
def lud(p):
    N = p["N"]
    ty = mr((N, N), "f32")
    return T("""
#id = affine_map<(d0) -> (d0)>
#plus1 = affine_map<(d0) -> (d0 + 1)>
func.func @lud(%a: ${ty}) {
  // Prologue (not in Rodinia): a[i][i] += N makes the random [-1, 1) input
  // diagonally dominant, so elimination without pivoting is stable.
  %boost = arith.constant ${NF} : f32
  affine.for %i = 0 to ${N} {
    %d = affine.load %a[%i, %i] : ${ty}
    %d1 = arith.addf %d, %boost : f32
    affine.store %d1, %a[%i, %i] : ${ty}
  }
  affine.for %i = 0 to ${N} {
    affine.for %j = #id(%i) to ${N} {
      %s0 = affine.load %a[%i, %j] : ${ty}
      %sum = affine.for %k = 0 to #id(%i) iter_args(%s = %s0) -> (f32) {
        %aik = affine.load %a[%i, %k] : ${ty}
        %akj = affine.load %a[%k, %j] : ${ty}
        %m = arith.mulf %aik, %akj : f32
        %s1 = arith.subf %s, %m : f32
        affine.yield %s1 : f32
      }
      affine.store %sum, %a[%i, %j] : ${ty}
    }
    affine.for %j = #plus1(%i) to ${N} {
      %s0 = affine.load %a[%j, %i] : ${ty}
      %sum = affine.for %k = 0 to #id(%i) iter_args(%s = %s0) -> (f32) {
        %ajk = affine.load %a[%j, %k] : ${ty}
        %aki = affine.load %a[%k, %i] : ${ty}
        %m = arith.mulf %ajk, %aki : f32
        %s1 = arith.subf %s, %m : f32
        affine.yield %s1 : f32
      }
      %aii = affine.load %a[%i, %i] : ${ty}
      %q = arith.divf %sum, %aii : f32
      affine.store %q, %a[%j, %i] : ${ty}
    }
  }
  return
}
""", N=N, NF=fconst(N), ty=ty)


# ---------------------------------------------------------------------------
@kernel("backprop", "matmul-like",
        "backprop bpnn_layerforward: l2[1..n2] = sigmoid(conn[:,1..n2]^T l1), l1[0] = 1 bias unit",
        {"small": dict(N1=262144, N2=16), "medium": dict(N1=524288, N2=16)},
        "bpnn_layerforward")
def backprop(p):
    N1, N2 = p["N1"], p["N2"]
    t1, t2, tc = mr((N1 + 1,), "f32"), mr((N2 + 1,), "f32"), mr((N1 + 1, N2 + 1), "f32")
    tcs = "memref<%dx%dxf32, strided<[%d, 1], offset: 1>>" % (N1 + 1, N2, N2 + 1)
    t2s = "memref<%dxf32, strided<[1], offset: 1>>" % N2
    return T("""
#v = affine_map<(i) -> (i)>
func.func @bpnn_layerforward(%l1: ${t1}, %l2: ${t2}, %conn: ${tc}) {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  // Set up the thresholding unit.
  memref.store %one, %l1[%c0] : ${t1}
  // l2[0] is the next layer's bias unit; Rodinia leaves it untouched, here it
  // is set to 1 so that the whole output is defined by the kernel.
  memref.store %one, %l2[%c0] : ${t2}
  %w = memref.subview %conn[0, 1] [${N1p1}, ${N2}] [1, 1] : ${tc} to ${tcs}
  %out = memref.subview %l2[1] [${N2}] [1] : ${t2} to ${t2s}
  // sum[j] = sum_k conn[k][j] * l1[k], j = 1..n2
  linalg.fill ins(%zero : f32) outs(%out : ${t2s})
  linalg.vecmat ins(%l1, %w : ${t1}, ${tcs}) outs(%out : ${t2s})
  // l2[j] = squash(sum[j]) = 1 / (1 + exp(-sum[j]))
  linalg.generic {indexing_maps = [#v], iterator_types = ["parallel"]} outs(%out : ${t2s}) {
  ^bb0(%s: f32):
    %n = arith.negf %s : f32
    %e = math.exp %n : f32
    %d = arith.addf %one, %e : f32
    %r = arith.divf %one, %d : f32
    linalg.yield %r : f32
  }
  return
}
""", N1p1=N1 + 1, N2=N2, t1=t1, t2=t2, tc=tc, tcs=tcs, t2s=t2s)


# ---------------------------------------------------------------------------
@kernel("kmeans", "data-mining",
        "k-means distance + assignment step (dynamic shapes): nearest centroid per point",
        {"small": dict(NPOINTS=32768, NFEATURES=34, NCLUSTERS=5),
         "medium": dict(NPOINTS=65536, NFEATURES=34, NCLUSTERS=16)},
        "kmeans_assign")
def kmeans(p):
    N, D, K = p["NPOINTS"], p["NFEATURES"], p["NCLUSTERS"]
    return T("""
#pkd_p = affine_map<(n, k, d) -> (n, d)>
#pkd_c = affine_map<(n, k, d) -> (k, d)>
#pkd_o = affine_map<(n, k, d) -> (n, k)>
#nk = affine_map<(n, k) -> (n, k)>
#n = affine_map<(n, k) -> (n)>
// feature: npoints x nfeatures, clusters: nclusters x nfeatures,
// membership: npoints, out: index of the nearest cluster (Rodinia's delta
// count of changed assignments and the new-centre accumulation are not part
// of this step).
func.func @kmeans_assign(%feature: memref<?x?xf32>, %clusters: memref<?x?xf32>,
                         %membership: memref<?xi32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %fltmax = arith.constant 3.40282347e+38 : f32
  %zi = arith.constant 0 : i32
  %npoints = memref.dim %feature, %c0 : memref<?x?xf32>
  %nclusters = memref.dim %clusters, %c0 : memref<?x?xf32>
  // dist[n][k] = euclid_dist_2(feature[n], clusters[k])
  %dist = memref.alloc(%npoints, %nclusters) : memref<?x?xf32>
  linalg.fill ins(%zero : f32) outs(%dist : memref<?x?xf32>)
  linalg.generic {indexing_maps = [#pkd_p, #pkd_c, #pkd_o],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%feature, %clusters : memref<?x?xf32>, memref<?x?xf32>) outs(%dist : memref<?x?xf32>) {
  ^bb0(%f: f32, %c: f32, %acc: f32):
    %d = arith.subf %f, %c : f32
    %d2 = arith.mulf %d, %d : f32
    %s = arith.addf %acc, %d2 : f32
    linalg.yield %s : f32
  }
  // find_nearest_point: first cluster with the strictly smallest distance.
  %min_dist = memref.alloc(%npoints) : memref<?xf32>
  linalg.fill ins(%fltmax : f32) outs(%min_dist : memref<?xf32>)
  linalg.fill ins(%zi : i32) outs(%membership : memref<?xi32>)
  linalg.generic {indexing_maps = [#nk, #n, #n], iterator_types = ["parallel", "reduction"]}
      ins(%dist : memref<?x?xf32>) outs(%min_dist, %membership : memref<?xf32>, memref<?xi32>) {
  ^bb0(%d: f32, %m: f32, %idx: i32):
    %k = linalg.index 1 : index
    %ki = arith.index_cast %k : index to i32
    %lt = arith.cmpf olt, %d, %m : f32
    %nm = arith.select %lt, %d, %m : f32
    %ni = arith.select %lt, %ki, %idx : i32
    linalg.yield %nm, %ni : f32, i32
  }
  memref.dealloc %min_dist : memref<?xf32>
  memref.dealloc %dist : memref<?x?xf32>
  return
}
""", ), {"arg0": [N, D], "arg1": [K, D], "arg2": [N]}, {}
