"""gen_random3_fixtures.py — writes the fixtures of jax.random's samplers
built on gamma and on rejection loops (tests/test_random_gamma.c compares
against them): gamma, loggamma, beta, dirichlet, ball (generalized normal
directions), poisson, and gumbel in mode "high". Not run by `make test` (it
needs JAX): python3 tests/data/gen_random3_fixtures.py

Same conventions as gen_random2_fixtures.py: JAX's defaults (threefry2x32,
partitionable, x64 off) for f32 and int32 results; f64 (and poisson's
int64) from a second pass with JAX_ENABLE_X64=1 on the same raw keys.
Files are named g_<sampler>_<case>_s<seed index>_<dtype>.npy."""
import os
import subprocess
import sys

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "random")
SEED_IDX = [0, 2, 4]  # seeds 0, 42, -7 of gen_random_fixtures.py
ALPHAS = [0.2, 0.7, 1.0, 3.0, 9.5]  # below, at and above 1
BETA_A = [0.3, 1.0, 2.0, 5.0]
BETA_B = [0.6, 1.0, 4.0, 0.5]
DIRICHLET = [0.25, 1.0, 3.5]
W = np.array([1.0, -0.5, 2.0, 0.25, -1.5])
GRAD_A = [0.05, 0.3, 1.0, 2.5, 10.0, 80.0]  # lax.random_gamma_grad(a, x) on this grid
GRAD_X = [1e-3, 0.2, 0.9, 1.5, 4.0, 12.0, 100.0]
LAMS = [0.0, 0.5, 3.0, 9.9, 10.0, 25.0, 250.0]  # Knuth below 10, rejection from 10


def save(name, arr):
    arr = np.asarray(arr)
    np.save(os.path.join(OUT, "g_" + name + ".npy"), arr)


def draws(jax, jnp, key, si, dt, tag, itag):
    r = jax.random
    al = jnp.asarray(ALPHAS, dt)
    for a in (0.4, 1.0, 2.5):
        save(f"gamma_a{a}_3x4_s{si}_{tag}", r.gamma(key, a, (3, 4), dt))
        save(f"loggamma_a{a}_3x4_s{si}_{tag}", r.loggamma(key, a, (3, 4), dt))
    save(f"gamma_vec_s{si}_{tag}", r.gamma(key, al, None, dt))
    save(f"gamma_bcast_s{si}_{tag}", r.gamma(key, al, (2, 5), dt))
    save(f"loggamma_vec_s{si}_{tag}", r.loggamma(key, al, None, dt))
    save(f"beta_s{si}_{tag}", r.beta(key, jnp.asarray(BETA_A, dt), jnp.asarray(BETA_B, dt), None, dt))
    save(f"beta_bcast_s{si}_{tag}", r.beta(key, jnp.asarray(BETA_A, dt), 1.5, (3, 4), dt))
    save(f"dirichlet_s{si}_{tag}", r.dirichlet(key, jnp.asarray(DIRICHLET, dt), (4,), dt))
    save(f"ball_d3_p2_s{si}_{tag}", r.ball(key, 3, 2.0, (4,), dt))
    save(f"ball_d2_p1_s{si}_{tag}", r.ball(key, 2, 1.0, (5,), dt))
    save(f"ball_d4_p3.5_s{si}_{tag}", r.ball(key, 4, 3.5, (), dt))
    save(f"gumbel_high_5_s{si}_{tag}", r.gumbel(key, (5,), dt, mode="high"))
    save(f"gumbel_high_3x4_s{si}_{tag}", r.gumbel(key, (3, 4), dt, mode="high"))
    save(f"poisson_vec_s{si}_{itag}", r.poisson(key, jnp.asarray(LAMS, jnp.float32), None, itag_dtype(jnp, itag)))
    save(f"poisson_l4_3x4_s{si}_{itag}", r.poisson(key, 4.0, (3, 4), itag_dtype(jnp, itag)))
    save(f"poisson_l40_3x4_s{si}_{itag}", r.poisson(key, 40.0, (3, 4), itag_dtype(jnp, itag)))
    # gamma's derivative in a (implicit reparameterisation) through the samplers
    save(f"gamma_grad_vec_s{si}_{tag}", jax.grad(lambda a: jnp.sum(r.gamma(key, a, None, dt) * W[:5].astype(dt)))(al))
    save(f"loggamma_grad_vec_s{si}_{tag}",
         jax.grad(lambda a: jnp.sum(r.loggamma(key, a, None, dt) * W[:5].astype(dt)))(al))
    save(f"beta_grad_s{si}_{tag}",
         jax.grad(lambda a: jnp.sum(r.beta(key, a, jnp.asarray(BETA_B, dt), None, dt)))(jnp.asarray(BETA_A, dt)))
    if si == 0:
        ga, gx = np.meshgrid(np.asarray(GRAD_A), np.asarray(GRAD_X), indexing="ij")
        save(f"random_gamma_grad_{tag}", jax.lax.random_gamma_grad(jnp.asarray(ga, dt), jnp.asarray(gx, dt)))
        save(f"gamma_a0.4_1000_s0_{tag}", r.gamma(key, 0.4, (1000,), dt))
        save(f"gamma_a2.5_1000_s0_{tag}", r.gamma(key, 2.5, (1000,), dt))
        save(f"loggamma_a0.4_1000_s0_{tag}", r.loggamma(key, 0.4, (1000,), dt))
        save(f"poisson_l4_1000_s0_{itag}", r.poisson(key, 4.0, (1000,), itag_dtype(jnp, itag)))
        save(f"poisson_l40_1000_s0_{itag}", r.poisson(key, 40.0, (1000,), itag_dtype(jnp, itag)))
        save(f"gumbel_high_1000_s0_{tag}", r.gumbel(key, (1000,), dt, mode="high"))


def itag_dtype(jnp, itag):
    return jnp.int64 if itag == "i64" else jnp.int32


def run(x64):
    import jax
    import jax.numpy as jnp

    assert bool(jax.config.jax_enable_x64) == x64
    assert jax.config.jax_threefry_partitionable
    for si in SEED_IDX:
        raw = np.load(os.path.join(OUT, f"key_s{si}.npy")).view(np.uint32)
        key = jax.random.wrap_key_data(jnp.asarray(raw, dtype=jnp.uint32))
        if x64:
            draws(jax, jnp, key, si, jnp.float64, "f64", "i64")
        else:
            draws(jax, jnp, key, si, jnp.float32, "f32", "i32")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--x64":
        run(True)
    else:
        run(False)
        env = dict(os.environ, JAX_ENABLE_X64="1")
        subprocess.run([sys.executable, os.path.abspath(__file__), "--x64"], env=env, check=True)
