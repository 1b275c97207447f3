/* test_gather_general.c — gather_general and scatter_general (lax.gather and
 * the lax.scatter family with dimension numbers) against JAX's results
 * (tests/data/gather/, written by JAX 0.10 through
 * tests/data/gen_gather_fixtures.py): results and gradients eager, jit
 * (interpreter and generated C) bit for bit against eager, vmap over every
 * combination of batched operands against a loop of single calls; jvp
 * against central differences and the transposes by the dot-product test
 * (tests/ad_check.c); a large threaded scatter with many duplicates
 * against a plain loop in update order (the same bits for any thread
 * count); the .at forms against plain loops; the printed IR; errors. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../src/prim/gather_general.h"
#include "ad_check.h"
#include "harness.h"
#include "test_util.h"

typedef struct gcase {
    char name[64], op[16], kind[8], mode[16], lists[6][64], grads[8];
    int unique, has_fill;
    double fill;
    cj_axis_list l[6]; /* offset/update_window, collapsed/inserted, start map, obd, sibd, slice sizes */
} gcase;

static void parse_list(const char *s, cj_axis_list *l) {
    l->n = 0;
    if (s[0] == '-') return;
    for (const char *c = s; *c;) {
        l->v[l->n++] = strtoll(c, (char **)&c, 10);
        if (*c == ',') c++;
    }
}

static int load_cases(gcase *cs, int cap) {
    char path[512];
    snprintf(path, sizeof path, "%s/gather/CASES", CJAX_TEST_DATA_DIR);
    FILE *fp = fopen(path, "r");
    if (!fp) return 0;
    int n = 0;
    while (n < cap) {
        gcase *c = &cs[n];
        if (fscanf(fp, "%63s %15s %7s %15s %d %d %lf %63s %63s %63s %63s %63s %63s %7s", c->name, c->op, c->kind,
                   c->mode, &c->unique, &c->has_fill, &c->fill, c->lists[0], c->lists[1], c->lists[2], c->lists[3],
                   c->lists[4], c->lists[5], c->grads) != 14)
            break;
        for (int i = 0; i < 6; i++) parse_list(c->lists[i], &c->l[i]);
        n++;
    }
    fclose(fp);
    return n;
}

static cj_val load(cj_ctx *ctx, const gcase *c, const char *what) {
    char path[512];
    snprintf(path, sizeof path, "%s/gather/%.63s_%.15s.npy", CJAX_TEST_DATA_DIR, c->name, what);
    return cj_load_npy(ctx, path);
}

static int is_gather(const gcase *c) { return strcmp(c->op, "gather") == 0; }

static cj_index_mode mode_of(const gcase *c) {
    return !strcmp(c->mode, "clip") ? CJ_INDEX_CLIP : !strcmp(c->mode, "fill") ? CJ_INDEX_FILL_OR_DROP
                                                                                : CJ_INDEX_PROMISE_IN_BOUNDS;
}

static cj_scatter_kind kind_of(const gcase *c) {
    static const char *const k[] = {"set", "add", "mul", "min", "max"};
    for (int i = 0; i < 5; i++)
        if (!strcmp(c->kind, k[i])) return (cj_scatter_kind)i;
    return CJ_SCATTER_SET;
}

/* The case's operation on x (and u), through the public functions. */
static cj_val apply(const gcase *c, cj_val x, cj_val idx, cj_val u) {
    if (is_gather(c)) {
        cj_gather_dnums dn = {c->l[0], c->l[1], c->l[2], c->l[3], c->l[4], 0, c->unique, 0, 0};
        return cj_gather(x, idx, &dn, c->l[5].v, mode_of(c), c->has_fill ? &c->fill : NULL);
    }
    cj_scatter_dnums dn = {c->l[0], c->l[1], c->l[2], c->l[3], c->l[4], 0, c->unique, 0, 0};
    return cj_scatter(x, idx, u, &dn, kind_of(c), mode_of(c));
}

