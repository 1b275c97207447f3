#!/usr/bin/env python3
"""gen_stablehlo_fixtures.py — exports the StableHLO importer's fixtures.

Needs JAX (jax 0.10.2 here); `make test` never runs it, it only reads what it
wrote. For each program NAME it writes into tests/data/stablehlo/:
  NAME.mlir          jax.jit(f).lower(*args).as_text()  (the pretty form)
  NAME.generic.mlir  the same module in MLIR's generic op form, locations off
  NAME.in<i>.npy     the inputs
  NAME.out<i>.npy    JAX's outputs
and for the differentiable ones NAME.grad<i>.npy, jax.grad of the first
output (summed when not a scalar) by the first input.
Usage: python3 tools/gen_stablehlo_fixtures.py [--only NAME,...] [OUTDIR]
(--only writes just those programs; every program's inputs are drawn all the
same, so the others' stay as committed).
"""
import os
import sys

import jax
import jax.numpy as jnp
import numpy as np

ARGS = sys.argv[1:]
ONLY = None
if ARGS[:1] == ["--only"] and len(ARGS) > 1:
    ONLY, ARGS = ARGS[1].split(","), ARGS[2:]
OUT = ARGS[0] if ARGS else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "stablehlo")
rng = np.random.default_rng(19)


def f32(*shape, scale=1.0):
    return (rng.standard_normal(shape) * scale).astype(np.float32)


def mlp(w1, b1, w2, b2, x):
    h = jax.nn.relu(x @ w1 + b1)
    return h @ w2 + b2


def sgd(w1, b1, w2, b2, x, y):
    def loss(p):
        w1, b1, w2, b2 = p
        logits = mlp(w1, b1, w2, b2, x)
        return -jnp.mean(jnp.sum(jax.nn.log_softmax(logits) * y, axis=-1))
    lval, g = jax.value_and_grad(loss)((w1, b1, w2, b2))
    return (lval,) + tuple(p - 0.1 * gp for p, gp in zip((w1, b1, w2, b2), g))


