"""gen_linalg_fixtures.py — writes the JAX results tests/test_linalg_fixtures.c
compares cjax's linear algebra with (tests/data/linalg/*.npy). Not run by
`make test`: it needs JAX. Run it from anywhere:
python3 tests/data/gen_linalg_fixtures.py            (everything)
python3 tests/data/gen_linalg_fixtures.py --decomp   (qr's cases alone,
                                                      decomp_*.npy, DECOMP_CASES)
python3 tests/data/gen_linalg_fixtures.py --eigh     (eigh's, eigh_*.npy,
                                                      EIGH_CASES)
python3 tests/data/gen_linalg_fixtures.py --svd      (svd's, svd_*.npy,
                                                      SVD_CASES)
python3 tests/data/gen_linalg_fixtures.py --lstsq    (lstsq's, lstsq_*.npy,
                                                      LSTSQ_CASES)
python3 tests/data/gen_linalg_fixtures.py --svd64    (f64 svd above Jacobi's
                                                      range, svd64_*.npy,
                                                      SVD64_CASES)

Every case stores its inputs (<case>_a.npy, <case>_b.npy, ...) and JAX's
outputs (<case>_<what>.npy), so the C test reads the same inputs JAX saw.
x64 mode is on so f64 cases are f64; f32 inputs stay f32 and JAX computes
them in f32. Each case also stores cond.npy-style metadata: <case>_cond.npy
holds the 2-norm condition number of its matrix (numpy, in f64), which the
test turns into a tolerance. Matrices: well conditioned (random with a
shifted diagonal / SPD with eigenvalues in [1, 2]), ill conditioned
(singular values log-spaced down to 1e-6 in f64, 1e-3 in f32), batched."""
import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "linalg")


def save(name, arr):
    np.save(os.path.join(OUT, name + ".npy"), np.asarray(arr))


def matrix(rng, batch, n, kind, dtype):
    """kind: 'general' (well conditioned), 'spd', 'ill' (general), 'ill_spd'."""
    shape = tuple(batch) + (n, n)
    if kind == "general":
        a = rng.uniform(-1, 1, shape) + 2 * np.sqrt(n) * np.eye(n)
    elif kind == "spd":
        q, _ = np.linalg.qr(rng.normal(size=shape))
        lam = rng.uniform(1, 2, tuple(batch) + (n,))
        a = (q * lam[..., None, :]) @ np.swapaxes(q, -1, -2)
    else:
        smallest = 1e-6 if dtype == np.float64 else 1e-3
        s = np.logspace(0, np.log10(smallest), n)
        u, _ = np.linalg.qr(rng.normal(size=shape))
        if kind == "ill":
            v, _ = np.linalg.qr(rng.normal(size=shape))
        else:
            v = u
        a = (u * s) @ np.swapaxes(v, -1, -2)
    a = (a + np.swapaxes(a, -1, -2)) / 2 if kind in ("spd", "ill_spd") else a
    return a.astype(dtype)


