/* test_plan.c — the schedule pass and the buffer planner on synthetic
 * programs built by hand with the IR builder, each with its arena size and
 * offsets computed by hand in the comments; a schedule validity scan and a
 * plan soundness scan over random DAGs; compiled programs where in place
 * and rescheduling apply run on both backends against eager; allocation
 * failure at every site of compile. */
#include <stdlib.h>

#include "compiler/program.h"
#include "core/func.h"
#include "harness.h"
#include "test_util.h"

/* ---- building programs ---- */

static rt_aval f32_shape(int rank, const int64_t *dims) { return rt_aval_make(CJ_F32, rank, dims); }

/* Each builder returns the new variable, or -1 when an operand is -1 (a
 * failed allocation earlier: the fault test builds under failures). */
static int add_unary(ir_func *ir, prim_id p, int x) {
    if (x < 0) return -1;
    prim_params z = prim_params_zero();
    return ir_add_eqn(ir, p, &z, 1, &x, &ir->vars[x]);
}

/* Elementwise binary; a rank-0 operand is read as a scalar. */
static int add_binary(ir_func *ir, prim_id p, int a, int b) {
    if (a < 0 || b < 0) return -1;
    prim_params z = prim_params_zero();
    rt_aval out = ir->vars[a].rank ? ir->vars[a] : ir->vars[b];
    return ir_add_eqn(ir, p, &z, 2, (int[]){a, b}, &out);
}

/* reduce_* over the listed (increasing) axes. */
static int add_reduce(ir_func *ir, prim_id p, int x, int n_axes, const int64_t *axes) {
    if (x < 0) return -1;
    prim_params q = prim_params_zero();
    q.axes.n = n_axes;
    const rt_aval *in = &ir->vars[x];
    int64_t dims[CJ_MAX_RANK];
    int rank = 0;
    for (int d = 0, i = 0; d < in->rank; d++) {
        if (i < n_axes && axes[i] == d) {
            q.axes.v[i++] = d;
            continue;
        }
        dims[rank++] = in->dims[d];
    }
    rt_aval out = f32_shape(rank, dims);
    return ir_add_eqn(ir, p, &q, 1, &x, &out);
}

static int add_transpose(ir_func *ir, int x) {
    if (x < 0) return -1;
    prim_params q = prim_params_zero();
    q.axes.n = 2;
    q.axes.v[0] = 1;
    q.axes.v[1] = 0;
    rt_aval out = f32_shape(2, (int64_t[]){ir->vars[x].dims[1], ir->vars[x].dims[0]});
    return ir_add_eqn(ir, PRIM_TRANSPOSE, &q, 1, &x, &out);
}

/* broadcast_in_dim: operand axis i becomes result axis dims[i]. */
static int add_broadcast(ir_func *ir, int x, int rank, const int64_t *shape, const int64_t *dims) {
    if (x < 0) return -1;
    prim_params q = prim_params_zero();
    q.axes.n = ir->vars[x].rank;
    for (int i = 0; i < q.axes.n; i++) q.axes.v[i] = dims[i];
    q.shape.n = rank;
    for (int d = 0; d < rank; d++) q.shape.v[d] = shape[d];
    rt_aval out = f32_shape(rank, shape);
    return ir_add_eqn(ir, PRIM_BROADCAST_IN_DIM, &q, 1, &x, &out);
}

/* dot_general contracting lhs axis lc with rhs axis rc (-1: none). */
static int add_dot(ir_func *ir, int a, int b, int lc, int rc) {
    if (a < 0 || b < 0) return -1;
    prim_params q = prim_params_zero();
    q.dtype = CJ_F32;
    const rt_aval *la = &ir->vars[a], *ra = &ir->vars[b];
    int64_t dims[CJ_MAX_RANK];
    int rank = 0;
    if (lc >= 0) {
        q.lhs_contract.n = q.rhs_contract.n = 1;
        q.lhs_contract.v[0] = lc;
        q.rhs_contract.v[0] = rc;
    }
    for (int d = 0; d < la->rank; d++)
        if (d != lc) dims[rank++] = la->dims[d];
    for (int d = 0; d < ra->rank; d++)
        if (d != rc) dims[rank++] = ra->dims[d];
    rt_aval out = f32_shape(rank, dims);
    return ir_add_eqn(ir, PRIM_DOT_GENERAL, &q, 2, (int[]){a, b}, &out);
}

/* ---- scans every test runs ---- */

/* Is the kernel order a valid schedule? Every equation is in exactly one
 * kernel, kernel_of names it, and every kernel runs after the producers of
 * what it reads. */
