"""PolyBench/C 4.2 kernels, ported by hand to MLIR (upstream MLIR 19 syntax).

Conventions (see docs/AddingKernels.md):
  * DATA_TYPE is PolyBench's per-kernel default: double (f64) everywhere except
    deriche (float -> f32), floyd-warshall and nussinov (int -> i32).
  * Problem sizes are static; PolyBench's int size parameters are therefore
    dropped from the signatures. All other parameters keep PolyBench's order.
  * Contractions / elementwise loops are written with linalg (named ops where
    one exists, linalg.generic otherwise); triangular loops, time-stepped
    stencils and solvers with affine.for + affine.load/store.
  * Solvers condition their random [-1,1) inputs in a cheap prologue inside the
    kernel (documented per kernel), and outputs PolyBench's init_array zeroes
    and the kernel only partly writes are zeroed in the kernel.
"""
from common import Kernel, T, mr, fconst

SRC = "PolyBench/C 4.2"
GEN = "polybench.py"

AFFINE_MAPS = """#id = affine_map<(d0) -> (d0)>
#plus1 = affine_map<(d0) -> (d0 + 1)>
"""

KERNELS = []


def kernel(name, family, desc, sizes, entry=None):
    def deco(fn):
        KERNELS.append(Kernel(name, "polybench", family, SRC, desc,
                              entry or "kernel_" + name.replace("-", "_"),
                              sizes, fn, GEN))
        return fn
    return deco


F = "f64"


def m(*shape):
    return mr(shape, F)


# ---------------------------------------------------------------------------
# linear-algebra/blas
# ---------------------------------------------------------------------------

@kernel("gemm", "matmul-like", "C := alpha*A*B + beta*C",
        {"small": dict(NI=200, NJ=220, NK=240),
         "medium": dict(NI=320, NJ=340, NK=360)})
def gemm(p):
    return T("""
#map_ik = affine_map<(i, j, k) -> (i, k)>
#map_kj = affine_map<(i, j, k) -> (k, j)>
#map_ij = affine_map<(i, j, k) -> (i, j)>
#id2 = affine_map<(i, j) -> (i, j)>
func.func @kernel_gemm(%alpha: f64, %beta: f64, %C: ${tC}, %A: ${tA}, %B: ${tB}) {
  // C[i][j] *= beta
  linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]}
      outs(%C : ${tC}) {
  ^bb0(%c: f64):
    %0 = arith.mulf %c, %beta : f64
    linalg.yield %0 : f64
  }
  // C[i][j] += alpha * A[i][k] * B[k][j]
  linalg.generic {indexing_maps = [#map_ik, #map_kj, #map_ij],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%A, %B : ${tA}, ${tB}) outs(%C : ${tC}) {
  ^bb0(%a: f64, %b: f64, %c: f64):
    %0 = arith.mulf %alpha, %a : f64
    %1 = arith.mulf %0, %b : f64
    %2 = arith.addf %c, %1 : f64
    linalg.yield %2 : f64
  }
  return
}
""", tC=m(p["NI"], p["NJ"]), tA=m(p["NI"], p["NK"]), tB=m(p["NK"], p["NJ"]))


@kernel("gemver", "matmul-like",
        "vector multiplication and matrix addition (A += u1 v1^T + u2 v2^T, x, w updates)",
        {"small": dict(N=1200), "medium": dict(N=2400)})
def gemver(p):
    n = p["N"]
    return T("""
#ij = affine_map<(i, j) -> (i, j)>
#ji = affine_map<(i, j) -> (j, i)>
#i = affine_map<(i, j) -> (i)>
#j = affine_map<(i, j) -> (j)>
#v = affine_map<(i) -> (i)>
func.func @kernel_gemver(%alpha: f64, %beta: f64, %A: ${tA}, %u1: ${tv}, %v1: ${tv},
                         %u2: ${tv}, %v2: ${tv}, %w: ${tv}, %x: ${tv}, %y: ${tv},
                         %z: ${tv}) {
  // A[i][j] = A[i][j] + u1[i] * v1[j] + u2[i] * v2[j]
  linalg.generic {indexing_maps = [#i, #j, #i, #j, #ij],
                  iterator_types = ["parallel", "parallel"]}
      ins(%u1, %v1, %u2, %v2 : ${tv}, ${tv}, ${tv}, ${tv}) outs(%A : ${tA}) {
  ^bb0(%a1: f64, %b1: f64, %a2: f64, %b2: f64, %a: f64):
    %0 = arith.mulf %a1, %b1 : f64
    %1 = arith.addf %a, %0 : f64
    %2 = arith.mulf %a2, %b2 : f64
    %3 = arith.addf %1, %2 : f64
    linalg.yield %3 : f64
  }
  // x[i] = x[i] + beta * A[j][i] * y[j]
  linalg.generic {indexing_maps = [#ji, #j, #i],
                  iterator_types = ["parallel", "reduction"]}
      ins(%A, %y : ${tA}, ${tv}) outs(%x : ${tv}) {
  ^bb0(%a: f64, %yj: f64, %xi: f64):
    %0 = arith.mulf %beta, %a : f64
    %1 = arith.mulf %0, %yj : f64
    %2 = arith.addf %xi, %1 : f64
    linalg.yield %2 : f64
  }
  // x[i] = x[i] + z[i]
  linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
      ins(%z : ${tv}) outs(%x : ${tv}) {
  ^bb0(%zi: f64, %xi: f64):
    %0 = arith.addf %xi, %zi : f64
    linalg.yield %0 : f64
  }
  // w[i] = w[i] + alpha * A[i][j] * x[j]
  linalg.generic {indexing_maps = [#ij, #j, #i],
                  iterator_types = ["parallel", "reduction"]}
      ins(%A, %x : ${tA}, ${tv}) outs(%w : ${tv}) {
  ^bb0(%a: f64, %xj: f64, %wi: f64):
    %0 = arith.mulf %alpha, %a : f64
    %1 = arith.mulf %0, %xj : f64
    %2 = arith.addf %wi, %1 : f64
    linalg.yield %2 : f64
  }
  return
}
""", tA=m(n, n), tv=m(n))


@kernel("gesummv", "matmul-like", "y := alpha*A*x + beta*B*x",
        {"small": dict(N=1300), "medium": dict(N=2600)})
def gesummv(p):
    n = p["N"]
    return T("""
#v = affine_map<(i) -> (i)>
func.func @kernel_gesummv(%alpha: f64, %beta: f64, %A: ${tA}, %B: ${tA}, %tmp: ${tv},
                          %x: ${tv}, %y: ${tv}) {
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%tmp : ${tv})
  linalg.fill ins(%zero : f64) outs(%y : ${tv})
  linalg.matvec ins(%A, %x : ${tA}, ${tv}) outs(%tmp : ${tv})
  linalg.matvec ins(%B, %x : ${tA}, ${tv}) outs(%y : ${tv})
  // y[i] = alpha * tmp[i] + beta * y[i]
  linalg.generic {indexing_maps = [#v, #v], iterator_types = ["parallel"]}
      ins(%tmp : ${tv}) outs(%y : ${tv}) {
  ^bb0(%t: f64, %yi: f64):
    %0 = arith.mulf %alpha, %t : f64
    %1 = arith.mulf %beta, %yi : f64
    %2 = arith.addf %0, %1 : f64
    linalg.yield %2 : f64
  }
  return
}
""", tA=m(n, n), tv=m(n))


@kernel("symm", "matmul-like",
        "symmetric matrix multiply C := alpha*A*B + beta*C (A symmetric, lower part used)",
        {"small": dict(M=200, N=240), "medium": dict(M=360, N=400)})
def symm(p):
    M, N = p["M"], p["N"]
    return T(AFFINE_MAPS + """
func.func @kernel_symm(%alpha: f64, %beta: f64, %C: ${tC}, %A: ${tA}, %B: ${tC}) {
  %zero = arith.constant 0.0 : f64
  affine.for %i = 0 to ${M} {
    affine.for %j = 0 to ${N} {
      %bij = affine.load %B[%i, %j] : ${tC}
      %temp2 = affine.for %k = 0 to #id(%i) iter_args(%acc = %zero) -> (f64) {
        // C[k][j] += alpha*B[i][j] * A[i][k]
        %aik = affine.load %A[%i, %k] : ${tA}
        %ckj = affine.load %C[%k, %j] : ${tC}
        %0 = arith.mulf %alpha, %bij : f64
        %1 = arith.mulf %0, %aik : f64
        %2 = arith.addf %ckj, %1 : f64
        affine.store %2, %C[%k, %j] : ${tC}
        // temp2 += B[k][j] * A[i][k]
        %bkj = affine.load %B[%k, %j] : ${tC}
        %3 = arith.mulf %bkj, %aik : f64
        %4 = arith.addf %acc, %3 : f64
        affine.yield %4 : f64
      }
      // C[i][j] = beta * C[i][j] + alpha*B[i][j] * A[i][i] + alpha * temp2
      %cij = affine.load %C[%i, %j] : ${tC}
      %aii = affine.load %A[%i, %i] : ${tA}
      %5 = arith.mulf %beta, %cij : f64
      %6 = arith.mulf %alpha, %bij : f64
      %7 = arith.mulf %6, %aii : f64
      %8 = arith.addf %5, %7 : f64
      %9 = arith.mulf %alpha, %temp2 : f64
      %10 = arith.addf %8, %9 : f64
      affine.store %10, %C[%i, %j] : ${tC}
    }
  }
  return
}
""", M=M, N=N, tC=m(M, N), tA=m(M, M))


