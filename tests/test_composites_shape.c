/* test_composites_shape.c — jax.numpy's shape functions built of shape
 * operations (src/api/shape_compose.c, src/api/shape_split.c): stack and
 * its variants, tile, repeat, meshgrid, tri, roll, flip, split,
 * moveaxis, swapaxes, atleast_*d, broadcast_arrays.
 *
 * References: JAX's own results on fixed inputs (tests/data/numpy/, written
 * by tests/data/gen_numpy_fixtures.py), exactly (data movement changes no
 * value); plain index loops for tile and roll on other shapes; every
 * function also jitted on both backends and vmapped against single calls
 * (composite_check.c), differentiated against finite differences, and its
 * errors read. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "composite_check.h"
#include "harness.h"
#include "test_util.h"

#define L(...) ((const int64_t[]){__VA_ARGS__})
#define FX(name) cc_fixture(ctx, name)
#define SAME(got, name) CHECK(cc_close(got, FX(name), 0, 0, name))

TEST(composites_stack_family_match_jax) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val a = FX("a"), b = FX("b"), v = FX("v");
    SAME(cj_stack(2, (cj_val[]){a, b}, 0), "stack_0");
    SAME(cj_stack(3, (cj_val[]){a, b, a}, -1), "stack_m1");
    SAME(cj_hstack(2, (cj_val[]){a, b}), "hstack");
    SAME(cj_hstack(2, (cj_val[]){v, v}), "hstack_1d");
    SAME(cj_vstack(2, (cj_val[]){a, v}), "vstack");
    SAME(cj_dstack(2, (cj_val[]){a, b}), "dstack");
    SAME(cj_column_stack(2, (cj_val[]){v, cj_transpose(a, NULL)}), "column_stack");
    /* stack promotes as concatenate does: i32 with f32 is f32 */
    cj_val i = cj_astype(a, CJ_I32);
    CHECK(cj_val_dtype(cj_stack(2, (cj_val[]){i, b}, 1)) == CJ_F32);
    CHECK(cj_val_dtype(cj_stack(2, (cj_val[]){i, i}, 1)) == CJ_I32);
    cj_ctx_free(ctx);
}

TEST(composites_tile_repeat_match_jax) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val z = FX("z"), a = FX("a"), v = FX("v"), r = FX("reps");
    SAME(cj_tile(z, 3, L(2, 1, 2)), "tile_212");
    SAME(cj_tile(z, 1, L(3)), "tile_3");
    SAME(cj_tile(v, 4, L(2, 1, 1, 3)), "tile_2113");
    SAME(cj_repeat(z, 2, 1), "repeat_2_ax1");
    SAME(cj_repeat(z, 3, CJ_AXIS_NONE), "repeat_3_none");
    SAME(cj_repeat_each(a, r, 1, -1), "repeat_each_ax1");
    SAME(cj_repeat_each(a, r, 1, 5), "repeat_each_total5");
    SAME(cj_repeat_each(a, r, 1, 2), "repeat_each_total2");
    /* one count for every element, as a scalar value */
    SAME(cj_repeat_each(z, cj_scalar_int(ctx, 2), 1, -1), "repeat_2_ax1");
    cj_ctx_free(ctx);
}

/* tile of a rank-8 array (the per-axis path without room for an extra
 * axis) and repeat along it, against index loops. */
TEST(composites_tile_repeat_rank8_against_loops) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t dims[8] = {2, 1, 1, 1, 1, 1, 1, 3};
    float x[6] = {1, 2, 3, 4, 5, 6};
    cj_val xv = cj_array(ctx, CJ_F32, 8, dims, x);
    float got[36];
    CHECK(cj_read(cj_tile(xv, 8, L(1, 1, 1, 1, 1, 1, 1, 3)), got, 18 * sizeof(float)) == CJ_OK);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 9; j++) CHECK(got[i * 9 + j] == x[i * 3 + j % 3]);
    CHECK(cj_read(cj_repeat(xv, 2, 7), got, 12 * sizeof(float)) == CJ_OK);
    for (int i = 0; i < 2; i++)
        for (int j = 0; j < 6; j++) CHECK(got[i * 6 + j] == x[i * 3 + j / 2]);
    cj_ctx_free(ctx);
}