static int schedule_is_valid(const compiled *c, char *msg, size_t n) {
    const ir_func *ir = c->ir;
    int *seen = calloc((size_t)ir->n_eqns + 1, sizeof(int));
    int ok = 1;
    for (int k = 0; k < c->n_kernels && ok; k++) {
        const kernel *K = &c->kernels[k];
        for (int j = 0; j < K->n_eqns && ok; j++) {
            int e = K->eqns[j];
            seen[e]++;
            if (c->kernel_of[ir->eqns[e].out] != k) {
                snprintf(msg, n, "equation %d is in kernel %d but kernel_of says %d", e, k,
                         c->kernel_of[ir->eqns[e].out]);
                ok = 0;
            }
        }
        for (int i = 0; i < K->n_in && ok; i++)
            if (c->kernel_of[K->in[i]] >= k) {
                snprintf(msg, n, "kernel %d reads a value of kernel %d, which runs later", k,
                         c->kernel_of[K->in[i]]);
                ok = 0;
            }
    }
    for (int e = 0; e < ir->n_eqns && ok; e++)
        if (seen[e] != 1) {
            snprintf(msg, n, "equation %d is in %d kernels", e, seen[e]);
            ok = 0;
        }
    free(seen);
    return ok;
}

/* Is the plan sound? Arena buffers live in the same kernel occupy
 * disjoint bytes inside the arena, except a result that took the block of
 * an operand dying at its kernel (in place); inputs, constants and outputs
 * never live in the arena. A temporary placed in an output's buffer lies
 * inside it and is dead before the kernel writing that output; those in
 * one output's buffer obey the arena's rule among themselves. */
static int plan_is_sound(const compiled *c, char *msg, size_t n) {
    const ir_func *ir = c->ir;
    for (int i = 0; i < ir->n_in; i++)
        if (c->home[ir->in[i]] != HOME_INPUT) return snprintf(msg, n, "input %d is not an argument", i), 0;
    for (int i = 0; i < ir->n_out; i++)
        if (c->home[ir->out[i]] == HOME_ARENA) return snprintf(msg, n, "output %d is in the arena", i), 0;
    for (int u = 0; u < ir->n_vars; u++) {
        if (c->home[u] != HOME_ARENA) continue;
        size_t su = rt_aval_nbytes(&ir->vars[u]);
        int h = plan_host(c, u);
        if (h >= 0) {
            if (c->home[h] != HOME_OUTPUT) return snprintf(msg, n, "var %d is in var %d, not an output", u, h), 0;
            if (c->offset[u] + su > rt_aval_nbytes(&ir->vars[h]))
                return snprintf(msg, n, "var %d ends past output %d's buffer", u, h), 0;
            if (c->last_use[u] >= c->kernel_of[h])
                return snprintf(msg, n, "var %d is read at kernel %d, output %d written at %d", u, c->last_use[u], h,
                                c->kernel_of[h]),
                       0;
        } else if (c->offset[u] + su > c->arena_bytes) {
            return snprintf(msg, n, "var %d ends past the arena", u), 0;
        }
        for (int v = u + 1; v < ir->n_vars; v++) {
            if (c->home[v] != HOME_ARENA || plan_host(c, v) != h) continue;
            size_t sv = rt_aval_nbytes(&ir->vars[v]);
            bool same_time = c->first_use[u] <= c->last_use[v] && c->first_use[v] <= c->last_use[u];
            bool same_bytes = c->offset[u] < c->offset[v] + sv && c->offset[v] < c->offset[u] + su;
            bool in_place = (plan_in_place_of(c, v) == u && c->last_use[u] == c->first_use[v]) ||
                            (plan_in_place_of(c, u) == v && c->last_use[v] == c->first_use[u]);
            if (same_time && same_bytes && !in_place)
                return snprintf(msg, n, "vars %d and %d overlap in kernels %d..%d and %d..%d", u, v, c->first_use[u],
                                c->last_use[u], c->first_use[v], c->last_use[v]),
                       0;
        }
    }
    return 1;
}

/* Puts the kernels back in fusion order (by first equation) and plans it
 * again: the arena the program would have without the schedule pass. */
static int replan_in_fusion_order(cj_ctx *ctx, compiled *c, size_t *arena) {
    for (int k = 1; k < c->n_kernels; k++)
        for (int j = k; j > 0 && c->kernels[j].eqns[0] < c->kernels[j - 1].eqns[0]; j--) {
            kernel t = c->kernels[j];
            c->kernels[j] = c->kernels[j - 1];
            c->kernels[j - 1] = t;
        }
    for (int k = 0; k < c->n_kernels; k++)
        for (int j = 0; j < c->kernels[k].n_eqns; j++) c->kernel_of[c->ir->eqns[c->kernels[k].eqns[j]].out] = k;
    if (plan_buffers(ctx, c) != 0) return -1;
    *arena = c->arena_bytes;
    return 0;
}

/* The synthetic programs below pin the arena's own rules (reuse, in
 * place, the schedule), so they are planned with every temporary in the
 * arena; outputs as scratch have their own tests further down. */
static compiled *compile_arena_only(cj_ctx *ctx, const ir_func *ir) {
    return compile_ir_until(ctx, ir, NULL, &(compile_options){.no_output_scratch = true});
}

#define CHECK_SCANS(c)                                                       \
    do {                                                                     \
        char th_msg[200];                                                    \
        CHECK_MSG(schedule_is_valid(c, th_msg, sizeof th_msg), "%s", th_msg); \
        CHECK_MSG(plan_is_sound(c, th_msg, sizeof th_msg), "%s", th_msg);     \
    } while (0)