@kernel("syrk", "matmul-like", "symmetric rank-k update C := alpha*A*A^T + beta*C (lower triangle)",
        {"small": dict(M=200, N=240), "medium": dict(M=360, N=400)})
def syrk(p):
    M, N = p["M"], p["N"]
    return T(AFFINE_MAPS + """
func.func @kernel_syrk(%alpha: f64, %beta: f64, %C: ${tC}, %A: ${tA}) {
  affine.for %i = 0 to ${N} {
    affine.for %j = 0 to #plus1(%i) {
      %c = affine.load %C[%i, %j] : ${tC}
      %0 = arith.mulf %c, %beta : f64
      affine.store %0, %C[%i, %j] : ${tC}
    }
    affine.for %k = 0 to ${M} {
      affine.for %j = 0 to #plus1(%i) {
        // C[i][j] += alpha * A[i][k] * A[j][k]
        %aik = affine.load %A[%i, %k] : ${tA}
        %ajk = affine.load %A[%j, %k] : ${tA}
        %c = affine.load %C[%i, %j] : ${tC}
        %0 = arith.mulf %alpha, %aik : f64
        %1 = arith.mulf %0, %ajk : f64
        %2 = arith.addf %c, %1 : f64
        affine.store %2, %C[%i, %j] : ${tC}
      }
    }
  }
  return
}
""", M=M, N=N, tC=m(N, N), tA=m(N, M))


@kernel("syr2k", "matmul-like",
        "symmetric rank-2k update C := alpha*A*B^T + alpha*B*A^T + beta*C (lower triangle)",
        {"small": dict(M=200, N=240), "medium": dict(M=300, N=340)})
def syr2k(p):
    M, N = p["M"], p["N"]
    return T(AFFINE_MAPS + """
func.func @kernel_syr2k(%alpha: f64, %beta: f64, %C: ${tC}, %A: ${tA}, %B: ${tA}) {
  affine.for %i = 0 to ${N} {
    affine.for %j = 0 to #plus1(%i) {
      %c = affine.load %C[%i, %j] : ${tC}
      %0 = arith.mulf %c, %beta : f64
      affine.store %0, %C[%i, %j] : ${tC}
    }
    affine.for %k = 0 to ${M} {
      affine.for %j = 0 to #plus1(%i) {
        // C[i][j] += A[j][k]*alpha*B[i][k] + B[j][k]*alpha*A[i][k]
        %ajk = affine.load %A[%j, %k] : ${tA}
        %bik = affine.load %B[%i, %k] : ${tA}
        %bjk = affine.load %B[%j, %k] : ${tA}
        %aik = affine.load %A[%i, %k] : ${tA}
        %c = affine.load %C[%i, %j] : ${tC}
        %0 = arith.mulf %ajk, %alpha : f64
        %1 = arith.mulf %0, %bik : f64
        %2 = arith.mulf %bjk, %alpha : f64
        %3 = arith.mulf %2, %aik : f64
        %4 = arith.addf %1, %3 : f64
        %5 = arith.addf %c, %4 : f64
        affine.store %5, %C[%i, %j] : ${tC}
      }
    }
  }
  return
}
""", M=M, N=N, tC=m(N, N), tA=m(N, M))


@kernel("trmm", "matmul-like", "triangular matrix multiply B := alpha*A^T*B (A unit lower triangular)",
        {"small": dict(M=200, N=240), "medium": dict(M=360, N=400)})
def trmm(p):
    M, N = p["M"], p["N"]
    return T(AFFINE_MAPS + """
func.func @kernel_trmm(%alpha: f64, %A: ${tA}, %B: ${tB}) {
  affine.for %i = 0 to ${M} {
    affine.for %j = 0 to ${N} {
      affine.for %k = #plus1(%i) to ${M} {
        // B[i][j] += A[k][i] * B[k][j]
        %aki = affine.load %A[%k, %i] : ${tA}
        %bkj = affine.load %B[%k, %j] : ${tB}
        %bij = affine.load %B[%i, %j] : ${tB}
        %0 = arith.mulf %aki, %bkj : f64
        %1 = arith.addf %bij, %0 : f64
        affine.store %1, %B[%i, %j] : ${tB}
      }
      %b = affine.load %B[%i, %j] : ${tB}
      %2 = arith.mulf %alpha, %b : f64
      affine.store %2, %B[%i, %j] : ${tB}
    }
  }
  return
}
""", M=M, N=N, tA=m(M, M), tB=m(M, N))


# ---------------------------------------------------------------------------
# linear-algebra/kernels
# ---------------------------------------------------------------------------

@kernel("2mm", "matmul-like", "D := alpha*A*B*C + beta*D (two chained matrix multiplies)",
        {"small": dict(NI=180, NJ=190, NK=210, NL=220),
         "medium": dict(NI=280, NJ=300, NK=320, NL=340)})
def mm2(p):
    NI, NJ, NK, NL = p["NI"], p["NJ"], p["NK"], p["NL"]
    return T("""
#map_ik = affine_map<(i, j, k) -> (i, k)>
#map_kj = affine_map<(i, j, k) -> (k, j)>
#map_ij = affine_map<(i, j, k) -> (i, j)>
#id2 = affine_map<(i, j) -> (i, j)>
func.func @kernel_2mm(%alpha: f64, %beta: f64, %tmp: ${tT}, %A: ${tA}, %B: ${tB},
                      %C: ${tC}, %D: ${tD}) {
  %zero = arith.constant 0.0 : f64
  // tmp[i][j] = sum_k alpha * A[i][k] * B[k][j]
  linalg.fill ins(%zero : f64) outs(%tmp : ${tT})
  linalg.generic {indexing_maps = [#map_ik, #map_kj, #map_ij],
                  iterator_types = ["parallel", "parallel", "reduction"]}
      ins(%A, %B : ${tA}, ${tB}) outs(%tmp : ${tT}) {
  ^bb0(%a: f64, %b: f64, %t: f64):
    %0 = arith.mulf %alpha, %a : f64
    %1 = arith.mulf %0, %b : f64
    %2 = arith.addf %t, %1 : f64
    linalg.yield %2 : f64
  }
  // D[i][j] *= beta; D[i][j] += tmp[i][k] * C[k][j]
  linalg.generic {indexing_maps = [#id2], iterator_types = ["parallel", "parallel"]}
      outs(%D : ${tD}) {
  ^bb0(%d: f64):
    %0 = arith.mulf %d, %beta : f64
    linalg.yield %0 : f64
  }
  linalg.matmul ins(%tmp, %C : ${tT}, ${tC}) outs(%D : ${tD})
  return
}
""", tT=m(NI, NJ), tA=m(NI, NK), tB=m(NK, NJ), tC=m(NJ, NL), tD=m(NI, NL))


@kernel("3mm", "matmul-like", "G := (A*B)*(C*D) (three matrix multiplies)",
        {"small": dict(NI=160, NJ=170, NK=180, NL=190, NM=200),
         "medium": dict(NI=240, NJ=250, NK=260, NL=270, NM=280)})
def mm3(p):
    NI, NJ, NK, NL, NM = p["NI"], p["NJ"], p["NK"], p["NL"], p["NM"]
    return T("""
func.func @kernel_3mm(%E: ${tE}, %A: ${tA}, %B: ${tB}, %F: ${tF}, %C: ${tC},
                      %D: ${tD}, %G: ${tG}) {
  %zero = arith.constant 0.0 : f64
  // E := A*B
  linalg.fill ins(%zero : f64) outs(%E : ${tE})
  linalg.matmul ins(%A, %B : ${tA}, ${tB}) outs(%E : ${tE})
  // F := C*D
  linalg.fill ins(%zero : f64) outs(%F : ${tF})
  linalg.matmul ins(%C, %D : ${tC}, ${tD}) outs(%F : ${tF})
  // G := E*F
  linalg.fill ins(%zero : f64) outs(%G : ${tG})
  linalg.matmul ins(%E, %F : ${tE}, ${tF}) outs(%G : ${tG})
  return
}
""", tE=m(NI, NJ), tA=m(NI, NK), tB=m(NK, NJ), tF=m(NJ, NL), tC=m(NJ, NM),
             tD=m(NM, NL), tG=m(NI, NL))


@kernel("atax", "matmul-like", "y := A^T * (A * x)",
        {"small": dict(M=1400, N=1500), "medium": dict(M=2800, N=3000)})
