// A linalg op on buffers whose output is its input transposed, in place: its
// loops read elements they wrote before; the elementwise schedule read 8x32
// tiles whole first (found by a random linalg program generator).
func.func @main(%A: memref<32x32xf32>) {
  linalg.transpose ins(%A : memref<32x32xf32>) outs(%A : memref<32x32xf32>) permutation = [1, 0]
  return
}