/* ---- reuse ----
 *
 * The programs below separate kernels with scans (cumsum: a SINGLE kernel
 * on whole buffers) and reductions over a leading axis (SINGLE too): a
 * reduction over trailing axes would fuse with its producer into a ROWS
 * kernel, and the buffers these tests are about would not exist. */

static int add_cumsum(ir_func *ir, int x, int axis) {
    if (x < 0) return -1;
    prim_params q = prim_params_zero();
    q.axes.n = 1;
    q.axes.v[0] = axis;
    return ir_add_eqn(ir, PRIM_CUMSUM, &q, 1, &x, &ir->vars[x]);
}

static int add_slice(ir_func *ir, int x, int64_t lo, int64_t hi) {
    if (x < 0) return -1;
    prim_params q = prim_params_zero();
    q.lo.n = q.hi.n = 1;
    q.lo.v[0] = lo;
    q.hi.v[0] = hi;
    rt_aval out = f32_shape(1, (int64_t[]){hi - lo});
    return ir_add_eqn(ir, PRIM_SLICE, &q, 1, &x, &out);
}

TEST(plan_reuses_dead_buffer) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    /* x:f32[1024] → a = cumsum x (4096 B) → b = exp(a[0:16]) (loop, 64 B)
     * → d = sin(broadcast b to [64,16]) (loop, 4096 B) → e = cumsum d
     * (output). a@0, b@4096; a dies at b's kernel, so d takes a's offset 0
     * exactly: arena 4096 + 64 = 4160 (not 8256). */
    ir_func *ir = ir_new(ctx->mem);
    rt_aval xa = f32_shape(1, (int64_t[]){1024});
    int x = ir_add_input(ir, &xa);
    int a = add_cumsum(ir, x, 0);
    int b = add_unary(ir, PRIM_EXP, add_slice(ir, a, 0, 16));
    int d = add_unary(ir, PRIM_SIN, add_broadcast(ir, b, 2, (int64_t[]){64, 16}, (int64_t[]){1}));
    int e = add_cumsum(ir, d, 0);
    ir_add_output(ir, e);
    CHECK_MSG(ir_verify(ctx, ir) == 0, "%s", cj_error_message(ctx));
    compiled *c = compile_arena_only(ctx, ir);
    CHECK_MSG(c, "%s", cj_error_message(ctx));
    CHECK_SCANS(c);
    CHECK_EQ_INT(c->n_kernels, 4);
    CHECK(c->home[a] == HOME_ARENA && c->home[b] == HOME_ARENA && c->home[d] == HOME_ARENA);
    CHECK(c->home[e] == HOME_OUTPUT);
    CHECK_EQ_INT(c->offset[a], 0);
    CHECK_EQ_INT(c->offset[b], 4096);
    CHECK_EQ_INT(c->offset[d], 0);
    CHECK_EQ_INT(c->arena_bytes, 4160);
    CHECK_EQ_INT(c->mem.temp_bytes, 4160);
    CHECK_EQ_INT(plan_in_place_of(c, d), -1); /* reuse after death, not in place */
    compiled_free(ctx, c);
    ir_free(ir);
    cj_ctx_free(ctx);
}

/* ---- in place ---- */

/* x:f32[1024], w:f32[] → a = cumsum x → t = a*w, b = t - a (one loop;
 * a's last reader is b's own equation) → y = cumsum b (output). */
static ir_func *build_in_place(cj_ctx *ctx, int *va, int *vb) {
    ir_func *ir = ir_new(ctx->mem);
    if (!ir) return NULL;
    rt_aval xa = f32_shape(1, (int64_t[]){1024}), wa = f32_shape(0, NULL);
    int x = ir_add_input(ir, &xa);
    int w = ir_add_input(ir, &wa);
    int a = add_cumsum(ir, x, 0);
    int b = add_binary(ir, PRIM_SUB, add_binary(ir, PRIM_MUL, a, w), a);
    int y = add_cumsum(ir, b, 0);
    if (w < 0 || y < 0 || ir_add_output(ir, y) != 0) {
        ir_free(ir);
        return NULL;
    }
    if (va) {
        *va = a;
        *vb = b;
    }
    return ir;
}

TEST(plan_in_place_when_operand_dies_at_its_loop) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int a, b;
    ir_func *ir = build_in_place(ctx, &a, &b);
    CHECK_MSG(ir && ir_verify(ctx, ir) == 0, "%s", cj_error_message(ctx));
    compiled *c = compile_arena_only(ctx, ir);
    CHECK_MSG(c, "%s", cj_error_message(ctx));
    CHECK_SCANS(c);
    CHECK_EQ_INT(c->n_kernels, 3);
    CHECK(c->kernels[c->kernel_of[b]].kind == KERNEL_LOOP);
    /* a@0 (4096 B); b takes a's block in place, as a dies there: arena
     * 4096. Without in place b would go to 4096 and the arena be 8192. */
    CHECK_EQ_INT(c->offset[a], 0);
    CHECK_EQ_INT(plan_in_place_of(c, b), a);
    CHECK_EQ_INT(c->offset[b], 0);
    CHECK_EQ_INT(c->arena_bytes, 4096);
    CHECK_EQ_INT(c->mem.temp_bytes, 4096);
    compiled_free(ctx, c);
    ir_free(ir);
    cj_ctx_free(ctx);
}

