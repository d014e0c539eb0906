"""Fused Mamba selective-scan calibration kernels: our own versions of v1, v2 and v3 (nki-facts §4.3).

Inputs (fp32): delta, u [batch, channels, seq]; A [channels, state]; B, C [batch, state, seq].
out[b, c, t] = sum_s C[b,s,t] * h_s[t], h_s[t] = exp(delta[b,c,t]*A[c,s]) * h_s[t-1] + delta[b,c,t]*u[b,c,t]*B[b,s,t].

The B and C rows are broadcast across the 128 partitions with a TensorE matmul of a ones row (nki-facts §2.1
broadcast_to), 512 columns at a time (one PSUM bank).
"""
import numpy as np

from neuronxcc import nki
import neuronxcc.nki.isa as nisa
import neuronxcc.nki.language as nl

P = 128
CH = 512  # one PSUM bank of fp32


@nki.jit
def mamba_v1(delta, u, A, B, C):
    """Straightforward: channel tiles outside, states inside; everything recomputed per state; the broadcasts
    are evicted to SBUF, so every VectorE multiply reads two SBUF tiles."""
    batch, channels, seq = delta.shape
    state = A.shape[1]
    out = nl.ndarray((batch, channels, seq), dtype=delta.dtype, buffer=nl.shared_hbm)
    ones = nl.ones((1, P), dtype=nl.float32)
    for b in nl.affine_range(batch):
        for c in nl.affine_range(channels // P):
            acc = nl.zeros((P, seq), dtype=nl.float32)
            for s in nl.affine_range(state):
                d_t = nl.load(delta[b, c * P:(c + 1) * P, 0:seq])
                u_t = nl.load(u[b, c * P:(c + 1) * P, 0:seq])
                a_t = nl.load(A[c * P:(c + 1) * P, s:s + 1])
                b_row = nl.load(B[b, s:s + 1, 0:seq])
                c_row = nl.load(C[b, s:s + 1, 0:seq])
                dA = nisa.activation(op=nl.exp, data=d_t, scale=a_t)
                dU = nl.multiply(d_t, u_t)
                b_bc = nl.ndarray((P, seq), dtype=nl.float32)
                c_bc = nl.ndarray((P, seq), dtype=nl.float32)
                for j in nl.affine_range(seq // CH):
                    b_bc[:, j * CH:(j + 1) * CH] = nisa.tensor_copy(
                        nisa.nc_matmul(ones, b_row[:, j * CH:(j + 1) * CH]), engine=nisa.scalar_engine)
                    c_bc[:, j * CH:(j + 1) * CH] = nisa.tensor_copy(
                        nisa.nc_matmul(ones, c_row[:, j * CH:(j + 1) * CH]), engine=nisa.scalar_engine)
                dBu = nl.multiply(dU, b_bc)
                h = nisa.tensor_tensor_scan(dA, dBu, initial=0.0, op0=np.multiply, op1=np.add)
                acc += nl.multiply(h, c_bc)
            nl.store(out[b, c * P:(c + 1) * P, 0:seq], value=acc)
    return out


@nki.jit
def mamba_v2(delta, u, A, B, C):
    """Loop-invariant work leaves the state loop: delta, u, delta*u and the A columns are loaded or computed
    once per channel tile. A broadcast that fits one PSUM bank (seq <= 512) stays in PSUM and is read there
    directly; a longer one is evicted to SBUF chunk by chunk, and the chain works in place to stay in SBUF."""
    batch, channels, seq = delta.shape
    state = A.shape[1]
    out = nl.ndarray((batch, channels, seq), dtype=delta.dtype, buffer=nl.shared_hbm)
    ones = nl.ones((1, P), dtype=nl.float32)
    for b in nl.affine_range(batch):
        for c in nl.affine_range(channels // P):
            d_t = nl.load(delta[b, c * P:(c + 1) * P, 0:seq])
            u_t = nl.load(u[b, c * P:(c + 1) * P, 0:seq])
            a_t = nl.load(A[c * P:(c + 1) * P, 0:state])
            dU = nl.multiply(d_t, u_t)
            del u_t
            acc = nl.zeros((P, seq), dtype=nl.float32)
            for s in nl.affine_range(state):
                dA = nisa.activation(op=nl.exp, data=d_t, scale=a_t[:, s:s + 1])
                if seq <= CH:
                    b_row = nl.load(B[b, s:s + 1, 0:seq])
                    c_row = nl.load(C[b, s:s + 1, 0:seq])
                    dBu = nl.multiply(dU, nisa.nc_matmul(ones, b_row))
                    h = nisa.tensor_tensor_scan(dA, dBu, initial=0.0, op0=np.multiply, op1=np.add)
                    acc += nl.multiply(h, nisa.nc_matmul(ones, c_row))
                else:
                    bc = nl.ndarray((P, seq), dtype=nl.float32)
                    for j in nl.affine_range(seq // CH):
                        row = nl.load(B[b, s:s + 1, j * CH:(j + 1) * CH])
                        bc[:, j * CH:(j + 1) * CH] = nisa.tensor_copy(nisa.nc_matmul(ones, row),
                                                                     engine=nisa.scalar_engine)
                    bc[...] = nl.multiply(dU, bc)
                    dA[...] = nisa.tensor_tensor_scan(dA, bc, initial=0.0, op0=np.multiply, op1=np.add)
                    for j in nl.affine_range(seq // CH):
                        row = nl.load(C[b, s:s + 1, j * CH:(j + 1) * CH])
                        bc[:, j * CH:(j + 1) * CH] = nisa.tensor_copy(nisa.nc_matmul(ones, row),
                                                                     engine=nisa.scalar_engine)
                    bc[...] = nl.multiply(dA, bc)
                    acc += bc
            nl.store(out[b, c * P:(c + 1) * P, 0:seq], value=acc)
    return out


@nki.jit
def mamba_v3(delta, u, A, B, C):
    """The sequence is cut into 512-column chunks, so every tile stays small and every broadcast stays in PSUM.
    The scan carries its last column from chunk to chunk (a static_range, as the tutorial does)."""
    batch, channels, seq = delta.shape
    state = A.shape[1]
    out = nl.ndarray((batch, channels, seq), dtype=delta.dtype, buffer=nl.shared_hbm)
    ones = nl.ones((1, P), dtype=nl.float32)
    for b in nl.affine_range(batch):
        for c in nl.affine_range(channels // P):
            a_t = nl.load(A[c * P:(c + 1) * P, 0:state])
            carry = nl.zeros((P, state), dtype=nl.float32)
            for j in nl.static_range(seq // CH):
                t0 = j * CH
                d_t = nl.load(delta[b, c * P:(c + 1) * P, t0:t0 + CH])
                u_t = nl.load(u[b, c * P:(c + 1) * P, t0:t0 + CH])
                dU = nl.multiply(d_t, u_t)
                acc = nl.zeros((P, CH), dtype=nl.float32)
                for s in nl.affine_range(state):
                    b_row = nl.load(B[b, s:s + 1, t0:t0 + CH])
                    c_row = nl.load(C[b, s:s + 1, t0:t0 + CH])
                    dA = nisa.activation(op=nl.exp, data=d_t, scale=a_t[:, s:s + 1])
                    dBu = nl.multiply(dU, nisa.nc_matmul(ones, b_row))
                    h = nisa.tensor_tensor_scan(dA, dBu, initial=carry[:, s:s + 1], op0=np.multiply, op1=np.add)
                    carry[:, s:s + 1] = nl.copy(h[:, CH - 1:CH])
                    acc += nl.multiply(h, nisa.nc_matmul(ones, c_row))
                nl.store(out[b, c * P:(c + 1) * P, t0:t0 + CH], value=acc)
    return out


def reference(delta, u, A, B, C):
    """numpy reference of the selective scan (fp32)."""
    delta = delta.astype(np.float32)
    batch, channels, seq = delta.shape
    dA = np.exp(delta[:, :, None, :] * A[None, :, :, None])  # [b, c, s, t]
    dBu = (delta * u)[:, :, None, :] * B[:, None, :, :]
    h = np.zeros(dA.shape[:3], dtype=np.float32)
    out = np.zeros((batch, channels, seq), dtype=np.float32)
    for t in range(seq):
        h = dA[..., t] * h + dBu[..., t]
        out[:, :, t] = np.einsum("bcs,bs->bc", h, C[:, :, t])
    return out