def atax(p):
    M, N = p["M"], p["N"]
    return T("""
func.func @kernel_atax(%A: ${tA}, %x: ${tN}, %y: ${tN}, %tmp: ${tM}) {
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%y : ${tN})
  linalg.fill ins(%zero : f64) outs(%tmp : ${tM})
  // tmp[i] = sum_j A[i][j] * x[j]
  linalg.matvec ins(%A, %x : ${tA}, ${tN}) outs(%tmp : ${tM})
  // y[j] = sum_i A[i][j] * tmp[i]
  linalg.vecmat ins(%tmp, %A : ${tM}, ${tA}) outs(%y : ${tN})
  return
}
""", tA=m(M, N), tN=m(N), tM=m(M))


@kernel("bicg", "matmul-like", "BiCG sub-kernel: s := A^T r, q := A p",
        {"small": dict(M=1400, N=1500), "medium": dict(M=2800, N=3000)})
def bicg(p):
    M, N = p["M"], p["N"]
    return T("""
func.func @kernel_bicg(%A: ${tA}, %s: ${tM}, %q: ${tN}, %p: ${tM}, %r: ${tN}) {
  %zero = arith.constant 0.0 : f64
  linalg.fill ins(%zero : f64) outs(%s : ${tM})
  linalg.fill ins(%zero : f64) outs(%q : ${tN})
  // s[j] = sum_i r[i] * A[i][j]
  linalg.vecmat ins(%r, %A : ${tN}, ${tA}) outs(%s : ${tM})
  // q[i] = sum_j A[i][j] * p[j]
  linalg.matvec ins(%A, %p : ${tA}, ${tM}) outs(%q : ${tN})
  return
}
""", tA=m(N, M), tN=m(N), tM=m(M))


@kernel("mvt", "matmul-like", "x1 += A*y_1; x2 += A^T*y_2",
        {"small": dict(N=1500), "medium": dict(N=3000)})
def mvt(p):
    N = p["N"]
    return T("""
func.func @kernel_mvt(%x1: ${tv}, %x2: ${tv}, %y_1: ${tv}, %y_2: ${tv}, %A: ${tA}) {
  // x1[i] = x1[i] + A[i][j] * y_1[j]
  linalg.matvec ins(%A, %y_1 : ${tA}, ${tv}) outs(%x1 : ${tv})
  // x2[i] = x2[i] + A[j][i] * y_2[j]
  linalg.vecmat ins(%y_2, %A : ${tv}, ${tA}) outs(%x2 : ${tv})
  return
}
""", tA=m(N, N), tv=m(N))


@kernel("doitgen", "matmul-like", "multi-resolution analysis kernel: A[r][q][:] := A[r][q][:] * C4",
        {"small": dict(NR=50, NQ=40, NP=60), "medium": dict(NR=100, NQ=80, NP=90)})
def doitgen(p):
    NR, NQ, NP = p["NR"], p["NQ"], p["NP"]
    return T("""
func.func @kernel_doitgen(%A: ${tA}, %C4: ${tC}, %sum: ${tS}) {
  %zero = arith.constant 0.0 : f64
  affine.for %r = 0 to ${NR} {
    affine.for %q = 0 to ${NQ} {
      %row = memref.subview %A[%r, %q, 0] [1, 1, ${NP}] [1, 1, 1]
          : ${tA} to memref<${NP}xf64, strided<[1], offset: ?>>
      // sum[p] = sum_s A[r][q][s] * C4[s][p]
      linalg.fill ins(%zero : f64) outs(%sum : ${tS})
      linalg.vecmat ins(%row, %C4 : memref<${NP}xf64, strided<[1], offset: ?>>, ${tC})
                    outs(%sum : ${tS})
      // A[r][q][p] = sum[p]
      linalg.copy ins(%sum : ${tS}) outs(%row : memref<${NP}xf64, strided<[1], offset: ?>>)
    }
  }
  return
}
""", NR=NR, NQ=NQ, NP=NP, tA=m(NR, NQ, NP), tC=m(NP, NP), tS=m(NP))


# ---------------------------------------------------------------------------
# linear-algebra/solvers
# ---------------------------------------------------------------------------

def diag_boost(arr, n, ty, amount):
    """Prologue: arr[i][i] += amount (makes a [-1,1) matrix diagonally dominant)."""
    return T("""
  // Prologue (not in PolyBench): make the random input diagonally dominant.
  %boost = arith.constant ${amt} : f64
  affine.for %i = 0 to ${n} {
    %d = affine.load ${arr}[%i, %i] : ${ty}
    %d1 = arith.addf %d, %boost : f64
    affine.store %d1, ${arr}[%i, %i] : ${ty}
  }""", arr=arr, n=n, ty=ty, amt=fconst(amount))


@kernel("cholesky", "solver", "Cholesky decomposition A = L*L^T (in place, lower triangle)",
        {"small": dict(N=400), "medium": dict(N=700)})
def cholesky(p):
    N = p["N"]
    return T(AFFINE_MAPS + """
func.func @kernel_cholesky(%A: ${tA}) {
  // Prologue (not in PolyBench): A := (A + A^T)/2 + N*I, symmetric positive
  // definite for inputs in [-1, 1).
  %half = arith.constant 0.5 : f64
  %nf = arith.constant ${NF} : f64
  affine.for %i = 0 to ${N} {
    affine.for %j = #plus1(%i) to ${N} {
      %aij = affine.load %A[%i, %j] : ${tA}
      %aji = affine.load %A[%j, %i] : ${tA}
      %s = arith.addf %aij, %aji : f64
      %h = arith.mulf %s, %half : f64
      affine.store %h, %A[%i, %j] : ${tA}
      affine.store %h, %A[%j, %i] : ${tA}
    }
    %d = affine.load %A[%i, %i] : ${tA}
    %d1 = arith.addf %d, %nf : f64
    affine.store %d1, %A[%i, %i] : ${tA}
  }
  // Kernel.
  affine.for %i = 0 to ${N} {
    // j < i
    affine.for %j = 0 to #id(%i) {
      affine.for %k = 0 to #id(%j) {
        %aij = affine.load %A[%i, %j] : ${tA}
        %aik = affine.load %A[%i, %k] : ${tA}
        %ajk = affine.load %A[%j, %k] : ${tA}
        %0 = arith.mulf %aik, %ajk : f64
        %1 = arith.subf %aij, %0 : f64
        affine.store %1, %A[%i, %j] : ${tA}
      }
      %aij = affine.load %A[%i, %j] : ${tA}
      %ajj = affine.load %A[%j, %j] : ${tA}
      %2 = arith.divf %aij, %ajj : f64
      affine.store %2, %A[%i, %j] : ${tA}
    }
    // i == j
    affine.for %k = 0 to #id(%i) {
      %aii = affine.load %A[%i, %i] : ${tA}
      %aik = affine.load %A[%i, %k] : ${tA}
      %0 = arith.mulf %aik, %aik : f64
      %1 = arith.subf %aii, %0 : f64
      affine.store %1, %A[%i, %i] : ${tA}
    }
    %aii = affine.load %A[%i, %i] : ${tA}
    %3 = math.sqrt %aii : f64
    affine.store %3, %A[%i, %i] : ${tA}
  }
  return
}
""", N=N, NF=fconst(N), tA=m(N, N))


@kernel("lu", "solver", "LU decomposition without pivoting (in place)",
        {"small": dict(N=320), "medium": dict(N=560)})
def lu(p):
    N = p["N"]
    tA = m(N, N)
    return T(AFFINE_MAPS + """
func.func @kernel_lu(%A: ${tA}) {${pro}
  // Kernel.
  affine.for %i = 0 to ${N} {
    affine.for %j = 0 to #id(%i) {
      affine.for %k = 0 to #id(%j) {
        %aij = affine.load %A[%i, %j] : ${tA}
        %aik = affine.load %A[%i, %k] : ${tA}
        %akj = affine.load %A[%k, %j] : ${tA}
        %0 = arith.mulf %aik, %akj : f64
        %1 = arith.subf %aij, %0 : f64
        affine.store %1, %A[%i, %j] : ${tA}
      }
      %aij = affine.load %A[%i, %j] : ${tA}
      %ajj = affine.load %A[%j, %j] : ${tA}
      %2 = arith.divf %aij, %ajj : f64
      affine.store %2, %A[%i, %j] : ${tA}
    }
    affine.for %j = #id(%i) to ${N} {
      affine.for %k = 0 to #id(%i) {
        %aij = affine.load %A[%i, %j] : ${tA}
        %aik = affine.load %A[%i, %k] : ${tA}
        %akj = affine.load %A[%k, %j] : ${tA}
        %0 = arith.mulf %aik, %akj : f64
        %1 = arith.subf %aij, %0 : f64
        affine.store %1, %A[%i, %j] : ${tA}
      }
    }
  }
  return
}
""", N=N, tA=tA, pro=diag_boost("%A", N, tA, N))


@kernel("ludcmp", "solver", "LU decomposition followed by forward and back substitution (A x = b)",
        {"small": dict(N=320), "medium": dict(N=560)})