TEST(composites_meshgrid_tri_match_jax) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val x = FX("mg_x"), y = FX("mg_y"), v = FX("v"), o[3];
    CHECK(cj_meshgrid(2, (cj_val[]){x, y}, "xy", 0, o) == CJ_OK);
    SAME(o[0], "meshgrid_xy_0");
    SAME(o[1], "meshgrid_xy_1");
    CHECK(cj_meshgrid(2, (cj_val[]){x, y}, "ij", 0, o) == CJ_OK);
    SAME(o[0], "meshgrid_ij_0");
    SAME(o[1], "meshgrid_ij_1");
    CHECK(cj_meshgrid(3, (cj_val[]){x, y, v}, NULL, 1, o) == CJ_OK);
    SAME(o[0], "meshgrid_xy_sparse_0");
    SAME(o[1], "meshgrid_xy_sparse_1");
    SAME(o[2], "meshgrid_xy_sparse_2");
    SAME(cj_tri(ctx, 4, 5, 1, CJ_F32), "tri_4_5_1");
    SAME(cj_tri(ctx, 3, -1, -1, CJ_I32), "tri_3_m1");
    cj_ctx_free(ctx);
}

TEST(composites_roll_flip_axes_match_jax) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val z = FX("z");
    SAME(cj_roll(z, 2, L(1, -2), L(0, 2)), "roll_1_m2");
    SAME(cj_roll(z, 1, L(5), NULL), "roll_5_none");
    SAME(cj_roll(z, 2, L(1, 2), L(1, 1)), "roll_repeat");
    SAME(cj_flip(z, -1, NULL), "flip_all");
    SAME(cj_flip(z, 1, L(-1)), "flip_m1");
    SAME(cj_moveaxis(z, 2, L(0, 1), L(-1, 0)), "moveaxis");
    SAME(cj_swapaxes(z, 0, -1), "swapaxes");
    /* roll against a loop, shifts beyond the length and negative */
    float x[7] = {0, 1, 2, 3, 4, 5, 6}, got[7];
    for (int64_t s = -9; s <= 9; s++) {
        CHECK(cj_read(cj_roll(cj_array(ctx, CJ_F32, 1, L(7), x), 1, &s, L(0)), got, sizeof got) == CJ_OK);
        for (int i = 0; i < 7; i++) CHECK(got[i] == x[(((i - s) % 7) + 7) % 7]);
    }
    cj_ctx_free(ctx);
}

TEST(composites_split_atleast_broadcast_match_jax) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val z = FX("z"), o[3];
    CHECK(cj_array_split(cj_arange(ctx, 0, 7, 1, CJ_F32), 3, 0, o) == CJ_OK);
    SAME(o[0], "array_split_0");
    SAME(o[1], "array_split_1");
    SAME(o[2], "array_split_2");
    CHECK(cj_split_indices(z, 2, L(1, 3), -1, o) == CJ_OK);
    SAME(o[0], "split_idx_0");
    SAME(o[1], "split_idx_1");
    SAME(o[2], "split_idx_2");
    cj_val two[2];
    CHECK(cj_split(z, 2, 2, two) == CJ_OK);
    CHECK(cc_close(two[1], cj_slice(z, L(0, 0, 2), L(2, 3, 4), NULL), 0, 0, "split halves"));
    CHECK(cj_broadcast_arrays(3, (cj_val[]){FX("c"), FX("v"), cj_scalar_typed(ctx, 7, CJ_F32)}, o) == CJ_OK);
    SAME(o[0], "broadcast_arrays_0");
    SAME(o[1], "broadcast_arrays_1");
    SAME(o[2], "broadcast_arrays_2");
    int64_t d[3];
    cj_val s = cj_scalar_typed(ctx, 1, CJ_F32), v = FX("v"), a = FX("a");
    CHECK(cj_val_shape(cj_atleast_1d(s), d) == 1 && d[0] == 1);
    CHECK(cj_val_shape(cj_atleast_2d(v), d) == 2 && d[0] == 1 && d[1] == 3);
    CHECK(cj_val_shape(cj_atleast_3d(v), d) == 3 && d[0] == 1 && d[1] == 3 && d[2] == 1);
    CHECK(cj_val_shape(cj_atleast_3d(a), d) == 3 && d[0] == 2 && d[1] == 3 && d[2] == 1);
    CHECK(cj_val_shape(cj_atleast_3d(s), d) == 3 && d[0] == 1 && d[1] == 1 && d[2] == 1);
    cj_ctx_free(ctx);
}