TEST(plan_in_place_refused_through_transpose_leaf) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    /* x:f32[32,32] → a = cumsum x → b = a + transpose a → y = cumsum b.
     * b's kernel reads a at (i,j) and at (j,i): a tile of b written over a
     * would clobber elements a later tile reads through the transpose.
     * a@0, b@4096: arena 8192. */
    ir_func *ir = ir_new(ctx->mem);
    rt_aval xa = f32_shape(2, (int64_t[]){32, 32});
    int x = ir_add_input(ir, &xa);
    int a = add_cumsum(ir, x, 0);
    int at = add_transpose(ir, a);
    int b = add_binary(ir, PRIM_ADD, a, at);
    ir_add_output(ir, add_cumsum(ir, b, 0));
    CHECK_MSG(ir_verify(ctx, ir) == 0, "%s", cj_error_message(ctx));
    compiled *c = compile_arena_only(ctx, ir);
    CHECK_MSG(c, "%s", cj_error_message(ctx));
    CHECK_SCANS(c);
    CHECK_EQ_INT(c->kernel_of[at], c->kernel_of[b]);
    CHECK_EQ_INT(c->last_use[a], c->kernel_of[b]);
    CHECK_EQ_INT(plan_in_place_of(c, b), -1);
    CHECK_EQ_INT(c->offset[a], 0);
    CHECK_EQ_INT(c->offset[b], 4096);
    CHECK_EQ_INT(c->arena_bytes, 8192);
    compiled_free(ctx, c);
    ir_free(ir);
    cj_ctx_free(ctx);
}

TEST(plan_in_place_refused_through_broadcast_leaf) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    /* x:f32[1024] → a = cumsum x → b = exp(broadcast a to [1,1024]) (the
     * same bytes and dtype as a, but read through a leaf — and so not of
     * the loop's shape: both rules refuse) → y = cumsum b. a@0, b@4096:
     * arena 8192. */
    ir_func *ir = ir_new(ctx->mem);
    rt_aval xa = f32_shape(1, (int64_t[]){1024});
    int x = ir_add_input(ir, &xa);
    int a = add_cumsum(ir, x, 0);
    int b = add_unary(ir, PRIM_EXP, add_broadcast(ir, a, 2, (int64_t[]){1, 1024}, (int64_t[]){1}));
    ir_add_output(ir, add_cumsum(ir, b, 1));
    CHECK_MSG(ir_verify(ctx, ir) == 0, "%s", cj_error_message(ctx));
    compiled *c = compile_arena_only(ctx, ir);
    CHECK_MSG(c, "%s", cj_error_message(ctx));
    CHECK_SCANS(c);
    CHECK_EQ_INT(c->last_use[a], c->kernel_of[b]);
    CHECK_EQ_INT(plan_in_place_of(c, b), -1);
    CHECK_EQ_INT(c->offset[b], 4096);
    CHECK_EQ_INT(c->arena_bytes, 8192);
    compiled_free(ctx, c);
    ir_free(ir);
    cj_ctx_free(ctx);
}

TEST(plan_in_place_refused_when_read_after_the_result) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    /* x:f32[1024] → u = cumsum x → v = exp u; w = v + u (one loop: u is
     * read after v is written) → s = cumsum v. Outputs w, s. u@0, v@4096:
     * arena 8192 (in place would have been 4096, and w wrong). */
    ir_func *ir = ir_new(ctx->mem);
    rt_aval xa = f32_shape(1, (int64_t[]){1024});
    int x = ir_add_input(ir, &xa);
    int u = add_cumsum(ir, x, 0);
    int v = add_unary(ir, PRIM_EXP, u);
    int w = add_binary(ir, PRIM_ADD, v, u);
    ir_add_output(ir, w);
    ir_add_output(ir, add_cumsum(ir, v, 0));
    CHECK_MSG(ir_verify(ctx, ir) == 0, "%s", cj_error_message(ctx));
    compiled *c = compile_arena_only(ctx, ir);
    CHECK_MSG(c, "%s", cj_error_message(ctx));
    CHECK_SCANS(c);
    CHECK_EQ_INT(c->kernel_of[v], c->last_use[u]);
    CHECK_EQ_INT(plan_in_place_of(c, v), -1);
    CHECK_EQ_INT(c->offset[u], 0);
    CHECK_EQ_INT(c->offset[v], 4096);
    CHECK_EQ_INT(c->arena_bytes, 8192);
    compiled_free(ctx, c);
    ir_free(ir);
    cj_ctx_free(ctx);
}

