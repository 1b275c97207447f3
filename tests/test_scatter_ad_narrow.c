/* test_scatter_ad_narrow.c — the derivative rules of lax.gather and the
 * scatter family (set, add, mul, min, max) on f16 and bf16, against JAX.
 *
 * tests/data/scatter_ad_narrow/ (tests/data/gen_scatter_ad_narrow_fixtures.py,
 * jitted JAX on CPU) holds, for each kind on one layout (x (5, 3), four
 * one-row updates with a duplicate index, ties for min/max): the value,
 * the jvp, the vjp (the transposes: scatter-add of cotangents, gathers of
 * them, the winners' masks), and vmap of the jvp and the vjp over a batch
 * of two tangents / cotangents. Each runs eagerly and under jit on both
 * backends; tangents and cotangents stay f16/bf16 (checked: a wrong dtype
 * fails tu_match_ulp). Values agree within ULP_LIMIT narrow ulps: most bit
 * for bit; where cjax and XLA multiply or add in another order (mul's
 * tangent is t_x·(scattered u) + x·(scattered t_u)-like products rounded
 * once each) the last bit may differ. */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cjax.h"
#include "harness.h"
#include "test_util.h"

#define ULP_LIMIT 1

static cj_val load(cj_ctx *ctx, const char *name) {
    char path[512];
    snprintf(path, sizeof path, "%s/scatter_ad_narrow/%s.npy", CJAX_TEST_DATA_DIR, name);
    return cj_load_npy(ctx, path);
}

static const char *KINDS[6] = {"gather", "set", "add", "mul", "min", "max"};

/* The primal function of kind k (user: a pointer to k): x, u -> one array. */
static void primal(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    int k = *(const int *)user;
    int32_t rows[4] = {2, 0, 2, 4}, unique_rows[4] = {3, 0, 2, 4};
    int64_t ishape[2] = {4, 1};
    cj_val idx = cj_array(ctx, CJ_I32, 2, ishape, k == 3 ? unique_rows : rows);
    if (k == 0) {
        cj_gather_dnums gn = {.offset_dims = {1, {1}}, .collapsed_slice_dims = {1, {0}}, .start_index_map = {1, {0}}};
        const int64_t sizes[2] = {1, 3};
        out[0] = cj_gather(in[0], idx, &gn, sizes, CJ_INDEX_FILL_OR_DROP, NULL);
        return;
    }
    cj_scatter_dnums dn = {.update_window_dims = {1, {1}}, .inserted_window_dims = {1, {0}},
                           .scatter_dims_to_operand_dims = {1, {0}}, .unique_indices = k == 3};
    static const cj_scatter_kind kinds[6] = {0, CJ_SCATTER_SET, CJ_SCATTER_ADD, CJ_SCATTER_MUL, CJ_SCATTER_MIN,
                                             CJ_SCATTER_MAX};
    out[0] = cj_scatter(in[0], idx, in[1], &dn, kinds[k], CJ_INDEX_FILL_OR_DROP);
}

/* What the wrappers below close over: the kind and the primals. */
typedef struct closure {
    int kind;
    cj_val x, u;
} closure;

/* (tx, tu) -> (out, jvp) */
static void jvp_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    closure *c = user;
    cj_func *f = cj_func_new(ctx, "primal", primal, 2, 1, &c->kind);
    cj_val primals[2] = {c->x, c->u};
    cj_jvp(f, primals, in, &out[0], &out[1]);
    cj_func_free(f);
}

/* ct -> (ct_x, ct_u) */
static void vjp_fn(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    closure *c = user;
    cj_func *f = cj_func_new(ctx, "primal", primal, 2, 1, &c->kind);
    cj_val primals[2] = {c->x, c->u}, po;
    cj_func *pb = cj_vjp(f, primals, &po);
    if (pb) cj_call(pb, in, out);
    cj_func_free(pb);
    cj_func_free(f);
}

