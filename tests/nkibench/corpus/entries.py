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


def obj(name, **kwargs):
    """An object the kernel's module defines, built with these keyword arguments; g("A.B") names a value of it."""
    return {"construct": name, "kwargs": kwargs}


def g(path):
    return {"global": path}


def e(ident, file, function, inputs, reference, rtol=2e-5, grid=None, expect_error=None, covers=None):
    d = {"id": ident, "file": file, "function": function, "inputs": inputs, "reference": reference, "rtol": rtol}
    if grid:
        d["grid"] = grid
    if covers:
        d["covers"] = covers
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

NKB = "accelopt/NKIBench__kernels__"
B = [t(16, 4096, 64), t(16, 64, 4096)]
# The NKIBench baselines are generated for one problem size each and hard-code it (shapes and loop counts), so most
# entries run them at that size; the generic ones (mamba, matmul_add_rmsnorm, rope) run smaller.
ENTRIES += [
    e("accelopt/nkibench_adamw", NKB + "adamw_M10944_N2048_0.py", "kernel",
      [t(10944, 2048), t(10944, 2048), t(10944, 2048), t(10944, 2048, dist="uniform", low=0.0, high=2.0)],
      "adamw_step"),
    e("accelopt/nkibench_add_rmsnorm_matmul", NKB + "add_rmsnorm_matmul_M4096_N2048_K1024_0.py", "kernel",
      [t(4096, 1024), t(1024, 2048), v(1e-5), t(4096, 1024), t(1024)], "add_rmsnorm_matmul", 1e-4),
    e("accelopt/nkibench_bmm", NKB + "bmm_B16_M4096_K64_N4096_0.py", "kernel", B, "bmm_tiled", 1e-4),
    e("accelopt/nkibench_bmm_softmax", NKB + "bmm_softmax_B16_K64_M4096_N4096_0.py", "kernel", B,
      "bmm_softmax_tiled", 1e-4),
    e("accelopt/nkibench_gqa_full", NKB + "gqa_full_B1_N4096_QH16_KH8_D128_0.py", "kernel",
      [t(32, 128, 16, 128), t(1, 8, 4, 128, 8, 128), t(1, 32, 128, 1024)], "gqa_tiled", 1e-4),
    e("accelopt/nkibench_lora", NKB + "lora_M4096_N12288_K5120_R128_0.py", "kernel",
      [t(8, 4, 128, 40, 128), t(40, 128, 12288), t(40, 128, 128), t(128, 12288)], "lora_tiled", 1e-4),
    e("accelopt/nkibench_mamba", NKB + "mamba_M7168_C256_S16_0.py", "kernel", MAMBA, "mamba", 3e-5),
    e("accelopt/nkibench_matmul", NKB + "matmul_M4096_N12288_K5120_0.py", "kernel",
      [t(32, 128, 40, 128), t(40, 128, 12288)], "matmul_tiled", 1e-4),
    e("accelopt/nkibench_matmul_add_rmsnorm", NKB + "matmul_add_rmsnorm_M4096_N2048_K2048_0.py", "kernel",
      [t(256, 512), t(512, 1024), v(1e-5), t(256, 1024), t(1024)], "matmul_add_rmsnorm", 1e-4),
    e("accelopt/nkibench_rmsnorm_matmul", NKB + "rmsnorm_matmul_M4096_N2048_K1024_0.py", "kernel",
      [t(32, 128, 1024), t(8, 128, 2048)], "rmsnorm_matmul_tiled", 1e-4),
    e("accelopt/nkibench_rope", NKB + "rope_single_freq_apply_B1_H64_N4096_D128_0.py", "kernel",
      [t(128, 2048), t(64, 2048), t(64, 2048)], "rope_halves"),
    e("accelopt/nkibench_silu", NKB + "silu_M4096_N7168_0.py", "kernel", [t(128, 32, 7168)], "silu"),
    e("accelopt/nkibench_swiglu", NKB + "swiglu_M4096_N3072_K1024_0.py", "kernel",
      [t(8, 4, 128, 8, 128), t(8, 128, 3072), t(24, 128, 1024), t(8, 128, 3072)], "swiglu_tiled", 1e-4),
    e("accelopt/nkibench_transpose_matmul", NKB + "transpose_matmul_M4096_K2048_N10944_0.py", "kernel",
      [t(128, 16, 4096), t(128, 16, 10944)], "transpose_matmul_tiled", 1e-4),
    e("accelopt/rope_optimized", AO + "rope_optimized.py", "kernel", [t(128, 4096), t(64, 4096), t(64, 4096)],
      "rope_halves"),
]


