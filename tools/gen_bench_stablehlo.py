"""Exports the JAX programs of `make bench`'s imported-StableHLO rows
(bench/data/*.mlir): bench/peers.py's transformer block forward and its
value_and_grad, lowered by jax.jit at the bench's sizes and inputs, in the
pretty form (Lowered.as_text()). The rows hlo_transformer_fwd/_vg import
these files and run them beside the same jitted JAX functions. Needs JAX
(0.10.2 wrote the committed files); `make bench` only reads them.

    python3 tools/gen_bench_stablehlo.py
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "bench"))
import peers  # noqa: E402

OUT = os.path.join(HERE, "..", "bench", "data")


def main():
    os.makedirs(OUT, exist_ok=True)
    work, jax = peers.jax_side()
    for key in ("transformer_fwd", "transformer_vg"):
        jf, args = work[key][2]
        text = jf.lower(*args).as_text()
        path = os.path.join(OUT, "hlo_" + key + ".mlir")
        with open(path, "w") as fh:
            fh.write(text)
        print(path, len(text), "bytes")


if __name__ == "__main__":
    main()