/* The same parameters as the primitive takes them (for the rule checks). */
static prim_params params_of(const gcase *c) {
    prim_params p = prim_params_zero();
    prim_ivec *dst[5] = {&GG_OFFSET_DIMS(&p), &GG_COLLAPSED(&p), &GG_START_MAP(&p), &GG_OPERAND_BATCH(&p),
                         &GG_INDICES_BATCH(&p)};
    for (int i = 0; i < 5; i++) {
        dst[i]->n = c->l[i].n;
        memcpy(dst[i]->v, c->l[i].v, sizeof c->l[i].v);
    }
    cj_index_mode m = mode_of(c);
    p.flag = m == CJ_INDEX_CLIP ? GG_MODE_CLIP : m == CJ_INDEX_FILL_OR_DROP ? GG_MODE_FILL : GG_MODE_PROMISE;
    if (c->unique) p.flag |= GG_UNIQUE;
    if (is_gather(c)) {
        GG_SLICE_SIZES(&p).n = c->l[5].n;
        memcpy(GG_SLICE_SIZES(&p).v, c->l[5].v, sizeof c->l[5].v);
        /* a filled slice must not be NaN for a difference quotient */
        gg_set_fill_value(&p, c->has_fill ? c->fill : 0.0);
    } else {
        p.count = kind_of(c);
    }
    return p;
}

typedef struct fn_data {
    const gcase *c;
    cj_val idx, w;
} fn_data;

static void f_op(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    const fn_data *d = user;
    out[0] = apply(d->c, in[0], d->idx, is_gather(d->c) ? in[0] : in[1]);
}

static void f_loss(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    const fn_data *d = user;
    out[0] = cj_sum(cj_mul(d->w, apply(d->c, in[0], d->idx, is_gather(d->c) ? in[0] : in[1])), -1, NULL, false);
}

/* max |got - want| / max(1, max |want|); NaNs must sit at the same places. */
static double rel_err(cj_val got, cj_val want) {
    int64_t n = cj_val_size(want);
    if (cj_is_error(got) || cj_val_size(got) != n || cj_val_rank(got) != cj_val_rank(want)) return INFINITY;
    for (int a = 0; a < cj_val_rank(want); a++)
        if (cj_val_dim(got, a) != cj_val_dim(want, a)) return INFINITY;
    double *g = tu_read_f64(got), *w = tu_read_f64(want), num = 0, den = 1;
    for (int64_t i = 0; i < n; i++) {
        if (isnan(g[i]) || isnan(w[i])) {
            if (!(isnan(g[i]) && isnan(w[i]))) num = INFINITY;
            continue;
        }
        double e = fabs(g[i] - w[i]);
        if (e > num) num = e;
        if (fabs(w[i]) > den) den = fabs(w[i]);
    }
    free(g), free(w);
    return num / den;
}

static int n_in_of(const gcase *c) { return is_gather(c) ? 1 : 2; }

TEST(gather_general_fixtures_match_jax) {
    static gcase cs[64];
    int n = load_cases(cs, 64);
    CHECK_MSG(n >= 40, "only %d cases in tests/data/gather/CASES", n);
    for (int i = 0; i < n; i++) {
        const gcase *c = &cs[i];
        cj_ctx *ctx = cj_ctx_new(NULL);
        cj_val x = load(ctx, c, "x"), idx = load(ctx, c, "idx"), want = load(ctx, c, "out");
        cj_val u = is_gather(c) ? x : load(ctx, c, "u");
        CHECK_MSG(!cj_is_error(want), "%s: %s", c->name, cj_error_message(ctx));
        cj_val got = apply(c, x, idx, u);
        CHECK_MSG(!cj_is_error(got), "%s: %s", c->name, cj_error_message(ctx));
        CHECK_MSG(cj_val_dtype(got) == cj_val_dtype(want), "%s: dtype", c->name);
        int exact = is_gather(c) || kind_of(c) == CJ_SCATTER_SET || kind_of(c) >= CJ_SCATTER_MIN ||
                    cj_val_dtype(x) == CJ_I32;
        double e = rel_err(got, want);
        CHECK_MSG(exact ? e == 0 : e <= 1e-6, "%s: error %g against JAX", c->name, e);

        fn_data d = {c, idx, {0}};
        /* jit, each backend, against eager, bit for bit */
        cj_backend be[2] = {CJ_BACKEND_INTERP, CJ_BACKEND_CC};
        cj_val args[2] = {x, u};
        for (int b = 0; b < 2; b++) {
            if (b == 1 && i % 3) continue; /* generated C for a third of the cases: compile time */
            cj_jit_opts jo = {.backend = be[b]};
            cj_val jout;
            CHECK_MSG(cj_call(cj_jit(cj_func_new(ctx, "op", f_op, n_in_of(c), 1, &d), &jo), args, &jout) == CJ_OK,
                      "%s: %s", c->name, cj_error_message(ctx));
            CHECK_MSG(tu_same_bits(jout, got), "%s: jit backend %d differs from eager", c->name, (int)be[b]);
        }

        /* gradients of sum(w * op) against JAX's. Not for min / max in
         * clip mode: JAX 0.10's rule (_scatter_extremal_jvp) gathers and
         * scatters in the default mode, so the updates it clipped into
         * place get no tangent — its gradient there differs from central
         * differences (by 1.33 on s_rows_clip_min); ours is checked against
         * them in gather_general_rules_fd_and_transpose. */
        int jax_clip_extremal = !is_gather(c) && kind_of(c) >= CJ_SCATTER_MIN && mode_of(c) == CJ_INDEX_CLIP;
        if (strcmp(c->grads, "none") && !jax_clip_extremal) {
            d.w = load(ctx, c, "w");
            cj_grad_opts both = {.n_argnums = n_in_of(c), .argnums = (int[]){0, 1}};
            cj_val g[2];
            double tol = cj_val_dtype(x) == CJ_F32 ? 1e-5 : 1e-12;
            for (int jit = 0; jit < 2; jit++) {
                cj_func *gf = cj_grad(cj_func_new(ctx, "loss", f_loss, n_in_of(c), 1, &d), &both);
                if (jit) gf = cj_jit(gf, NULL);
                CHECK_MSG(cj_call(gf, args, g) == CJ_OK, "%s: %s", c->name, cj_error_message(ctx));
                e = rel_err(g[0], load(ctx, c, "gx"));
                CHECK_MSG(e <= tol, "%s (jit %d): gradient in x off by %g from JAX's", c->name, jit, e);
                if (!is_gather(c)) {
                    e = rel_err(g[1], load(ctx, c, "gu"));
                    CHECK_MSG(e <= tol, "%s (jit %d): gradient in the updates off by %g from JAX's", c->name, jit, e);
                }
            }
        }
        cj_ctx_free(ctx);
    }
}

