#!/usr/bin/env python3
"""peers.py — the NumPy (and, when installed, JAX on CPU) side of `make bench`.

Runs the same workloads as bench_main.c and prints one JSON object:
{"numpy": {"workload": ms, ...}, "jax": {...}}. Missing peers are left out;
the C side shows them as missing. Times are medians of several runs.
"""
import json
import sys
import time


def median_ms(fn, reps=7):
    fn()  # warm-up (page faults, compilation)
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        fn()
        ts.append((time.perf_counter() - t) * 1e3)
    ts.sort()
    return ts[len(ts) // 2]


def numpy_side():
    import numpy as np
    n = 10_000_000
    x = np.linspace(-3, 3, n, dtype=np.float32)
    y = np.linspace(0, 1, n, dtype=np.float32)
    a = np.random.default_rng(0).standard_normal((1024, 1024), dtype=np.float32)
    b = np.random.default_rng(1).standard_normal((1024, 1024), dtype=np.float32)
    m = np.linspace(-3, 3, 4096 * 4096, dtype=np.float32).reshape(4096, 4096)

    def softmax(v):
        e = np.exp(v - v.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)

    tiny = np.linspace(0, 1, 4, dtype=np.float32)

    def tiny_calls():
        for _ in range(1000):
            tiny * 1.5 + 0.25

    return {
        "axb": median_ms(lambda: x * 1.5 + 0.25),
        "softmax": median_ms(lambda: softmax(m)),
        "tiny_calls": median_ms(tiny_calls),
        "add": median_ms(lambda: np.add(x, y)),
        "sin": median_ms(lambda: np.sin(x)),
        "sincos_eager": median_ms(lambda: np.sin(x) * np.cos(x) + x * x),
        "matmul_1024": median_ms(lambda: a @ b),
    }


def jax_side():
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_platform_name", "cpu")
    n = 10_000_000
    x = jnp.linspace(-3, 3, n, dtype=jnp.float32)
    a = jax.random.normal(jax.random.PRNGKey(0), (1024, 1024), jnp.float32)
    b = jax.random.normal(jax.random.PRNGKey(1), (1024, 1024), jnp.float32)
    f = jax.jit(lambda x: jnp.sin(x) * jnp.cos(x) + x * x)
    mm = jax.jit(lambda a, b: a @ b)
    axb = jax.jit(lambda x: x * 1.5 + 0.25)
    sm = jax.jit(lambda v: jax.nn.softmax(v, axis=-1))
    m = jnp.linspace(-3, 3, 4096 * 4096, dtype=jnp.float32).reshape(4096, 4096)
    tiny = jnp.linspace(0, 1, 4, dtype=jnp.float32)

    def tiny_calls():
        for _ in range(1000):
            axb(tiny).block_until_ready()

    def first_call():
        def ten_ops(v):
            for i in range(5):
                v = v * 0.9 + 0.1 * i
            return v
        jax.jit(ten_ops)(tiny).block_until_ready()

    rnn_scan = jax_rnn_scan()

    return {
        "rnn_scan_jit": median_ms(rnn_scan),
        "first_call": median_ms(first_call),
        "axb_jit": median_ms(lambda: axb(x).block_until_ready()),
        "softmax_jit": median_ms(lambda: sm(m).block_until_ready()),
        "tiny_calls": median_ms(tiny_calls),
        "sincos_jit": median_ms(lambda: f(x).block_until_ready()),
        "matmul_1024": median_ms(lambda: mm(a, b).block_until_ready()),
    }


def jax_rnn_scan():
    """bench_main.c's RNN: 1,000 steps of h' = tanh(W h + U x_t + b), hidden
    256, input 64, f32, as lax.scan under jax.jit; returns the timed call."""
    import jax
    import jax.numpy as jnp
    steps, hid, inp = 1000, 256, 64
    w = (jnp.sin(jnp.linspace(0, 300, hid * hid, dtype=jnp.float32)) * 0.06).reshape(hid, hid)
    u = (jnp.cos(jnp.linspace(0, 100, hid * inp, dtype=jnp.float32)) * 0.1).reshape(hid, inp)
    b = jnp.sin(jnp.linspace(0, 7, hid, dtype=jnp.float32)) * 0.1
    h0 = jnp.zeros(hid, jnp.float32)
    xs = jnp.sin(jnp.linspace(0, 50, steps * inp, dtype=jnp.float32)).reshape(steps, inp)

    @jax.jit
    def rnn(w, u, b, h0, xs):
        def cell(h, x):
            return jnp.tanh(w @ h + u @ x + b), None
        h, _ = jax.lax.scan(cell, h0, xs)
        return h

    return lambda: rnn(w, u, b, h0, xs).block_until_ready()


def jax_autodiff():
    """The 16-layer MLP of bench_ad.c: forward and value_and_grad step."""
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_platform_name", "cpu")
    layers, width, batch = 16, 512, 256
    x = jnp.linspace(-1, 1, batch * width, dtype=jnp.float32).reshape(batch, width)
    y = jnp.linspace(0.5, -0.5, batch * width, dtype=jnp.float32).reshape(batch, width)
    params = []
    for l in range(layers):
        ramp = jnp.linspace(l, l + 997.0, width * width, dtype=jnp.float32)
        w = (jnp.sin(ramp) / jnp.sqrt(float(width))).reshape(width, width)
        b = jnp.cos(jnp.linspace(l, l + 10, width, dtype=jnp.float32)) * 0.1
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
    if sys.argv[1:] == ["autodiff"]:
        try:
            print(json.dumps(jax_autodiff()))
        except Exception as e:  # missing or broken JAX: the C side says so
            print(f"peers.py: jax failed: {e}", file=sys.stderr)
        return
    out = {}
    for name, side in (("numpy", numpy_side), ("jax", jax_side)):
        try:
            out[name] = side()
        except ImportError:
            pass
        except Exception as e:  # a broken peer is reported, not fatal
            print(f"peers.py: {name} failed: {e}", file=sys.stderr)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
