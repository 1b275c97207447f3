#!/usr/bin/env python3
"""peers.py — the NumPy and JAX-on-CPU side of `make bench`.

bench_main.c runs `python3 bench/peers.py` once, before timing cjax, and
reads one flat JSON object from stdout:

    "numpy.<workload>.ms"        median milliseconds, NumPy
    "jax.<workload>.ms"          median milliseconds, jax.jit (block_until_ready)
    "jax.<workload>.mem.<part>"  bytes from jax.jit(f).lower(*args).compile()
                                 .memory_analysis(): argument, output, temp,
                                 alias, code
    "info.<what>"                versions and the thread settings in use

The workload keys and shapes are the same as bench_main.c's (the C side
lists them; a key missing here is shown as "-" or "missing"). A peer that
is not installed is simply absent; one that fails is reported on stderr
and left out, never fatal. Flat keys keep the C side's reader trivial.

`python3 bench/peers.py autodiff` prints bench_ad.c's JAX figures instead
(the 16-layer MLP's forward and training step), as {"mlp_fwd": ms, ...}.
`python3 bench/peers.py table` prints the same figures as a readable table.
The control rows' JAX side (timed in rounds beside cjax) is bench/peers_ctrl.py.
"""
import json
import os
import platform
import sys
import time

N = 10_000_000          # elementwise chains
SM = (4096, 4096)       # row softmax
LN = (8192, 1024)       # layer-norm rows
MM = 1024               # matmul (+ bias + relu)
MLP = (256, 784, 512, 10)   # batch, in, hidden, out
PEX = (256, 64, 128, 10)    # per-example gradients: batch, in, hidden, out
DOTS = (1_000_000, 16)      # per-example dot products
RNN = (1000, 256, 64)       # steps, hidden, input
LR = 0.01                   # the SGD step's learning rate
REPS = 9
BUDGET_S = 2.0              # stop repeating a workload after this (>= 3 runs)


