// A random loop program (fuzz9 seed 20188): the shipped policy proposes tiling
// after every step, and the dependence check refuses it each time. Refusals
// counted as failed passes, so the selection gave up after five.
func.func @kernel(%A0: memref<10x10xf32>, %A1: memref<51xf32>, %n: index) {
  affine.for %i1 = 0 to min affine_map<()[s0] -> (s0, 4)>()[%n] step 3 {
    affine.for %i2 = 0 to 5 step 1 {
      %v3 = affine.load %A1[2] : memref<51xf32>
      %v4 = affine.load %A0[2, %i2 + 2] : memref<10x10xf32>
      %c5 = arith.constant -0.5 : f32
      %v6 = arith.mulf %v4, %c5 : f32
      %v7 = arith.addf %v3, %v6 : f32
      %c8 = arith.constant 0.5 : f32
      %v9 = arith.mulf %v7, %c8 : f32
      %a11 = affine.apply affine_map<(d0) -> (d0)>(%i1)
      affine.store %v9, %A1[%a11] : memref<51xf32>
    }
  }
  affine.for %i12 = 2 to 26 step 1 {
    affine.for %i13 = 0 to 10 step 1 {
      %a15 = affine.apply affine_map<(d0) -> (d0)>(%i13)
      %a16 = affine.apply affine_map<(d0) -> (d0)>(%i13)
      %v17 = affine.load %A0[%a15, %a16] : memref<10x10xf32>
      %v18 = affine.load %A1[2 * %i13] : memref<51xf32>
      %a20 = affine.apply affine_map<(d0) -> (1)>(%i13)
      %a21 = affine.apply affine_map<(d0) -> (d0)>(%i13)
      %v22 = affine.load %A0[%a20, %a21] : memref<10x10xf32>
      %v23 = affine.load %A1[2 * %i12] : memref<51xf32>
      %v24 = arith.cmpf oge, %v17, %v18 : f32
      %v25 = arith.select %v24, %v17, %v18 : f32
      %c26 = arith.constant 1.0 : f32
      %v27 = math.absf %v22 : f32
      %v28 = arith.addf %v27, %c26 : f32
      %v29 = arith.divf %v25, %v28 : f32
      %v30 = arith.cmpf ogt, %v29, %v23 : f32
      %v31 = arith.select %v30, %v29, %v23 : f32
      affine.if affine_set<(d0)[s0] : (d0 - 1 >= 0, -d0 + 4 >= 0)>(%i12)[%n] {
        %a33 = affine.apply affine_map<(d0) -> (d0 + 3)>(%i12)
        affine.store %v31, %A1[%a33] : memref<51xf32>
      }
    }
  }
  affine.for %i34 = 0 to 7 step 2 {
    affine.for %i35 = 0 to min affine_map<()[s0] -> (s0, 4)>()[%n] step 2 {
      %a37 = affine.apply affine_map<(d0) -> (d0)>(%i34)
      %v38 = affine.load %A1[%a37] : memref<51xf32>
      %v39 = affine.load %A1[%i34] : memref<51xf32>
      %v40 = arith.minimumf %v38, %v39 : f32
      %a42 = affine.apply affine_map<(d0) -> (d0 * 2)>(%i34)
      affine.store %v40, %A1[%a42] : memref<51xf32>
    }
  }
  return
}