def ludcmp(p):
    N = p["N"]
    tA, tv = m(N, N), m(N)
    return T(AFFINE_MAPS + """
#rev = affine_map<(d0) -> (${NM1} - d0)>
#rev1 = affine_map<(d0) -> (${N} - d0)>
func.func @kernel_ludcmp(%A: ${tA}, %b: ${tv}, %x: ${tv}, %y: ${tv}) {${pro}
  // Kernel.
  affine.for %i = 0 to ${N} {
    affine.for %j = 0 to #id(%i) {
      %a0 = affine.load %A[%i, %j] : ${tA}
      %w = affine.for %k = 0 to #id(%j) iter_args(%acc = %a0) -> (f64) {
        %aik = affine.load %A[%i, %k] : ${tA}
        %akj = affine.load %A[%k, %j] : ${tA}
        %0 = arith.mulf %aik, %akj : f64
        %1 = arith.subf %acc, %0 : f64
        affine.yield %1 : f64
      }
      %ajj = affine.load %A[%j, %j] : ${tA}
      %2 = arith.divf %w, %ajj : f64
      affine.store %2, %A[%i, %j] : ${tA}
    }
    affine.for %j = #id(%i) to ${N} {
      %a0 = affine.load %A[%i, %j] : ${tA}
      %w = affine.for %k = 0 to #id(%i) iter_args(%acc = %a0) -> (f64) {
        %aik = affine.load %A[%i, %k] : ${tA}
        %akj = affine.load %A[%k, %j] : ${tA}
        %0 = arith.mulf %aik, %akj : f64
        %1 = arith.subf %acc, %0 : f64
        affine.yield %1 : f64
      }
      affine.store %w, %A[%i, %j] : ${tA}
    }
  }
  // Forward substitution: L y = b.
  affine.for %i = 0 to ${N} {
    %b0 = affine.load %b[%i] : ${tv}
    %w = affine.for %j = 0 to #id(%i) iter_args(%acc = %b0) -> (f64) {
      %aij = affine.load %A[%i, %j] : ${tA}
      %yj = affine.load %y[%j] : ${tv}
      %0 = arith.mulf %aij, %yj : f64
      %1 = arith.subf %acc, %0 : f64
      affine.yield %1 : f64
    }
    affine.store %w, %y[%i] : ${tv}
  }
  // Back substitution: U x = y, i = N-1 down to 0.
  affine.for %t = 0 to ${N} {
    %i = affine.apply #rev(%t)
    %y0 = affine.load %y[%i] : ${tv}
    %w = affine.for %j = #rev1(%t) to ${N} iter_args(%acc = %y0) -> (f64) {
      %aij = affine.load %A[%i, %j] : ${tA}
      %xj = affine.load %x[%j] : ${tv}
      %0 = arith.mulf %aij, %xj : f64
      %1 = arith.subf %acc, %0 : f64
      affine.yield %1 : f64
    }
    %aii = affine.load %A[%i, %i] : ${tA}
    %2 = arith.divf %w, %aii : f64
    affine.store %2, %x[%i] : ${tv}
  }
  return
}
""", N=N, NM1=N - 1, tA=tA, tv=tv, pro=diag_boost("%A", N, tA, N))


@kernel("trisolv", "solver", "triangular solver L x = b (forward substitution)",
        {"small": dict(N=2500), "medium": dict(N=4000)})
def trisolv(p):
    N = p["N"]
    tA, tv = m(N, N), m(N)
    return T(AFFINE_MAPS + """
func.func @kernel_trisolv(%L: ${tA}, %x: ${tv}, %b: ${tv}) {${pro}
  // Kernel.
  affine.for %i = 0 to ${N} {
    %bi = affine.load %b[%i] : ${tv}
    affine.store %bi, %x[%i] : ${tv}
    affine.for %j = 0 to #id(%i) {
      %xi = affine.load %x[%i] : ${tv}
      %lij = affine.load %L[%i, %j] : ${tA}
      %xj = affine.load %x[%j] : ${tv}
      %0 = arith.mulf %lij, %xj : f64
      %1 = arith.subf %xi, %0 : f64
      affine.store %1, %x[%i] : ${tv}
    }
    %xi = affine.load %x[%i] : ${tv}
    %lii = affine.load %L[%i, %i] : ${tA}
    %2 = arith.divf %xi, %lii : f64
    affine.store %2, %x[%i] : ${tv}
  }
  return
}
""", N=N, tA=tA, tv=tv, pro=diag_boost("%L", N, tA, N))


@kernel("durbin", "solver", "Levinson-Durbin recursion for a Toeplitz system",
        {"small": dict(N=3000), "medium": dict(N=6000)})
def durbin(p):
    N = p["N"]
    tv = m(N)
    return T(AFFINE_MAPS + """
#rk = affine_map<(k, i) -> (k - i - 1)>
func.func @kernel_durbin(%r: ${tv}, %y: ${tv}) {
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %quarter = arith.constant 0.25 : f64
  // Prologue (not in PolyBench): r[i] *= 0.25 / (i+1)^2 so that
  // sum |r| < 1/2, the Toeplitz matrix is diagonally dominant and every
  // reflection coefficient stays in (-1, 1).
  affine.for %i = 0 to ${N} {
    %ii = arith.index_cast %i : index to i64
    %fi = arith.sitofp %ii : i64 to f64
    %f1 = arith.addf %fi, %one : f64
    %sq = arith.mulf %f1, %f1 : f64
    %sc = arith.divf %quarter, %sq : f64
    %ri = affine.load %r[%i] : ${tv}
    %rs = arith.mulf %ri, %sc : f64
    affine.store %rs, %r[%i] : ${tv}
  }
  // Kernel.
  %z = memref.alloc() : ${tv}
  %r0 = affine.load %r[0] : ${tv}
  %nr0 = arith.negf %r0 : f64
  affine.store %nr0, %y[0] : ${tv}
  %res:2 = affine.for %k = 1 to ${N} iter_args(%beta = %one, %alpha = %nr0) -> (f64, f64) {
    // beta = (1 - alpha*alpha) * beta
    %a2 = arith.mulf %alpha, %alpha : f64
    %om = arith.subf %one, %a2 : f64
    %beta1 = arith.mulf %om, %beta : f64
    // sum = sum_{i<k} r[k-i-1] * y[i]
    %sum = affine.for %i = 0 to #id(%k) iter_args(%acc = %zero) -> (f64) {
      %rr = affine.load %r[%k - %i - 1] : ${tv}
      %yi = affine.load %y[%i] : ${tv}
      %0 = arith.mulf %rr, %yi : f64
      %1 = arith.addf %acc, %0 : f64
      affine.yield %1 : f64
    }
    // alpha = -(r[k] + sum) / beta
    %rk = affine.load %r[%k] : ${tv}
    %2 = arith.addf %rk, %sum : f64
    %3 = arith.negf %2 : f64
    %alpha1 = arith.divf %3, %beta1 : f64
    affine.for %i = 0 to #id(%k) {
      %yi = affine.load %y[%i] : ${tv}
      %yk = affine.load %y[%k - %i - 1] : ${tv}
      %4 = arith.mulf %alpha1, %yk : f64
      %5 = arith.addf %yi, %4 : f64
      affine.store %5, %z[%i] : ${tv}
    }
    affine.for %i = 0 to #id(%k) {
      %zi = affine.load %z[%i] : ${tv}
      affine.store %zi, %y[%i] : ${tv}
    }
    affine.store %alpha1, %y[%k] : ${tv}
    affine.yield %beta1, %alpha1 : f64, f64
  }
  memref.dealloc %z : ${tv}
  return
}
""", N=N, tv=tv)


@kernel("gramschmidt", "solver", "QR decomposition with modified Gram-Schmidt",
        {"small": dict(M=240, N=200), "medium": dict(M=360, N=300)})
def gramschmidt(p):
    M, N = p["M"], p["N"]
    tA, tR = m(M, N), m(N, N)
    return T(AFFINE_MAPS + """
func.func @kernel_gramschmidt(%A: ${tA}, %R: ${tR}, %Q: ${tA}) {
  %zero = arith.constant 0.0 : f64
  %boost = arith.constant ${MF} : f64
  // Prologue (not in PolyBench): R is zeroed as in PolyBench's init_array (the
  // kernel writes only its upper triangle), and A[k][k] += M makes the columns
  // of A linearly independent for inputs in [-1, 1).
  linalg.fill ins(%zero : f64) outs(%R : ${tR})
  affine.for %k = 0 to ${N} {
    %d = affine.load %A[%k, %k] : ${tA}
    %d1 = arith.addf %d, %boost : f64
    affine.store %d1, %A[%k, %k] : ${tA}
  }
  // Kernel.
  affine.for %k = 0 to ${N} {
    %nrm = affine.for %i = 0 to ${M} iter_args(%acc = %zero) -> (f64) {
      %aik = affine.load %A[%i, %k] : ${tA}
      %0 = arith.mulf %aik, %aik : f64
      %1 = arith.addf %acc, %0 : f64
      affine.yield %1 : f64
    }
    %rkk = math.sqrt %nrm : f64
    affine.store %rkk, %R[%k, %k] : ${tR}
    affine.for %i = 0 to ${M} {
      %aik = affine.load %A[%i, %k] : ${tA}
      %r = affine.load %R[%k, %k] : ${tR}
      %0 = arith.divf %aik, %r : f64
      affine.store %0, %Q[%i, %k] : ${tA}
    }
    affine.for %j = #plus1(%k) to ${N} {
      affine.store %zero, %R[%k, %j] : ${tR}
      affine.for %i = 0 to ${M} {
        %rkj = affine.load %R[%k, %j] : ${tR}
        %qik = affine.load %Q[%i, %k] : ${tA}
        %aij = affine.load %A[%i, %j] : ${tA}
        %0 = arith.mulf %qik, %aij : f64
        %1 = arith.addf %rkj, %0 : f64
        affine.store %1, %R[%k, %j] : ${tR}
      }
      affine.for %i = 0 to ${M} {
        %aij = affine.load %A[%i, %j] : ${tA}
        %qik = affine.load %Q[%i, %k] : ${tA}
        %rkj = affine.load %R[%k, %j] : ${tR}
        %0 = arith.mulf %qik, %rkj : f64
        %1 = arith.subf %aij, %0 : f64
        affine.store %1, %A[%i, %j] : ${tA}
      }
    }
  }
  return
}
""", M=M, N=N, MF=fconst(M), tA=tA, tR=tR)


