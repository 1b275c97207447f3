#!/usr/bin/env python3
"""peers.py — the NumPy and JAX-on-CPU side of `make bench`'s main table.

bench_main.c starts `python3 bench/peers.py serve [--reps N] [--round-ms M]
KEY...` once and keeps it running beside itself (bench/bench_coproc.h), so
that cjax and the peers are timed in alternating rounds under the same load.
It speaks lines of flat JSON on stdout, one per request line on stdin:

  first, once imported:  {"info.python": ..., "info.numpy": "2.4.6" | "missing"
                          | "failed: ...", "info.jax": ..., "info.env.<VAR>": ...}
  "prepare KEY":         both peers' warm-up call of workload KEY (JAX compiles),
                          then {"<peer>.KEY.check": [...],
                          "jax.KEY.mem.<part>": bytes, ...}: the results for the
                          bench's agreement checks (see summary()) and XLA's
                          memory_analysis() (argument, output, temp, alias, code,
                          peak where the jaxlib reports it)
  "round KEY N":         one round of KEY: {"<peer>.KEY.wall_ms": ...,
                          "<peer>.KEY.cpu_ms": ..., "<peer>.KEY.calls": ...},
                          the median per call of this round's calls, wall clock
                          and process CPU time (all threads); NumPy first in even
                          rounds N, JAX first in odd ones
  "quit" (or EOF):       exit.

A round of a peer calls its workload until --round-ms milliseconds are spent or
--reps calls are made (at least one call), the same rule as the C side's. A
peer that is not installed or fails is reported ("missing", "failed: ...") and
its keys are absent, never fatal. The workload keys, shapes and input formulas
are bench_work.h's (the C side lists them; a key missing here shows as "-").
NumPy has no autodiff: its gradient rows are hand-written backward passes
(the transformer block's included); the checkpointed row has no NumPy
version, whose plain gradient still serves its check.

`python3 bench/peers.py table` prints every workload's figures (one round) as
a readable table. The control rows' JAX side is bench/peers_ctrl.py.
"""
import json
import math
import os
import platform
import sys
import time

N = 10_000_000          # elementwise chains
SM = (4096, 4096)       # row softmax
LN = (8192, 1024)       # layer-norm rows
MM = 1024               # matmul (+ bias + relu)
SORT_N = 10_000_000         # sort of f32
TOPK = (16, 1_000_000, 16)  # top_k: rows, row length, k
MLP = (256, 784, 512, 10)   # batch, in, hidden, out
PEX = (256, 64, 128, 10)    # per-example gradients: batch, in, hidden, out
DOTS = (1_000_000, 16)      # per-example dot products
RNN = (1000, 256, 64)       # steps, hidden, input
DEEP = (16, 512, 256)       # deep tanh MLP: layers, width, batch
TB = (8, 128, 256, 4, 1024)  # transformer block: batch, seq, d_model, heads, d_ff
CNN = (64, 32, 3, 16, 32, 10)  # small CNN: batch, height = width, channels in, conv1, conv2, classes
LA_SIZES = (64, 256, 1024)  # cholesky and solve of one matrix
LA_BATCH = 10_000           # ... and of a batch of 8x8
GN = (50, 400, 10.0, 1e-2)  # Gauss-Newton: sinusoids (parameters 2x), residuals, t's end, damping
LR = 0.01                   # the SGD step's learning rate
SAMPLES = 32                # values per output sent for the checks
REPS = 9                    # defaults of --reps, --round-ms
ROUND_MS = 200.0