def u(ident, file, function, reason):
    """A kernel nkisim cannot run (yet), or the corpus cannot give what it needs: the entry says why, and the test
    checks the failure names it, so the gap stays visible."""
    return {"id": ident, "file": file, "function": function, "inputs": [], "reference": "", "rtol": 0,
            "unsupported": reason}


SMP = "samples/src__nki_samples__tutorials__"
REF = "samples_ref/src__nki_samples__reference__"
REF_PKG = "samples_ref/src/nki_samples/reference/"  # kernel files that import their package's modules keep its layout
ATT = SMP + "attention_fwd_performance__attention_kernels.py"
SDK_ATT = SDK + "attention__attention_kernels.py"
TORCH_XLA = "its module imports torch_xla (PyTorch/XLA, the Neuron device bridge) at its top level, for its host " \
            "harness; Debian packages no torch_xla, so the module cannot load here"
ENTRIES += [
    e("samples/avgpool", SMP + "average_pool2d__average_pool2d_nki_kernels.py", "tensor_avgpool_kernel",
      [t(64, 16, 16), v(2)], "avgpool"),
    e("samples/mamba_v1", SMP + "fused_mamba__mamba_nki_kernels.py", "mamba_v1", MAMBA_B, "mamba_batched", 3e-5),
    e("samples/mamba_v2", SMP + "fused_mamba__mamba_nki_kernels.py", "mamba_v2", MAMBA_B, "mamba_batched", 3e-5),
    e("samples/mamba_v3", SMP + "fused_mamba__mamba_nki_kernels.py", "mamba_v3", MAMBA_B, "mamba_batched", 3e-5),
    e("samples/spmd_add", SMP + "tensor_addition__spmd_tensor_addition_nki_kernels.py", "nki_tensor_add_kernel_",
      [t(256, 1024), t(256, 1024)], "add", grid=[2, 2]),
    e("samples/tensor_add", SMP + "tensor_addition__tensor_addition_nki_kernels.py", "nki_tensor_add_kernel_",
      [t(256, 1024), t(256, 1024)], "add", grid=[2, 2]),
    e("samples/transpose2d", SMP + "transpose2d__transpose2d_nki_kernels.py", "tensor_transpose2D_kernel_",
      [t(128, 12), v([3, 4])], "transpose_rows"),
    e("samples/attn_fwd_v1", ATT, "attn_fwd_v1", [t(128, 128), t(128, 128), t(128, 128)], "attention_dk", 1e-4),
    e("samples/attn_fwd_v2", ATT, "attn_fwd_v2", [t(128, 128), t(128, 128), t(128, 128)], "attention_dk", 1e-4),
] + [e(f"samples/attn_fwd_{n}", ATT, f"attn_fwd_{n}", [t(128, 1024), t(128, 1024), t(128, 1024)], "attention_dk",
       2e-2) for n in ("v3", "v4", "v5", "v6", "v7", "v8", "v8a", "v9", "v10", "v11")] + [
    # the SDK docs' copy of the same attention tutorial (it imports torch, unused, at its top level)
    e(f"sdk226/attn_fwd_{n}", SDK_ATT, f"attn_fwd_{n}", [t(128, 128 if n in ("v1", "v2") else 1024)] * 3,
      "attention_dk", 1e-4 if n in ("v1", "v2") else 2e-2)
    for n in ("v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v8a", "v9", "v10", "v11")] + [
    # bilinear 2x upsampling, chunked along H (chunk 10 by default): 130 rows of (N, C) (a partial partition tile)
    e("samples/interpolate_bilinear", "samples/contributed__interpolate_bilinear_fwd.py",
      "interpolate_bilinear_2x_fwd", [t(2, 65, 23, 17)], "upsample_bilinear_2x"),
    u("samples/interpolate_trilinear", "samples/contributed__interpolate_trilinear_fwd.py",
      "interpolate_trilinear_2x_fwd", TORCH_XLA),
    e("samples/maxpooling", "samples/contributed__maxpooling.py", "max_pooling_2d_stride_1", [t(200, 48), v(3)],
      "maxpool_stride1"),
    # like layout-dynamic-loop, its `return` sits inside the tile loop: one tile
    e("sdk226/prof_kernel", SDK + "prof-kernel.py", "tensor_exp_kernel_", [t(100, 256)], "exp"),
    # bf16 matmuls (mixed_precision=True, the default)
    e("sdk226/sd_attention", SDK + "sd_attention__sd_attention_nki_kernels.py",
      "fused_self_attn_for_SD_small_head_size", [t(512, 64), t(512, 64), t(512, 64)], "attention_sd", 2e-2),
    # its module runs its own test at import (16k tokens, bf16, `flash_fwd[0](...)`: about a minute on nkisim); the
    # kernel works on 8192-token sections of the keys and needs two at least (the second rescales the first)
    e("samples/pipelined_attention", "samples/contributed__pipelined_attention.py", "flash_fwd",
      [t(1, 128, 16384), t(1, 128, 16384), t(1, 16384, 128), v(0.125), v(False)], "attention_pipelined", 2e-2,
      grid=[1]),
    e("sdk226/getting_started_jax", SDK + "getting_started_jax.py", "nki_tensor_add_kernel",
      [t(128, 512), t(128, 512)], "add"),
    e("sdk226/getting_started_torch", SDK + "getting_started_torch.py", "nki_tensor_add_kernel",
      [t(128, 512), t(128, 512)], "add"),
    e("samples_ref/tutorial_add", REF + "tutorial.py", "add_kernel_nx8x128x512",
      [t(2, 8, 128, 512), t(2, 8, 128, 512), v(2 * 8 * 128 * 512)], "add_blocks", grid=[2]),
    e("samples_ref/allocated_attention", REF + "allocated_attention.py",
      "allocated_fused_self_attn_for_SD_small_head_size", [t(1, 128, 1024), t(1, 128, 1024), t(1, 1024, 128)],
      "attention_sd_batched", 2e-2),
    e("samples_ref/allocated_fused_rms_norm_qkv", REF + "allocated_fused_linear.py", "allocated_fused_rms_norm_qkv",
      [{"shape": [1, 256, 512], "dtype": "float16"}, {"shape": [512, 384], "dtype": "float16"}], "rmsnorm_qkv", 2e-2),
    # grouped-query: two query heads share one key/value head, the grid is (batch, kv heads); the default config
    # trains (it returns the log-sum-exp too); its causal mask is nisa.affine_select straight on the PSUM scores
    e("samples_ref/flash_fwd", REF + "attention.py", "flash_fwd",
      [t(1, 2, 128, 2048), t(1, 1, 128, 2048), t(1, 1, 2048, 128), v(None)], "flash_attention", 2e-2, grid=[1, 1]),
    # its rhs arrives quantized, as float8_e4m3 (the host array nl.static_cast makes); 2 x 2 x 2 blocks of tiles
    e("samples_ref/double_row_matmul", REF + "double_row_matmul.py", "quantized_double_row_matmul",
      [t(256, 512), {"shape": [256, 2048], "dtype": "float8_e4m3"}, t(128, 1024, dist="uniform", low=0.5, high=2.0),
       v(2), v(2), v(2)], "quantized_double_row_matmul", 2e-2),
    e("samples_ref/adaptive_avg_pool2d", REF + "vision.py", "adaptive_avg_pool2d_kernel",
      [t(1, 128, 12, 12), v([5, 4])], "adaptive_avgpool"),
    # 200 rows (a partial second partition tile); the output is float8_e4m3, each row's float32 scale in its last 4
    # elements as bytes (some of which read as NaN)
    e("samples_ref/rmsnorm_quant", REF_PKG + "rmsnorm_quant/rmsnorm_quant.py", "rmsnorm_quant_kernel",
      [t(2, 100, 512), t(512), obj("RmsNormQuantKernelArgs", lower_bound=0.0)], "rmsnorm_quant", 2e-2,
      # the kernel file beside it holds only build_constants, a trace-mode sub-kernel (@nki.jit(mode='trace'),
      # traced into the kernel that calls it, as the SDK runs it): this entry runs it
      covers=[REF_PKG + "rmsnorm_quant/rmsnorm_quant_constants.py"]),
    # launched on a 1-D grid it shards the rows over the instances (100 each)
    e("samples_ref/rmsnorm_quant_spmd", REF_PKG + "rmsnorm_quant/rmsnorm_quant.py", "rmsnorm_quant_kernel",
      [t(2, 100, 512), t(512), obj("RmsNormQuantKernelArgs", lower_bound=0.0)], "rmsnorm_quant", 2e-2, grid=[2]),
    e("samples_ref/rmsnorm_quant_no_norm", REF_PKG + "rmsnorm_quant/rmsnorm_quant.py", "rmsnorm_quant_kernel",
      [t(2, 100, 512), t(512), obj("RmsNormQuantKernelArgs", lower_bound=4.0, norm_type=g("NormType.NO_NORM"))],
      "rmsnorm_quant", 2e-2),
]