/* Example b of a batch: x scaled, indices reversed along their first axis. */
static cj_val example_x(cj_val x, int b) {
    if (b == 0) return x;
    cj_ctx *ctx = x.ctx;
    return cj_val_dtype(x) == CJ_I32 ? cj_sub(cj_mul(x, cj_scalar_int(ctx, 2)), cj_scalar_int(ctx, 1))
                                     : cj_add(cj_mul(x, cj_scalar(ctx, -0.5)), cj_scalar(ctx, 0.25));
}
static cj_val example_idx(cj_val idx, int b) { return b == 0 ? idx : cj_flip(idx, 1, (int64_t[]){0}); }

static cj_val stack2(cj_val a, cj_val b, int64_t axis) {
    return cj_stack(2, (cj_val[]){a, b}, axis);
}

typedef struct vm_data {
    const gcase *c;
} vm_data;

static void f_op3(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    const vm_data *d = user;
    out[0] = apply(d->c, in[0], in[1], is_gather(d->c) ? in[0] : in[2]);
}

/* Every subset of batched operands, the batch axis at the front or last. */
TEST(gather_general_vmap_matches_loop) {
    static gcase cs[64];
    int n = load_cases(cs, 64);
    for (int i = 0; i < n; i++) {
        const gcase *c = &cs[i];
        cj_ctx *ctx = cj_ctx_new(NULL);
        cj_val x = load(ctx, c, "x"), idx = load(ctx, c, "idx");
        cj_val u = is_gather(c) ? x : load(ctx, c, "u");
        int nin = is_gather(c) ? 2 : 3;
        vm_data d = {c};
        for (int set = 1; set < (1 << nin); set++) {
            for (int last = 0; last < 2; last++) {
                int64_t axes[3];
                cj_val args[3], ex[2][3];
                cj_val base[3] = {x, idx, u};
                for (int b = 0; b < 2; b++)
                    ex[b][0] = example_x(x, b), ex[b][1] = example_idx(idx, b), ex[b][2] = example_x(u, b);
                for (int k = 0; k < nin; k++) {
                    int64_t ax = last ? cj_val_rank(base[k]) : 0;
                    axes[k] = set >> k & 1 ? ax : CJ_NOT_MAPPED;
                    args[k] = set >> k & 1 ? stack2(ex[0][k], ex[1][k], ax) : base[k];
                }
                cj_vmap_opts vo = {.in_axes = axes};
                cj_val out;
                CHECK_MSG(cj_call(cj_vmap(cj_func_new(ctx, "op", f_op3, nin, 1, &d), &vo), args, &out) == CJ_OK,
                          "%s set %d: %s", c->name, set, cj_error_message(ctx));
                for (int b = 0; b < 2; b++) {
                    cj_val one[3];
                    for (int k = 0; k < nin; k++) one[k] = set >> k & 1 ? ex[b][k] : base[k];
                    cj_val want = apply(c, one[0], one[1], is_gather(c) ? one[0] : one[2]);
                    int64_t start[CJ_MAX_RANK] = {0}, limit[CJ_MAX_RANK];
                    int rank = cj_val_rank(out);
                    for (int a = 0; a < rank; a++) limit[a] = cj_val_dim(out, a);
                    start[0] = b, limit[0] = b + 1;
                    cj_val got = cj_squeeze(cj_slice(out, start, limit, NULL), 1, (int64_t[]){0});
                    CHECK_MSG(tu_same_bits(got, want), "%s: vmap (set %d, axis %s) example %d differs from a single call (%s)",
                              c->name, set, last ? "last" : "0", b, cj_error_message(ctx));
                }
            }
        }
        cj_ctx_free(ctx);
    }
}