# ---------------------------------------------------------------------------
# datamining
# ---------------------------------------------------------------------------

def _mean_and_center(N, M, tD, tv, with_stddev):
    """Shared linalg prologue of correlation / covariance."""
    s = T("""
  // mean[j] = sum_i data[i][j] / float_n
  linalg.fill ins(%zero : f64) outs(%mean : ${tv})
  linalg.generic {indexing_maps = [#ij, #j], iterator_types = ["reduction", "parallel"]}
      ins(%data : ${tD}) outs(%mean : ${tv}) {
  ^bb0(%d: f64, %acc: f64):
    %0 = arith.addf %acc, %d : f64
    linalg.yield %0 : f64
  }
  linalg.generic {indexing_maps = [#v], iterator_types = ["parallel"]} outs(%mean : ${tv}) {
  ^bb0(%mj: f64):
    %0 = arith.divf %mj, %float_n : f64
    linalg.yield %0 : f64
  }
""", tD=tD, tv=tv)
    if with_stddev:
        s += T("""
  // stddev[j] = sqrt(sum_i (data[i][j] - mean[j])^2 / float_n), <= eps -> 1
  linalg.fill ins(%zero : f64) outs(%stddev : ${tv})
  linalg.generic {indexing_maps = [#ij, #j, #j], iterator_types = ["reduction", "parallel"]}
      ins(%data, %mean : ${tD}, ${tv}) outs(%stddev : ${tv}) {
  ^bb0(%d: f64, %mj: f64, %acc: f64):
    %0 = arith.subf %d, %mj : f64
    %1 = arith.mulf %0, %0 : f64
    %2 = arith.addf %acc, %1 : f64
    linalg.yield %2 : f64
  }
  linalg.generic {indexing_maps = [#v], iterator_types = ["parallel"]} outs(%stddev : ${tv}) {
  ^bb0(%sj: f64):
    %0 = arith.divf %sj, %float_n : f64
    %1 = math.sqrt %0 : f64
    %2 = arith.cmpf ole, %1, %eps : f64
    %3 = arith.select %2, %one, %1 : f64
    linalg.yield %3 : f64
  }
  // data[i][j] = (data[i][j] - mean[j]) / (sqrt(float_n) * stddev[j])
  %sqrt_n = math.sqrt %float_n : f64
  linalg.generic {indexing_maps = [#j, #j, #ij], iterator_types = ["parallel", "parallel"]}
      ins(%mean, %stddev : ${tv}, ${tv}) outs(%data : ${tD}) {
  ^bb0(%mj: f64, %sj: f64, %d: f64):
    %0 = arith.subf %d, %mj : f64
    %1 = arith.mulf %sqrt_n, %sj : f64
    %2 = arith.divf %0, %1 : f64
    linalg.yield %2 : f64
  }
""", tD=tD, tv=tv)
    else:
        s += T("""
  // data[i][j] -= mean[j]
  linalg.generic {indexing_maps = [#j, #ij], iterator_types = ["parallel", "parallel"]}
      ins(%mean : ${tv}) outs(%data : ${tD}) {
  ^bb0(%mj: f64, %d: f64):
    %0 = arith.subf %d, %mj : f64
    linalg.yield %0 : f64
  }
""", tD=tD, tv=tv)
    return s


DM_MAPS = """#ij = affine_map<(i, j) -> (i, j)>
#j = affine_map<(i, j) -> (j)>
#v = affine_map<(i) -> (i)>
"""


@kernel("correlation", "data-mining", "correlation matrix of M variables over N samples",
        {"small": dict(M=240, N=260), "medium": dict(M=400, N=440)})
def correlation(p):
    M, N = p["M"], p["N"]
    tD, tC, tv = m(N, M), m(M, M), m(M)
    return T(AFFINE_MAPS + DM_MAPS + """
func.func @kernel_correlation(%data: ${tD}, %corr: ${tC}, %mean: ${tv}, %stddev: ${tv}) {
  // PolyBench passes float_n = (DATA_TYPE)N; it is a constant here.
  %float_n = arith.constant ${NF} : f64
  %eps = arith.constant 0.1 : f64
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
${pre}
  // Correlation matrix (upper triangle, mirrored).
  affine.for %i = 0 to ${MM1} {
    affine.store %one, %corr[%i, %i] : ${tC}
    affine.for %j = #plus1(%i) to ${M} {
      affine.store %zero, %corr[%i, %j] : ${tC}
      affine.for %k = 0 to ${N} {
        %c = affine.load %corr[%i, %j] : ${tC}
        %dki = affine.load %data[%k, %i] : ${tD}
        %dkj = affine.load %data[%k, %j] : ${tD}
        %0 = arith.mulf %dki, %dkj : f64
        %1 = arith.addf %c, %0 : f64
        affine.store %1, %corr[%i, %j] : ${tC}
      }
      %cij = affine.load %corr[%i, %j] : ${tC}
      affine.store %cij, %corr[%j, %i] : ${tC}
    }
  }
  affine.store %one, %corr[${MM1}, ${MM1}] : ${tC}
  return
}
""", M=M, N=N, MM1=M - 1, NF=fconst(N), tD=tD, tC=tC, tv=tv,
             pre=_mean_and_center(N, M, tD, tv, True))


@kernel("covariance", "data-mining", "covariance matrix of M variables over N samples",
        {"small": dict(M=240, N=260), "medium": dict(M=400, N=440)})
def covariance(p):
    M, N = p["M"], p["N"]
    tD, tC, tv = m(N, M), m(M, M), m(M)
    return T(AFFINE_MAPS + DM_MAPS + """
func.func @kernel_covariance(%data: ${tD}, %cov: ${tC}, %mean: ${tv}) {
  // PolyBench passes float_n = (DATA_TYPE)N; it is a constant here.
  %float_n = arith.constant ${NF} : f64
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
${pre}
  %nm1 = arith.subf %float_n, %one : f64
  affine.for %i = 0 to ${M} {
    affine.for %j = #id(%i) to ${M} {
      affine.store %zero, %cov[%i, %j] : ${tC}
      affine.for %k = 0 to ${N} {
        %c = affine.load %cov[%i, %j] : ${tC}
        %dki = affine.load %data[%k, %i] : ${tD}
        %dkj = affine.load %data[%k, %j] : ${tD}
        %0 = arith.mulf %dki, %dkj : f64
        %1 = arith.addf %c, %0 : f64
        affine.store %1, %cov[%i, %j] : ${tC}
      }
      %c = affine.load %cov[%i, %j] : ${tC}
      %2 = arith.divf %c, %nm1 : f64
      affine.store %2, %cov[%i, %j] : ${tC}
      affine.store %2, %cov[%j, %i] : ${tC}
    }
  }
  return
}
""", M=M, N=N, NF=fconst(N), tD=tD, tC=tC, tv=tv,
             pre=_mean_and_center(N, M, tD, tv, False))


# ---------------------------------------------------------------------------
# medley
# ---------------------------------------------------------------------------

@kernel("deriche", "stencil", "Deriche recursive edge-detection filter (float)",
        {"small": dict(W=720, H=480), "medium": dict(W=1440, H=960)})
