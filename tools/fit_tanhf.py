#!/usr/bin/env python3
"""fit_tanhf.py - the coefficients of cjk_tanhf (src/runtime/vmath_tanhf.h).

tanh(x) = x P(s) / Q(s), s = x^2, P and Q of degree M and N in s with
P(0) = Q(0) = 1, fitted to g(s) = tanh(x)/x for least maximum relative error
on [0, X]: weighted linear least squares on P - g Q (weights 1 / (g Q) of the
previous iterate, so the residual is a relative error), reweighted by
Lawson's rule (w *= |error|) until the weights settle on the equioscillation
points. Then the coefficients are rounded to float32 one at a time, highest
power first, the free ones refitted after each rounding, so the rounding of
each is absorbed by the others. Prints the float32 coefficients as C hex
literals, P's from s^1 up, then Q's, and the relative error at each step
(stderr). numpy only; the result is checked in float arithmetic by
tests/test_vmath_tanh_accuracy.c, not here.

  python3 tools/fit_tanhf.py [M N X]      (default 4 4 9.02)
"""
import sys

import numpy as np


def main():
    m, n, X = (int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])) if len(sys.argv) > 3 else (4, 4, 9.02)
    S = X * X
    pts = 30000
    u = np.cos(np.pi * (np.arange(pts) + 0.5) / pts)  # dense near both ends
    s = np.sort((u + 1) / 2) * S
    x = np.sqrt(s)
    g = np.where(x < 1e-4, 1 - s / 3 + 2 * s * s / 15, np.tanh(x) / np.maximum(x, 1e-300))
    t = s / S  # the fit runs in t = s/S, in [0, 1], for conditioning

    def fit(fixed, iters=300):
        free = [f for f in [("a", k) for k in range(1, m + 1)] + [("b", k) for k in range(1, n + 1)] if f not in fixed]
        A = np.stack([t**k if w == "a" else -g * t**k for (w, k) in free], 1)
        base = 1 - g
        for (w, k), v in fixed.items():
            base = base + (v * S**k) * t**k * (1 if w == "a" else -g)
        W, Qold = np.ones(pts), np.ones(pts)
        for _ in range(iters):
            sc = np.sqrt(W) / (g * Qold)
            c, *_ = np.linalg.lstsq(A * sc[:, None], -base * sc, rcond=None)
            co = dict(fixed)
            for (w, k), v in zip(free, c):
                co[(w, k)] = v / S**k
            P = np.polyval(([1] + [co[("a", k)] for k in range(1, m + 1)])[::-1], s)
            Q = np.polyval(([1] + [co[("b", k)] for k in range(1, n + 1)])[::-1], s)
            err = P / Q / g - 1
            Qold = Q
            W = np.maximum(W * np.abs(err) / np.sum(W * np.abs(err)), 1e-40)
        return co, np.max(np.abs(err))

    fixed = {}
    co, e = fit(fixed)
    print("M=%d N=%d X=%g: max relative error %.3e (%.2f x 2^-24)" % (m, n, X, e, e / 2**-24), file=sys.stderr)
    order = sorted([("a", k) for k in range(1, m + 1)] + [("b", k) for k in range(1, n + 1)], key=lambda f: -f[1])
    for f in order:
        fixed[f] = float(np.float32(co[f]))
        if len(fixed) < m + n:
            co, e = fit(fixed)
            print("  %s%d rounded: %.3e" % (f[0], f[1], e), file=sys.stderr)
    def c_hex(v):  # 0x1.1213d4p-3f
        mant, exp = float(v).hex().split("p")
        return mant.rstrip("0").rstrip(".") + "p" + exp + "f"

    for w, deg in (("a", m), ("b", n)):
        print(("P" if w == "a" else "Q") + ": " + " ".join(c_hex(fixed[(w, k)]) for k in range(1, deg + 1)))


if __name__ == "__main__":
    main()
