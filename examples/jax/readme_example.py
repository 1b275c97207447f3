# readme_example.py — the JAX original of the README's example
# (examples/readme_example.c, examples/cpp/readme_example.cpp).
import jax, jax.numpy as jnp

x = jnp.linspace(0.0, 1.0, 5)
print(jnp.exp(x))
jf = jax.jit(lambda x: jnp.sin(x) * jnp.cos(x) + x * x)
y = jf(x)
print(jax.make_jaxpr(jf)(x))
print(y)