/* ---- every function jitted (both backends), vmapped, differentiated ---- */

static void f_shapes(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    cj_val x = in[0], p[3];
    out[0] = cj_stack(2, (cj_val[]){x, cj_sin(x)}, -1);
    out[1] = cj_tile(x, 2, L(2, 1));
    out[2] = cj_repeat(x, 2, 0);
    out[3] = cj_roll(cj_flip(x, 1, L(0)), 2, L(1, -1), L(0, 1));
    out[4] = cj_moveaxis(cj_vstack(2, (cj_val[]){x, x}), 1, L(0), L(1));
    cj_array_split(x, 3, 1, p);
    out[5] = cj_mul(cj_hstack(3, p), cj_column_stack(1, &p[2]));
    cj_split_indices(x, 1, L(1), 0, p);
    out[6] = cj_add(cj_swapaxes(cj_dstack(1, &p[1]), 0, 2), cj_atleast_3d(cj_sum(p[0], -1, NULL, 0)));
}

/* a traced shift, batched under vmap */
static void f_roll_dynamic(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_roll_dynamic(in[0], in[1], -1);
}

TEST(composites_roll_dynamic_matches_static_roll) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val z = FX("z");
    SAME(cj_roll_dynamic(cj_roll_dynamic(z, cj_scalar_int(ctx, 1), 0), cj_scalar_int(ctx, -2), 2), "roll_1_m2");
    float x[7] = {0, 1, 2, 3, 4, 5, 6};
    cj_val xv = cj_array(ctx, CJ_F32, 1, L(7), x);
    cj_func *jf = cj_jit(cj_func_new(ctx, "rolld", f_roll_dynamic, 2, 1, NULL), NULL);
    for (int64_t s = -16; s <= 16; s++) {
        cj_val in[2] = {xv, cj_scalar_typed(ctx, (double)s, s & 1 ? CJ_I64 : CJ_I32)}, y;
        CHECK(cj_call(jf, in, &y) == CJ_OK);
        CHECK(cc_close(y, cj_roll(xv, 1, &s, L(0)), 0, 0, "roll_dynamic under jit"));
    }
    cj_val in[2] = {cj_array(ctx, CJ_F32, 2, L(3, 4), (float[]){1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}),
                    cj_scalar_typed(ctx, 3, CJ_I32)};
    CHECK(cc_modes(ctx, "roll_dynamic", f_roll_dynamic, NULL, 2, 1, in, 0));
    /* a different shift per example */
    cj_val xs = cj_stack(2, (cj_val[]){xv, cj_neg(xv)}, 0), sh = cj_array(ctx, CJ_I32, 1, L(2), (int32_t[]){2, -10}), y;
    CHECK(cj_call(cj_vmap(cj_func_new(ctx, "rolld", f_roll_dynamic, 2, 1, NULL), NULL), (cj_val[]){xs, sh}, &y) == CJ_OK);
    CHECK(cc_close(y, cj_stack(2, (cj_val[]){cj_roll(xv, 1, L(2), L(0)), cj_neg(cj_roll(xv, 1, L(-10), L(0)))}, 0), 0, 0,
                   "roll_dynamic vmapped shifts"));
    CHECK(cj_is_error(cj_roll_dynamic(xv, cj_scalar(ctx, 1.5), 0)));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_roll_dynamic: the shift must be an integer scalar, got f32[]");
    cj_error_clear(ctx);
    cj_ctx_free(ctx);
}