/* The rules on f64 cases without ties: jvp against central differences
 * (every differentiable subset of x and u), the transposes by the
 * dot-product test, and the public jvp against vjp. */
TEST(gather_general_rules_fd_and_transpose) {
    static gcase cs[64];
    int n = load_cases(cs, 64), checked = 0;
    for (int i = 0; i < n; i++) {
        const gcase *c = &cs[i];
        cj_ctx *ctx = cj_ctx_new(NULL);
        cj_val x = load(ctx, c, "x"), idx = load(ctx, c, "idx");
        if (cj_val_dtype(x) == CJ_I32 || strstr(c->name, "ties")) {
            cj_ctx_free(ctx);
            continue;
        }
        x = cj_astype(x, CJ_F64);
        cj_val u = is_gather(c) ? x : cj_astype(load(ctx, c, "u"), CJ_F64);
        prim_params p = params_of(c);
        prim_id prim = is_gather(c) ? PRIM_GATHER_GENERAL : PRIM_SCATTER_GENERAL;
        int nin = is_gather(c) ? 2 : 3;
        cj_val in[3] = {x, idx, u};
        cj_scatter_kind k = kind_of(c);
        for (int set = 1; set < 4; set++) {
            if (is_gather(c) && set != 1) continue;
            if (!is_gather(c) && k == CJ_SCATTER_MUL && !c->unique && (set & 2)) continue; /* as JAX: unsupported */
            int diff[3] = {set & 1, 0, (set >> 1) & 1};
            double e = adc_prim_jvp_error(ctx, prim, &p, nin, in, diff, 7 + (uint64_t)i);
            CHECK_MSG(e >= 0 && e < 1e-6, "%s diff %d: jvp vs central differences %g (%s)", c->name, set, e,
                      cj_error(ctx) ? cj_error_message(ctx) : "");
            /* linear in: gather and add (x, u, both), set (x, u, both), mul (x) */
            int linear = is_gather(c) || k == CJ_SCATTER_ADD || k == CJ_SCATTER_SET || (k == CJ_SCATTER_MUL && set == 1);
            if (linear && (k != CJ_SCATTER_SET || set == 3)) {
                e = adc_prim_transpose_error(ctx, prim, &p, nin, in, diff, 11 + (uint64_t)i);
                CHECK_MSG(e >= 0 && e < 1e-12, "%s lin %d: transpose dot-product test %g (%s)", c->name, set, e,
                          cj_error(ctx) ? cj_error_message(ctx) : "");
            }
        }
        if (k != CJ_SCATTER_MUL || c->unique || is_gather(c)) {
            uint64_t seed = 99 + (uint64_t)i;
            double e = adc_prim_jvp_vjp_error(ctx, prim, &p, nin, in, &seed);
            CHECK_MSG(e >= 0 && e < 1e-10, "%s: <u, Jv> vs <J^T u, v> %g (%s)", c->name, e,
                      cj_error(ctx) ? cj_error_message(ctx) : "");
        }
        checked++;
        cj_ctx_free(ctx);
    }
    CHECK(checked >= 25);
}

/* Many duplicate indices into few rows, large enough to thread: the sum
 * lands in the order of the updates, so a plain loop in that order gives
 * the same bits, whatever the pool's size. */