def cnn(k, x):
    y = jax.lax.conv_general_dilated(x, k, (1, 1), "SAME",
                                     dimension_numbers=("NHWC", "HWIO", "NHWC"))
    y = jax.nn.relu(y)
    y = jax.lax.reduce_window(y, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    return jnp.mean(y, axis=(1, 2))


def block(wq, wk, wv, wo, w1, w2, x):
    def ln(z):
        m = jnp.mean(z, -1, keepdims=True)
        v = jnp.mean((z - m) ** 2, -1, keepdims=True)
        return (z - m) * jax.lax.rsqrt(v + 1e-5)
    h = ln(x)
    q, k, v = h @ wq, h @ wk, h @ wv
    s = jnp.einsum("td,sd->ts", q, k) / np.sqrt(q.shape[-1]).astype(np.float32)
    t = x.shape[0]
    mask = jnp.tril(jnp.ones((t, t), bool))
    s = jnp.where(mask, s, -1e9)
    a = jax.nn.softmax(s, axis=-1)
    x = x + (a @ v) @ wo
    h = ln(x)
    return x + jax.nn.gelu(h @ w1) @ w2


def block_loss(wq, wk, wv, wo, w1, w2, x):
    return jnp.sum(block(wq, wk, wv, wo, w1, w2, x) ** 2)


def block_grad(wq, wk, wv, wo, w1, w2, x):
    return jax.grad(block_loss, argnums=(0, 1, 2, 3, 4, 5))(wq, wk, wv, wo, w1, w2, x)


def rnn(w, u, h0, xs):
    @jax.checkpoint
    def cell(h, x):
        return jnp.tanh(h @ w + x @ u)

    def step(h, x):
        h = cell(h, x)
        return h, jnp.sum(h)
    return jax.lax.scan(step, h0, xs)


def rnn_loss_grad(w, u, h0, xs):
    def loss(w):
        h, ys = rnn(w, u, h0, xs)
        return jnp.sum(h) + jnp.sum(ys)
    return jax.grad(loss)(w)


def solver(a, b):
    # Jacobi iterations until the residual is small, at most 100.
    d = jnp.diag(a)

    def cond(c):
        i, x = c
        return (i < 100) & (jnp.linalg.norm(a @ x - b) > 1e-5)

    def body(c):
        i, x = c
        return i + 1, (b - (a @ x - d * x)) / d
    return jax.lax.while_loop(cond, body, (0, jnp.zeros_like(b)))


def rand(key, x):
    k1, k2 = jax.random.split(jax.random.wrap_key_data(key))
    u = jax.random.uniform(k1, (4, 3))
    n = jax.random.normal(k2, (4, 3))
    return u + x, n * x


def linsolve(a, b):
    return jnp.linalg.solve(a, b)


def ops_misc(x, i):
    # The data-movement and integer ops of ordinary programs in one module.
    s = jnp.sort(x, axis=-1)
    am = jnp.argmax(x, axis=-1)
    c = jnp.concatenate([x, x[:, ::-1]], axis=1)
    p = jnp.pad(x, ((1, 0), (0, 2)), constant_values=2.0)
    ds = jax.lax.dynamic_slice(x, (i, 1), (2, 2))
    du = jax.lax.dynamic_update_slice(x, jnp.ones((1, 2), x.dtype), (i, i))
    g = x[jnp.array([2, 0, 1])]
    sc = jnp.zeros(5, x.dtype).at[jnp.array([0, 3, 3])].add(x[0, :3])
    cl = jnp.clip(x, -0.5, 0.5)
    r = jax.lax.cond(i > 0, lambda z: z * 2.0, lambda z: z - 1.0, x)
    return s, am, c, p, ds, du, g, sc, cl, r, jnp.cumsum(x, axis=0)


def sorts(k1, k2, v, x):
    # Comparators beyond one ascending key: two keys carrying a value,
    # argsort (a key and its iota), integer keys; a reduce of two operands
    # each by its own op.
    a, b, c = jax.lax.sort((k1, k2, v), dimension=1, num_keys=2)
    idx = jnp.argsort(x, axis=0, stable=True)
    ik = jnp.sort(k1.astype(jnp.int32) * 7 % 5, axis=1)
    s, p = jax.lax.reduce((x, x + 1.0), (np.float32(0), np.float32(1)),
                          lambda u, w: (u[0] + w[0], u[1] * w[1]), (1,))
    return a, b, c, idx, ik, s, p


def linalg(a, b):
    # JAX's CPU LAPACK custom calls: getrf + trsm (solve), potrf (cholesky),
    # syevd (eigh).
    spd = a @ a.T + 4 * jnp.eye(a.shape[0], dtype=a.dtype)
    w, v = jnp.linalg.eigh(spd)
    return jnp.linalg.solve(a, b), jnp.linalg.cholesky(spd), w, jnp.abs(v)


PROGRAMS = [
    ("mlp", mlp, lambda: [f32(6, 8, scale=0.4), f32(8), f32(8, 3, scale=0.4), f32(3), f32(5, 6)], True),
    ("sgd", sgd, lambda: [f32(6, 8, scale=0.4), f32(8), f32(8, 3, scale=0.4), f32(3), f32(5, 6),
                          np.eye(3, dtype=np.float32)[rng.integers(0, 3, 5)]], False),
    ("cnn", cnn, lambda: [f32(3, 3, 2, 4, scale=0.3), f32(2, 6, 6, 2)], True),
    ("block", block, lambda: [f32(8, 8, scale=0.3) for _ in range(4)] + [f32(8, 16, scale=0.3), f32(16, 8, scale=0.3), f32(5, 8)], True),
    ("block_grad", block_grad, lambda: [f32(8, 8, scale=0.3) for _ in range(4)] + [f32(8, 16, scale=0.3), f32(16, 8, scale=0.3), f32(5, 8)], False),
    ("rnn", rnn, lambda: [f32(4, 4, scale=0.4), f32(3, 4, scale=0.4), f32(4), f32(6, 3)], True),
    ("rnn_grad", rnn_loss_grad, lambda: [f32(4, 4, scale=0.4), f32(3, 4, scale=0.4), f32(4), f32(6, 3)], False),
    ("solver", solver, lambda: [(np.eye(4) * 5 + rng.standard_normal((4, 4)) * 0.5).astype(np.float32), f32(4)], False),
    ("random", rand, lambda: [np.array([0, 42], np.uint32), f32(4, 3)], False),
    ("linsolve", linsolve, lambda: [(np.eye(4) * 3 + rng.standard_normal((4, 4))).astype(np.float32), f32(4, 2)], True),
    ("ops_misc", ops_misc, lambda: [f32(4, 5), np.int32(1)], False),
    ("sorts", sorts, lambda: [np.round(f32(3, 6) * 2).astype(np.float32), f32(3, 6), f32(3, 6),
                              np.round(f32(5, 4)).astype(np.float32)], False),
    ("linalg", linalg, lambda: [(np.eye(4) * 3 + rng.standard_normal((4, 4))).astype(np.float32), f32(4, 2)], False),
]


def generic_text(lowered):
    mod = lowered.compiler_ir("stablehlo")
    return mod.operation.get_asm(print_generic_op_form=True, enable_debug_info=False)


def main():
    os.makedirs(OUT, exist_ok=True)
    for name, f, make_args, with_grad in PROGRAMS:
        args = make_args()  # drawn for every program, so each keeps its inputs
        if ONLY and name not in ONLY:
            continue
        lowered = jax.jit(f).lower(*args)
        with open(os.path.join(OUT, name + ".mlir"), "w") as fh:
            fh.write(lowered.as_text())
        with open(os.path.join(OUT, name + ".generic.mlir"), "w") as fh:
            fh.write(generic_text(lowered))
        outs = jax.tree_util.tree_leaves(jax.jit(f)(*args))
        for i, a in enumerate(args):
            np.save(os.path.join(OUT, f"{name}.in{i}.npy"), np.asarray(a))
        for i, o in enumerate(outs):
            np.save(os.path.join(OUT, f"{name}.out{i}.npy"), np.asarray(o))
        if with_grad:
            def scalar(*a):
                return jnp.sum(jax.tree_util.tree_leaves(f(*a))[0])
            g = jax.grad(scalar)(*args)
            np.save(os.path.join(OUT, f"{name}.grad0.npy"), np.asarray(g))
        print(name, len(args), "inputs", len(outs), "outputs")


if __name__ == "__main__":
    main()