/* repeats given as a value, traced under jit and batched under vmap */
static void f_repeat_each(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_repeat_each(in[0], in[1], 0, 7);
}

static void f_meshgrid(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    cj_val o[2], b[2];
    cj_meshgrid(2, in, "xy", 0, o);
    out[0] = cj_mul(o[0], o[1]);
    cj_broadcast_arrays(2, (cj_val[]){cj_expand_dims(in[0], 1), in[1]}, b);
    out[1] = cj_sub(b[0], cj_mul(b[1], cj_tri(in[0].ctx, cj_val_dim(in[0], 0), cj_val_dim(in[1], 0), 0, CJ_F32)));
}

TEST(composites_shape_jit_vmap_grad) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    uint64_t seed = 3;
    double buf[15];
    for (int i = 0; i < 15; i++) buf[i] = th_rand_uniform(&seed, -2, 2);
    cj_val x = cj_array(ctx, CJ_F32, 2, L(3, 5), (float[]){1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15});
    CHECK(cc_modes(ctx, "shapes", f_shapes, NULL, 1, 7, &x, 0));
    cj_val xd = cj_array(ctx, CJ_F64, 2, L(3, 5), buf);
    CHECK(cc_jvp_fd(ctx, "shapes", f_shapes, NULL, 7, xd, 1e-8));
    CHECK(cc_vjp_jvp(ctx, "shapes", f_shapes, NULL, 7, xd, 1e-12));
    int32_t reps[3] = {2, 0, 3};
    cj_val in[2] = {cj_array(ctx, CJ_F32, 2, L(3, 2), (float[]){1, 2, 3, 4, 5, 6}), cj_array(ctx, CJ_I32, 1, L(3), reps)};
    CHECK(cc_modes(ctx, "repeat_each", f_repeat_each, NULL, 2, 1, in, 0));
    /* traced repeats: rows 0, 0, 2, 2, 2, then the last row again */
    float got[14];
    cj_val jo;
    CHECK(cj_call(cj_jit(cj_func_new(ctx, "r", f_repeat_each, 2, 1, NULL), NULL), in, &jo) == CJ_OK);
    CHECK(cj_read(jo, got, sizeof got) == CJ_OK);
    static const int rows[7] = {0, 0, 2, 2, 2, 2, 2};
    for (int i = 0; i < 7; i++) CHECK(got[2 * i] == 1 + 2 * rows[i] && got[2 * i + 1] == 2 + 2 * rows[i]);
    cj_val mg[2] = {cj_array(ctx, CJ_F32, 1, L(3), (float[]){1, 2, 3}), cj_array(ctx, CJ_F32, 1, L(4), (float[]){-1, 0.5f, 2, 4})};
    CHECK(cc_modes(ctx, "meshgrid", f_meshgrid, NULL, 2, 2, mg, 0));
    cj_ctx_free(ctx);
}

static void f_repeat_no_total(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    out[0] = cj_repeat_each(in[0], in[1], 1, -1);
}