TEST(gather_general_scatter_threaded_duplicates_deterministic) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t rows = 7, cols = 300, n = 4000;
    float *x = malloc(sizeof(float) * (size_t)(rows * cols)), *u = malloc(sizeof(float) * (size_t)(n * cols));
    float *want = malloc(sizeof(float) * (size_t)(rows * cols)), *got = malloc(sizeof(float) * (size_t)(rows * cols));
    int32_t *ix = malloc(sizeof(int32_t) * (size_t)n);
    uint64_t s = 5;
    for (int64_t i = 0; i < rows * cols; i++) x[i] = want[i] = (float)(th_rand_u64(&s) % 1000) / 7.0f;
    for (int64_t i = 0; i < n * cols; i++) u[i] = (float)(th_rand_u64(&s) % 1000) / 3.0f - 100.0f;
    for (int64_t k = 0; k < n; k++) ix[k] = (int32_t)(th_rand_u64(&s) % (uint64_t)(rows + 2)) - 1; /* some drop */
    for (int64_t k = 0; k < n; k++)
        if (ix[k] >= 0 && ix[k] < rows)
            for (int64_t j = 0; j < cols; j++) want[ix[k] * cols + j] += u[k * cols + j];
    cj_val xv = cj_array(ctx, CJ_F32, 2, (int64_t[]){rows, cols}, x);
    cj_val iv = cj_array(ctx, CJ_I32, 2, (int64_t[]){n, 1}, ix);
    cj_val uv = cj_array(ctx, CJ_F32, 2, (int64_t[]){n, cols}, u);
    cj_scatter_dnums dn = {.update_window_dims = {1, {1}}, .inserted_window_dims = {1, {0}},
                           .scatter_dims_to_operand_dims = {1, {0}}};
    cj_val y = cj_scatter(xv, iv, uv, &dn, CJ_SCATTER_ADD, CJ_INDEX_FILL_OR_DROP);
    CHECK_MSG(cj_read_as(y, CJ_F32, got, sizeof(float) * (size_t)(rows * cols)) == CJ_OK, "%s", cj_error_message(ctx));
    CHECK(memcmp(got, want, sizeof(float) * (size_t)(rows * cols)) == 0);
    /* set keeps the last update for each row */
    for (int64_t i = 0; i < rows * cols; i++) want[i] = x[i];
    for (int64_t k = 0; k < n; k++)
        if (ix[k] >= 0 && ix[k] < rows) memcpy(want + ix[k] * cols, u + k * cols, sizeof(float) * (size_t)cols);
    y = cj_scatter(xv, iv, uv, &dn, CJ_SCATTER_SET, CJ_INDEX_FILL_OR_DROP);
    CHECK(cj_read_as(y, CJ_F32, got, sizeof(float) * (size_t)(rows * cols)) == CJ_OK);
    CHECK(memcmp(got, want, sizeof(float) * (size_t)(rows * cols)) == 0);
    /* and a gather of rows back, large enough to thread, against a loop (clamped) */
    cj_gather_dnums gn = {.offset_dims = {1, {1}}, .collapsed_slice_dims = {1, {0}}, .start_index_map = {1, {0}}};
    cj_val back = cj_gather(y, iv, &gn, (int64_t[]){1, cols}, CJ_INDEX_CLIP, NULL);
    float *rows_back = malloc(sizeof(float) * (size_t)(n * cols));
    CHECK(cj_read_as(back, CJ_F32, rows_back, sizeof(float) * (size_t)(n * cols)) == CJ_OK);
    for (int64_t k = 0; k < n; k++) {
        int64_t r = ix[k] < 0 ? 0 : ix[k] >= rows ? rows - 1 : ix[k];
        CHECK_MSG(memcmp(rows_back + k * cols, want + r * cols, sizeof(float) * (size_t)cols) == 0, "gathered row %lld",
                  (long long)k);
    }
    free(rows_back);
    free(x), free(u), free(want), free(got), free(ix);
    cj_ctx_free(ctx);
}

/* jnp's x.at[:, idx].op(y) against plain loops: negative indices wrap,
 * out-of-range ones drop, updates broadcast and take x's dtype. */