def deriche(p):
    W, H = p["W"], p["H"]
    ty = mr((W, H), "f32")
    return T("""
#rev = affine_map<(d0) -> (${HM1} - d0)>
#revw = affine_map<(d0) -> (${WM1} - d0)>
func.func @kernel_deriche(%alpha_in: f32, %imgIn: ${ty}, %imgOut: ${ty}, %y1: ${ty}, %y2: ${ty}) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %two = arith.constant 2.0 : f32
  %mtwo = arith.constant -2.0 : f32
  // Prologue (not in PolyBench): PolyBench uses alpha = 0.25; a random
  // alpha in [-1, 1) is mapped to 0.25 + 0.125*alpha in [0.125, 0.375), where
  // the filter coefficients are finite and the recursion is stable.
  %c025 = arith.constant 0.25 : f32
  %c0125 = arith.constant 0.125 : f32
  %as = arith.mulf %alpha_in, %c0125 : f32
  %alpha = arith.addf %as, %c025 : f32
  // Filter coefficients.
  %nalpha = arith.negf %alpha : f32
  %ema = math.exp %nalpha : f32
  %om = arith.subf %one, %ema : f32
  %num = arith.mulf %om, %om : f32
  %ta = arith.mulf %two, %alpha : f32
  %tae = arith.mulf %ta, %ema : f32
  %d0 = arith.addf %one, %tae : f32
  %e2a = math.exp %ta : f32
  %den = arith.subf %d0, %e2a : f32
  %k = arith.divf %num, %den : f32
  %am1 = arith.subf %alpha, %one : f32
  %ke = arith.mulf %k, %ema : f32
  %a2 = arith.mulf %ke, %am1 : f32
  %ap1 = arith.addf %alpha, %one : f32
  %a3 = arith.mulf %ke, %ap1 : f32
  %m2a = arith.mulf %mtwo, %alpha : f32
  %em2a = math.exp %m2a : f32
  %nk = arith.negf %k : f32
  %a4 = arith.mulf %nk, %em2a : f32
  %b1 = math.powf %two, %nalpha : f32
  %b2 = arith.negf %em2a : f32
  %c1 = arith.constant 1.0 : f32
  // a1 = a5 = k; a6 = a2, a7 = a3, a8 = a4; c2 = c1
  affine.for %i = 0 to ${W} {
    %r:3 = affine.for %j = 0 to ${H} iter_args(%ym1 = %zero, %ym2 = %zero, %xm1 = %zero) -> (f32, f32, f32) {
      %x = affine.load %imgIn[%i, %j] : ${ty}
      %0 = arith.mulf %k, %x : f32
      %1 = arith.mulf %a2, %xm1 : f32
      %2 = arith.addf %0, %1 : f32
      %3 = arith.mulf %b1, %ym1 : f32
      %4 = arith.addf %2, %3 : f32
      %5 = arith.mulf %b2, %ym2 : f32
      %6 = arith.addf %4, %5 : f32
      affine.store %6, %y1[%i, %j] : ${ty}
      affine.yield %6, %ym1, %x : f32, f32, f32
    }
  }
  affine.for %i = 0 to ${W} {
    %r:4 = affine.for %t = 0 to ${H} iter_args(%yp1 = %zero, %yp2 = %zero, %xp1 = %zero, %xp2 = %zero) -> (f32, f32, f32, f32) {
      %j = affine.apply #rev(%t)
      %0 = arith.mulf %a3, %xp1 : f32
      %1 = arith.mulf %a4, %xp2 : f32
      %2 = arith.addf %0, %1 : f32
      %3 = arith.mulf %b1, %yp1 : f32
      %4 = arith.addf %2, %3 : f32
      %5 = arith.mulf %b2, %yp2 : f32
      %6 = arith.addf %4, %5 : f32
      affine.store %6, %y2[%i, %j] : ${ty}
      %x = affine.load %imgIn[%i, %j] : ${ty}
      affine.yield %6, %yp1, %x, %xp1 : f32, f32, f32, f32
    }
  }
  affine.for %i = 0 to ${W} {
    affine.for %j = 0 to ${H} {
      %0 = affine.load %y1[%i, %j] : ${ty}
      %1 = affine.load %y2[%i, %j] : ${ty}
      %2 = arith.addf %0, %1 : f32
      %3 = arith.mulf %c1, %2 : f32
      affine.store %3, %imgOut[%i, %j] : ${ty}
    }
  }
  affine.for %j = 0 to ${H} {
    %r:3 = affine.for %i = 0 to ${W} iter_args(%tm1 = %zero, %ym1 = %zero, %ym2 = %zero) -> (f32, f32, f32) {
      %x = affine.load %imgOut[%i, %j] : ${ty}
      %0 = arith.mulf %k, %x : f32
      %1 = arith.mulf %a2, %tm1 : f32
      %2 = arith.addf %0, %1 : f32
      %3 = arith.mulf %b1, %ym1 : f32
      %4 = arith.addf %2, %3 : f32
      %5 = arith.mulf %b2, %ym2 : f32
      %6 = arith.addf %4, %5 : f32
      affine.store %6, %y1[%i, %j] : ${ty}
      affine.yield %x, %6, %ym1 : f32, f32, f32
    }
  }
  affine.for %j = 0 to ${H} {
    %r:4 = affine.for %t = 0 to ${W} iter_args(%tp1 = %zero, %tp2 = %zero, %yp1 = %zero, %yp2 = %zero) -> (f32, f32, f32, f32) {
      %i = affine.apply #revw(%t)
      %0 = arith.mulf %a3, %tp1 : f32
      %1 = arith.mulf %a4, %tp2 : f32
      %2 = arith.addf %0, %1 : f32
      %3 = arith.mulf %b1, %yp1 : f32
      %4 = arith.addf %2, %3 : f32
      %5 = arith.mulf %b2, %yp2 : f32
      %6 = arith.addf %4, %5 : f32
      affine.store %6, %y2[%i, %j] : ${ty}
      %x = affine.load %imgOut[%i, %j] : ${ty}
      affine.yield %x, %tp1, %6, %yp1 : f32, f32, f32, f32
    }
  }
  affine.for %i = 0 to ${W} {
    affine.for %j = 0 to ${H} {
      %0 = affine.load %y1[%i, %j] : ${ty}
      %1 = affine.load %y2[%i, %j] : ${ty}
      %2 = arith.addf %0, %1 : f32
      %3 = arith.mulf %c1, %2 : f32
      affine.store %3, %imgOut[%i, %j] : ${ty}
    }
  }
  return
}
""", W=W, H=H, HM1=H - 1, WM1=W - 1, ty=ty)


@kernel("floyd-warshall", "dynamic-programming", "all-pairs shortest paths (int)",
        {"small": dict(N=180), "medium": dict(N=320)})
def floyd_warshall(p):
    N = p["N"]
    ty = mr((N, N), "i32")
    return T("""
func.func @kernel_floyd_warshall(%path: ${ty}) {
  affine.for %k = 0 to ${N} {
    affine.for %i = 0 to ${N} {
      affine.for %j = 0 to ${N} {
        %pij = affine.load %path[%i, %j] : ${ty}
        %pik = affine.load %path[%i, %k] : ${ty}
        %pkj = affine.load %path[%k, %j] : ${ty}
        %s = arith.addi %pik, %pkj : i32
        %lt = arith.cmpi slt, %pij, %s : i32
        %r = arith.select %lt, %pij, %s : i32
        affine.store %r, %path[%i, %j] : ${ty}
      }
    }
  }
  return
}
""", N=N, ty=ty)


@kernel("nussinov", "dynamic-programming", "Nussinov RNA folding (int)",
        {"small": dict(N=400), "medium": dict(N=700)})
def nussinov(p):
    N = p["N"]
    ts, ty = mr((N,), "i8"), mr((N, N), "i32")
    return T(AFFINE_MAPS + """
#rev = affine_map<(d0) -> (${NM1} - d0)>
#rev1 = affine_map<(d0) -> (${N} - d0)>
#bond = affine_set<(i, j) : (j - i - 2 >= 0)>
func.func @kernel_nussinov(%seq: ${ts}, %table: ${ty}) {
  %c0 = arith.constant 0 : i32
  %c1 = arith.constant 1 : i32
  %c3 = arith.constant 3 : i32
  // Prologue: table is zeroed as in PolyBench's init_array (the kernel reads
  // entries below the diagonal that it never writes).
  linalg.fill ins(%c0 : i32) outs(%table : ${ty})
  // Kernel: i = N-1 down to 0, j = i+1 .. N-1. PolyBench's guards
  // (j-1 >= 0) and (i+1 < N) always hold inside these bounds.
  affine.for %t = 0 to ${N} {
    %i = affine.apply #rev(%t)
    affine.for %j = #rev1(%t) to ${N} {
      // table[i][j] = max(table[i][j], table[i][j-1])
      %t0 = affine.load %table[%i, %j] : ${ty}
      %w = affine.load %table[%i, %j - 1] : ${ty}
      %m0 = arith.maxsi %t0, %w : i32
      affine.store %m0, %table[%i, %j] : ${ty}
      // table[i][j] = max(table[i][j], table[i+1][j])
      %t1 = affine.load %table[%i, %j] : ${ty}
      %s = affine.load %table[%i + 1, %j] : ${ty}
      %m1 = arith.maxsi %t1, %s : i32
      affine.store %m1, %table[%i, %j] : ${ty}
      affine.if #bond(%i, %j) {
        // don't allow adjacent elements to bond
        %t2 = affine.load %table[%i, %j] : ${ty}
        %sw = affine.load %table[%i + 1, %j - 1] : ${ty}
        %bi = affine.load %seq[%i] : ${ts}
        %bj = affine.load %seq[%j] : ${ts}
        %bi32 = arith.extsi %bi : i8 to i32
        %bj32 = arith.extsi %bj : i8 to i32
        %bs = arith.addi %bi32, %bj32 : i32
        %is3 = arith.cmpi eq, %bs, %c3 : i32
        %match = arith.select %is3, %c1, %c0 : i32
        %v = arith.addi %sw, %match : i32
        %m2 = arith.maxsi %t2, %v : i32
        affine.store %m2, %table[%i, %j] : ${ty}
      } else {
        %t2 = affine.load %table[%i, %j] : ${ty}
        %sw = affine.load %table[%i + 1, %j - 1] : ${ty}
        %m2 = arith.maxsi %t2, %sw : i32
        affine.store %m2, %table[%i, %j] : ${ty}
      }
      affine.for %k = #plus1(%i) to #id(%j) {
        %t3 = affine.load %table[%i, %j] : ${ty}
        %l = affine.load %table[%i, %k] : ${ty}
        %r = affine.load %table[%k + 1, %j] : ${ty}
        %sum = arith.addi %l, %r : i32
        %m3 = arith.maxsi %t3, %sum : i32
        affine.store %m3, %table[%i, %j] : ${ty}
      }
    }
  }
  return
}
""", N=N, NM1=N - 1, ts=ts, ty=ty)