def median_ms(fn, reps=REPS):
    """Median of `reps` runs after one warm-up run (page faults, compiles)."""
    fn()
    ts, spent = [], 0.0
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        dt = time.perf_counter() - t
        ts.append(dt * 1e3)
        spent += dt
        if len(ts) >= 3 and spent > BUDGET_S:
            break
    ts.sort()
    return ts[len(ts) // 2]


def inputs(np):
    """The workloads' inputs, float32, deterministic (the same kinds of
    values as bench_main.c's; only the timings are compared)."""
    f32 = np.float32

    def ramp(lo, hi, n):
        return np.linspace(lo, hi, n, dtype=f32)

    b, i, h, o = MLP
    pb, pi, ph, po = PEX
    steps, hid, inp = RNN
    d = {
        "x": ramp(-3, 3, N),
        "y": ramp(0, 1, N),
        "m": ramp(-3, 3, SM[0] * SM[1]).reshape(SM),
        "ln_x": ramp(-3, 3, LN[0] * LN[1]).reshape(LN),
        "ln_g": ramp(0.5, 1.5, LN[1]),
        "ln_b": ramp(-0.1, 0.1, LN[1]),
        "a": (np.sin(ramp(0, 50, MM * MM)) * 0.1).reshape(MM, MM),
        "bm": (np.cos(ramp(0, 70, MM * MM)) * 0.1).reshape(MM, MM),
        "bias": ramp(-0.5, 0.5, MM),
        "mlp_x": ramp(-1, 1, b * i).reshape(b, i),
        "w1": (ramp(-1, 1, i * h) * 0.05).reshape(i, h),
        "b1": np.zeros(h, f32),
        "w2": (ramp(-1, 1, h * o) * 0.05).reshape(h, o),
        "b2": np.zeros(o, f32),
        "labels": np.eye(o, dtype=f32)[np.arange(b) % o],
        "p_x": ramp(-1, 1, pb * pi).reshape(pb, pi),
        "p_w1": (np.sin(ramp(0, 40, pi * ph)) * 0.1).reshape(pi, ph),
        "p_b1": np.zeros(ph, f32),
        "p_w2": (np.cos(ramp(0, 30, ph * po)) * 0.1).reshape(ph, po),
        "p_b2": np.zeros(po, f32),
        "p_labels": np.eye(po, dtype=f32)[np.arange(pb) % po],
        "dots_a": ramp(-1, 1, DOTS[0] * DOTS[1]).reshape(DOTS),
        "dots_b": ramp(1, -1, DOTS[0] * DOTS[1]).reshape(DOTS),
        "rnn_w": (np.sin(ramp(0, 300, hid * hid)) * 0.06).reshape(hid, hid),
        "rnn_u": (np.cos(ramp(0, 100, hid * inp)) * 0.1).reshape(hid, inp),
        "rnn_b": np.sin(ramp(0, 7, hid)) * f32(0.1),
        "rnn_h0": np.zeros(hid, f32),
        "rnn_xs": np.sin(ramp(0, 50, steps * inp)).reshape(steps, inp),
        "tiny": ramp(0, 1, 4),
    }
    return d


def numpy_side(out):
    import numpy as np
    d = inputs(np)
    x, y, m = d["x"], d["y"], d["m"]

    def softmax(v):
        e = np.exp(v - v.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)

    def layernorm(v, g, b):
        mu = v.mean(axis=-1, keepdims=True)
        var = v.var(axis=-1, keepdims=True)
        return (v - mu) / np.sqrt(var + np.float32(1e-5)) * g + b

    def mlp(v, w1, b1, w2, b2):
        return np.maximum(v @ w1 + b1, 0) @ w2 + b2

    def train_step(w1, b1, w2, b2, v, lab):
        # the backward pass by hand: NumPy has no autodiff
        hp = v @ w1 + b1
        hh = np.maximum(hp, 0)
        logits = hh @ w2 + b2
        z = logits - logits.max(axis=-1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(axis=-1, keepdims=True))
        loss = -(lab * logp).sum(axis=-1).mean()
        dl = (np.exp(logp) - lab) / np.float32(v.shape[0])
        gw2, gb2 = hh.T @ dl, dl.sum(0)
        dh = (dl @ w2.T) * (hp > 0)
        gw1, gb1 = v.T @ dh, dh.sum(0)
        return loss, w1 - LR * gw1, b1 - LR * gb1, w2 - LR * gw2, b2 - LR * gb2

    def per_example_grads(w1, b1, w2, b2, v, lab):
        hp = v @ w1 + b1
        hh = np.maximum(hp, 0)
        logits = hh @ w2 + b2
        z = logits - logits.max(axis=-1, keepdims=True)
        p = np.exp(z) / np.exp(z).sum(axis=-1, keepdims=True)
        dl = p - lab                      # per example: no mean over the batch
        dh = (dl @ w2.T) * (hp > 0)
        return (np.einsum("bi,bj->bij", v, dh), dh,
                np.einsum("bi,bj->bij", hh, dl), dl)

    def rnn():
        h = d["rnn_h0"]
        w, u, b = d["rnn_w"], d["rnn_u"], d["rnn_b"]
        for xt in d["rnn_xs"]:
            h = np.tanh(w @ h + u @ xt + b)
        return h

    tiny = d["tiny"]

    def cached_calls():
        for _ in range(1000):
            tiny * np.float32(1.5) + np.float32(0.25)

    mp = (d["w1"], d["b1"], d["w2"], d["b2"])
    rows = list(d["mlp_x"])
    pp = (d["p_w1"], d["p_b1"], d["p_w2"], d["p_b2"])
    work = {
        "add": lambda: x + y,
        "sin": lambda: np.sin(x),
        "axb": lambda: x * np.float32(1.5) + np.float32(0.25),
        "sincos": lambda: np.sin(x) * np.cos(x) + x * x,
        "tanh_sum": lambda: (np.tanh(x * np.float32(1.5) + np.float32(0.25)) * np.float32(2)
                             - np.float32(0.5)).sum(),
        "softmax": lambda: softmax(m),
        "layernorm": lambda: layernorm(d["ln_x"], d["ln_g"], d["ln_b"]),
        "matmul": lambda: d["a"] @ d["bm"],
        "matmul_bias_relu": lambda: np.maximum(d["a"] @ d["bm"] + d["bias"], 0),
        "mlp_fwd": lambda: mlp(d["mlp_x"], *mp),
        "mlp_fwd_loop": lambda: [mlp(r, *mp) for r in rows],
        "train_step": lambda: train_step(*mp, d["mlp_x"], d["labels"]),
        "per_example_grads": lambda: per_example_grads(*pp, d["p_x"], d["p_labels"]),
        "dots_vmap": lambda: np.einsum("ij,ij->i", d["dots_a"], d["dots_b"]),
        "dots_hand": lambda: (d["dots_a"] * d["dots_b"]).sum(1),
        "rnn_scan": rnn,
        "cached_call": cached_calls,
    }
    for key, fn in work.items():
        out[f"numpy.{key}.ms"] = median_ms(fn)
    out["info.numpy"] = np.__version__


def jax_side(out):
    import jax
    import jax.numpy as jnp
    import numpy as np
    jax.config.update("jax_platform_name", "cpu")
    d = {k: jnp.asarray(v) for k, v in inputs(np).items()}
    f32 = jnp.float32

    def mlp(v, w1, b1, w2, b2):
        return jnp.maximum(v @ w1 + b1, 0) @ w2 + b2

    def loss(w1, b1, w2, b2, v, lab):
        logp = jax.nn.log_softmax(mlp(v, w1, b1, w2, b2), axis=-1)
        return -jnp.mean(jnp.sum(lab * logp, axis=-1))

    def make_step():
        def step(w1, b1, w2, b2, v, lab):
            val, g = jax.value_and_grad(loss, argnums=(0, 1, 2, 3))(w1, b1, w2, b2, v, lab)
            return (val,) + tuple(p - LR * gp for p, gp in zip((w1, b1, w2, b2), g))
        return step

    def loss_one(w1, b1, w2, b2, v, lab):
        logp = jax.nn.log_softmax(mlp(v, w1, b1, w2, b2), axis=-1)
        return -jnp.sum(lab * logp)

    def rnn(w, u, b, h0, xs):
        def cell(h, xt):
            return jnp.tanh(w @ h + u @ xt + b), None
        return jax.lax.scan(cell, h0, xs)[0]

    def ten_ops(v):
        for i in range(5):
            v = v * 0.9 + 0.1 * i
        return v

    def layernorm(v, g, b):
        mu = jnp.mean(v, axis=-1, keepdims=True)
        var = jnp.var(v, axis=-1, keepdims=True)
        return (v - mu) * jax.lax.rsqrt(var + 1e-5) * g + b

    mp = (d["w1"], d["b1"], d["w2"], d["b2"])
    pp = (d["p_w1"], d["p_b1"], d["p_w2"], d["p_b2"])
    none4 = (None, None, None, None)
    # (jitted function, its arguments), timed as one call each
    calls = {
        "add": (lambda a, b: a + b, (d["x"], d["y"])),
        "sin": (jnp.sin, (d["x"],)),
        "axb": (lambda v: v * 1.5 + 0.25, (d["x"],)),
        "sincos": (lambda v: jnp.sin(v) * jnp.cos(v) + v * v, (d["x"],)),
        "tanh_sum": (lambda v: jnp.sum(jnp.tanh(v * 1.5 + 0.25) * 2.0 - 0.5), (d["x"],)),
        "softmax": (lambda v: jax.nn.softmax(v, axis=-1), (d["m"],)),
        "layernorm": (layernorm, (d["ln_x"], d["ln_g"], d["ln_b"])),
        "matmul": (lambda a, b: a @ b, (d["a"], d["bm"])),
        "matmul_bias_relu": (lambda a, b, c: jnp.maximum(a @ b + c, 0), (d["a"], d["bm"], d["bias"])),
        "mlp_fwd": (mlp, (d["mlp_x"],) + mp),
        "mlp_fwd_vmap": (jax.vmap(mlp, in_axes=(0,) + none4), (d["mlp_x"],) + mp),
        "train_step": (make_step(), mp + (d["mlp_x"], d["labels"])),
        "per_example_grads": (jax.vmap(jax.grad(loss_one, argnums=(0, 1, 2, 3)), in_axes=none4 + (0, 0)),
                              pp + (d["p_x"], d["p_labels"])),
        "dots_vmap": (jax.vmap(jnp.dot), (d["dots_a"], d["dots_b"])),
        "dots_hand": (lambda a, b: jnp.sum(a * b, axis=1), (d["dots_a"], d["dots_b"])),
        "rnn_scan": (rnn, (d["rnn_w"], d["rnn_u"], d["rnn_b"], d["rnn_h0"], d["rnn_xs"])),
    }
    for key, (fn, args) in calls.items():
        jf = jax.jit(fn)
        out[f"jax.{key}.ms"] = median_ms(lambda: jax.block_until_ready(jf(*args)))
        memory(out, key, jf, args)

    jmlp = jax.jit(mlp)
    rows = [d["mlp_x"][b] for b in range(MLP[0])]
    out["jax.mlp_fwd_loop.ms"] = median_ms(lambda: jax.block_until_ready([jmlp(r, *mp) for r in rows]))
    memory(out, "mlp_fwd_loop", jmlp, (rows[0],) + mp)

    axb = jax.jit(lambda v: v * 1.5 + 0.25)
    tiny = d["tiny"]

    def cached_calls():
        for _ in range(1000):
            axb(tiny).block_until_ready()
    out["jax.cached_call.ms"] = median_ms(cached_calls)
    memory(out, "cached_call", axb, (tiny,))

    # first calls: a fresh function each time, so nothing is cached
    def first_small():
        def f(v):
            return ten_ops(v)
        jax.block_until_ready(jax.jit(f)(tiny))
    out["jax.first_call_small.ms"] = median_ms(first_small, reps=5)
    memory(out, "first_call_small", jax.jit(ten_ops), (tiny,))

    step_args = mp + (d["mlp_x"], d["labels"])

    def first_step():
        jax.block_until_ready(jax.jit(make_step())(*step_args))
    out["jax.first_call_step.ms"] = median_ms(first_step, reps=5)
    memory(out, "first_call_step", jax.jit(make_step()), step_args)
    out["info.jax"] = jax.__version__
    out["info.jax_devices"] = ", ".join(str(dv) for dv in jax.devices())


def memory(out, key, jf, args):
    """XLA's own accounting of a compiled function, as JAX reports it."""
    try:
        m = jf.lower(*args).compile().memory_analysis()
    except Exception as e:  # not every jaxlib reports it
        print(f"peers.py: jax memory_analysis for {key}: {e}", file=sys.stderr)
        return
    if m is None:
        return
    for part, attr in (("argument", "argument_size_in_bytes"), ("output", "output_size_in_bytes"),
                       ("temp", "temp_size_in_bytes"), ("alias", "alias_size_in_bytes"),
                       ("code", "generated_code_size_in_bytes")):
        v = getattr(m, attr, None)
        if v is not None:
            out[f"jax.{key}.mem.{part}"] = int(v)


def thread_info(out):
    """What the peers were told to use (bench_main sets these from cjax's
    thread count) and, when threadpoolctl is installed, what BLAS uses."""
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "XLA_FLAGS"):
        out[f"info.env.{var}"] = os.environ.get(var, "")
    try:
        from threadpoolctl import threadpool_info
        out["info.numpy_blas_threads"] = ", ".join(
            f"{p.get('internal_api')} {p.get('num_threads')}" for p in threadpool_info())
    except Exception:
        pass