TEST(gather_general_at_forms_match_loops) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t R = 3, C = 5, K = 4;
    double x[15], y[12];
    int64_t ix[4] = {1, -1, 7, 1};
    for (int i = 0; i < 15; i++) x[i] = i * 0.5 - 3;
    for (int i = 0; i < 12; i++) y[i] = (i * 7 % 11) - 5.0;
    cj_val xv = cj_array(ctx, CJ_F64, 2, (int64_t[]){R, C}, x);
    cj_val iv = cj_array(ctx, CJ_I64, 1, &K, ix);
    cj_val yv = cj_array(ctx, CJ_F64, 2, (int64_t[]){R, K}, y);
    cj_val (*fns[5])(cj_val, int64_t, cj_val, cj_val) = {cj_at_set, cj_at_add, cj_at_mul, cj_at_min, cj_at_max};
    for (int f = 0; f < 5; f++) {
        double want[15], got[15];
        memcpy(want, x, sizeof x);
        for (int64_t r = 0; r < R; r++)
            for (int64_t k = 0; k < K; k++) {
                int64_t c = ix[k] < 0 ? ix[k] + C : ix[k];
                if (c < 0 || c >= C) continue;
                double *d = &want[r * C + c], v = y[r * K + k];
                *d = f == 0 ? v : f == 1 ? *d + v : f == 2 ? *d * v : f == 3 ? fmin(*d, v) : fmax(*d, v);
            }
        cj_val out = fns[f](xv, -1, iv, yv);
        CHECK_MSG(cj_read_as(out, CJ_F64, got, sizeof got) == CJ_OK, "%s", cj_error_message(ctx));
        for (int i = 0; i < 15; i++) CHECK_MSG(got[i] == want[i], "at form %d element %d: %g vs %g", f, i, got[i], want[i]);
    }
    /* a scalar update broadcasts, in x's dtype; equal to cj_index_add */
    cj_val a = cj_at_add(xv, 1, iv, cj_scalar(ctx, 2.0));
    cj_val b = cj_index_add(xv, 1, iv, cj_scalar(ctx, 2.0));
    CHECK(tu_same_bits(a, b));
    cj_ctx_free(ctx);
}

static void f_gather_rows(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    cj_gather_dnums dn = {.offset_dims = {1, {1}}, .collapsed_slice_dims = {1, {0}}, .start_index_map = {1, {0}}};
    cj_val g = cj_gather(in[0], in[1], &dn, (int64_t[]){1, 3}, CJ_INDEX_CLIP, NULL);
    cj_scatter_dnums sn = {.update_window_dims = {1, {1}}, .inserted_window_dims = {1, {0}},
                           .scatter_dims_to_operand_dims = {1, {0}}};
    out[0] = cj_scatter(in[0], in[1], g, &sn, CJ_SCATTER_MAX, CJ_INDEX_FILL_OR_DROP);
}

TEST(gather_general_prints_like_jaxpr) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_spec in[2] = {cj_spec_make(CJ_F32, 2, (int64_t[]){4, 3}), cj_spec_make(CJ_I32, 2, (int64_t[]){2, 1})};
    char *s = cj_make_jaxpr(cj_func_new(ctx, "f", f_gather_rows, 2, 1, NULL), 2, in);
    CHECK_MSG(s, "%s", cj_error_message(ctx));
    const char *want_g =
        "gather_general[dimension_numbers=GatherDimensionNumbers(offset_dims=(1,), collapsed_slice_dims=(0,), "
        "start_index_map=(0,), operand_batching_dims=(), start_indices_batching_dims=()) fill_value=None "
        "indices_are_sorted=False mode=GatherScatterMode.CLIP slice_sizes=(1, 3) unique_indices=False]";
    const char *want_s =
        "scatter_general[kind=max dimension_numbers=ScatterDimensionNumbers(update_window_dims=(1,), "
        "inserted_window_dims=(0,), scatter_dims_to_operand_dims=(0,), operand_batching_dims=(), "
        "scatter_indices_batching_dims=()) indices_are_sorted=False mode=GatherScatterMode.FILL_OR_DROP "
        "unique_indices=False]";
    CHECK_MSG(strstr(s, want_g) && strstr(s, want_s), "%s", s);
    cj_string_free(ctx, s);
    cj_ctx_free(ctx);
}

