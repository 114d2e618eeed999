"""Writes a torch-mlir style module with large weight constants: one as a
hex-encoded dense<"0x..."> literal and one as a dense_resource blob."""
import struct
import sys

n = int(sys.argv[1]) if len(sys.argv) > 1 else 512
form = sys.argv[2] if len(sys.argv) > 2 else "hex"
values = [((i * 7919) % 1000) / 1000.0 - 0.5 for i in range(n * n)]
blob = b"".join(struct.pack("<f", v) for v in values)
if form == "hex":
    weight = 'dense<"0x%s"> : tensor<%dx%dxf32>' % (blob.hex().upper(), n, n)
    resources = ""
else:
    weight = "dense_resource<__weight> : tensor<%dx%dxf32>" % (n, n)
    # Resource blobs start with their alignment as a little-endian u32.
    resources = '{-#\n  dialect_resources: {\n    builtin: {\n      __weight: "0x%s"\n    }\n  }\n#-}\n' % (
        (struct.pack("<I", 4) + blob).hex().upper())
print(f"""func.func @forward(%x: tensor<8x{n}xf32>) -> tensor<8x{n}xf32> {{
  %w = arith.constant {weight}
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x{n}xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<8x{n}xf32>) -> tensor<8x{n}xf32>
  %y = linalg.matmul ins(%x, %w : tensor<8x{n}xf32>, tensor<{n}x{n}xf32>) outs(%f : tensor<8x{n}xf32>) -> tensor<8x{n}xf32>
  return %y : tensor<8x{n}xf32>
}}
{resources}""")
