// Older Polygeist output (found by sweep 7 in ScaleHLS-HIDA's samples): type entries in
// the pre-19 DLTI form, several of them wrong for MLIR 19. MLIR's verifier named a
// different one from run to run; mqss names the first, and says what to change.
module attributes {dlti.dl_spec = #dlti.dl_spec<#dlti.dl_entry<"dlti.endianness", "little">, #dlti.dl_entry<i64, dense<64> : vector<2xi32>>, #dlti.dl_entry<f80, dense<128> : vector<2xi32>>, #dlti.dl_entry<i1, dense<8> : vector<2xi32>>, #dlti.dl_entry<f64, dense<64> : vector<2xi32>>, #dlti.dl_entry<f128, dense<128> : vector<2xi32>>>} {
  func.func @f(%a: memref<4xf32>) {
    return
  }
}