/* Each bad input is a clear error naming the primitive and the shapes. */
TEST(gather_general_errors) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val x = cj_zeros(ctx, CJ_F32, 2, (int64_t[]){4, 3});
    cj_val idx = cj_zeros(ctx, CJ_I32, 2, (int64_t[]){2, 1});
    cj_gather_dnums ok = {.offset_dims = {1, {1}}, .collapsed_slice_dims = {1, {0}}, .start_index_map = {1, {0}}};
    struct {
        cj_gather_dnums dn;
        int64_t ss[2];
        cj_val idx;
        const char *msg;
    } bad[] = {
        {ok, {1, 5}, idx, "gather_general: slice_sizes[1] = 5 must be in [0, 3] for the operand f32[4,3]"},
        {ok, {2, 3}, idx, "slice_sizes[0] = 2, but a collapsed or batching axis takes a slice of size 1"},
        {{.offset_dims = {1, {1}}, .collapsed_slice_dims = {1, {0}}, .start_index_map = {1, {5}}}, {1, 3}, idx,
         "start_index_map entry 5 is out of range for f32[4,3]"},
        {{.offset_dims = {2, {0, 1}}, .collapsed_slice_dims = {1, {0}}, .start_index_map = {1, {0}}}, {1, 3}, idx,
         "offset_dims has 2 entries, but the operand f32[4,3] keeps 1 axes"},
        {ok, {1, 3}, cj_zeros(ctx, CJ_I32, 2, (int64_t[]){2, 2}),
         "indices i32[2,2] have 2 entries in their index vector (last axis), but start_index_map has 1"},
        {ok, {1, 3}, cj_zeros(ctx, CJ_F32, 2, (int64_t[]){2, 1}), "gather_general: indices must have an integer dtype (i8 ... i64, u8 ... u64), got f32[2,1]"},
        {{.offset_dims = {1, {1}}, .collapsed_slice_dims = {1, {0}}, .start_index_map = {1, {0}},
          .operand_batching_dims = {1, {1}}, .start_indices_batching_dims = {1, {0}}},
         {1, 1}, idx,
         "operand f32[4,3] batching axis 1 (size 3) and indices i32[2,1] batching axis 0 (size 2) must have the same "
         "size"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        cj_val g = cj_gather(x, bad[i].idx, &bad[i].dn, bad[i].ss, CJ_INDEX_CLIP, NULL);
        CHECK_MSG(cj_is_error(g) && strstr(cj_error_message(ctx), bad[i].msg), "case %zu: got \"%s\"", i,
                  cj_error_message(ctx));
        cj_error_clear(ctx);
    }
    cj_scatter_dnums sn = {.update_window_dims = {1, {1}}, .inserted_window_dims = {1, {0}},
                           .scatter_dims_to_operand_dims = {1, {0}}};
    cj_val y = cj_scatter(x, idx, cj_zeros(ctx, CJ_F32, 2, (int64_t[]){3, 3}), &sn, CJ_SCATTER_ADD, CJ_INDEX_CLIP);
    CHECK_MSG(cj_is_error(y) && strstr(cj_error_message(ctx), "scatter_general: updates f32[3,3] axis 0 (size 3) must "
                                                              "match the indices i32[2,1] batch axis 0 (size 2)"),
              "%s", cj_error_message(ctx));
    cj_error_clear(ctx);
    y = cj_scatter(x, idx, cj_zeros(ctx, CJ_F32, 2, (int64_t[]){2, 5}), &sn, CJ_SCATTER_ADD, CJ_INDEX_CLIP);
    CHECK_MSG(cj_is_error(y) && strstr(cj_error_message(ctx), "window axis 1 (size 5) is larger than the operand f32[4,3] axis 1"),
              "%s", cj_error_message(ctx));
    cj_error_clear(ctx);
    y = cj_scatter(x, idx, cj_zeros(ctx, CJ_F32, 1, (int64_t[]){2}), &sn, CJ_SCATTER_ADD, CJ_INDEX_CLIP);
    CHECK_MSG(cj_is_error(y) && strstr(cj_error_message(ctx), "updates f32[2] must have rank 2"), "%s",
              cj_error_message(ctx));
    cj_error_clear(ctx);
    y = cj_at_set(x, 2, idx, x);
    CHECK_MSG(cj_is_error(y) && strstr(cj_error_message(ctx), "at_set"), "%s", cj_error_message(ctx));
    cj_error_clear(ctx);
    cj_ctx_free(ctx);
}

/* Allocation failure at every site of an eager gather, a scatter and
 * their gradient: a clean error, nothing leaked. */
static void f_grad_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    cj_gather_dnums dn = {.offset_dims = {1, {1}}, .collapsed_slice_dims = {1, {0}}, .start_index_map = {1, {0}}};
    cj_val g = cj_gather(in[0], in[1], &dn, (int64_t[]){1, 3}, CJ_INDEX_FILL_OR_DROP, NULL);
    cj_scatter_dnums sn = {.update_window_dims = {1, {1}}, .inserted_window_dims = {1, {0}},
                           .scatter_dims_to_operand_dims = {1, {0}}};
    out[0] = cj_sum(cj_scatter(in[0], in[1], cj_mul(g, g), &sn, CJ_SCATTER_SET, CJ_INDEX_FILL_OR_DROP), -1, NULL,
                    false);
    (void)ctx;
}

