# pendulum.py — the JAX original of examples/pendulum.c and
# examples/cpp/pendulum.cpp: swing a damped pendulum up by optimising its
# torques with jit(value_and_grad(loss)) of a scan (python3 pendulum.py).
import jax, jax.numpy as jnp

def step(s, u):  # (angle, rate), torque
    w = s[1] + 0.05 * (-9.81 * jnp.sin(s[0]) - 0.1 * s[1] + u)
    th = s[0] + 0.05 * w
    return jnp.stack([th, w]), th

def loss(u):
    s, ths = jax.lax.scan(step, jnp.zeros(2), u)
    return (s[0] - jnp.pi) ** 2 + s[1] ** 2 + 1e-3 * jnp.sum(u * u)

vg = jax.jit(jax.value_and_grad(loss))
u = jnp.zeros(100)
for i in range(300):
    l, g = vg(u)
    if i % 100 == 0: print(i, l)
    u = u - 0.5 * g
print(vg(u)[0])
print(u)