TEST(composites_shape_errors_name_the_function) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val a = cj_zeros(ctx, CJ_F32, 2, L(2, 3)), b = cj_zeros(ctx, CJ_F32, 1, L(3)), o[4];
#define ERR(expr, text)                                          \
    do {                                                         \
        CHECK(cj_is_error(expr));                                \
        CHECK_STR_CONTAINS(cj_error_message(ctx), text);         \
        cj_error_clear(ctx);                                     \
    } while (0)
    ERR(cj_stack(2, (cj_val[]){a, b}, 0), "cj_stack: every array must have the same shape: operand 0 is f32[2,3], operand 1 f32[3]");
    ERR(cj_stack(1, &a, 3), "cj_stack: axis 3 is out of range for f32[2,3] (result rank 3)");
    ERR(cj_tile(a, 2, L(1, -1)), "cj_tile: reps[1] is -1 for f32[2,3]");
    ERR(cj_repeat(a, 2, -3), "cj_repeat: axis -3 is out of range for f32[2,3]");
    ERR(cj_repeat_each(a, cj_array(ctx, CJ_I32, 1, L(2), (int32_t[]){1, 2}), 1, -1),
        "cj_repeat_each: repeats i32[2] must have 1 or 3 elements (axis 1 of f32[2,3])");
    ERR(cj_repeat_each(a, cj_array(ctx, CJ_I32, 1, L(3), (int32_t[]){1, -2, 0}), 1, -1),
        "cj_repeat_each: repeats must be >= 0, got -2 at 1");
    ERR(cj_repeat_each(a, b, 1, -1), "cj_repeat_each: repeats must be an integer scalar or 1-D array, got f32[3]");
    ERR(cj_roll(a, 1, L(1), L(2)), "cj_roll: axis 2 is out of range for f32[2,3]");
    ERR(cj_flip(a, 2, L(1, -1)), "cj_flip: axis -1 is repeated for f32[2,3]");
    ERR(cj_moveaxis(a, 2, L(0, 0), L(0, 1)), "cj_moveaxis: repeated source axis 0 for f32[2,3]");
    ERR(cj_swapaxes(a, 0, 5), "cj_swapaxes: axis 5 is out of range for f32[2,3]");
    CHECK(cj_split(a, 2, 1, o) != CJ_OK);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_split: axis 1 of f32[2,3] (size 3) does not split into 2 equal sections");
    cj_error_clear(ctx);
    CHECK(cj_split_indices(a, 2, L(2, 1), 1, o) != CJ_OK && cj_is_error(o[2]));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_split_indices: indices must be non-decreasing within 0..3 (axis 1 of f32[2,3]); index 1 is 1");
    cj_error_clear(ctx);
    CHECK(cj_meshgrid(2, (cj_val[]){a, b}, "ij", 0, o) != CJ_OK);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_meshgrid: every array must be 1-D, array 0 is f32[2,3]");
    cj_error_clear(ctx);
    CHECK(cj_meshgrid(1, &b, "yx", 0, o) != CJ_OK);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_meshgrid: indexing must be \"xy\" or \"ij\", got \"yx\"");
    cj_error_clear(ctx);
    CHECK(cj_broadcast_arrays(2, (cj_val[]){a, cj_zeros(ctx, CJ_F32, 1, L(4))}, o) != CJ_OK);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_broadcast_arrays");
    CHECK_STR_CONTAINS(cj_error_message(ctx), "f32[4]");
    cj_error_clear(ctx);
    /* traced repeats need a static total */
    cj_val in[2] = {a, cj_array(ctx, CJ_I32, 1, L(3), (int32_t[]){1, 1, 1})}, r;
    CHECK(cj_call(cj_jit(cj_func_new(ctx, "r", f_repeat_no_total, 2, 1, NULL), NULL), in, &r) != CJ_OK);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_repeat_each: traced repeats need a total_repeat_length");
    cj_error_clear(ctx);
    cj_error_clear(NULL); /* the thread's context-less record keeps its first message */
    CHECK(cj_is_error(cj_stack(0, NULL, 0)));
    CHECK_STR_CONTAINS(cj_error_message(NULL), "cj_stack: needs at least one value");
    cj_error_clear(NULL);
#undef ERR
    cj_ctx_free(ctx);
}

/* Failing allocation 1, 2, 3, ... of the composites that take memory of
 * their own (stack's and broadcast_arrays' tables, split's bounds,
 * repeat_each's host copy of the repeats) and of an associative scan:
 * every run ends in a clean CJ_ERR_OOM or in results, nothing leaked. */