def main():
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp
    import jax.scipy.linalg as jsl

    os.makedirs(OUT, exist_ok=True)
    with open(os.path.join(OUT, "VERSION"), "w") as f:
        f.write(f"jax {jax.__version__}\n")
    rng = np.random.default_rng(20261202)
    cases = []
    for dtype, dn in ((np.float32, "f32"), (np.float64, "f64")):
        for kind in ("general", "spd", "ill", "ill_spd"):
            for batch, n in (((), 5), ((3,), 8), ((), 40)):
                name = f"{dn}_{kind}_{'x'.join(map(str, batch)) or 'single'}_{n}"
                a = matrix(rng, batch, n, kind, dtype)
                b = rng.uniform(-1, 1, tuple(batch) + (n, 3)).astype(dtype)
                w = rng.uniform(-1, 1, tuple(batch) + (n, 3)).astype(dtype)
                save(name + "_a", a)
                save(name + "_b", b)
                save(name + "_w", w)
                save(name + "_cond", np.linalg.cond(a.astype(np.float64)).reshape(-1))
                x = jnp.linalg.solve(a, b)
                save(name + "_solve", x)
                save(name + "_det", jnp.linalg.det(a))
                sign, logdet = jnp.linalg.slogdet(a)
                save(name + "_slogdet_sign", sign)
                save(name + "_slogdet_log", logdet)
                save(name + "_inv", jnp.linalg.inv(a))
                lu, piv, perm = jax.lax.linalg.lu(a)
                save(name + "_lu", lu)
                save(name + "_lu_pivots", piv)
                save(name + "_lu_perm", perm)
                save(name + "_trsm_lower", jsl.solve_triangular(a, b, lower=True))
                save(name + "_trsm_upper_t", jsl.solve_triangular(a, b, lower=False, trans=1))
                # gradients of scalar losses, by JAX's grad
                ga, gb = jax.grad(lambda a, b: jnp.sum(w * jnp.linalg.solve(a, b)), argnums=(0, 1))(a, b)
                save(name + "_grad_solve_a", ga)
                save(name + "_grad_solve_b", gb)
                save(name + "_grad_logdet", jax.grad(lambda a: jnp.sum(jnp.linalg.slogdet(a)[1]))(a))
                if kind in ("spd", "ill_spd"):
                    save(name + "_cholesky", jnp.linalg.cholesky(a))
                    save(name + "_cho_solve", jsl.cho_solve((jnp.linalg.cholesky(a), True), b))
                    wl = w[..., :1] * np.ones_like(a)
                    save(name + "_wl", wl)
                    save(name + "_grad_cholesky",
                         jax.grad(lambda a: jnp.sum(wl * jnp.linalg.cholesky(a)))(a))
                cases.append(name)
    with open(os.path.join(OUT, "CASES"), "w") as f:
        f.write("\n".join(cases) + "\n")
    decomp()
    eigh()
    svd()
    svd64()


def svd():
    """svd: random general matrices, tall, square, wide and a batch, f32
    and f64, own random stream. Singular vectors are unique only up to a
    shared sign per pair; the loss whose gradient is stored sees s, u∘u and
    vt∘vt."""
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(20261205)
    cases = []
    for dtype, dn in ((np.float32, "f32"), (np.float64, "f64")):
        for batch, m, n in (((), 6, 4), ((), 5, 5), ((3,), 4, 6), ((), 40, 30)):
            name = f"svd_{dn}_{'x'.join(map(str, batch)) or 'single'}_{m}x{n}"
            a = rng.uniform(-1, 1, tuple(batch) + (m, n)).astype(dtype)
            save(name + "_a", a)
            sv = np.linalg.svd(a.astype(np.float64), compute_uv=False)
            save(name + "_gap", np.array([np.min(np.diff(-sv, axis=-1)) / np.max(sv)]))
            u, s, vt = jnp.linalg.svd(a, full_matrices=False)
            save(name + "_s", s)
            save(name + "_u", u)
            save(name + "_vt", vt)
            k = min(m, n)
            ws = rng.uniform(-1, 1, tuple(batch) + (k,)).astype(dtype)
            wu = rng.uniform(-1, 1, tuple(batch) + (m, k)).astype(dtype)
            wv = rng.uniform(-1, 1, tuple(batch) + (k, n)).astype(dtype)
            save(name + "_ws", ws)
            save(name + "_wu", wu)
            save(name + "_wv", wv)

            def loss(a):
                u, s, vt = jnp.linalg.svd(a, full_matrices=False)
                return jnp.sum(ws * s) + jnp.sum(wu * u * u) + jnp.sum(wv * vt * vt)

            save(name + "_grad", jax.grad(loss)(a))
            cases.append(name)
    with open(os.path.join(OUT, "SVD_CASES"), "w") as f:
        f.write("\n".join(cases) + "\n")


