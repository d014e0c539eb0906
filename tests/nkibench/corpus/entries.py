"""Our manifest entries for the classic-API kernel corpus (the format: tests/nkibench/corpus/README.md).

Shapes are small where a kernel allows (the corpus test runs every entry numerically on nkisim); inputs are
float32 normal(0, 1) unless an entry says otherwise."""

SDK = "sdk226/general__nki__examples__"
AO = "accelopt/samples__nki__"


def t(*shape, dist="normal", low=None, high=None):
    d = {"shape": list(shape), "dtype": "float32"}
    if dist != "normal":
        d.update(dist=dist, low=low, high=high)
    return d


def v(value):
    return {"value": value}


def e(ident, file, function, inputs, reference, rtol=2e-5, grid=None, expect_error=None):
    d = {"id": ident, "file": file, "function": function, "inputs": inputs, "reference": reference, "rtol": rtol}
    if grid:
        d["grid"] = grid
    if expect_error:
        d["expect_error"] = expect_error
    return d


MAMBA_B = [t(2, 256, 1024, dist="uniform", low=0.01, high=0.1), t(2, 256, 1024), t(256, 8, dist="uniform",
           low=-1.5, high=-0.5), t(2, 8, 1024), t(2, 8, 1024)]
MAMBA = [t(256, 512, dist="uniform", low=0.01, high=0.1), t(256, 512), t(256, 4, dist="uniform", low=-1.5,
         high=-0.5), t(4, 512), t(4, 512)]

ENTRIES = [
    e("sdk226/getting_started", SDK + "getting_started_baremetal.py", "nki_tensor_add_kernel",
      [t(128, 512), t(128, 512)], "add"),
    e("sdk226/spmd_add", SDK + "tensor_addition__spmd_tensor_addition_nki_kernels.py", "nki_tensor_add_kernel_",
      [t(256, 1024), t(256, 1024)], "add", grid=[2, 2]),
    e("sdk226/transpose2d", SDK + "transpose2d__transpose2d_nki_kernels.py", "tensor_transpose2D_kernel_",
      [t(128, 12), v([3, 4])], "transpose_rows"),
    e("sdk226/layout_pass", SDK + "layout-pass.py", "tensor_exp_kernel_", [t(128, 512)], "exp"),
    # its `return` sits inside the tile loop (so on hardware too only the first 128 rows are written): one tile
    e("sdk226/layout_dynamic_loop", SDK + "layout-dynamic-loop.py", "tensor_exp_kernel_", [t(100, 256)], "exp"),
    # the documented example of a rule violation: 256 partitions; the compiler rejects it, and so must nkisim
    e("sdk226/layout_violation", SDK + "layout-violation.py", "tensor_exp_kernel_", [t(256, 512)], "exp",
      expect_error="partition"),
    e("sdk226/index_split", SDK + "index-case-1.py", "tensor_split_kernel_", [t(128, 513)], "split_even_odd"),
    e("sdk226/index_maxpool", SDK + "index-case-3.py", "tensor_maxpool_kernel_", [t(64, 16, 16), v(2)], "maxpool"),
    e("sdk226/avgpool", SDK + "average_pool2d__average_pool2d_nki_kernels.py", "tensor_avgpool_kernel",
      [t(64, 16, 16), v(2)], "avgpool"),
    e("sdk226/mm_nl_spmd", SDK + "mm-nl-spmd.py", "matmul_128x128x512_spmd", [t(512, 128), t(128, 1024)],
      "matmul", grid=[4, 2]),
    e("sdk226/mm_nisa_spmd", SDK + "mm-nisa-spmd.py", "matmul_128x128x512_spmd", [t(128, 512), t(128, 1024)],
      "matmul_t", grid=[4, 2]),
    e("sdk226/matmul_basic", SDK + "matrix_multiplication__matrix_multiplication_nki_kernels.py",
      "nki_matmul_basic_", [t(128, 64), t(128, 512)], "matmul_t"),
    e("sdk226/matmul_tiled", SDK + "matrix_multiplication__matrix_multiplication_nki_kernels.py",
      "nki_matmul_tiled_", [t(256, 256), t(256, 1024)], "matmul_t"),
    e("sdk226/matmul_hoist_load", SDK + "matrix_multiplication__matrix_multiplication_nki_kernels.py",
      "nki_matmul_hoist_load_", [t(256, 256), t(256, 1024)], "matmul_t"),
    e("sdk226/matmul_block_free", SDK + "matrix_multiplication__matrix_multiplication_nki_kernels.py",
      "nki_matmul_block_free_dimension_", [t(256, 512), t(256, 2048)], "matmul_t"),
    e("sdk226/matmul_fully_optimized", SDK + "matrix_multiplication__matrix_multiplication_nki_kernels.py",
      "nki_matmul_fully_optimized_", [t(1024, 2048), t(1024, 1024)], "matmul_t"),
    e("sdk226/rmsnorm", SDK + "rmsnorm__rmsnorm_nki_kernels.py", "nki_rmsnorm_kernel", [t(300, 512), t(512)],
      "rmsnorm"),
    e("sdk226/layernorm_v1", SDK + "layernorm__layernorm_nki_kernel.py", "nki_layernorm_kernel_v1",
      [t(300, 512), v(1e-5), t(512), t(512)], "layernorm"),
    e("sdk226/layernorm_v2", SDK + "layernorm__layernorm_nki_kernel.py", "nki_layernorm_kernel_v2",
      [t(300, 512), v(1e-5), t(512), t(512)], "layernorm"),
    e("sdk226/mamba_v1", SDK + "fused_mamba__mamba_nki_kernels.py", "mamba_v1", MAMBA_B, "mamba_batched", 3e-5),
    e("sdk226/mamba_v2", SDK + "fused_mamba__mamba_nki_kernels.py", "mamba_v2", MAMBA_B, "mamba_batched", 3e-5),
    e("sdk226/mamba_v3", SDK + "fused_mamba__mamba_nki_kernels.py", "mamba_v3", MAMBA_B, "mamba_batched", 3e-5),
    e("accelopt/mamba_v1", AO + "mamba_v1.py", "kernel", MAMBA, "mamba", 3e-5),
    e("accelopt/mamba_v2", AO + "mamba_v2.py", "kernel", MAMBA, "mamba", 3e-5),
    e("accelopt/mamba_v3", AO + "mamba_v3.py", "kernel", MAMBA, "mamba", 3e-5),
]
