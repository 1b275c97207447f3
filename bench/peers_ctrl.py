#!/usr/bin/env python3
"""peers_ctrl.py — JAX's side of the control rows of `make bench`
(bench/bench_ctrl.h; the programs are described in bench/bench_ctrl_work.h).

bench_main starts it once and keeps it running, so that cjax and JAX are
timed in alternating rounds. It speaks lines of flat JSON on stdout:

  first, once ready:  {"info.jax": "0.10.2", "jax.<row>.value": [...], ...}
                      (the results, for the bench's agreement checks) or
                      {"info.jax": "missing"} / {"info.jax": "failed: ..."}
                      and exit;
  per "round" read:   {"jax.<row>.wall_ms": ..., "jax.<row>.cpu_ms": ..., ...}
                      the median per call of this round's calls, wall clock
                      and process CPU time (all threads);
  "quit" (or EOF):    exit.

Arguments, if any, name the rows to run (bench_main's --only). The rows: ode_fwd (jax.jit of lax.scan: RK4, 1,000 steps, final state),
ode_grad (jax.jit of jax.grad), ode_grad_remat (the same with the step
under jax.checkpoint), ode_vmap (jax.jit of jax.vmap over 256
initial states), hess_vmap (jax.jit of jax.vmap of jax.hessian), scan3_grad
(jax.grad without jit, as cjax's eager row). Inputs are the same formulas
as the C side's, rounded to float32 from Python's math (the C library's).
"""
import json
import math
import sys
import time

ODE_STEPS, ODE_DT, ODE_G, ODE_BATCH = 1000, 0.01, 9.81, 256
HESS_DIM, HESS_POINTS, HESS_SAMPLE = 8, 1000, 63   # every 63rd point's Hessian is sent back
SCAN3_STEPS, SCAN3_N = 20, 8
ROUND_S = 0.04      # per row and round: calls until this much time is spent ...
MIN_CALLS, MAX_CALLS = 1, 400   # ... within these bounds (rounds repeat the slow rows)


