#!/usr/bin/env python3
"""compare.py — two `make bench` runs side by side.

    python3 bench/compare.py bench/results/A.json bench/results/B.json [column]

For each workload in either run: the column (default cc_ms; any numeric
field of bench/results/README.md, e.g. eager_ms, numpy_ms, cc_over_jax,
limit_fraction) in A and in B, and B / A. The limits of both runs come
first: on these shared machines a change in the limits means the machine,
not cjax, changed (compare ratios to peers and fractions of limits rather
than raw times across runs). Needs only the standard library.
"""
import json
import sys


def load(path):
    with open(path) as f:
        return json.load(f)


def fmt(v):
    if v is None:
        return "-"
    return f"{v:.3f}" if abs(v) < 1 else f"{v:.2f}"


def main():
    if len(sys.argv) not in (3, 4):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    a, b = load(sys.argv[1]), load(sys.argv[2])
    col = sys.argv[3] if len(sys.argv) == 4 else "cc_ms"
    print(f"A: {a.get('run')} ({a.get('date')}, {a['machine'].get('cpu')})")
    print(f"B: {b.get('run')} ({b.get('date')}, {b['machine'].get('cpu')})\n")
    print(f"{'limit':28s} {'A':>10s} {'B':>10s} {'B/A':>7s}")
    for key in ("copy_gbs", "fma_gflops", "sgemm_gflops"):
        va, vb = a["limits"].get(key), b["limits"].get(key)
        ratio = f"{vb / va:.2f}x" if va and vb else "-"
        print(f"{key:28s} {fmt(va):>10s} {fmt(vb):>10s} {ratio:>7s}")
    rows_a = {w["key"]: w for w in a["workloads"]}
    rows_b = {w["key"]: w for w in b["workloads"]}
    keys = list(rows_a) + [k for k in rows_b if k not in rows_a]
    print(f"\n{col:28s} {'A':>10s} {'B':>10s} {'B/A':>7s}")
    for k in keys:
        va = rows_a.get(k, {}).get(col)
        vb = rows_b.get(k, {}).get(col)
        ratio = f"{vb / va:.2f}x" if isinstance(va, (int, float)) and isinstance(vb, (int, float)) and va else "-"
        print(f"{k:28s} {fmt(va):>10s} {fmt(vb):>10s} {ratio:>7s}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
