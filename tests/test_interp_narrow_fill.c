/* test_interp_narrow_fill.c — the interpreter's broadcast fills of 2-byte
 * elements (f16, bf16, i16, u16), the root cause of issue 17's "grad
 * through a scan with an f16/bf16 carry is wrong under jit interp with
 * several threads".
 *
 * The interpreter fills a run along the innermost axis whose index map has
 * stride 0 (a broadcast leaf of a LOOP kernel; a per-row value spread back
 * over its row in a ROWS kernel) with fill_row (src/backend/interp.c).
 * Until 2-byte elements had a case of their own there, they took the
 * 8-byte path: each 8-byte word got the element followed by the 6 bytes
 * after it in memory (so three of four elements were whatever lay beyond
 * the value), and the run was written over 4× its length, past the end of
 * the tile slot. What lay beyond depended on the buffer pool and on which
 * thread's scratch came next, so the scan's gradient failed in the test
 * binary only with some thread counts. These cases make it deterministic:
 * the broadcast value is an element of a small array whose neighbours
 * differ from it, so every wrong fill shows. They run in this process and
 * again in child processes with CJAX_NUM_THREADS=2 and 4 (a kernel of
 * 32768 elements is split over the threads there). Reference: a plain loop
 * for the integer broadcast-add (wrapping), eager's bits for the rest
 * (eager broadcasts with its own kernels, not the interpreter's fills). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cjax.h"
#include "harness.h"
#include "runtime/half.h"
#include "test_util.h"

#define ROWS 8
#define COLS 4096

/* x + c[:, None]: the column broadcast is a stride-0 leaf of a LOOP kernel. */
static void add_column(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    int64_t shape[2] = {ROWS, 1};
    out[0] = cj_add(in[0], cj_reshape(in[1], 2, shape));
}

/* x - max(x, axis 1)[:, None]: the row's maximum, a per-row value of a
 * ROWS kernel, spread back over the row. */
static void sub_row_max(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx, (void)user;
    int64_t one = 1;
    out[0] = cj_sub(in[0], cj_reduce_max(in[0], 1, &one, 1));
}

/* An element of x's dtype from an integer. */
static void put(cj_dtype dt, void *p, int64_t i, int v) {
    uint16_t h;
    if (dt == CJ_F16) h = rt_f32_to_f16((float)v * 0.25f);
    else if (dt == CJ_BF16) h = rt_f32_to_bf16((float)v * 0.25f);
    else h = (uint16_t)v;
    memcpy((char *)p + i * 2, &h, 2);
}

TEST(interp_narrow_fill_child) {
    static const cj_dtype dts[4] = {CJ_F16, CJ_BF16, CJ_I16, CJ_U16};
    for (int d = 0; d < 4; d++) {
        cj_ctx *ctx = cj_ctx_new(NULL);
        cj_dtype dt = dts[d];
        uint16_t *xs = malloc(ROWS * COLS * 2), cs[ROWS];
        for (int64_t i = 0; i < ROWS * COLS; i++) put(dt, xs, i, (int)(i % 61) - 30);
        for (int r = 0; r < ROWS; r++) put(dt, cs, r, 7 * r + 3); /* neighbours all differ */
        int64_t shape[2] = {ROWS, COLS}, nrows = ROWS;
        cj_val in[2] = {cj_array(ctx, dt, 2, shape, xs), cj_array(ctx, dt, 1, &nrows, cs)};
        cj_fn bodies[2] = {add_column, sub_row_max};
        for (int b = 0; b < 2; b++) {
            cj_val want, got;
            cj_func *f = cj_func_new(ctx, b ? "sub_row_max" : "add_column", bodies[b], b ? 1 : 2, 1, NULL);
            CHECK_MSG(cj_call(f, in, &want) == CJ_OK, "%s", cj_error_message(ctx));
            cj_func *jf = cj_jit(f, &(cj_jit_opts){.backend = CJ_BACKEND_INTERP});
            CHECK_MSG(cj_call(jf, in, &got) == CJ_OK, "%s", cj_error_message(ctx));
            CHECK_MSG(tu_same_bits(got, want), "%s %s: jit interp differs from eager", cj_dtype_name(dt),
                      b ? "x - rowmax" : "x + column");
            if (b == 0 && (dt == CJ_I16 || dt == CJ_U16)) { /* a plain loop, wrapping */
                uint16_t *g = malloc(ROWS * COLS * 2);
                cj_read(got, g, ROWS * COLS * 2);
                int64_t bad = -1;
                for (int64_t i = 0; i < ROWS * COLS && bad < 0; i++)
                    if (g[i] != (uint16_t)(xs[i] + cs[i / COLS])) bad = i;
                CHECK_MSG(bad < 0, "%s x + column: element %lld", cj_dtype_name(dt), (long long)bad);
                free(g);
            }
            cj_func_free(jf);
        }
        free(xs);
        CHECK_MSG(cj_error(ctx) == CJ_OK, "%s", cj_error_message(ctx));
        cj_ctx_free(ctx);
    }
}

TEST(interp_narrow_fill_right_at_2_and_4_threads) {
    char self[4096];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    CHECK(len > 0);
    if (len <= 0) return;
    self[len] = 0;
    const int counts[2] = {2, 4};
    for (int i = 0; i < 2; i++)
        CHECK_MSG(tu_run_child(self, "interp_narrow_fill_child", "CJAX_TEST_CHILD", "1", counts[i]) == 0,
                  "CJAX_NUM_THREADS=%d: the child failed", counts[i]);
}
