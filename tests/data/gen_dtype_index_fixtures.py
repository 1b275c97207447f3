"""gen_dtype_index_fixtures.py — writes the JAX fixtures of
tests/test_dtypes_sort_index.c (tests/data/dtype_index/*.npy): sort,
argsort, top_k, searchsorted, quantile/median, gather and the scatter
family on the dtypes i8 i16 u8 u16 u32 u64 f16 bf16, index operands of
every integer dtype, and gathers/scatters whose index vector is not the
last axis (XLA's index_vector_dim). Computed by jax.jit on CPU. Not run by
`make test`: it needs JAX. Run: python3 tests/data/gen_dtype_index_fixtures.py

f16 arrays are saved as <f2, bf16 ones as ml_dtypes.bfloat16 (numpy writes
<V2, which cjax reads as bf16). Sorting and indexing run with x64 on (u64
operands exist); the quantiles run again with x64 off in a child process
(`--x32`), the mode cjax's promotion follows: a Python float q is f32 there.

lax has no index_vector_dim argument (its index vector is always the last
axis); XLA's semantics are that the index vector sits on axis ivd of the
indices (ivd = rank: scalar indices), so the reference for a case with
ivd is lax.gather / lax.scatter of the indices with that axis moved last
(or a unit axis appended), which is exactly XLA's definition."""
import os
import subprocess
import sys

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dtype_index")
NAMES = ["i8", "i16", "u8", "u16", "u32", "u64", "f16", "bf16"]


def dtypes():
    import ml_dtypes
    return {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64, "u8": np.uint8, "u16": np.uint16,
            "u32": np.uint32, "u64": np.uint64, "f16": np.float16, "bf16": ml_dtypes.bfloat16, "f32": np.float32}


def save(name, a):
    a = np.asarray(a)
    np.save(os.path.join(OUT, name + ".npy"), a)