def summary(outputs):
    """The check record of a workload's outputs: per output its element
    count n, the sum of |x| (f64) and SAMPLES values at indices i*n//S
    (S = min(n, SAMPLES)), all in one flat list (bench_check.h reads it)."""
    import numpy as np
    flat = []
    for o in outputs:
        a = np.asarray(o, dtype=np.float64).ravel()
        n = a.size
        s = min(n, SAMPLES)
        flat += [n, float(np.abs(a).sum())]
        flat += [float(v) for v in a[(np.arange(s, dtype=np.int64) * n) // s]]
    return flat


def as_list(r):
    return list(r) if isinstance(r, (tuple, list)) else [r]


def inputs(np):
    """The workloads' inputs, float32, deterministic: bench_work.h's
    formulas (linspace, then sin/cos and scaling in float32)."""
    f32 = np.float32

    def ramp(lo, hi, n):
        return np.linspace(lo, hi, n, dtype=f32)

    def wave(fn, lo, hi, shape, k):   # bench_work.h's wave(): fn(ramp) * k
        return (fn(ramp(lo, hi, math.prod(shape))) * f32(k)).reshape(shape)

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
        "a": wave(np.sin, 0, 50, (MM, MM), 0.1),
        "bm": wave(np.cos, 0, 70, (MM, MM), 0.1),
        "bias": ramp(-0.5, 0.5, MM),
        "mlp_x": ramp(-1, 1, b * i).reshape(b, i),
        "w1": (ramp(-1, 1, i * h) * f32(0.05)).reshape(i, h),
        "b1": np.zeros(h, f32),
        "w2": (ramp(-1, 1, h * o) * f32(0.05)).reshape(h, o),
        "b2": np.zeros(o, f32),
        "labels": np.eye(o, dtype=f32)[np.arange(b) % o],
        "p_x": ramp(-1, 1, pb * pi).reshape(pb, pi),
        "p_w1": wave(np.sin, 0, 40, (pi, ph), 0.1),
        "p_b1": np.zeros(ph, f32),
        "p_w2": wave(np.cos, 0, 30, (ph, po), 0.1),
        "p_b2": np.zeros(po, f32),
        "p_labels": np.eye(po, dtype=f32)[np.arange(pb) % po],
        "dots_a": ramp(-1, 1, DOTS[0] * DOTS[1]).reshape(DOTS),
        "dots_b": ramp(1, -1, DOTS[0] * DOTS[1]).reshape(DOTS),
        "rnn_w": wave(np.sin, 0, 300, (hid, hid), 0.06),
        "rnn_u": wave(np.cos, 0, 100, (hid, inp), 0.1),
        "rnn_b": wave(np.sin, 0, 7, (hid,), 0.1),
        "rnn_h0": np.zeros(hid, f32),
        "rnn_xs": wave(np.sin, 0, 50, (steps, inp), 1.0),
        "tiny": ramp(0, 1, 4),
    }
    layers, width, batch = DEEP
    d["deep_x"] = ramp(-1, 1, batch * width).reshape(batch, width)
    d["deep_y"] = ramp(0.5, -0.5, batch * width).reshape(batch, width)
    d["deep_params"] = [(wave(np.sin, l, l + 50, (width, width), 1 / math.sqrt(width)),
                         wave(np.cos, l, l + 10, (width,), 0.1)) for l in range(layers)]
    # bench_work.h's scrambled(): distinct integers, exact in float32
    p = 16000057
    d["sort_x"] = ((np.arange(SORT_N, dtype=np.int64) * 7919) % p - p // 2).astype(f32)
    d["topk_x"] = ((np.arange(TOPK[0] * TOPK[1], dtype=np.int64) * 7919) % p - p // 2).astype(f32).reshape(TOPK[:2])
    tb, ts, td, _, tf = TB
    d["tb_x"] = wave(np.sin, 0, 40, (tb, ts, td), 1.0)
    sd, sf = 1 / math.sqrt(td), 1 / math.sqrt(tf)
    d["tb_params"] = [
        wave(np.cos, 0, 3, (td,), 0.1) + f32(1), wave(np.sin, 1, 4, (td,), 0.1),      # ln1 g, b
        wave(np.sin, 2, 52, (td, td), sd), wave(np.sin, 3, 53, (td, td), sd),          # wq, wk
        wave(np.sin, 4, 54, (td, td), sd), wave(np.sin, 5, 55, (td, td), sd),          # wv, wo
        wave(np.cos, 6, 9, (td,), 0.1) + f32(1), wave(np.sin, 7, 10, (td,), 0.1),     # ln2 g, b
        wave(np.sin, 8, 58, (td, tf), sd), wave(np.cos, 9, 12, (tf,), 0.1),           # w1, b1
        wave(np.sin, 10, 60, (tf, td), sf), wave(np.cos, 11, 14, (td,), 0.1),         # w2, b2
    ]
    # issue 17's small CNN (bench_work_cnn.h): NHWC input, HWIO kernels
    cb, chw, c0, c1, c2, co = CNN
    flat = (chw // 4) * (chw // 4) * c2
    d["cnn_x"] = wave(np.sin, 0, 300, (cb, chw, chw, c0), 1.0)
    d["cnn_labels"] = np.eye(co, dtype=f32)[np.arange(cb) % co]
    d["cnn_params"] = [
        wave(np.sin, 1, 31, (3, 3, c0, c1), 1 / math.sqrt(9 * c0)), wave(np.cos, 0, 3, (c1,), 0.1),
        wave(np.sin, 2, 52, (3, 3, c1, c2), 1 / math.sqrt(9 * c1)), wave(np.cos, 1, 4, (c2,), 0.1),
        wave(np.sin, 3, 53, (flat, co), 1 / math.sqrt(flat)), wave(np.cos, 2, 5, (co,), 0.1),
    ]
    # issue 16's linear algebra (bench_work_linalg.h): A = M Mᵀ / n + I
    def spd(shape, hi):
        n = shape[-1]
        mm = np.sin(ramp(0, hi, math.prod(shape))).reshape(shape)
        return (mm @ np.swapaxes(mm, -1, -2)) / f32(n) + np.eye(n, dtype=f32)
    for n in LA_SIZES:
        d[f"la_a{n}"] = spd((n, n), 50)
        d[f"la_b{n}"] = np.cos(ramp(0, 30, n))
    d["la_ab"] = spd((LA_BATCH, 8, 8), 500)
    # the decompositions' matrix: sin((k mod 97)(k mod 89)), k = i n + j
    for n in LA_SIZES:
        k = np.arange(n * n, dtype=f32)
        g = np.sin(np.fmod(k, f32(97)) * np.fmod(k, f32(89))).reshape(n, n)
        d[f"la_g{n}"] = g
        d[f"la_s{n}"] = (g + g.T) * f32(0.5)
    d["la_bb"] = np.cos(ramp(0, 30, LA_BATCH * 8)).reshape(LA_BATCH, 8, 1)
    # issue 16's Gauss-Newton step (examples/gauss_newton/gn_model.h): the
    # model sum_k a_k sin(w_k t) at known [a; w], started off them
    k, m, t_end, _ = GN
    a_true = np.cos(ramp(0, 7, k)) * f32(0.5) + f32(1)
    w_true = ramp(1, k, k)
    d["gn_t"] = ramp(0, t_end, m)
    d["gn_y"] = np.sin(np.outer(d["gn_t"], w_true)) @ a_true
    d["gn_p0"] = np.concatenate([a_true * f32(0.8), w_true + np.sin(ramp(0, 20, k)) * f32(0.02)])
    return d


# ---- NumPy: (timed function, check function or None = the timed one's result) ----
def numpy_side():
    import numpy as np
    d = inputs(np)
    f32 = np.float32
    x, y, m = d["x"], d["y"], d["m"]

    def softmax(v):
        e = np.exp(v - v.max(axis=-1, keepdims=True))
        return e / e.sum(axis=-1, keepdims=True)

    def layernorm(v, g, b):
        mu = v.mean(axis=-1, keepdims=True)
        var = v.var(axis=-1, keepdims=True)
        return (v - mu) / np.sqrt(var + f32(1e-5)) * g + b

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
        dl = (np.exp(logp) - lab) / f32(v.shape[0])
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

    def deep_grad(params, v, target):
        # 16 tanh layers, loss mean((h - y)^2), backward by hand
        hs = [v]
        for w, b in params:
            hs.append(np.tanh(hs[-1] @ w + b))
        g = (hs[-1] - target) * f32(2.0 / target.size)
        grads = []
        for layer in range(len(params) - 1, -1, -1):
            w = params[layer][0]
            g = g * (f32(1) - hs[layer + 1] * hs[layer + 1])     # through tanh
            grads.append((hs[layer].T @ g, g.sum(0)))
            g = g @ w.T
        return [a for pair in reversed(grads) for a in pair]

    c_gelu = f32(math.sqrt(2 / math.pi))

    def gelu(v):
        return f32(0.5) * v * (f32(1) + np.tanh(c_gelu * (v + f32(0.044715) * v * v * v)))

    def block(v, p):
        g1, be1, wq, wk, wv, wo, g2, be2, w1, b1, w2, b2 = p
        bsz, s, dm, heads, _ = TB
        h = layernorm(v, g1, be1)
        q, k, val = [(h @ w).reshape(bsz, s, heads, dm // heads) for w in (wq, wk, wv)]
        sc = np.einsum("bshd,bthd->bhst", q, k) * f32(1 / math.sqrt(dm // heads))
        a = np.einsum("bhst,bthd->bshd", softmax(sc), val).reshape(bsz, s, dm)
        x1 = v + a @ wo
        return x1 + gelu(layernorm(x1, g2, be2) @ w1 + b1) @ w2 + b2

    def gelu_grad(z):   # d gelu / dz of the tanh form
        t = np.tanh(c_gelu * (z + f32(0.044715) * z * z * z))
        return f32(0.5) * (f32(1) + t) + f32(0.5) * z * (f32(1) - t * t) * c_gelu * (
            f32(1) + f32(3 * 0.044715) * z * z)

    def ln_parts(v):
        xc = v - v.mean(axis=-1, keepdims=True)
        r = f32(1) / np.sqrt((xc * xc).mean(axis=-1, keepdims=True) + f32(1e-5))
        return xc * r, r

    def ln_back(dn, n, r):   # through (v - mean) * rsqrt(var + eps), given d(normalised)
        return r * (dn - dn.mean(axis=-1, keepdims=True) - n * (dn * n).mean(axis=-1, keepdims=True))

    def block_vg(v, p):
        # value_and_grad of mean(block(v)^2) by the 12 parameters, backward by hand
        g1, be1, wq, wk, wv, wo, g2, be2, w1, b1, w2, b2 = p
        bsz, s, dm, heads, dff = TB
        dh, c = dm // heads, f32(1 / math.sqrt(dm // heads))
        rows = lambda t: t.reshape(-1, t.shape[-1])
        n1, r1 = ln_parts(v)
        h = n1 * g1 + be1
        q, k, val = [(h @ w).reshape(bsz, s, heads, dh) for w in (wq, wk, wv)]
        att = softmax(np.einsum("bshd,bthd->bhst", q, k) * c)
        a = np.einsum("bhst,bthd->bshd", att, val).reshape(bsz, s, dm)
        x1 = v + a @ wo
        n2, r2 = ln_parts(x1)
        h2 = n2 * g2 + be2
        z = h2 @ w1 + b1
        f = gelu(z)
        y = x1 + f @ w2 + b2
        loss = np.mean(y * y)
        dy = y * f32(2 / y.size)
        dw2, db2 = rows(f).T @ rows(dy), dy.sum((0, 1))
        dz = (dy @ w2.T) * gelu_grad(z)
        dw1, db1 = rows(h2).T @ rows(dz), dz.sum((0, 1))
        dh2 = dz @ w1.T
        dg2, dbe2 = (dh2 * n2).sum((0, 1)), dh2.sum((0, 1))
        dx1 = dy + ln_back(dh2 * g2, n2, r2)
        dwo = rows(a).T @ rows(dx1)
        da = (dx1 @ wo.T).reshape(bsz, s, heads, dh)
        datt = np.einsum("bshd,bthd->bhst", da, val)
        dval = np.einsum("bhst,bshd->bthd", att, da)
        dsc = att * (datt - (datt * att).sum(-1, keepdims=True)) * c
        dq = np.einsum("bhst,bthd->bshd", dsc, k).reshape(bsz, s, dm)
        dk = np.einsum("bhst,bshd->bthd", dsc, q).reshape(bsz, s, dm)
        dval = dval.reshape(bsz, s, dm)
        dwq, dwk, dwv = (rows(h).T @ rows(g) for g in (dq, dk, dval))
        dhh = dq @ wq.T + dk @ wk.T + dval @ wv.T
        dg1, dbe1 = (dhh * n1).sum((0, 1)), dhh.sum((0, 1))
        return [loss, dg1, dbe1, dwq, dwk, dwv, dwo, dg2, dbe2, dw1, db1, dw2, db2]

    tiny = d["tiny"]

    def cached_calls():
        for _ in range(1000):
            tiny * f32(1.5) + f32(0.25)

    def gn_step(p, t, y):   # the Jacobian by hand: d/da_k = sin(w_k t), d/dw_k = a_k t cos(w_k t)
        k, _, _, lam = GN
        a, w = p[:k], p[k:]
        ph = np.outer(t, w)
        r = np.sin(ph) @ a - y
        jac = np.concatenate([np.sin(ph), np.cos(ph) * t[:, None] * a[None, :]], 1)
        normal = jac.T @ jac + f32(lam) * np.eye(2 * k, dtype=f32)
        return p - np.linalg.solve(normal, jac.T @ r)

    def top_k_np(v, k):   # the k largest per row, largest first (the values are distinct)
        idx = np.argpartition(-v, k, axis=1)[:, :k]
        idx = np.take_along_axis(idx, np.argsort(-np.take_along_axis(v, idx, 1), axis=1), 1)
        return [np.take_along_axis(v, idx, 1), idx]

    def ten_ops(v):
        for i in range(5):
            v = v * f32(0.9) + f32(0.1 * i)
        return v

    mp = (d["w1"], d["b1"], d["w2"], d["b2"])
    rows = list(d["mlp_x"])
    pp = (d["p_w1"], d["p_b1"], d["p_w2"], d["p_b2"])
    def deep_loss(params, v, target):
        h = v
        for w, b in params:
            h = np.tanh(h @ w + b)
        return np.mean((h - target) ** 2)

    deep = lambda: deep_grad(d["deep_params"], d["deep_x"], d["deep_y"])
    step = lambda: train_step(*mp, d["mlp_x"], d["labels"])
    return {
        "add": (lambda: x + y, None),
        "sin": (lambda: np.sin(x), None),
        "axb": (lambda: x * f32(1.5) + f32(0.25), None),
        "sincos": (lambda: np.sin(x) * np.cos(x) + x * x, None),
        "tanh_sum": (lambda: (np.tanh(x * f32(1.5) + f32(0.25)) * f32(2) - f32(0.5)).sum(), None),
        "variance": (lambda: np.mean((x - np.mean(x)) ** 2), None),
        "softmax": (lambda: softmax(m), None),
        "colsum": (lambda: (m * m).sum(axis=0), None),
        "colmean": (lambda: np.maximum(m, f32(0)).mean(axis=0), None),
        "layernorm": (lambda: layernorm(d["ln_x"], d["ln_g"], d["ln_b"]), None),
        "matmul": (lambda: d["a"] @ d["bm"], None),
        "matmul_bias_relu": (lambda: np.maximum(d["a"] @ d["bm"] + d["bias"], 0), None),
        "mlp_fwd": (lambda: mlp(d["mlp_x"], *mp), None),
        "mlp_fwd_vmap": (None, lambda: mlp(d["mlp_x"], *mp)),
        "mlp_fwd_loop": (lambda: [mlp(r, *mp) for r in rows], lambda: mlp(rows[0], *mp)),
        "train_step": (step, None),
        "per_example_grads": (lambda: per_example_grads(*pp, d["p_x"], d["p_labels"]), None),
        "mlp16_fwd": (lambda: deep_loss(d["deep_params"], d["deep_x"], d["deep_y"]), None),
        "mlp16_grad": (deep, None),
        "mlp16_grad_ck": (None, deep),   # no recomputation in NumPy: the check only
        "transformer_fwd": (lambda: block(d["tb_x"], d["tb_params"]), None),
        "transformer_vg": (lambda: block_vg(d["tb_x"], d["tb_params"]), None),
        "hlo_transformer_fwd": (lambda: block(d["tb_x"], d["tb_params"]), None),
        "hlo_transformer_vg": (lambda: block_vg(d["tb_x"], d["tb_params"]), None),
        "dots_vmap": (lambda: np.einsum("ij,ij->i", d["dots_a"], d["dots_b"]), None),
        "dots_hand": (lambda: (d["dots_a"] * d["dots_b"]).sum(1), None),
        "rnn_scan": (rnn, None),
        "sort": (lambda: np.sort(d["sort_x"]), None),
        "cumlogsumexp": (lambda: np.logaddexp.accumulate(d["ln_x"], axis=1), None),
        "top_k": (lambda: top_k_np(d["topk_x"], TOPK[2]), None),
        **{f"chol_{n}": ((lambda n: lambda: np.linalg.cholesky(d[f"la_a{n}"]))(n), None) for n in LA_SIZES},
        **{f"solve_{n}": ((lambda n: lambda: np.linalg.solve(d[f"la_a{n}"], d[f"la_b{n}"]))(n), None)
           for n in LA_SIZES},
        "chol_batch8": (lambda: np.linalg.cholesky(d["la_ab"]), None),
        **{f"eigh_{n}": ((lambda n: lambda: (lambda w, v: (w, v * v))(*np.linalg.eigh(d[f"la_s{n}"])))(n), None)
           for n in LA_SIZES},
        **{f"svd_{n}": ((lambda n: lambda: (lambda u, s, vt: (s, u * u, vt * vt))(
            *np.linalg.svd(d[f"la_g{n}"], full_matrices=False)))(n), None) for n in LA_SIZES},
        **{f"qr_{n}": ((lambda n: lambda: np.linalg.qr(d[f"la_g{n}"]))(n), None) for n in LA_SIZES},
        **{f"svd64_{n}": ((lambda n: lambda: (lambda u, s, vt: (s, u * u, vt * vt))(
            *np.linalg.svd(d[f"la_g{n}"].astype(np.float64), full_matrices=False)))(n), None) for n in LA_SIZES[1:]},
        "solve_batch8": (lambda: np.linalg.solve(d["la_ab"], d["la_bb"]), None),
        "gn_step": (lambda: gn_step(d["gn_p0"], d["gn_t"], d["gn_y"]), None),
        "cached_call": (cached_calls, lambda: tiny * f32(1.5) + f32(0.25)),
        "first_call_small": (None, lambda: ten_ops(tiny)),
        "first_call_step": (None, step),
    }


# ---- JAX: (timed function, check function, jitted function and its arguments for
#      memory_analysis) ----
def jax_side():
    import jax
    import jax.numpy as jnp
    import numpy as np
    jax.config.update("jax_platform_name", "cpu")
    d = {k: (jnp.asarray(v) if isinstance(v, np.ndarray) else v) for k, v in inputs(np).items()}
    d["deep_params"] = [(jnp.asarray(w), jnp.asarray(b)) for w, b in d["deep_params"]]
    d["tb_params"] = [jnp.asarray(p) for p in d["tb_params"]]
    d["cnn_params"] = [jnp.asarray(p) for p in d["cnn_params"]]

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

    def deep_layer(h, w, b):
        return jnp.tanh(h @ w + b)

    def deep_loss(params, v, target, ck=False):
        layer = jax.checkpoint(deep_layer) if ck else deep_layer
        h = v
        for w, b in params:
            h = layer(h, w, b)
        return jnp.mean((h - target) ** 2)

    def block(v, p):
        g1, be1, wq, wk, wv, wo, g2, be2, w1, b1, w2, b2 = p
        bsz, s, dm, heads, _ = TB
        h = layernorm(v, g1, be1)
        q, k, val = [(h @ w).reshape(bsz, s, heads, dm // heads) for w in (wq, wk, wv)]
        sc = jnp.einsum("bshd,bthd->bhst", q, k) * (1 / math.sqrt(dm // heads))
        a = jnp.einsum("bhst,bthd->bshd", jax.nn.softmax(sc, axis=-1), val).reshape(bsz, s, dm)
        x1 = v + a @ wo
        return x1 + jax.nn.gelu(layernorm(x1, g2, be2) @ w1 + b1) @ w2 + b2

    def block_loss(p, v):
        return jnp.mean(block(v, p) ** 2)

    def flat_grads(g):
        return [a for pair in g for a in pair]

    def cnn_block(h, w, b):   # conv 3x3 SAME + bias -> relu -> max_pool 2x2 (flax's)
        y = jax.lax.conv_general_dilated(h, w, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
        y = jnp.maximum(y + b, 0)
        return jax.lax.reduce_window(y, -jnp.inf, jax.lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")

    def cnn_loss(v, lab, w1, b1, w2, b2, wd, bd):
        h = cnn_block(cnn_block(v, w1, b1), w2, b2).reshape(v.shape[0], -1)
        logits = h @ wd + bd
        return jnp.mean(jax.nn.logsumexp(logits, axis=-1) - jnp.sum(logits * lab, axis=-1))

    def gn_residuals(p, t, y):
        k = GN[0]
        return jnp.sin(jnp.outer(t, p[k:])) @ p[:k] - y

    def gn_step(p, t, y):
        r = gn_residuals(p, t, y)
        jac = jax.jacfwd(gn_residuals)(p, t, y)
        normal = jac.T @ jac + GN[3] * jnp.eye(p.shape[0], dtype=p.dtype)
        return p - jnp.linalg.solve(normal, jac.T @ r)

    mp = (d["w1"], d["b1"], d["w2"], d["b2"])
    pp = (d["p_w1"], d["p_b1"], d["p_w2"], d["p_b2"])
    none4 = (None, None, None, None)
    deep_args = (d["deep_params"], d["deep_x"], d["deep_y"])
    # (function to jit, its arguments, results -> list of arrays for the check)
    calls = {
        "add": (lambda a, b: a + b, (d["x"], d["y"])),
        "sin": (jnp.sin, (d["x"],)),
        "axb": (lambda v: v * 1.5 + 0.25, (d["x"],)),
        "sincos": (lambda v: jnp.sin(v) * jnp.cos(v) + v * v, (d["x"],)),
        "tanh_sum": (lambda v: jnp.sum(jnp.tanh(v * 1.5 + 0.25) * 2.0 - 0.5), (d["x"],)),
        "variance": (lambda v: jnp.mean((v - jnp.mean(v)) ** 2), (d["x"],)),
        "softmax": (lambda v: jax.nn.softmax(v, axis=-1), (d["m"],)),
        "colsum": (lambda v: jnp.sum(v * v, axis=0), (d["m"],)),
        "colmean": (lambda v: jnp.mean(jax.nn.relu(v), axis=0), (d["m"],)),
        "layernorm": (layernorm, (d["ln_x"], d["ln_g"], d["ln_b"])),
        "matmul": (lambda a, b: a @ b, (d["a"], d["bm"])),
        "matmul_bias_relu": (lambda a, b, c: jnp.maximum(a @ b + c, 0), (d["a"], d["bm"], d["bias"])),
        # bf16 operands, f32 sums (NumPy has no bf16: no NumPy peer)
        "matmul_bf16": (lambda a, b: jax.lax.dot_general(a, b, (((1,), (0,)), ((), ())),
                                                         preferred_element_type=jnp.float32),
                        (d["a"].astype(jnp.bfloat16), d["bm"].astype(jnp.bfloat16))),
        # bf16 / f16 elementwise (no NumPy peer: NumPy has no bf16, and its f16 is scalar code)
        "axb_y_bf16": (lambda a, b: (a * 1.5 + 0.25) * b, (d["x"].astype(jnp.bfloat16), d["y"].astype(jnp.bfloat16))),
        "axb_y_f16": (lambda a, b: (a * 1.5 + 0.25) * b, (d["x"].astype(jnp.float16), d["y"].astype(jnp.float16))),
        "mlp_fwd": (mlp, (d["mlp_x"],) + mp),
        "mlp_fwd_vmap": (jax.vmap(mlp, in_axes=(0,) + none4), (d["mlp_x"],) + mp),
        "train_step": (make_step(), mp + (d["mlp_x"], d["labels"])),
        "per_example_grads": (jax.vmap(jax.grad(loss_one, argnums=(0, 1, 2, 3)), in_axes=none4 + (0, 0)),
                              pp + (d["p_x"], d["p_labels"])),
        "mlp16_fwd": (deep_loss, deep_args),
        "mlp16_grad": (lambda *a: flat_grads(jax.grad(deep_loss)(*a)), deep_args),
        "mlp16_grad_ck": (lambda *a: flat_grads(jax.grad(lambda *b: deep_loss(*b, ck=True))(*a)), deep_args),
        "transformer_fwd": (block, (d["tb_x"], d["tb_params"])),
        "transformer_vg": (lambda p, v: (lambda r: [r[0]] + list(r[1]))(jax.value_and_grad(block_loss)(p, v)),
                           (d["tb_params"], d["tb_x"])),
        "cnn_fwd": (cnn_loss, (d["cnn_x"], d["cnn_labels"]) + tuple(d["cnn_params"])),
        "cnn_vg": (lambda v, lab, *p: (lambda r: [r[0]] + list(r[1]))(
            jax.value_and_grad(cnn_loss, argnums=tuple(range(2, 8)))(v, lab, *p)),
            (d["cnn_x"], d["cnn_labels"]) + tuple(d["cnn_params"])),
        "dots_vmap": (jax.vmap(jnp.dot), (d["dots_a"], d["dots_b"])),
        "dots_hand": (lambda a, b: jnp.sum(a * b, axis=1), (d["dots_a"], d["dots_b"])),
        "rnn_scan": (rnn, (d["rnn_w"], d["rnn_u"], d["rnn_b"], d["rnn_h0"], d["rnn_xs"])),
        "sort": (jnp.sort, (d["sort_x"],)),
        "cumlogsumexp": (lambda v: jax.lax.cumlogsumexp(v, axis=1), (d["ln_x"],)),
        "top_k": (lambda v: jax.lax.top_k(v, TOPK[2]), (d["topk_x"],)),
        **{f"chol_{n}": (jnp.linalg.cholesky, (d[f"la_a{n}"],)) for n in LA_SIZES},
        **{f"solve_{n}": (jnp.linalg.solve, (d[f"la_a{n}"], d[f"la_b{n}"])) for n in LA_SIZES},
        "chol_batch8": (jnp.linalg.cholesky, (d["la_ab"],)),
        **{f"eigh_{n}": (lambda a: (lambda w, v: (w, v * v))(*jnp.linalg.eigh(a)), (d[f"la_s{n}"],))
           for n in LA_SIZES},
        **{f"svd_{n}": (lambda a: (lambda u, s, vt: (s, u * u, vt * vt))(*jnp.linalg.svd(a, full_matrices=False)),
                        (d[f"la_g{n}"],)) for n in LA_SIZES},
        **{f"qr_{n}": (lambda a: tuple(jnp.linalg.qr(a)), (d[f"la_g{n}"],)) for n in LA_SIZES},
        "solve_batch8": (jnp.linalg.solve, (d["la_ab"], d["la_bb"])),
        "gn_step": (gn_step, (d["gn_p0"], d["gn_t"], d["gn_y"])),
    }
    # issue 19's rows run the exported block imported into cjax; JAX runs it as written
    calls["hlo_transformer_fwd"] = calls["transformer_fwd"]
    calls["hlo_transformer_vg"] = calls["transformer_vg"]
    work = {}
    for key, (fn, args) in calls.items():
        jf = jax.jit(fn)
        run = (lambda jf, args: lambda: jax.block_until_ready(jf(*args)))(jf, args)
        work[key] = (run, None, (jf, args))

    # the f64 svd rows: the f32 matrix widened exactly, traced, compiled and
    # run with 64-bit types enabled (and only there: the other rows stay f32)
    class X64:  # memory()'s jf: lowers under the same setting
        def __init__(self, jf):
            self.jf = jf

        def lower(self, *args):
            with jax.enable_x64(True):
                return self.jf.lower(*args)

    def svd64_row(n):
        with jax.enable_x64(True):
            a = jnp.asarray(np.asarray(d[f"la_g{n}"], dtype=np.float64))
            jf = jax.jit(lambda a: (lambda u, s, vt: (s, u * u, vt * vt))(*jnp.linalg.svd(a, full_matrices=False)))

        def run():
            with jax.enable_x64(True):
                return jax.block_until_ready(jf(a))
        return run, None, (X64(jf), (a,))
    for n in LA_SIZES[1:]:
        work[f"svd64_{n}"] = svd64_row(n)

    jmlp = jax.jit(mlp)
    rows = [d["mlp_x"][b] for b in range(MLP[0])]
    work["mlp_fwd_loop"] = (lambda: jax.block_until_ready([jmlp(r, *mp) for r in rows]),
                            lambda: jmlp(rows[0], *mp), (jmlp, (rows[0],) + mp))

    axb = jax.jit(lambda v: v * 1.5 + 0.25)
    tiny = d["tiny"]

    def cached_calls():
        for _ in range(1000):
            axb(tiny).block_until_ready()
    work["cached_call"] = (cached_calls, lambda: axb(tiny), (axb, (tiny,)))

    # first calls: a fresh function each time, so nothing is cached
    def first_small():
        def f(v):
            return ten_ops(v)
        return jax.block_until_ready(jax.jit(f)(tiny))
    work["first_call_small"] = (first_small, None, (jax.jit(ten_ops), (tiny,)))
    step_args = mp + (d["mlp_x"], d["labels"])

    def first_step():
        return jax.block_until_ready(jax.jit(make_step())(*step_args))
    work["first_call_step"] = (first_step, None, (jax.jit(make_step()), step_args))
    return work, jax


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
                       ("code", "generated_code_size_in_bytes"), ("peak", "peak_memory_in_bytes")):
        v = getattr(m, attr, None)
        if v is not None:
            out[f"jax.{key}.mem.{part}"] = int(v)


def thread_info(out):
    """What the peers were told to use (bench_main sets these from cjax's
    thread count), the CPUs this process may run on, and, when
    threadpoolctl is installed, what BLAS uses."""
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "XLA_FLAGS"):
        out[f"info.env.{var}"] = os.environ.get(var, "")
    try:
        out["info.cpus"] = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        pass
    try:
        from threadpoolctl import threadpool_info
        out["info.numpy_blas_threads"] = ", ".join(
            f"{p.get('internal_api')} {p.get('num_threads')}" for p in threadpool_info())
    except Exception:
        pass


class Peers:
    """Both peers' workloads, set up once; a peer that failed is absent."""

    def __init__(self, reps, round_ms):
        self.reps, self.round_s = reps, round_ms / 1e3
        self.info = {"info.python": platform.python_version()}
        thread_info(self.info)
        self.sides = {}
        for name, setup in (("numpy", self._numpy), ("jax", self._jax)):
            try:
                self.sides[name] = setup()
            except ImportError:
                self.info[f"info.{name}"] = "missing"
            except Exception as e:  # a broken peer is reported, not fatal
                print(f"peers.py: {name} failed: {e!r}", file=sys.stderr)
                self.info[f"info.{name}"] = f"failed: {e}"

    def _numpy(self):
        import numpy as np
        work = {k: (t, c, None) for k, (t, c) in numpy_side().items()}
        self.info["info.numpy"] = np.__version__
        return work

    def _jax(self):
        work, jax = jax_side()
        self.info["info.jax"] = jax.__version__
        self.info["info.jax_devices"] = ", ".join(str(dv) for dv in jax.devices())
        return work

    def prepare(self, key):
        out = {}
        for name, work in self.sides.items():
            if key not in work:
                continue
            timed, check, mem = work[key]
            try:
                value = (check or timed)()
                if timed is not None and check is not None:
                    timed()   # the timed function's warm-up (compiles)
                out[f"{name}.{key}.check"] = summary(as_list(value))
                if mem:
                    memory(out, key, *mem)
            except Exception as e:
                print(f"peers.py: {name} {key} failed: {e!r}", file=sys.stderr)
                work.pop(key)
        return out

    def one_round(self, key, n):
        out = {}
        names = list(self.sides)
        for name in (names if n % 2 == 0 else names[::-1]):
            timed = self.sides[name].get(key, (None,))[0]
            if timed is None:
                continue
            walls, cpus, spent = [], [], 0.0
            while len(walls) < self.reps and (not walls or spent < self.round_s):
                t, c = time.perf_counter(), time.process_time()
                timed()
                dt, dc = time.perf_counter() - t, time.process_time() - c
                walls.append(dt * 1e3)
                cpus.append(dc * 1e3)
                spent += dt
            walls.sort()
            cpus.sort()
            out[f"{name}.{key}.wall_ms"] = walls[len(walls) // 2]
            out[f"{name}.{key}.cpu_ms"] = cpus[len(cpus) // 2]
            out[f"{name}.{key}.calls"] = len(walls)
        return out


def serve(args):
    reps, round_ms = REPS, ROUND_MS
    while args and args[0].startswith("--"):
        if args[0] == "--reps":
            reps = max(1, int(args[1]))
        elif args[0] == "--round-ms":
            round_ms = float(args[1])
        args = args[2:]
    peers = Peers(reps, round_ms)
    print(json.dumps(peers.info), flush=True)
    for line in sys.stdin:
        words = line.split()
        if len(words) == 2 and words[0] == "prepare":
            print(json.dumps(peers.prepare(words[1])), flush=True)
        elif len(words) == 3 and words[0] == "round":
            print(json.dumps(peers.one_round(words[1], int(words[2]))), flush=True)
        else:
            break


def table():
    peers = Peers(REPS, ROUND_MS)
    out = dict(peers.info)
    keys = []
    for work in peers.sides.values():
        keys += [k for k in work if k not in keys]
    for key in keys:
        prep = peers.prepare(key)
        out.update({k: v for k, v in prep.items() if not k.endswith(".check")})
        out.update(peers.one_round(key, 0))
    for k in sorted(out):
        print(f"{k:45s} {out[k]}")


def main():
    args = sys.argv[1:]
    if args[:1] == ["serve"]:
        serve(args[1:])
    elif args == ["table"]:
        table()
    else:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