TEST(composites_out_of_memory_is_clean) {
    int succeeded = 0;
    for (long long fail = 1; fail < 2000 && !succeeded; fail++) {
        tu_alloc st;
        memset(&st, 0, sizeof st);
        st.fail_at = fail;
        cj_allocator al = tu_allocator(&st);
        cj_ctx *ctx = cj_ctx_new(&al);
        if (!ctx) continue;
        cj_val x = cj_iota(ctx, CJ_F32, 2, L(3, 4), 1), o[3];
        cj_val s = cj_stack(3, (cj_val[]){x, x, x}, 1);
        cj_status t1 = cj_array_split(x, 3, 1, o);
        cj_val r = cj_repeat_each(x, cj_array(ctx, CJ_I32, 1, L(3), (int32_t[]){1, 0, 2}), 0, -1);
        cj_status t2 = cj_broadcast_arrays(2, (cj_val[]){x, cj_zeros(ctx, CJ_F32, 1, L(4))}, o);
        cj_val c = cj_cumlogsumexp(x, 1, 1);
        int failed = st.failed;
        if (cj_error(ctx)) CHECK_MSG(failed && cj_error(ctx) == CJ_ERR_OOM, "allocation %lld: %s", fail, cj_error_message(ctx));
        else CHECK(!cj_is_error(s) && t1 == CJ_OK && !cj_is_error(r) && t2 == CJ_OK && !cj_is_error(c));
        cj_ctx_free(ctx);
        CHECK_EQ_INT(st.live, 0);
        succeeded = !failed;
    }
    CHECK(succeeded);
}

/* Empty arrays and zero counts give empty results of the right shapes. */
TEST(composites_empty_and_zero_counts) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val e = cj_zeros(ctx, CJ_F32, 2, L(2, 0)), x = cj_iota(ctx, CJ_I32, 2, L(2, 3), 1), o[3];
    int64_t d[3];
    CHECK(cj_val_shape(cj_tile(x, 2, L(0, 2)), d) == 2 && d[0] == 0 && d[1] == 6);
    CHECK(cj_val_shape(cj_repeat(x, 0, 1), d) == 2 && d[0] == 2 && d[1] == 0);
    CHECK(cj_val_shape(cj_repeat_each(x, cj_zeros(ctx, CJ_I32, 1, L(3)), 1, -1), d) == 2 && d[1] == 0);
    CHECK(cj_val_shape(cj_stack(2, (cj_val[]){e, e}, 1), d) == 3 && d[0] == 2 && d[1] == 2 && d[2] == 0);
    CHECK(cj_val_shape(cj_roll(e, 1, L(3), L(1)), d) == 2 && d[1] == 0);
    CHECK(cj_val_shape(cj_roll_dynamic(e, cj_scalar_int(ctx, 3), 1), d) == 2 && d[1] == 0);
    CHECK(cj_array_split(e, 3, 1, o) == CJ_OK && cj_val_shape(o[2], d) == 2 && d[1] == 0);
    CHECK(cj_val_shape(cj_cumlogsumexp(e, 1, 1), d) == 2 && d[1] == 0);
    CHECK(cj_val_shape(cj_cummin(e, 1, 0), d) == 2 && d[1] == 0);
    CHECK(cj_val_shape(cj_nanmean(e, 1, L(1), 0), d) == 1 && d[0] == 2);
    CHECK(isnan(cj_item_or_nan(cj_slice(cj_nanmax(e, 1, L(1), 0), L(0), L(1), NULL))));
    CHECK(cj_val_shape(cj_tri(ctx, 0, 3, 0, CJ_F32), d) == 2 && d[0] == 0 && d[1] == 3);
    CHECK_MSG(!cj_error(ctx), "%s", cj_error_message(ctx));
    /* integers keep their dtype through the data movement */
    CHECK(cj_val_dtype(cj_tile(x, 1, L(2))) == CJ_I32 && cj_val_dtype(cj_roll(x, 1, L(1), L(0))) == CJ_I32);
    cj_ctx_free(ctx);
}