def jax_autodiff():
    """The 16-layer MLP of bench_ad.c: forward and value_and_grad step."""
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_platform_name", "cpu")
    layers, width, batch = 16, 512, 256
    x = jnp.linspace(-1, 1, batch * width, dtype=jnp.float32).reshape(batch, width)
    y = jnp.linspace(0.5, -0.5, batch * width, dtype=jnp.float32).reshape(batch, width)
    params = []
    for layer in range(layers):
        ramp = jnp.linspace(layer, layer + 997.0, width * width, dtype=jnp.float32)
        w = (jnp.sin(ramp) / jnp.sqrt(float(width))).reshape(width, width)
        b = jnp.cos(jnp.linspace(layer, layer + 10, width, dtype=jnp.float32)) * 0.1
        params.append((w, b))

    def loss(params, x, y):
        h = x
        for w, b in params:
            h = jnp.tanh(h @ w + b)
        return jnp.mean((h - y) ** 2)

    fwd = jax.jit(loss)
    step = jax.jit(jax.value_and_grad(loss))
    return {
        "mlp_fwd": median_ms(lambda: fwd(params, x, y).block_until_ready()),
        "mlp_step": median_ms(lambda: jax.block_until_ready(step(params, x, y))),
    }


def main():
    args = sys.argv[1:]
    if args == ["autodiff"]:
        try:
            print(json.dumps(jax_autodiff()))
        except Exception as e:  # missing or broken JAX: the C side says so
            print(f"peers.py: jax failed: {e}", file=sys.stderr)
        return
    out = {"info.python": platform.python_version()}
    thread_info(out)
    for name, side in (("numpy", numpy_side), ("jax", jax_side)):
        try:
            side(out)
        except ImportError:
            out[f"info.{name}"] = "missing"
        except Exception as e:  # a broken peer is reported, not fatal
            print(f"peers.py: {name} failed: {e!r}", file=sys.stderr)
            out[f"info.{name}"] = f"failed: {e}"
    if args == ["table"]:
        for k in sorted(out):
            print(f"{k:45s} {out[k]}")
        return
    print(json.dumps(out))


if __name__ == "__main__":
    main()