# ---------------------------------------------------------------------------
# stencils
# ---------------------------------------------------------------------------

@kernel("adi", "stencil", "alternating direction implicit 2-D heat solver (column then row sweeps)",
        {"small": dict(TSTEPS=20, N=200), "medium": dict(TSTEPS=30, N=300)})
def adi(p):
    N, TS = p["N"], p["TSTEPS"]
    ty = m(N, N)
    return T("""
#rev = affine_map<(d0) -> (${NM2} - d0)>
func.func @kernel_adi(%u: ${ty}, %v: ${ty}, %p: ${ty}, %q: ${ty}) {
  %zero = arith.constant 0.0 : f64
  %one = arith.constant 1.0 : f64
  %two = arith.constant 2.0 : f64
  %nf = arith.constant ${NF} : f64
  %tf = arith.constant ${TF} : f64
  %DX = arith.divf %one, %nf : f64
  %DY = arith.divf %one, %nf : f64
  %DT = arith.divf %one, %tf : f64
  %B1 = arith.constant 2.0 : f64
  %B2 = arith.constant 1.0 : f64
  %dx2 = arith.mulf %DX, %DX : f64
  %dy2 = arith.mulf %DY, %DY : f64
  %b1dt = arith.mulf %B1, %DT : f64
  %mul1 = arith.divf %b1dt, %dx2 : f64
  %b2dt = arith.mulf %B2, %DT : f64
  %mul2 = arith.divf %b2dt, %dy2 : f64
  %nmul1 = arith.negf %mul1 : f64
  %a = arith.divf %nmul1, %two : f64
  %b = arith.addf %one, %mul1 : f64
  %nmul2 = arith.negf %mul2 : f64
  %d = arith.divf %nmul2, %two : f64
  %e = arith.addf %one, %mul2 : f64
  %nc = arith.negf %a : f64  // -c, c = a
  %nd = arith.negf %d : f64
  %nf_ = arith.negf %d : f64  // -f, f = d
  %na = arith.negf %a : f64
  %twod = arith.mulf %two, %d : f64
  %opd = arith.addf %one, %twod : f64
  %twoa = arith.mulf %two, %a : f64
  %opa = arith.addf %one, %twoa : f64
  // Prologue: v, p and q are scratch arrays that PolyBench leaves
  // uninitialised; the kernel never writes some of their borders, so they are
  // zeroed here to make every output element defined.
  linalg.fill ins(%zero : f64) outs(%v : ${ty})
  linalg.fill ins(%zero : f64) outs(%p : ${ty})
  linalg.fill ins(%zero : f64) outs(%q : ${ty})
  affine.for %t = 1 to ${TS1} {
    // Column sweep
    affine.for %i = 1 to ${NM1} {
      affine.store %one, %v[0, %i] : ${ty}
      affine.store %zero, %p[%i, 0] : ${ty}
      %v0 = affine.load %v[0, %i] : ${ty}
      affine.store %v0, %q[%i, 0] : ${ty}
      affine.for %j = 1 to ${NM1} {
        %pm = affine.load %p[%i, %j - 1] : ${ty}
        %0 = arith.mulf %a, %pm : f64
        %den = arith.addf %0, %b : f64
        %1 = arith.divf %nc, %den : f64
        affine.store %1, %p[%i, %j] : ${ty}
        %ul = affine.load %u[%j, %i - 1] : ${ty}
        %uc = affine.load %u[%j, %i] : ${ty}
        %ur = affine.load %u[%j, %i + 1] : ${ty}
        %qm = affine.load %q[%i, %j - 1] : ${ty}
        %2 = arith.mulf %nd, %ul : f64
        %3 = arith.mulf %opd, %uc : f64
        %4 = arith.addf %2, %3 : f64
        %5 = arith.mulf %d, %ur : f64  // f*u[j][i+1], f = d
        %6 = arith.subf %4, %5 : f64
        %7 = arith.mulf %a, %qm : f64
        %8 = arith.subf %6, %7 : f64
        %9 = arith.divf %8, %den : f64
        affine.store %9, %q[%i, %j] : ${ty}
      }
      affine.store %one, %v[${NM1}, %i] : ${ty}
      affine.for %jj = 0 to ${NM2} {
        %j = affine.apply #rev(%jj)
        %pij = affine.load %p[%i, %j] : ${ty}
        %vn = affine.load %v[%j + 1, %i] : ${ty}
        %qij = affine.load %q[%i, %j] : ${ty}
        %0 = arith.mulf %pij, %vn : f64
        %1 = arith.addf %0, %qij : f64
        affine.store %1, %v[%j, %i] : ${ty}
      }
    }
    // Row sweep
    affine.for %i = 1 to ${NM1} {
      affine.store %one, %u[%i, 0] : ${ty}
      affine.store %zero, %p[%i, 0] : ${ty}
      %u0 = affine.load %u[%i, 0] : ${ty}
      affine.store %u0, %q[%i, 0] : ${ty}
      affine.for %j = 1 to ${NM1} {
        %pm = affine.load %p[%i, %j - 1] : ${ty}
        %0 = arith.mulf %d, %pm : f64
        %den = arith.addf %0, %e : f64
        %1 = arith.divf %nf_, %den : f64
        affine.store %1, %p[%i, %j] : ${ty}
        %vu = affine.load %v[%i - 1, %j] : ${ty}
        %vc = affine.load %v[%i, %j] : ${ty}
        %vd = affine.load %v[%i + 1, %j] : ${ty}
        %qm = affine.load %q[%i, %j - 1] : ${ty}
        %2 = arith.mulf %na, %vu : f64
        %3 = arith.mulf %opa, %vc : f64
        %4 = arith.addf %2, %3 : f64
        %5 = arith.mulf %a, %vd : f64  // c*v[i+1][j], c = a
        %6 = arith.subf %4, %5 : f64
        %7 = arith.mulf %d, %qm : f64
        %8 = arith.subf %6, %7 : f64
        %9 = arith.divf %8, %den : f64
        affine.store %9, %q[%i, %j] : ${ty}
      }
      affine.store %one, %u[%i, ${NM1}] : ${ty}
      affine.for %jj = 0 to ${NM2} {
        %j = affine.apply #rev(%jj)
        %pij = affine.load %p[%i, %j] : ${ty}
        %un = affine.load %u[%i, %j + 1] : ${ty}
        %qij = affine.load %q[%i, %j] : ${ty}
        %0 = arith.mulf %pij, %un : f64
        %1 = arith.addf %0, %qij : f64
        affine.store %1, %u[%i, %j] : ${ty}
      }
    }
  }
  return
}
""", N=N, NM1=N - 1, NM2=N - 2, TS1=TS + 1, NF=fconst(N), TF=fconst(TS), ty=ty)


@kernel("fdtd-2d", "stencil", "2-D finite-difference time-domain electromagnetic kernel",
        {"small": dict(TMAX=50, NX=300, NY=360), "medium": dict(TMAX=100, NX=500, NY=600)})
