"""Train / validation / test split, assigned per KERNEL (every size of a kernel
shares its split). Rule: roughly 60% / 15% / 25% of the kernels, and every
family has at least one kernel in train and one in test (validation where the
family has 3+ kernels). generate.py checks the family rule.
"""

_BY_SPLIT = {
    "train": [
        # matmul-like
        "gemm", "2mm", "gemver", "symm", "syrk", "atax", "mvt", "doitgen",
        "backprop", "matmul-bias-relu", "matmul-bias-relu-bf16", "mlp-block",
        # solver
        "cholesky", "lu", "gramschmidt", "lud",
        # data-mining
        "correlation", "kmeans",
        # stencil
        "jacobi-1d", "jacobi-2d", "adi", "deriche", "hotspot", "srad",
        # dynamic-programming
        "floyd-warshall", "pathfinder",
        # conv
        "conv2d-nhwc-3x3-s1", "conv2d-nhwc-1x1-s1", "conv2d-nhwc-3x3-s2",
        "conv2d-nchw-1x1-s2",
        # pooling, elementwise, reduction, normalization, attention
        "maxpool-3x3-s2", "gelu-tanh", "elementwise-chain", "reduce-sum",
        "softmax", "attention",
    ],
    "validation": [
        "gesummv", "trmm", "batch-matmul-bias-relu", "trisolv", "fdtd-2d", "nw",
        "conv2d-nhwc-3x3-bf16", "transpose", "batchnorm",
    ],
    "test": [
        "3mm", "syr2k", "bicg", "matmul-dyn", "ludcmp", "durbin", "covariance",
        "seidel-2d", "heat-3d", "nussinov", "conv2d-nchw-3x3-s1",
        "depthwise-conv-3x3", "avgpool-2x2", "gelu-bf16", "reduce-mean-hw",
        "layernorm", "attention-bf16",
    ],
}

SPLIT = {}
for _split, _kernels in _BY_SPLIT.items():
    for _k in _kernels:
        assert _k not in SPLIT, _k
        SPLIT[_k] = _split