TEST(plan_in_place_refused_for_program_outputs) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    /* x:f32[1024] → u = cumsum x (output) → v = exp u → s = cumsum v →
     * y = v * s (output). v's kernel reads u, which dies there, but u is an
     * output array, never the arena's; y's kernel reads v and s, which die
     * there, but y is an output. Arena: v@0, s@4096: 8192. */
    ir_func *ir = ir_new(ctx->mem);
    rt_aval xa = f32_shape(1, (int64_t[]){1024});
    int x = ir_add_input(ir, &xa);
    int u = add_cumsum(ir, x, 0);
    int v = add_unary(ir, PRIM_EXP, u);
    int s = add_cumsum(ir, v, 0);
    int y = add_binary(ir, PRIM_MUL, v, s);
    ir_add_output(ir, u);
    ir_add_output(ir, y);
    CHECK_MSG(ir_verify(ctx, ir) == 0, "%s", cj_error_message(ctx));
    compiled *c = compile_arena_only(ctx, ir);
    CHECK_MSG(c, "%s", cj_error_message(ctx));
    CHECK_SCANS(c);
    CHECK(c->home[u] == HOME_OUTPUT && c->home[y] == HOME_OUTPUT);
    CHECK_EQ_INT(c->last_use[u], c->kernel_of[v]);
    CHECK_EQ_INT(c->last_use[v], c->kernel_of[y]);
    CHECK_EQ_INT(plan_in_place_of(c, v), -1);
    CHECK_EQ_INT(plan_in_place_of(c, y), -1);
    CHECK_EQ_INT(c->offset[v], 0);
    CHECK_EQ_INT(c->offset[s], 4096);
    CHECK_EQ_INT(c->arena_bytes, 8192);
    compiled_free(ctx, c);
    ir_free(ir);
    cj_ctx_free(ctx);
}

/* ---- the schedule ---- */

/* The diamond: x:f32[16,64] → a = exp x (4096 B); b = sin(transpose x)
 * (another loop: another space, 4096 B) → sa = column sums of a
 * (f32[64], 256 B); sb = column sums of b (f32[16], 64 B) → y = outer
 * product of sa and sb (output). */
static ir_func *build_diamond(cj_ctx *ctx, int *va, int *vb, int *vsa, int *vsb) {
    ir_func *ir = ir_new(ctx->mem);
    if (!ir) return NULL;
    rt_aval xa = f32_shape(2, (int64_t[]){16, 64});
    int x = ir_add_input(ir, &xa);
    int a = add_unary(ir, PRIM_EXP, x);
    int b = add_unary(ir, PRIM_SIN, add_transpose(ir, x));
    int sa = add_reduce(ir, PRIM_REDUCE_SUM, a, 1, (int64_t[]){0});
    int sb = add_reduce(ir, PRIM_REDUCE_SUM, b, 1, (int64_t[]){0});
    int y = add_dot(ir, sa, sb, -1, -1);
    if (y < 0 || ir_add_output(ir, y) != 0) {
        ir_free(ir);
        return NULL;
    }
    if (va) {
        *va = a;
        *vb = b;
        *vsa = sa;
        *vsb = sb;
    }
    return ir;
}

TEST(plan_schedule_greedy_beats_fusion_order_on_a_diamond) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int a, b, sa, sb;
    ir_func *ir = build_diamond(ctx, &a, &b, &sa, &sb);
    CHECK_MSG(ir && ir_verify(ctx, ir) == 0, "%s", cj_error_message(ctx));
    /* as the jit compiles it, each column sum joins the loop feeding it (a
     * COLS kernel): a and b are never stored, and nothing is left to order */
    compiled *c = compile_arena_only(ctx, ir);
    CHECK_MSG(c, "%s", cj_error_message(ctx));
    CHECK_EQ_INT(c->n_kernels, 3);
    CHECK(c->kernels[c->kernel_of[sa]].kind == KERNEL_COLS && c->kernels[c->kernel_of[sb]].kind == KERNEL_COLS);
    CHECK(c->home[a] == HOME_NONE && c->home[b] == HOME_NONE);
    compiled_free(ctx, c);
    /* with the sums as kernels of their own (no_cols, as cj_export_c
     * compiles) the diamond's two wide temporaries must be ordered */
    c = compile_ir_until(ctx, ir, NULL, &(compile_options){.no_output_scratch = true, .no_cols = true});
    CHECK_MSG(c, "%s", cj_error_message(ctx));
    CHECK_SCANS(c);
    CHECK_EQ_INT(c->n_kernels, 5);
    /* greedy: exp (a tie with sin: the earlier), then the sums of a (frees
     * 4096, takes 256) before sin: a@0, sa@4096; b takes a's dead block
     * at 0; sb@4352. Arena 4416. */
    CHECK_STR_CONTAINS(schedule_heuristic(c), "greedy");
    CHECK(c->kernel_of[sa] < c->kernel_of[b]);
    CHECK_EQ_INT(c->offset[a], 0);
    CHECK_EQ_INT(c->offset[sa], 4096);
    CHECK_EQ_INT(c->offset[b], 0);
    CHECK_EQ_INT(c->offset[sb], 4352);
    CHECK_EQ_INT(c->arena_bytes, 4416);
    CHECK_EQ_INT(c->mem.temp_bytes, 4416);
    /* fusion order: a@0, b@4096, sa@8192 (nothing has died yet), sb in
     * a's gap: arena 8448, strictly more */
    size_t fusion_arena = 0;
    CHECK(replan_in_fusion_order(ctx, c, &fusion_arena) == 0);
    CHECK_SCANS(c);
    CHECK_STR_CONTAINS(schedule_heuristic(c), "fusion");
    CHECK_EQ_INT(fusion_arena, 8448);
    compiled_free(ctx, c);
    ir_free(ir);
    cj_ctx_free(ctx);
}