def eigh():
    """eigh: random symmetric matrices (eigenvalues separated enough that
    the eigenvectors' derivative exists), single and batched, f32 and
    f64, with their own random stream. Eigenvectors are unique only up to
    sign; the loss whose gradient is stored sees them squared."""
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(20261204)
    cases = []
    for dtype, dn in ((np.float32, "f32"), (np.float64, "f64")):
        for batch, n in (((), 5), ((3,), 6), ((), 40)):
            name = f"eigh_{dn}_{'x'.join(map(str, batch)) or 'single'}_{n}"
            m = rng.uniform(-1, 1, tuple(batch) + (n, n))
            a = (m + np.swapaxes(m, -1, -2)).astype(dtype)
            save(name + "_a", a)
            lam = np.linalg.eigvalsh(a.astype(np.float64))
            gap = np.min(np.diff(lam, axis=-1))
            save(name + "_gap", np.array([gap / np.max(np.abs(lam))]))
            w, v = jnp.linalg.eigh(a)
            save(name + "_w", w)
            save(name + "_v", v)
            ww = rng.uniform(-1, 1, tuple(batch) + (n,)).astype(dtype)
            wv = rng.uniform(-1, 1, tuple(batch) + (n, n)).astype(dtype)
            save(name + "_ww", ww)
            save(name + "_wv", wv)

            def loss(a):
                w, v = jnp.linalg.eigh(a)
                return jnp.sum(ww * w) + jnp.sum(wv * v * v)

            save(name + "_grad", jax.grad(loss)(a))
            cases.append(name)
    with open(os.path.join(OUT, "EIGH_CASES"), "w") as f:
        f.write("\n".join(cases) + "\n")


def decomp():
    """The decompositions (qr): random general matrices, tall, square and
    wide, single and batched, f32 and f64, with their own random stream so
    that adding them left the solve cases' files byte-identical."""
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(20261203)
    cases = []
    for dtype, dn in ((np.float32, "f32"), (np.float64, "f64")):
        for batch, m, n in (((), 6, 4), ((), 5, 5), ((3,), 5, 3), ((), 3, 5), ((), 40, 40)):
            name = f"decomp_{dn}_{'x'.join(map(str, batch)) or 'single'}_{m}x{n}"
            a = rng.uniform(-1, 1, tuple(batch) + (m, n)).astype(dtype)
            save(name + "_a", a)
            save(name + "_cond", np.linalg.cond(a.astype(np.float64)).reshape(-1))
            q, r = jnp.linalg.qr(a, mode="reduced")
            save(name + "_qr_q", q)
            save(name + "_qr_r", r)
            q, r = jnp.linalg.qr(a, mode="complete")
            save(name + "_qrc_q", q)
            save(name + "_qrc_r", r)
            if m >= n:
                k = min(m, n)
                wq = rng.uniform(-1, 1, tuple(batch) + (m, k)).astype(dtype)
                wr = rng.uniform(-1, 1, tuple(batch) + (k, n)).astype(dtype)
                save(name + "_wq", wq)
                save(name + "_wr", wr)

                def loss(a):
                    q, r = jnp.linalg.qr(a)
                    return jnp.sum(wq * q) + jnp.sum(wr * r)

                save(name + "_grad_qr", jax.grad(loss)(a))
            cases.append(name)
    with open(os.path.join(OUT, "DECOMP_CASES"), "w") as f:
        f.write("\n".join(cases) + "\n")


