"""mlp_grad_memory.py -- XLA's memory_analysis() for the programs that
tools/mlp_grad_memory.c reports from cjax (issue 15), on CPU, so the two
can be read side by side. Not part of make test; needs jax.

    python3 tools/mlp_grad_memory.py [name]

deep      jit(grad) of a 16-layer tanh MLP, width 512, batch 256, by every
          weight and bias;  deep_ck: each layer under jax.checkpoint
mlp_fwd   relu MLP forward 256x784 > 512 > 512 > 10 (the logits)
mlp_grad  jit(grad) of -mean(onehot * log_softmax(logits)) by the parameters;
          mlp_grad_ck: each hidden layer under jax.checkpoint

The inputs' values do not change the figures, so they are zeros here."""
import sys

import jax
import jax.numpy as jnp

LAYERS, WIDTH, BATCH = 16, 512, 256


def report(name, fn, args):
    m = jax.jit(fn).lower(*args).compile().memory_analysis()
    peak = getattr(m, "peak_memory_in_bytes", None)
    print(f"{name:<10} arguments {m.argument_size_in_bytes:9d}  outputs {m.output_size_in_bytes:9d}  "
          f"temporaries {m.temp_size_in_bytes:9d}  aliased {m.alias_size_in_bytes}  "
          f"generated code {m.generated_code_size_in_bytes}  peak {peak}")


def deep(ck):
    def layer(h, w, b):
        return jnp.tanh(h @ w + b)
    if ck:
        layer = jax.checkpoint(layer)

    def loss(params, x, y):
        h = x
        for w, b in params:
            h = layer(h, w, b)
        return jnp.mean((h - y) ** 2)
    params = [(jnp.zeros((WIDTH, WIDTH), jnp.float32), jnp.zeros((WIDTH,), jnp.float32)) for _ in range(LAYERS)]
    x = jnp.zeros((BATCH, WIDTH), jnp.float32)
    return jax.grad(loss), (params, x, x)


def relu_layer(h, w, b):
    return jax.nn.relu(h @ w + b)


def logits(params, x, layer=relu_layer):
    (w1, b1), (w2, b2), (w3, b3) = params
    h = layer(layer(x, w1, b1), w2, b2)
    return h @ w3 + b3


def mlp_loss(params, x, onehot):
    return -jnp.mean(onehot * jax.nn.log_softmax(logits(params, x), axis=-1))


def mlp_loss_ck(params, x, onehot):
    ck = jax.checkpoint(relu_layer)
    return -jnp.mean(onehot * jax.nn.log_softmax(logits(params, x, ck), axis=-1))


def mlp_args():
    sizes = [(784, 512), (512, 512), (512, 10)]
    params = [(jnp.zeros(s, jnp.float32), jnp.zeros((s[1],), jnp.float32)) for s in sizes]
    return params, jnp.zeros((256, 784), jnp.float32), jnp.zeros((256, 10), jnp.float32)


def main():
    only = sys.argv[1] if len(sys.argv) > 1 else None
    if only in (None, "deep"):
        report("deep", *deep(False))
    if only in (None, "deep_ck"):
        report("deep_ck", *deep(True))
    p, x, y = mlp_args()
    if only in (None, "mlp_fwd"):
        report("mlp_fwd", logits, (p, x))
    if only in (None, "mlp_grad"):
        report("mlp_grad", jax.grad(mlp_loss), (p, x, y))
    if only in (None, "mlp_grad_ck"):
        report("mlp_grad_ck", jax.grad(mlp_loss_ck), (p, x, y))


if __name__ == "__main__":
    main()