TEST(plan_schedule_keeps_fusion_order_when_greedy_is_no_better) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    /* a chain has one order: the schedule changes nothing */
    ir_func *ir = build_in_place(ctx, NULL, NULL);
    compiled *c = compile_arena_only(ctx, ir);
    CHECK_MSG(c, "%s", cj_error_message(ctx));
    CHECK_STR_CONTAINS(schedule_heuristic(c), "fusion");
    for (int k = 1; k < c->n_kernels; k++) CHECK(c->kernels[k].eqns[0] > c->kernels[k - 1].eqns[0]);
    compiled_free(ctx, c);
    ir_free(ir);
    cj_ctx_free(ctx);
}

/* A random DAG of whole-buffer kernels (SINGLE, and ROWS kernels of one
 * row sum each) over f32[16,16] matrices (1024 B) and f32[16] vectors
 * (64 B): matrix products, matrix-vector and
 * vector-matrix products, outer products, row sums, column maxima. The
 * choices depend only on the seed and the ranks, so the traced program
 * and the eager run make the same DAG. */
typedef struct dag_spec {
    uint64_t seed;
    int n_eqns;
} dag_spec;

static cj_val dot_axes(cj_val a, cj_val b, int64_t ac, int64_t bc) {
    return ac < 0 ? cj_dot_general(a, b, 0, NULL, NULL, 0, NULL, NULL)
                  : cj_dot_general(a, b, 1, &ac, &bc, 0, NULL, NULL);
}

static void f_random_dag(cj_ctx *ctx, const cj_val *in, cj_val *out, void *user) {
    (void)ctx;
    const dag_spec *spec = user;
    uint64_t rng = spec->seed;
    cj_val vals[64];
    int n = 0;
    for (int i = 0; i < 3; i++) vals[n++] = in[i];
    for (int i = 0; i < spec->n_eqns && n < 64; i++) {
        cj_val p = vals[th_rand_u64(&rng) % (uint64_t)n], q = vals[th_rand_u64(&rng) % (uint64_t)n];
        bool pm = cj_val_rank(p) == 2, qm = cj_val_rank(q) == 2;
        int64_t ax1 = 1, ax0 = 0;
        if (th_rand_u64(&rng) % 2 && pm) /* a row sum or a column max */
            vals[n++] = th_rand_u64(&rng) % 2 ? cj_sum(p, 1, &ax1, 0) : cj_reduce_max(p, 1, &ax0, 0);
        else if (pm) /* matrix times matrix or vector */
            vals[n++] = dot_axes(p, q, 1, 0);
        else if (qm) /* vector times matrix */
            vals[n++] = dot_axes(p, q, 0, 0);
        else /* outer product */
            vals[n++] = dot_axes(p, q, -1, -1);
    }
    /* the last value and two random ones */
    out[0] = vals[n - 1];
    out[1] = vals[3 + th_rand_u64(&rng) % (uint64_t)(n - 3)];
    out[2] = vals[3 + th_rand_u64(&rng) % (uint64_t)(n - 3)];
}

