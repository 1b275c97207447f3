# loop.py — the JAX original of the README's loop idiom (examples/loop.c,
# examples/cpp/loop.cpp).
import jax.numpy as jnp

x = jnp.linspace(-10.0, 10.0, 10000)
for i in range(1000):
    x = x - 0.1 * jnp.sin(x)
print(f"x[0] after 1000 steps: {x[0]:.7g} (it settles on -4 pi = {-4 * 3.14159265358979:.7g})")
