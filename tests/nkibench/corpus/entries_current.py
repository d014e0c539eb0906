"""Our manifest entries for the current-API (nki.*) kernel corpus (the format: tests/nkibench/corpus/README.md),
for what `assemble.py --generation current` gathers. Inputs are float32 normal(0, 1) unless an entry says otherwise;
shapes are small where a kernel allows."""
from entries import MAMBA_B, e, t, v

SDK = "sdk/nki__examples__"
SMP = "samples/src__nki_samples__tutorials__"
MM = "matrix_multiplication__matrix_multiplication_nki_kernels.py"


def u(ident, file, function, reason):
    """A kernel nkisim cannot run yet: the entry says why, and the test checks nkisim refuses it with that reason."""
    return {"id": ident, "file": file, "function": function, "inputs": [], "reference": "", "rtol": 0,
            "unsupported": reason}


def _matmuls(prefix, path):
    return [
        e(f"{prefix}/matmul_basic", path, "nki_matmul_basic_", [t(128, 64), t(128, 512)], "matmul_t"),
        e(f"{prefix}/matmul_tiled", path, "nki_matmul_tiled_", [t(256, 256), t(256, 1024)], "matmul_t"),
        e(f"{prefix}/matmul_hoist_load", path, "nki_matmul_hoist_load_", [t(256, 256), t(256, 1024)], "matmul_t"),
        e(f"{prefix}/matmul_block_free", path, "nki_matmul_block_free_dimension_", [t(256, 512), t(256, 2048)],
          "matmul_t"),
        e(f"{prefix}/matmul_fully_optimized", path, "nki_matmul_fully_optimized_", [t(1024, 2048), t(1024, 1024)],
          "matmul_t"),
    ]


MX = "the MX (microscaling) matmul tutorial: it imports its sibling mx_kernel_utils and uses nc_matmul_mx / " \
     "quantize_mx (NeuronCore-v4), which nkisim does not simulate"

ENTRIES = _matmuls("sdk", SDK + MM) + _matmuls("samples", SMP + MM) + [
    e("sdk/getting_started", SDK + "getting_started_baremetal.py", "nki_tensor_add_kernel",
      [t(128, 512), t(128, 512)], "add"),
    e("sdk/getting_started_jax", SDK + "getting_started_jax.py", "nki_tensor_add_kernel",
      [t(128, 512), t(128, 512)], "add"),
    e("sdk/getting_started_torch", SDK + "getting_started_torch.py", "nki_tensor_add_kernel",
      [t(128, 512), t(128, 512)], "add"),
    e("sdk/simulate_example", SDK + "simulate__nki_simulate_example.py", "add_kernel", [t(128, 512), t(128, 512)],
      "add"),
    e("sdk/tensor_addition", SDK + "tensor_addition__tensor_addition_nki_kernels.py", "nki_tensor_add",
      [t(256, 1024), t(256, 1024)], "add"),
    e("sdk/transpose2d", SDK + "transpose2d__transpose2d_nki_kernels.py", "tensor_transpose2D_kernel_",
      [t(128, 12), v([3, 4])], "transpose_rows"),
    e("sdk/layout_pass", SDK + "layout-pass.py", "tensor_exp_kernel_", [t(128, 512)], "exp"),
    # the documented example of a rule violation: 256 partitions; the compiler rejects it, and so must nkisim
    e("sdk/layout_violation", SDK + "layout-violation.py", "tensor_exp_kernel_", [t(256, 512)], "exp",
      expect_error="partition"),
    # published with an unclosed parenthesis (`nl.load(in_tensor[i_p, 0:sz_f]`): Python itself rejects it
    e("sdk/layout_dynamic_loop", SDK + "layout-dynamic-loop.py", "tensor_exp_kernel_", [t(100, 256)], "exp",
      expect_error="syntax error"),
    e("sdk/index_split", SDK + "index-case-1.py", "tensor_split_kernel_", [t(128, 513)], "split_even_odd"),
    e("sdk/index_maxpool", SDK + "index-case-3.py", "tensor_maxpool_kernel_", [t(64, 16, 16), v(2)], "maxpool"),
    e("sdk/avgpool", SDK + "average_pool2d__average_pool2d_nki_kernels.py", "tensor_avgpool_kernel",
      [t(64, 16, 16), v(2)], "avgpool"),
    e("sdk/mamba_v1", SDK + "fused_mamba__mamba_nki_kernels.py", "mamba_v1", MAMBA_B, "mamba_batched", 3e-5),
    e("sdk/mamba_v2", SDK + "fused_mamba__mamba_nki_kernels.py", "mamba_v2", MAMBA_B, "mamba_batched", 3e-5),
    e("sdk/mamba_v3", SDK + "fused_mamba__mamba_nki_kernels.py", "mamba_v3", MAMBA_B, "mamba_batched", 3e-5),
    u("sdk/mx_kernels", "sdk/nki__deep-dives__src__mxfp-matmul__mx_kernels.py", "kernel_offline_quantized_mx_matmul",
      MX),
    u("samples/mx_kernels", "samples/src__nki_samples__tutorials__mxfp-matmul__mx_kernels.py",
      "kernel_offline_quantized_mx_matmul", MX),
]