TEST(plan_schedule_respects_dependencies_on_random_dags) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    rt_aval avals[3] = {f32_shape(2, (int64_t[]){16, 16}), f32_shape(2, (int64_t[]){16, 16}),
                        f32_shape(1, (int64_t[]){16})};
    cj_val x[3];
    uint64_t data_rng = 5;
    for (int i = 0; i < 3; i++) {
        float v[256];
        for (int j = 0; j < 256; j++) v[j] = (float)th_rand_uniform(&data_rng, -1, 1);
        x[i] = cj_array(ctx, CJ_F32, avals[i].rank, avals[i].dims, v);
    }
    int improved = 0;
    for (int seed = 1; seed <= 40; seed++) {
        dag_spec spec = {(uint64_t)seed * 0x9E3779B97F4A7C15ull, 8 + seed % 17};
        cj_func *f = cj_func_new(ctx, "dag", f_random_dag, 3, 3, &spec);
        ir_func *ir = func_trace_to_ir(f, avals, NULL, "plan test");
        CHECK_MSG(ir, "seed %d: %s", seed, cj_error_message(ctx));
        compiled *c = compile_ir(ctx, ir);
        CHECK_MSG(c, "seed %d: %s", seed, cj_error_message(ctx));
        CHECK_SCANS(c);
        size_t kept = c->arena_bytes, fusion_arena = 0;
        CHECK(replan_in_fusion_order(ctx, c, &fusion_arena) == 0);
        CHECK_SCANS(c);
        CHECK_MSG(kept <= fusion_arena, "seed %d: kept %zu, fusion order %zu", seed, kept, fusion_arena);
        improved += kept < fusion_arena;
        compiled_free(ctx, c);
        ir_free(ir);

        /* the rescheduled program computes what eager does */
        cj_jit_opts interp = {0, NULL, 0, NULL, CJ_BACKEND_INTERP};
        cj_val want[3], got[3];
        CHECK(cj_call(f, x, want) == CJ_OK);
        CHECK_MSG(cj_call(cj_jit(f, &interp), x, got) == CJ_OK, "%s", cj_error_message(ctx));
        for (int o = 0; o < 3; o++) {
            float a[256], b[256];
            size_t bytes = sizeof(float) * (size_t)cj_val_size(want[o]);
            CHECK(cj_val_size(got[o]) == cj_val_size(want[o]));
            cj_read(want[o], a, bytes);
            cj_read(got[o], b, bytes);
            CHECK_MSG(memcmp(a, b, bytes) == 0, "seed %d output %d", seed, o);
        }
    }
    CHECK_MSG(improved > 0, "the greedy schedule never won on 40 random DAGs");
    cj_ctx_free(ctx);
}

/* ---- compiled programs against eager ---- */

static void f_in_place(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    cj_val a = cj_cumsum(in[0], 0, 0);
    cj_val b = cj_sub(cj_mul(a, cj_scalar(ctx, 0.5)), a);
    out[0] = cj_cumsum(b, 0, 0);
}

static void f_diamond(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    int64_t ax0 = 0;
    cj_val a = cj_exp(in[0]);
    cj_val b = cj_sin(cj_transpose(in[0], NULL));
    cj_val sa = cj_sum(a, 1, &ax0, 0), sb = cj_sum(b, 1, &ax0, 0);
    out[0] = cj_dot_general(sa, sb, 0, NULL, NULL, 0, NULL, NULL);
}

static void f_transposed(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    cj_val a = cj_cumsum(in[0], 0, 0);
    out[0] = cj_cumsum(cj_add(a, cj_transpose(a, NULL)), 0, 0);
}

static void f_late_reader(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    cj_val s = cj_cumsum(in[0], 0, 0);
    cj_val v = cj_exp(s);
    out[0] = cj_add(v, s);
    out[1] = cj_cumsum(v, 0, 0);
}

/* outputs made early and read by later kernels must survive them */
static void f_outputs(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    cj_val s = cj_cumsum(in[0], 0, 0);
    cj_val v = cj_exp(s);
    out[0] = s;
    out[1] = cj_mul(v, cj_cumsum(v, 0, 0));
}

typedef struct jit_case {
    const char *name;
    cj_fn fn;
    int n_out, rank;
    int64_t dims[2];
    size_t temp_bytes; /* hand-computed arena */
} jit_case;

TEST(plan_jit_results_match_eager_with_in_place_and_rescheduling) {
    /* jit plans outputs as scratch too: a temporary dead before an
     * output's kernel may live in that output's buffer */
    static const jit_case cases[] = {
        /* a (256 KiB) dies at b's loop, before y's cumsum, but b takes
         * its block in place and lives until y's kernel: both in the
         * arena, one block (in y's buffer a would cost b a block) */
        {"in_place", f_in_place, 1, 1, {65536, 0}, 262144},
        /* a and b (256 KiB each, never live together) both in the outer
         * product's buffer (f32[512,128]); in the arena only the column
         * sums: 2048 + 512 */
        {"diamond", f_diamond, 1, 2, {128, 512}, 2560},
        /* a in y's buffer, b (read by y's kernel) in the arena */
        {"transposed", f_transposed, 1, 2, {256, 256}, 262144},
        /* s dies at the loop writing w: in the second output's buffer
         * (written by the last kernel); v beside it in the arena */
        {"late_reader", f_late_reader, 2, 1, {65536, 0}, 262144},
        /* s is an output written first; v and its cumsum are read by the
         * last kernel, which writes the only other output: both in the
         * arena */
        {"outputs", f_outputs, 2, 1, {65536, 0}, 2 * 262144},
    };
    cj_ctx *ctx = cj_ctx_new(NULL);
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ci++) {
        const jit_case *jc = &cases[ci];
        int64_t n = jc->dims[0] * (jc->rank == 2 ? jc->dims[1] : 1);
        float *xv = malloc(sizeof(float) * (size_t)n);
        uint64_t rng = 99 + ci;
        for (int64_t i = 0; i < n; i++) xv[i] = (float)th_rand_uniform(&rng, -2, 2) * 1e-3f;
        cj_val x = cj_array(ctx, CJ_F32, jc->rank, jc->dims, xv);
        free(xv);
        cj_func *f = cj_func_new(ctx, jc->name, jc->fn, 1, jc->n_out, NULL);
        cj_jit_opts interp = {0, NULL, 0, NULL, CJ_BACKEND_INTERP}, cc = {0, NULL, 0, NULL, CJ_BACKEND_CC};
        cj_func *ji = cj_jit(f, &interp), *jcc = cj_jit(f, &cc);
        cj_val ye[2], yi[2], yc[2];
        CHECK_MSG(cj_call(f, &x, ye) == CJ_OK, "%s", cj_error_message(ctx));
        /* twice each: the second call runs on the kept arena */
        for (int rep = 0; rep < 2; rep++) {
            CHECK_MSG(cj_call(ji, &x, yi) == CJ_OK, "%s", cj_error_message(ctx));
            CHECK_MSG(cj_call(jcc, &x, yc) == CJ_OK, "%s", cj_error_message(ctx));
            for (int o = 0; o < jc->n_out; o++) {
                size_t bytes = sizeof(float) * (size_t)cj_val_size(ye[o]);
                float *e = malloc(bytes), *i = malloc(bytes), *c = malloc(bytes);
                cj_read(ye[o], e, bytes);
                cj_read(yi[o], i, bytes);
                cj_read(yc[o], c, bytes);
                int same_i = memcmp(e, i, bytes) == 0, same_c = memcmp(e, c, bytes) == 0;
                free(e);
                free(i);
                free(c);
                CHECK_MSG(same_i && same_c, "%s output %d: interp %s eager, cc %s eager", jc->name, o,
                          same_i ? "equals" : "differs from", same_c ? "equals" : "differs from");
            }
        }
        /* the plan these results ran on */
        cj_memory_analysis m;
        CHECK(cj_jit_memory_analysis(ji, &x, &m) == CJ_OK);
        char *text = cj_jit_dump(ji, &x, "fuse,plan");
        CHECK_MSG(m.temp_bytes == jc->temp_bytes, "%s: temp %zu, expected %zu\n%s", jc->name, m.temp_bytes,
                  jc->temp_bytes, text);
        cj_string_free(ctx, text);
    }
    cj_ctx_free(ctx);
}