def programs():
    import jax
    import jax.numpy as jnp
    import numpy as np
    jax.config.update("jax_platform_name", "cpu")
    f32 = np.float32

    def deriv(s, p):
        v, th, w = s[1], s[2], s[3]
        M, m, l, d = p[0], p[1], p[2], p[3]
        sn, cs = jnp.sin(th), jnp.cos(th)
        mM, ml, w2 = M + m, m * l, w * w
        den = M + m * sn * sn
        num = mM * (d * w + ml * ODE_G * sn) + ml * ml * cs * sn * w2
        thdd = -num / (ml * l * den)
        xdd = (ml * sn * w2 - ml * cs * thdd) / mM
        return jnp.stack([v, xdd, w, thdd])

    def fwd(s0, p, remat=False):
        def step(s, _):
            k1 = deriv(s, p)
            k2 = deriv(s + ODE_DT / 2 * k1, p)
            k3 = deriv(s + ODE_DT / 2 * k2, p)
            k4 = deriv(s + ODE_DT * k3, p)
            return s + ODE_DT / 6 * (k1 + 2.0 * k2 + 2.0 * k3 + k4), None
        return jax.lax.scan(jax.checkpoint(step) if remat else step, s0, None, length=ODE_STEPS)[0]

    def loss(s0, p, remat=False):
        sT = fwd(s0, p, remat)
        return jnp.sum(sT * sT)

    def rosen(x):
        a, b = x[:-1], x[1:]
        r, q = b - a * a, 1.0 - a
        return jnp.sum(100.0 * (r * r) + q * q)

    def scan3_loss(h0, v0, w, xs):
        def body(c, x):
            h, v, acc = c
            hn = jnp.tanh(h * w + v)
            return (hn, 0.9 * v + jnp.sin(h) * x, acc + jnp.sum(hn * hn)), None
        h, v, acc = jax.lax.scan(body, (h0, v0, jnp.zeros((), jnp.float32)), xs)[0]
        return acc + jnp.sum(v)

    s0 = jnp.asarray(np.array([0.0, 0.2, 0.5, 0.0], f32))
    p = jnp.asarray(np.array([1.0, 0.3, 0.5, 0.05], f32))
    batch = np.zeros((ODE_BATCH, 4), f32)
    for b in range(ODE_BATCH):
        batch[b, 1] = f32(0.1 * math.sin(0.05 * b))
        batch[b, 2] = f32(0.2 + 0.004 * b)
    pts = np.array([[0.6 * math.sin(0.37 * k + 1.3 * j) + 0.4 for j in range(HESS_DIM)]
                    for k in range(HESS_POINTS)], f32)
    h0 = np.array([0.3 * math.sin(1.0 + j) for j in range(SCAN3_N)], f32)
    v0 = np.array([0.2 * math.cos(0.5 * j) for j in range(SCAN3_N)], f32)
    w = np.array([0.5 + 0.05 * j for j in range(SCAN3_N)], f32)
    xs = np.array([[math.sin(0.1 * t + 0.7 * j) for j in range(SCAN3_N)] for t in range(SCAN3_STEPS)], f32)

    grad3 = jax.grad(scan3_loss, argnums=(0, 1, 2))
    # (function, arguments, how its result is flattened for the check)
    return {
        "ode_fwd": (jax.jit(fwd), (s0, p), lambda r: [r]),
        "ode_grad": (jax.jit(jax.grad(loss, argnums=(0, 1))), (s0, p), list),
        "ode_grad_remat": (jax.jit(jax.grad(lambda a, b: loss(a, b, True), argnums=(0, 1))), (s0, p), list),
        "ode_vmap": (jax.jit(jax.vmap(fwd, in_axes=(0, None))), (jnp.asarray(batch), p), lambda r: [r]),
        "hess_vmap": (jax.jit(jax.vmap(jax.hessian(rosen))), (jnp.asarray(pts),),
                      lambda r: [r[::HESS_SAMPLE]]),
        "scan3_grad": (grad3, tuple(jnp.asarray(a) for a in (h0, v0, w, xs)), list),
    }


def flat(parts):
    import numpy as np
    return [float(x) for part in parts for x in np.asarray(part, dtype=np.float64).ravel()]


def one_round(rows):
    import jax
    out = {}
    for key, (fn, args, _) in rows.items():
        walls, cpus, spent = [], [], 0.0
        while len(walls) < MAX_CALLS and (len(walls) < MIN_CALLS or spent < ROUND_S):
            t, c = time.perf_counter(), time.process_time()
            jax.block_until_ready(fn(*args))
            dt, dc = time.perf_counter() - t, time.process_time() - c
            walls.append(dt * 1e3)
            cpus.append(dc * 1e3)
            spent += dt
        walls.sort()
        cpus.sort()
        out[f"jax.{key}.wall_ms"] = walls[len(walls) // 2]
        out[f"jax.{key}.cpu_ms"] = cpus[len(cpus) // 2]
        out[f"jax.{key}.calls"] = len(walls)
    return out


def main():
    try:
        import jax
        rows = programs()
        if sys.argv[1:]:   # the rows the bench selected
            rows = {k: v for k, v in rows.items() if k in sys.argv[1:]}
        ready = {"info.jax": jax.__version__}
        for key, (fn, args, parts) in rows.items():   # also the warm-up (compiles)
            ready[f"jax.{key}.value"] = flat(parts(jax.block_until_ready(fn(*args))))
    except ImportError:
        print(json.dumps({"info.jax": "missing"}), flush=True)
        return
    except Exception as e:  # a broken JAX is reported, not fatal
        print(f"peers_ctrl.py: jax failed: {e!r}", file=sys.stderr)
        print(json.dumps({"info.jax": f"failed: {e}"}), flush=True)
        return
    print(json.dumps(ready), flush=True)
    for line in sys.stdin:
        if line.strip() != "round":
            break
        print(json.dumps(one_round(rows)), flush=True)


if __name__ == "__main__":
    main()