TEST(gather_general_allocation_failures) {
    for (long long fail = 1;; fail++) {
        tu_alloc st = {.fail_at = fail};
        cj_allocator al = tu_allocator(&st);
        cj_ctx *ctx = cj_ctx_new(&al);
        if (!ctx) continue;
        float xs[12] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12};
        int32_t is[3] = {2, 0, 2};
        cj_val x = cj_array(ctx, CJ_F32, 2, (int64_t[]){4, 3}, xs);
        cj_val i = cj_array(ctx, CJ_I32, 2, (int64_t[]){3, 1}, is);
        cj_val g;
        cj_status s = cj_call(cj_grad(cj_func_new(ctx, "f", f_grad_body, 2, 1, NULL), NULL), (cj_val[]){x, i}, &g);
        int failed = st.failed;
        if (s == CJ_OK) {
            float got[12];
            CHECK(cj_read_as(g, CJ_F32, got, sizeof got) == CJ_OK);
            /* rows 0 and 2 are overwritten by g², so d/dx = 2x there and 1 for rows 1 and 3... plus 0 at the
             * overwritten places themselves: d sum / d x[r] = 2 x[r] (read) for r in {0, 2}, 1 for r in {1, 3} */
            for (int r = 0; r < 4; r++)
                for (int c = 0; c < 3; c++) {
                    float w = r == 0 || r == 2 ? 2 * xs[r * 3 + c] : 1.0f;
                    CHECK_MSG(got[r * 3 + c] == w, "element %d,%d: %g vs %g", r, c, got[r * 3 + c], w);
                }
        } else {
            CHECK_MSG(cj_error(ctx) == CJ_ERR_OOM || !failed, "failure %lld: %s", fail, cj_error_message(ctx));
        }
        cj_ctx_free(ctx);
        CHECK_MSG(st.live == 0, "failure %lld: %lld blocks leaked", fail, st.live);
        if (!failed) break;
    }
}

/* Per-example losses through a batching-dims gather and a scatter-max:
 * jit(vmap(grad)) against grad of each example alone. */
static void f_compose(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)user;
    cj_gather_dnums dn = {.offset_dims = {1, {1}}, .collapsed_slice_dims = {1, {0}}, .start_index_map = {1, {0}}};
    cj_val g = cj_gather(in[0], in[1], &dn, (int64_t[]){1, 3}, CJ_INDEX_CLIP, NULL);
    cj_scatter_dnums sn = {.update_window_dims = {1, {1}}, .inserted_window_dims = {1, {0}},
                           .scatter_dims_to_operand_dims = {1, {0}}};
    cj_val s = cj_scatter(in[0], in[1], cj_sin(g), &sn, CJ_SCATTER_MAX, CJ_INDEX_FILL_OR_DROP);
    out[0] = cj_sum(cj_mul(s, s), -1, NULL, false);
    (void)ctx;
}

TEST(gather_general_jit_vmap_grad_matches_single_grads) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 3;
    double xs[3 * 5 * 3];
    int32_t is[3 * 4];
    for (int i = 0; i < 45; i++) xs[i] = (double)(th_rand_u64(&seed) % 2000) / 500.0 - 2.0;
    for (int i = 0; i < 12; i++) is[i] = (int32_t)(th_rand_u64(&seed) % 7) - 1;
    cj_val x = cj_array(ctx, CJ_F64, 3, (int64_t[]){3, 5, 3}, xs);
    cj_val idx = cj_array(ctx, CJ_I32, 3, (int64_t[]){3, 4, 1}, is);
    cj_func *g = cj_grad(cj_func_new(ctx, "f", f_compose, 2, 1, NULL), NULL);
    cj_vmap_opts vo = {.in_axes = (int64_t[]){0, 0}};
    cj_val batched;
    CHECK_MSG(cj_call(cj_jit(cj_vmap(g, &vo), NULL), (cj_val[]){x, idx}, &batched) == CJ_OK, "%s",
              cj_error_message(ctx));
    for (int b = 0; b < 3; b++) {
        cj_val xb = cj_squeeze(cj_slice(x, (int64_t[]){b, 0, 0}, (int64_t[]){b + 1, 5, 3}, NULL), 1, (int64_t[]){0});
        cj_val ib = cj_squeeze(cj_slice(idx, (int64_t[]){b, 0, 0}, (int64_t[]){b + 1, 4, 1}, NULL), 1, (int64_t[]){0});
        cj_val want;
        CHECK(cj_call(g, (cj_val[]){xb, ib}, &want) == CJ_OK);
        cj_val got = cj_squeeze(cj_slice(batched, (int64_t[]){b, 0, 0}, (int64_t[]){b + 1, 5, 3}, NULL), 1,
                                (int64_t[]){0});
        double e = rel_err(got, want);
        CHECK_MSG(e <= 1e-14, "example %d: %g", b, e);
    }
    cj_ctx_free(ctx);
}