/* An independent check of the in-place program's numbers: plain loops in
 * double over the same float inputs. */
TEST(plan_in_place_program_matches_plain_loops) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int64_t n = 40000;
    cj_val x = tu_ramp(ctx, n, 1e-5f, -0.2f);
    cj_jit_opts interp = {0, NULL, 0, NULL, CJ_BACKEND_INTERP};
    cj_func *ji = cj_jit(cj_func_new(ctx, "in_place", f_in_place, 1, 1, NULL), &interp);
    cj_val y;
    CHECK(cj_call(ji, &x, &y) == CJ_OK);
    float *got = malloc(sizeof(float) * (size_t)n);
    cj_read(y, got, sizeof(float) * (size_t)n);
    double a = 0, yy = 0;
    int64_t bad = -1;
    for (int64_t i = 0; i < n && bad < 0; i++) {
        a += (double)((float)i * 1e-5f - 0.2f);
        yy += a * 0.5 - a;
        if (!th_close(got[i], yy, 1e-3, 1e-3)) bad = i;
    }
    free(got);
    CHECK_MSG(bad < 0, "element %lld", (long long)bad);
    cj_ctx_free(ctx);
}

/* ---- faults ---- */

/* Compiles the diamond (two plans per schedule: its sums as kernels of
 * their own, no_cols, or there is one order) and the in-place program
 * with allocation N failing, for N = 1, 2, ... until nothing fails: each
 * run ends compiled or with a clean CJ_ERR_OOM, and leaks nothing. */
TEST(plan_allocation_failure_during_compile_is_clean) {
    for (int which = 0; which < 2; which++) {
        int covered = 0;
        for (long long n = 1; n < 5000 && !covered; n++) {
            tu_alloc st = {0};
            st.fail_at = n;
            cj_allocator al = tu_allocator(&st);
            cj_ctx *ctx = cj_ctx_new(&al);
            if (ctx) {
                ir_func *ir = which ? build_in_place(ctx, NULL, NULL) : build_diamond(ctx, NULL, NULL, NULL, NULL);
                if (ir) {
                    compiled *c = compile_ir_until(ctx, ir, NULL,
                                                   &(compile_options){.no_output_scratch = true, .no_cols = !which});
                    if (c) {
                        char msg[200];
                        CHECK_MSG(schedule_is_valid(c, msg, sizeof msg), "%s", msg);
                        CHECK_MSG(plan_is_sound(c, msg, sizeof msg), "%s", msg);
                        CHECK_EQ_INT(c->arena_bytes, which ? 4096 : 4416);
                        if (!st.failed) covered = 1;
                    } else {
                        CHECK_MSG(cj_error(ctx) == CJ_ERR_OOM, "allocation %lld: %s", n, cj_error_message(ctx));
                    }
                    compiled_free(ctx, c);
                    ir_free(ir);
                }
                cj_ctx_free(ctx);
            }
            CHECK_MSG(st.live == 0, "allocation %lld failing leaked %lld blocks", n, st.live);
        }
        CHECK(covered);
    }
}
