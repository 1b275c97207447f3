/* random.c — the threefry2x32 primitive, the hash under jax.random (prim
 * layer, family RANDOM).
 *
 * threefry2x32(k0, k1, x0, x1): Threefry-2x32 with 20 rounds (Salmon et
 * al., "Parallel random numbers: as easy as 1, 2, 3"), exactly the hash of
 * JAX's threefry2x32_p. The operands are all u32 (as JAX's) or all i32
 * holding the same bit patterns (what the samplers in src/api/random.c
 * use), and the result has their dtype; the kernel computes in uint32_t,
 * where overflow wraps (signed overflow would be undefined). x0 and x1 have one
 * shape S; the key words k0 and k1 are either rank 0 (one key for every
 * counter) or also of shape S (a key per counter, as vmap over keys makes).
 * Every primitive has one output, so the two result words are stacked:
 * out is i32[2, S], out[0] the first word, out[1] the second.
 *
 * The hash is not differentiable (its jvp is zero) and the compiler runs
 * it as an opaque single kernel through the eager kernel below. The
 * samplers built on it (src/api/random.c) are ordinary cjax operations. */
#include <string.h>

#include "../autodiff/ad_rules.h"
#include "batching.h"
#include "prim.h"

/* ---- abstract evaluation ---------------------------------------------- */

static int threefry_abstract_eval(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in,
                                  const rt_aval *in, rt_aval *out) {
    (void)p, (void)n_in;
    static const char *const names[4] = {"k0", "k1", "x0", "x1"};
    char a[96], b[96];
    for (int i = 0; i < 4; i++)
        if (in[i].dtype != CJ_U32 && in[i].dtype != CJ_I32) {
            rt_aval_str(&in[i], a, sizeof a);
            return prim_error(ctx, CJ_ERR_DTYPE, prim, "%s must be u32 (or i32 holding uint32 bits), got %s",
                              names[i], a);
        }
    for (int i = 1; i < 4; i++)
        if (in[i].dtype != in[0].dtype) {
            rt_aval_str(&in[0], a, sizeof a);
            rt_aval_str(&in[i], b, sizeof b);
            return prim_error(ctx, CJ_ERR_DTYPE, prim, "operands must share one dtype: k0 %s but %s %s", a,
                              names[i], b);
        }
    if (!rt_aval_same_shape(&in[2], &in[3]) || !rt_aval_same_shape(&in[0], &in[1])) {
        int k = rt_aval_same_shape(&in[2], &in[3]) ? 0 : 2;
        rt_aval_str(&in[k], a, sizeof a);
        rt_aval_str(&in[k + 1], b, sizeof b);
        return prim_error(ctx, CJ_ERR_SHAPE, prim, "%s %s and %s %s must have one shape", names[k], a,
                          names[k + 1], b);
    }
    if (in[0].rank != 0 && !rt_aval_same_shape(&in[0], &in[2])) {
        rt_aval_str(&in[0], a, sizeof a);
        rt_aval_str(&in[2], b, sizeof b);
        return prim_error(ctx, CJ_ERR_SHAPE, prim, "keys %s must be rank 0 or have the counts' shape %s", a, b);
    }
    if (in[2].rank + 1 > CJ_MAX_RANK) {
        rt_aval_str(&in[2], a, sizeof a);
        return prim_error(ctx, CJ_ERR_SHAPE, prim, "counts %s: the result needs rank %d (at most %d)", a,
                          in[2].rank + 1, CJ_MAX_RANK);
    }
    memset(out, 0, sizeof *out);
    out->dtype = in[0].dtype;
    out->rank = in[2].rank + 1;
    out->dims[0] = 2;
    for (int d = 0; d < in[2].rank; d++) out->dims[d + 1] = in[2].dims[d];
    return 0;
}

/* ---- the hash ------------------------------------------------------------ */

static inline uint32_t rotl32(uint32_t v, unsigned r) { return (v << r) | (v >> (32u - r)); }

/* Four rounds of mix with the given rotations. */
static inline void four_rounds(uint32_t *x0, uint32_t *x1, const unsigned rot[4]) {
    for (int i = 0; i < 4; i++) {
        *x0 += *x1;
        *x1 = rotl32(*x1, rot[i]);
        *x1 ^= *x0;
    }
}