/* jvp_fn's tangent alone, for vmap */
static void jvp_tangent(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    cj_val both[2];
    jvp_fn(ctx, in, both, user);
    out[0] = both[1];
}

static const char *MODES[3] = {"eager", "jit interp", "jit cc"};

static cj_status run(cj_ctx *ctx, int mode, bool vmapped, cj_fn body, int n_in, int n_out, closure *c,
                     const cj_val *in, cj_val *out) {
    cj_func *f = cj_func_new(ctx, "wrapper", body, n_in, n_out, c);
    if (vmapped) f = cj_vmap(f, NULL);
    if (mode) f = cj_jit(f, &(cj_jit_opts){.backend = mode == 1 ? CJ_BACKEND_INTERP : CJ_BACKEND_CC});
    cj_status s = cj_call(f, in, out);
    cj_func_free(f);
    return s;
}

static void check_close(cj_ctx *ctx, cj_val got, const char *name, const char *mode) {
    char why[200];
    CHECK_MSG(tu_match_ulp(got, load(ctx, name), ULP_LIMIT, why, sizeof why, NULL), "%s %s: %s (%s)", mode, name, why,
              cj_error_message(ctx));
}

TEST(scatter_ad_narrow_jvp_vjp_and_their_vmap_match_jax) {
    static const char *TAGS[2] = {"f16", "bf16"};
    for (int t = 0; t < 2; t++)
        for (int k = 0; k < 6; k++)
            for (int mode = 0; mode < 3; mode++) {
                cj_ctx *ctx = cj_ctx_new(NULL);
                const char *tag = TAGS[t], *kind = KINDS[k];
                char n[96];
#define LOAD(what) (snprintf(n, sizeof n, "in_%s_%s", tag, what), load(ctx, n))
#define WANT(what) (snprintf(n, sizeof n, "%s_%s_%s", kind, tag, what), n)
                closure c = {k, LOAD("x"), LOAD("u")};
                cj_val tan[2] = {LOAD("tx"), LOAD("tu")}, out[2];
                CHECK_MSG(run(ctx, mode, false, jvp_fn, 2, 2, &c, tan, out) == CJ_OK, "%s %s jvp: %s", kind,
                          MODES[mode], cj_error_message(ctx));
                check_close(ctx, out[0], WANT("out"), MODES[mode]);
                check_close(ctx, out[1], WANT("jvp"), MODES[mode]);
                snprintf(n, sizeof n, "in_%s_ct_%s", tag, kind);
                cj_val ct = load(ctx, n);
                CHECK_MSG(run(ctx, mode, false, vjp_fn, 1, 2, &c, &ct, out) == CJ_OK, "%s %s vjp: %s", kind,
                          MODES[mode], cj_error_message(ctx));
                check_close(ctx, out[0], WANT("vjp_x"), MODES[mode]);
                check_close(ctx, out[1], WANT("vjp_u"), MODES[mode]);
                cj_val btan[2] = {LOAD("btx"), LOAD("btu")};
                CHECK_MSG(run(ctx, mode, true, jvp_tangent, 2, 1, &c, btan, out) == CJ_OK, "%s %s vmap(jvp): %s",
                          kind, MODES[mode], cj_error_message(ctx));
                check_close(ctx, out[0], WANT("vjvp"), MODES[mode]);
                snprintf(n, sizeof n, "in_%s_bct_%s", tag, kind);
                cj_val bct = load(ctx, n);
                CHECK_MSG(run(ctx, mode, true, vjp_fn, 1, 2, &c, &bct, out) == CJ_OK, "%s %s vmap(vjp): %s", kind,
                          MODES[mode], cj_error_message(ctx));
                check_close(ctx, out[0], WANT("vvjp_x"), MODES[mode]);
                check_close(ctx, out[1], WANT("vvjp_u"), MODES[mode]);
#undef LOAD
#undef WANT
                CHECK(cj_error(ctx) == CJ_OK);
                cj_ctx_free(ctx);
            }
}