def values(rng, dt, shape):
    """Random values with the type's extremes, duplicates and (floats) NaNs
    of both signs, +-0 and +-inf mixed in."""
    n = int(np.prod(shape))
    d = np.dtype(dt)
    if d.kind in "iu":
        info = np.iinfo(d)
        lo, hi = int(info.min), int(info.max)
        v = rng.integers(lo, hi, size=n, dtype=np.int64 if d != np.uint64 else np.uint64, endpoint=True).astype(d)
        special = [lo, hi, 0, 1, lo + 1, hi - 1, 2, 2, 2]
        small = rng.integers(0, 4, size=n // 3).astype(d)  # runs of equal values
        v[: len(small)] = small
        special = np.array(special, dtype=np.int64 if lo < 0 else np.uint64).astype(d)[: n - len(small)]
        v[len(small): len(small) + len(special)] = special
    else:
        f = rng.standard_normal(n).astype(np.float32) * 4
        f[: n // 4] = np.round(f[: n // 4])  # duplicates
        v = f.astype(d)
        special = np.array([np.nan, -np.nan, 0.0, -0.0, np.inf, -np.inf, 0.0, -0.0, 1.5, 1.5], dtype=np.float32)
        special = special[: n - n // 4]
        v[n // 4: n // 4 + len(special)] = special.astype(d)
    rng.shuffle(v)
    return v.reshape(shape)


def sort_fixtures(jax, jnp, lax, rng, dts):
    for name in NAMES:
        dt = dts[name]
        x = values(rng, dt, (3, 40))
        save(f"sort_{name}_x", x)
        save(f"sort_{name}_ax1", jax.jit(lambda a: lax.sort(a, dimension=1))(x))
        save(f"sort_{name}_ax0", jax.jit(lambda a: lax.sort(a, dimension=0))(x))
        save(f"argsort_{name}", jax.jit(lambda a: jnp.argsort(a, axis=1, stable=True).astype(jnp.int32))(x))
        save(f"argsort_desc_{name}",
             jax.jit(lambda a: jnp.argsort(a, axis=1, stable=True, descending=True).astype(jnp.int32))(x))
        v, i = jax.jit(lambda a: lax.top_k(a, 7))(x)
        save(f"top_k_{name}_values", v)
        save(f"top_k_{name}_indices", np.asarray(i).astype(np.int32))
        # two keys of this dtype (few distinct values) and an i32 payload
        k1 = values(rng, dt, (2, 30))
        k1 = np.where(np.arange(60).reshape(2, 30) % 3 == 0, k1, k1.reshape(-1)[0]).astype(dt)
        k2 = values(rng, dt, (2, 30))
        pay = np.arange(60, dtype=np.int32).reshape(2, 30)
        o = jax.jit(lambda a, b, c: lax.sort((a, b, c), dimension=1, num_keys=2))(k1, k2, pay)
        save(f"lex_{name}_k1", k1)
        save(f"lex_{name}_k2", k2)
        for j in range(3):
            save(f"lex_{name}_out{j}", o[j])
        # searchsorted: a sorted row (NaNs last) and queries with ties
        a = np.asarray(jax.jit(lambda a: lax.sort(a))(values(rng, dt, (25,))))
        q = np.concatenate([a[::3], values(rng, dt, (8,))])
        save(f"ss_{name}_a", a)
        save(f"ss_{name}_v", q)
        for side in ["left", "right"]:
            r = jax.jit(lambda a, v: jnp.searchsorted(a, v, side=side))(a, q)
            save(f"ss_{name}_{side}", np.asarray(r).astype(np.int32))


def gather_fixtures(jax, jnp, lax, rng, dts):
    G = lax.GatherDimensionNumbers
    S = lax.ScatterDimensionNumbers
    gd = G(offset_dims=(1,), collapsed_slice_dims=(0,), start_index_map=(0,))
    sd = S(update_window_dims=(1,), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))
    for name in NAMES:
        dt = dts[name]
        x = values(rng, dt, (5, 6))
        save(f"g_{name}_x", x)
        idx = np.array([[0], [4], [2], [7], [2]], dtype=np.int32)  # 7 out of range
        for mode in ["fill", "clip"]:
            m = lax.GatherScatterMode.FILL_OR_DROP if mode == "fill" else lax.GatherScatterMode.CLIP
            save(f"g_{name}_{mode}", jax.jit(lambda a, i: lax.gather(a, i, gd, (1, 6), mode=m))(x, idx))
        # scatters with duplicate indices (index 1 four times), one dropped
        sidx = np.array([[1], [3], [1], [1], [9], [0], [1]], dtype=np.int32)
        u = values(rng, dt, (7, 6))
        if np.dtype(dt).kind == "f":
            # many small updates on one row: rounding after each update shows
            u[::2] = (np.float32(0.1) * (1 + np.arange(24, dtype=np.float32).reshape(4, 6) % 5)).astype(dt)
        save(f"s_{name}_idx", sidx)
        save(f"s_{name}_u", u)
        for kind, fn in [("set", lax.scatter), ("add", lax.scatter_add), ("mul", lax.scatter_mul),
                         ("min", lax.scatter_min), ("max", lax.scatter_max)]:
            save(f"s_{name}_{kind}", jax.jit(lambda a, i, v: fn(a, i, v, sd))(x, sidx, u))
        # a long run of additions to one element (f16/bf16: per-update rounding)
        z = np.zeros((3,), dtype=dt)
        ones = np.full((200,), 3 if np.dtype(dt).kind in "iu" else 0.7, dtype=dt)
        lidx = np.ones((200, 1), dtype=np.int32)
        ld = S(update_window_dims=(), inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,))
        save(f"s_{name}_long_u", ones)
        save(f"s_{name}_long_add", jax.jit(lambda a, i, v: lax.scatter_add(a, i, v, ld))(z, lidx, ones))
    # index operands of every integer dtype (f32 operand): out-of-range values
    # on both sides, unsigned ones far above the axis
    xf = values(rng, np.float32, (5, 6))
    save("gi_x", xf)
    for iname in ["i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"]:
        it = np.dtype(dts[iname])
        raw = [0, 4, 2, 3] + ([-1] if it.kind == "i" else [int(np.iinfo(it).max)])
        idx = np.array(raw, dtype=np.int64 if it.kind == "i" else np.uint64).astype(it).reshape(5, 1)
        save(f"gi_{iname}_idx", idx)
        for mode in ["fill", "clip"]:
            m = lax.GatherScatterMode.FILL_OR_DROP if mode == "fill" else lax.GatherScatterMode.CLIP
            save(f"gi_{iname}_{mode}", jax.jit(lambda a, i: lax.gather(a, i, gd, (1, 6), mode=m))(xf, idx))
        u = np.arange(30, dtype=np.float32).reshape(5, 6)
        save(f"gi_{iname}_add", jax.jit(lambda a, i, v: lax.scatter_add(a, i, v, sd))(xf, idx, u))
        # jnp indexing x[i] (negative indices wrap, the rest clamps: cj_take)
        # and x.at[i].add (negative indices wrap, out of range drops)
        # (jnp converts u32/u64 indices to i32 first, so 2^32 - 1 becomes -1
        # and reads row 0; cjax reads the value, which clamps to the last
        # row: the reference indexes with the value clamped to 2^31 - 1)
        ti = np.minimum(idx, 2**31 - 1).astype(it) if it.itemsize >= 4 and it.kind == "u" else idx
        save(f"gi_{iname}_take", jax.jit(lambda a, i: a[i[:, 0]])(xf, ti))
        save(f"gi_{iname}_at_add", jax.jit(lambda a, i, v: a.at[i[:, 0]].add(v))(xf, idx, u))
    # x.at[i8].add on an axis longer than i8 can count: -1 wraps to 199. JAX
    # 0.10 raises OverflowError here (it builds the axis size as an i8);
    # cjax widens the indices first, so the reference indexes with i16.
    xl = values(rng, np.float16, (200,))
    il = np.array([-1, 5, -128, 127, 5], dtype=np.int8)
    ul = np.array([1, 2, 3, 4, 0.5], dtype=np.float16)
    save("at_i8_x", xl)
    save("at_i8_idx", il)
    save("at_i8_u", ul)
    save("at_i8_add", jax.jit(lambda a, i, v: a.at[i.astype(jnp.int16)].add(v))(xl, il, ul))

    # index_vector_dim: gathers/scatters whose index vector is another axis
    # (the gathers in FILL_OR_DROP mode, cjax's mode 0; lax.gather's own
    # default binds PROMISE_IN_BOUNDS)
    F = lax.GatherScatterMode.FILL_OR_DROP
    x = values(rng, np.float32, (4, 5, 6))
    save("ivd_x", x)
    # (a) ivd = 0: indices [2, 3, 2] hold vectors of 2 along axis 0
    idx = np.array([[[0, 3], [1, 1], [3, 9]], [[4, 0], [2, 5], [1, 2]]], dtype=np.int32)  # [2, 3, 2]
    dn = G(offset_dims=(2,), collapsed_slice_dims=(0, 1), start_index_map=(0, 1))
    save("ivd0_idx", idx)
    save("ivd0_gather", jax.jit(lambda a, i: lax.gather(a, jnp.moveaxis(i, 0, -1), dn, (1, 1, 6), mode=F))(x, idx))
    # (b) ivd = rank: scalar indices [3, 2] into axis 1
    sidx = np.array([[0, 4], [2, 2], [7, 1]], dtype=np.int16)
    dn_b = G(offset_dims=(2, 3), collapsed_slice_dims=(1,), start_index_map=(1,))
    save("ivdr_idx", sidx)
    save("ivdr_gather", jax.jit(lambda a, i: lax.gather(a, i[..., None], dn_b, (4, 1, 6), mode=F))(x, sidx))
    # (c) ivd = 1 (middle) with batching dims: x axis 0 pairs with idx axis 2
    bidx = rng.integers(0, 5, size=(3, 1, 4)).astype(np.uint8)  # [3, K=1, B=4]
    dn_c = G(offset_dims=(2,), collapsed_slice_dims=(1,), start_index_map=(1,), operand_batching_dims=(0,),
             start_indices_batching_dims=(1,))
    save("ivd1_idx", bidx)
    save("ivd1_gather",
         jax.jit(lambda a, i: lax.gather(a, jnp.moveaxis(i, 1, -1), dn_c, (1, 1, 6), mode=F))(x, bidx))
    # scatters: (a)'s indices adding updates [2, 3, 6]; (c)'s with max
    u = values(rng, np.float32, (3, 2, 6))  # the batch axes of idx without its vector axis
    sdn = S(update_window_dims=(2,), inserted_window_dims=(0, 1), scatter_dims_to_operand_dims=(0, 1))
    save("ivd0_u", u)
    save("ivd0_scatter_add",
         jax.jit(lambda a, i, v: lax.scatter_add(a, jnp.moveaxis(i, 0, -1), v, sdn))(x, idx, u))
    uc = values(rng, np.float32, (3, 4, 6))
    sdn_c = S(update_window_dims=(2,), inserted_window_dims=(1,), scatter_dims_to_operand_dims=(1,),
              operand_batching_dims=(0,), scatter_indices_batching_dims=(1,))
    save("ivd1_u", uc)
    save("ivd1_scatter_max",
         jax.jit(lambda a, i, v: lax.scatter_max(a, jnp.moveaxis(i, 1, -1), v, sdn_c))(x, bidx, uc))


def quantile_fixtures(jax, jnp, lax, rng, dts):
    """x64 off: cjax's mode. f16/bf16 keep their dtype; integers become f32."""
    for name in ["f16", "bf16"]:
        dt = dts[name]
        x = (rng.standard_normal((4, 25)).astype(np.float32) * 3).astype(dt)
        save(f"q_{name}_x", x)
        for m in ["linear", "lower", "higher", "midpoint", "nearest"]:
            r = jax.jit(lambda a: jnp.quantile(a, 0.37, axis=1, method=m))(x)
            assert r.dtype == dt, r.dtype
            save(f"q_{name}_weak_{m}", r)
        qs = np.array([0.1, 0.5, 0.77], dtype=dt)
        save(f"q_{name}_q", qs)
        save(f"q_{name}_strong", jax.jit(lambda a, q: jnp.quantile(a, q, axis=1))(x, qs))
        save(f"q_{name}_median", jax.jit(lambda a: jnp.median(a))(x))
    for name in ["u8", "i16"]:
        x = values(rng, dts[name], (3, 11))
        save(f"q_{name}_x", x)
        r = jax.jit(lambda a: jnp.median(a, axis=1))(x)
        assert r.dtype == np.float32
        save(f"q_{name}_median", r)


def main():
    import jax
    x32 = "--x32" in sys.argv
    jax.config.update("jax_enable_x64", not x32)
    import jax.numpy as jnp
    from jax import lax

    os.makedirs(OUT, exist_ok=True)
    dts = dtypes()
    if x32:
        quantile_fixtures(jax, jnp, lax, np.random.default_rng(1717), dts)
        return
    rng = np.random.default_rng(17)
    sort_fixtures(jax, jnp, lax, rng, dts)
    gather_fixtures(jax, jnp, lax, rng, dts)
    subprocess.run([sys.executable, os.path.abspath(__file__), "--x32"], check=True)


if __name__ == "__main__":
    main()