def fdtd_2d(p):
    TMAX, NX, NY = p["TMAX"], p["NX"], p["NY"]
    ty, tf = m(NX, NY), m(TMAX)
    return T("""
func.func @kernel_fdtd_2d(%ex: ${ty}, %ey: ${ty}, %hz: ${ty}, %_fict_: ${tf}) {
  %half = arith.constant 0.5 : f64
  %c07 = arith.constant 0.7 : f64
  affine.for %t = 0 to ${TMAX} {
    %fict = affine.load %_fict_[%t] : ${tf}
    affine.for %j = 0 to ${NY} {
      affine.store %fict, %ey[0, %j] : ${ty}
    }
    affine.for %i = 1 to ${NX} {
      affine.for %j = 0 to ${NY} {
        %e = affine.load %ey[%i, %j] : ${ty}
        %h = affine.load %hz[%i, %j] : ${ty}
        %hm = affine.load %hz[%i - 1, %j] : ${ty}
        %0 = arith.subf %h, %hm : f64
        %1 = arith.mulf %half, %0 : f64
        %2 = arith.subf %e, %1 : f64
        affine.store %2, %ey[%i, %j] : ${ty}
      }
    }
    affine.for %i = 0 to ${NX} {
      affine.for %j = 1 to ${NY} {
        %e = affine.load %ex[%i, %j] : ${ty}
        %h = affine.load %hz[%i, %j] : ${ty}
        %hm = affine.load %hz[%i, %j - 1] : ${ty}
        %0 = arith.subf %h, %hm : f64
        %1 = arith.mulf %half, %0 : f64
        %2 = arith.subf %e, %1 : f64
        affine.store %2, %ex[%i, %j] : ${ty}
      }
    }
    affine.for %i = 0 to ${NXM1} {
      affine.for %j = 0 to ${NYM1} {
        %h = affine.load %hz[%i, %j] : ${ty}
        %exr = affine.load %ex[%i, %j + 1] : ${ty}
        %exc = affine.load %ex[%i, %j] : ${ty}
        %eyd = affine.load %ey[%i + 1, %j] : ${ty}
        %eyc = affine.load %ey[%i, %j] : ${ty}
        %0 = arith.subf %exr, %exc : f64
        %1 = arith.addf %0, %eyd : f64
        %2 = arith.subf %1, %eyc : f64
        %3 = arith.mulf %c07, %2 : f64
        %4 = arith.subf %h, %3 : f64
        affine.store %4, %hz[%i, %j] : ${ty}
      }
    }
  }
  return
}
""", TMAX=TMAX, NX=NX, NY=NY, NXM1=NX - 1, NYM1=NY - 1, ty=ty, tf=tf)


def _heat_step(src, dst, N, ty):
    return T("""
    affine.for %i = 1 to ${NM1} {
      affine.for %j = 1 to ${NM1} {
        affine.for %k = 1 to ${NM1} {
          %c = affine.load ${src}[%i, %j, %k] : ${ty}
          %ip = affine.load ${src}[%i + 1, %j, %k] : ${ty}
          %im = affine.load ${src}[%i - 1, %j, %k] : ${ty}
          %jp = affine.load ${src}[%i, %j + 1, %k] : ${ty}
          %jm = affine.load ${src}[%i, %j - 1, %k] : ${ty}
          %kp = affine.load ${src}[%i, %j, %k + 1] : ${ty}
          %km = affine.load ${src}[%i, %j, %k - 1] : ${ty}
          %c2 = arith.mulf %two, %c : f64
          %0 = arith.subf %ip, %c2 : f64
          %1 = arith.addf %0, %im : f64
          %2 = arith.mulf %c0125, %1 : f64
          %3 = arith.subf %jp, %c2 : f64
          %4 = arith.addf %3, %jm : f64
          %5 = arith.mulf %c0125, %4 : f64
          %6 = arith.subf %kp, %c2 : f64
          %7 = arith.addf %6, %km : f64
          %8 = arith.mulf %c0125, %7 : f64
          %9 = arith.addf %2, %5 : f64
          %10 = arith.addf %9, %8 : f64
          %11 = arith.addf %10, %c : f64
          affine.store %11, ${dst}[%i, %j, %k] : ${ty}
        }
      }
    }""", src=src, dst=dst, NM1=N - 1, ty=ty)


@kernel("heat-3d", "stencil", "3-D heat equation, explicit time stepping (A <-> B)",
        {"small": dict(TSTEPS=20, N=60), "medium": dict(TSTEPS=40, N=90)})
def heat_3d(p):
    TS, N = p["TSTEPS"], p["N"]
    ty = m(N, N, N)
    return T("""
func.func @kernel_heat_3d(%A: ${ty}, %B: ${ty}) {
  %two = arith.constant 2.0 : f64
  %c0125 = arith.constant 0.125 : f64
  affine.for %t = 1 to ${TS1} {${s1}${s2}
  }
  return
}
""", TS1=TS + 1, ty=ty, s1=_heat_step("%A", "%B", N, ty), s2=_heat_step("%B", "%A", N, ty))


@kernel("jacobi-1d", "stencil", "1-D Jacobi stencil, explicit time stepping (A <-> B)",
        {"small": dict(TSTEPS=1000, N=10000), "medium": dict(TSTEPS=1000, N=30000)})
def jacobi_1d(p):
    TS, N = p["TSTEPS"], p["N"]
    ty = m(N)
    step = """
    affine.for %i = 1 to ${NM1} {
      %l = affine.load ${src}[%i - 1] : ${ty}
      %c = affine.load ${src}[%i] : ${ty}
      %r = affine.load ${src}[%i + 1] : ${ty}
      %0 = arith.addf %l, %c : f64
      %1 = arith.addf %0, %r : f64
      %2 = arith.mulf %third, %1 : f64
      affine.store %2, ${dst}[%i] : ${ty}
    }"""
    return T("""
func.func @kernel_jacobi_1d(%A: ${ty}, %B: ${ty}) {
  %third = arith.constant 0.33333 : f64
  affine.for %t = 0 to ${TS} {${s1}${s2}
  }
  return
}
""", TS=TS, ty=ty, s1=T(step, src="%A", dst="%B", NM1=N - 1, ty=ty),
             s2=T(step, src="%B", dst="%A", NM1=N - 1, ty=ty))


@kernel("jacobi-2d", "stencil", "2-D Jacobi 5-point stencil, explicit time stepping (A <-> B)",
        {"small": dict(TSTEPS=50, N=400), "medium": dict(TSTEPS=100, N=700)})
def jacobi_2d(p):
    TS, N = p["TSTEPS"], p["N"]
    ty = m(N, N)
    step = """
    affine.for %i = 1 to ${NM1} {
      affine.for %j = 1 to ${NM1} {
        %c = affine.load ${src}[%i, %j] : ${ty}
        %w = affine.load ${src}[%i, %j - 1] : ${ty}
        %e = affine.load ${src}[%i, %j + 1] : ${ty}
        %s = affine.load ${src}[%i + 1, %j] : ${ty}
        %n = affine.load ${src}[%i - 1, %j] : ${ty}
        %0 = arith.addf %c, %w : f64
        %1 = arith.addf %0, %e : f64
        %2 = arith.addf %1, %s : f64
        %3 = arith.addf %2, %n : f64
        %4 = arith.mulf %fifth, %3 : f64
        affine.store %4, ${dst}[%i, %j] : ${ty}
      }
    }"""
    return T("""
func.func @kernel_jacobi_2d(%A: ${ty}, %B: ${ty}) {
  %fifth = arith.constant 0.2 : f64
  affine.for %t = 0 to ${TS} {${s1}${s2}
  }
  return
}
""", TS=TS, ty=ty, s1=T(step, src="%A", dst="%B", NM1=N - 1, ty=ty),
             s2=T(step, src="%B", dst="%A", NM1=N - 1, ty=ty))


@kernel("seidel-2d", "stencil", "2-D Gauss-Seidel 9-point stencil, in place, time stepped",
        {"small": dict(TSTEPS=10, N=300), "medium": dict(TSTEPS=20, N=450)})
def seidel_2d(p):
    TS, N = p["TSTEPS"], p["N"]
    ty = m(N, N)
    return T("""
func.func @kernel_seidel_2d(%A: ${ty}) {
  %nine = arith.constant 9.0 : f64
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %tsteps = arith.constant ${TS} : index
  // The time loop is an scf.for: t-i-j as a perfect affine nest would be tiled
  // rectangularly by MLIR 19's affine-loop-tile, which does not check
  // dependences; that is illegal for this in-place Gauss-Seidel sweep.
  scf.for %t = %c0 to %tsteps step %c1 {
    affine.for %i = 1 to ${NM1} {
      affine.for %j = 1 to ${NM1} {
        %0 = affine.load %A[%i - 1, %j - 1] : ${ty}
        %1 = affine.load %A[%i - 1, %j] : ${ty}
        %2 = affine.load %A[%i - 1, %j + 1] : ${ty}
        %3 = affine.load %A[%i, %j - 1] : ${ty}
        %4 = affine.load %A[%i, %j] : ${ty}
        %5 = affine.load %A[%i, %j + 1] : ${ty}
        %6 = affine.load %A[%i + 1, %j - 1] : ${ty}
        %7 = affine.load %A[%i + 1, %j] : ${ty}
        %8 = affine.load %A[%i + 1, %j + 1] : ${ty}
        %s1 = arith.addf %0, %1 : f64
        %s2 = arith.addf %s1, %2 : f64
        %s3 = arith.addf %s2, %3 : f64
        %s4 = arith.addf %s3, %4 : f64
        %s5 = arith.addf %s4, %5 : f64
        %s6 = arith.addf %s5, %6 : f64
        %s7 = arith.addf %s6, %7 : f64
        %s8 = arith.addf %s7, %8 : f64
        %r = arith.divf %s8, %nine : f64
        affine.store %r, %A[%i, %j] : ${ty}
      }
    }
  }
  return
}
""", TS=TS, NM1=N - 1, ty=ty)