def lstsq():
    """lstsq: tall, square and wide, a vector or a matrix b, a batch (JAX's
    lstsq is 2-D only: vmapped), a rank-deficient matrix (two singular
    values zero; rcond 1e-4 so f32 rounding cannot keep them), f32 and f64,
    with their own random stream. Stores x, resid, rank, s, rcond (-1: the
    default), the 2-norm condition number of the kept part, and for the
    full-rank tall and square cases the gradients of a loss seeing x and
    resid with respect to a and b."""
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(20261205)
    cases = []
    for dtype, dn in ((np.float32, "f32"), (np.float64, "f64")):
        for batch, m, n, k, kind in (((), 6, 4, 0, "full"), ((), 6, 4, 2, "full"), ((), 5, 5, 0, "full"),
                                     ((), 3, 5, 0, "full"), ((3,), 5, 3, 2, "full"), ((), 6, 4, 0, "rank2")):
            name = f"lstsq_{dn}_{'x'.join(map(str, batch)) or 'single'}_{m}x{n}_{'k%d' % k if k else 'vec'}_{kind}"
            shape = tuple(batch) + (m, n)
            if kind == "full":
                a = rng.uniform(-1, 1, shape) + np.eye(m, n) * 2
                rcond = None
            else:
                u, _ = np.linalg.qr(rng.normal(size=(m, m)))
                v, _ = np.linalg.qr(rng.normal(size=(n, n)))
                sv = np.array([3.0, 1.5] + [0.0] * (min(m, n) - 2))
                a = (u[:, : len(sv)] * sv) @ v.T[: len(sv)]
                rcond = 1e-4
            a = a.astype(dtype)
            b = rng.uniform(-1, 1, tuple(batch) + ((m, k) if k else (m,))).astype(dtype)
            save(name + "_a", a)
            save(name + "_b", b)
            save(name + "_rcond", np.array([-1.0 if rcond is None else rcond]))
            sv64 = np.linalg.svd(a.astype(np.float64), compute_uv=False)
            kept = sv64[..., 0:1] * (1e-4 if rcond else 1e-9)
            cond = np.max(sv64[..., 0] / np.min(np.where(sv64 > kept, sv64, np.inf), axis=-1))
            save(name + "_cond", np.array([cond]))

            def f(a, b):
                return jnp.linalg.lstsq(a, b, rcond=rcond)

            fn = jax.vmap(f) if batch else f
            x, resid, rank, s = fn(a, b)
            save(name + "_x", x)
            save(name + "_resid", resid)
            save(name + "_rank", np.asarray(rank).astype(np.int32))
            save(name + "_s", s)
            if kind == "full" and m >= n:
                wx = rng.uniform(-1, 1, x.shape).astype(dtype)
                save(name + "_wx", wx)

                def loss(a, b):
                    x, resid, _, _ = fn(a, b)
                    return jnp.sum(wx * x) + jnp.sum(resid)

                ga, gb = jax.grad(loss, argnums=(0, 1))(a, b)
                save(name + "_grad_a", ga)
                save(name + "_grad_b", gb)
            cases.append(name)
    with open(os.path.join(OUT, "LSTSQ_CASES"), "w") as f:
        f.write("\n".join(cases) + "\n")


def svd64():
    """f64 svd where cjax takes bidiagonalisation + implicit QR: random
    square, and ill-conditioned tall and wide (singular values log-spaced
    from 1 to 1e-12, random orthogonal factors from numpy's QR), own random
    stream. Stores each column's gap to its neighbours relative to the
    largest singular value (gaps.npy), which bounds how well its vectors
    are determined."""
    import jax

    jax.config.update("jax_enable_x64", True)
    import jax.numpy as jnp

    os.makedirs(OUT, exist_ok=True)
    rng = np.random.default_rng(20261216)
    cases = []
    for m, n, kind in ((64, 64, "random"), (100, 70, "ill"), (70, 100, "ill"), (100, 100, "ill")):
        k = min(m, n)
        if kind == "random":
            a = rng.uniform(-1, 1, (m, n))
        else:
            qm, _ = np.linalg.qr(rng.normal(size=(m, m)))
            qn, _ = np.linalg.qr(rng.normal(size=(n, n)))
            sg = np.logspace(0, -12, k)
            a = (qm[:, :k] * sg) @ qn[:, :k].T
        name = f"svd64_{kind}_{m}x{n}"
        save(name + "_a", a)
        sv = np.linalg.svd(a, compute_uv=False)
        d = np.diff(-sv)
        gaps = np.minimum(np.concatenate([[np.inf], d]), np.concatenate([d, [np.inf]])) / sv[0]
        save(name + "_gaps", gaps)
        u, s, vt = jnp.linalg.svd(a, full_matrices=False)
        save(name + "_s", s)
        save(name + "_u", u)
        save(name + "_vt", vt)
        cases.append(name)
    with open(os.path.join(OUT, "SVD64_CASES"), "w") as f:
        f.write("\n".join(cases) + "\n")


if __name__ == "__main__":
    import sys

    if sys.argv[1:] == ["--decomp"]:
        decomp()
    elif sys.argv[1:] == ["--eigh"]:
        eigh()
    elif sys.argv[1:] == ["--svd"]:
        svd()
    elif sys.argv[1:] == ["--lstsq"]:
        lstsq()
    elif sys.argv[1:] == ["--svd64"]:
        svd64()
    else:
        main()