/* Threefry-2x32, 20 rounds: five groups of four, a key injection after
 * each (JAX's _threefry2x32_lowering, unrolled). */
static inline void threefry2x32(uint32_t k0, uint32_t k1, uint32_t *x0, uint32_t *x1) {
    static const unsigned rot_a[4] = {13, 15, 26, 6}, rot_b[4] = {17, 29, 16, 24};
    uint32_t ks[3] = {k0, k1, k0 ^ k1 ^ 0x1BD11BDAu};
    *x0 += ks[0];
    *x1 += ks[1];
    for (uint32_t g = 0; g < 5; g++) {
        four_rounds(x0, x1, g % 2 == 0 ? rot_a : rot_b);
        *x0 += ks[(g + 1) % 3];
        *x1 += ks[(g + 2) % 3] + g + 1;
    }
}

static int threefry_impl(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in,
                         rt_array *const *in, rt_array *out) {
    (void)ctx, (void)prim, (void)p, (void)n_in;
    int64_t n = in[2]->size;
    int per_counter_key = in[0]->aval.rank != 0;
    const int32_t *k0 = in[0]->data, *k1 = in[1]->data, *c0 = in[2]->data, *c1 = in[3]->data;
    int32_t *y0 = out->data, *y1 = y0 + n;
    for (int64_t i = 0; i < n; i++) {
        int64_t k = per_counter_key ? i : 0;
        uint32_t a = (uint32_t)c0[i], b = (uint32_t)c1[i];
        threefry2x32((uint32_t)k0[k], (uint32_t)k1[k], &a, &b);
        memcpy(&y0[i], &a, 4);
        memcpy(&y1[i], &b, 4);
    }
    return 0;
}

/* ---- vmap ----
 * Every batched operand goes to axis 0. Keys batched with unbatched
 * counts (vmap over a batch of keys) or the reverse are broadcast to the
 * full [B, S] so the primitive's shape rule holds; keys that are not
 * batched stay scalars. The result [2, B, S] has its batch axis at 1. */
static cj_val batched_full(cj_val x, int64_t bdim, int64_t size, int rank, const int64_t *full) {
    cj_val b = batch_to(x, bdim, size, 0);
    int xr = core_peek(b) ? core_peek(b)->aval.rank : 0;
    if (xr == rank) return b;
    int64_t dims[CJ_MAX_RANK];
    for (int d = 0; d < xr; d++) dims[d] = d; /* a scalar key per example: [B] → [B, S] */
    return bind_broadcast_in_dim(b, rank, full, dims);
}

static int threefry_batch(struct cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                          const int64_t *bdim, int64_t size, cj_val *out, int64_t *out_bdim) {
    (void)n_in;
    /* full = [B] + the counts' per-example shape */
    const core_value *xv = core_peek(in[2]);
    if (!xv) return -1;
    int64_t full[CJ_MAX_RANK];
    int rank = 0;
    full[rank++] = size;
    for (int d = 0; d < xv->aval.rank; d++)
        if (d != bdim[2]) full[rank++] = xv->aval.dims[d];
    if (rank + 1 > CJ_MAX_RANK)
        return prim_error(ctx, CJ_ERR_SHAPE, prim, "vmap: batched counts need rank %d (at most %d)", rank + 1,
                          CJ_MAX_RANK);
    int keys_batched = bdim[0] != BDIM_NONE || bdim[1] != BDIM_NONE;
    cj_val args[4];
    for (int i = 0; i < 4; i++) {
        const core_value *v = core_peek(in[i]);
        if (!v) return -1;
        /* keys shared by the whole batch stay scalars */
        int shared_scalar_key = i < 2 && !keys_batched && v->aval.rank == 0;
        args[i] = shared_scalar_key ? in[i] : batched_full(in[i], bdim[i], size, rank, full);
        if (!args[i].slot) return -1;
    }
    *out = core_bind(ctx, prim, p, 4, args);
    *out_bdim = 1;
    return out->slot ? 0 : -1;
}

void prim_register_random(void) {
    prim_rules[PRIM_THREEFRY2X32] = (prim_rule){
        .abstract_eval = threefry_abstract_eval,
        .impl = threefry_impl,
        .lower = {.kind = LOWER_OPAQUE},
        .batch = threefry_batch,
        .jvp = ad_jvp_zero,
        .extra_dtypes = 1, /* u32 (the shape rule checks the dtypes itself) */
    };
}
