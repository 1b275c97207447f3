/* test_pipeline.c — the compiler's pipeline as one table (compiler.c) and
 * the verifier of the kernel form (verify.c): running up to each named
 * pass gives a program of that stage that verifies; an unknown pass name
 * is an error listing the passes; a dump after one pass prints that pass
 * and no other, and the same text the stopped pipeline dumps; a kernel
 * form broken between passes (an equation in two kernels, a kernel before
 * its producer, a loop off its space, a rows kernel's row length, a
 * dot+epilogue without its dot, overlapping arena buffers, an output
 * without a buffer, a bad donation) is caught with a message naming the
 * pass and the kernel; out of memory at every allocation is clean. */
#include <stdlib.h>
#include <unistd.h>

#include "compiler/program.h"
#include "core/func.h"
#include "harness.h"
#include "test_util.h"

/* One program with every kind of kernel and a donation:
 *   h = relu(x @ W + b)                 dot+epilogue (a single dot and a loop before
 *                                       the epilogue pass)
 *   o0 = 2*softmax(y, axis 1) + y       rows (y of its own shape, or the rows
 *                                       kernel would take the epilogue over), y
 *                                       donated into it
 *   t = argmax(h, 0)                    a single kernel and a cols kernel (the
 *   g = sum(exp(W), 0)                  column sum fused into exp's loop), both
 *   o1 = f32(t) + g                     live until a loop */
static void f_every_kind(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    cj_val x = in[0], w = in[1], b = in[2], y = in[3];
    cj_val h = cj_relu(cj_add(cj_matmul(x, w), b));
    int64_t ax0 = 0;
    cj_val t = cj_astype(cj_argmax(h, 0, 0), CJ_F32), g = cj_sum(cj_exp(w), 1, &ax0, 0);
    out[1] = cj_add(t, g);
    out[0] = cj_add(cj_mul(cj_softmax(y, 1), cj_scalar(ctx, 2.0)), y);
}

static ir_func *every_kind_ir(cj_ctx *ctx) {
    cj_func *f = cj_func_new(ctx, "every_kind", f_every_kind, 4, 2, NULL);
    rt_aval av[4] = {rt_aval_make(CJ_F32, 2, (int64_t[]){16, 8}), rt_aval_make(CJ_F32, 2, (int64_t[]){8, 8}),
                     rt_aval_make(CJ_F32, 1, (int64_t[]){8}), rt_aval_make(CJ_F32, 2, (int64_t[]){4, 8})};
    return f ? func_trace_to_ir(f, av, NULL, "pipeline test") : NULL;
}

static const uint8_t donate_y[4] = {0, 0, 0, 1};

static bool has_kind(const compiled *c, kernel_kind kind) {
    for (int k = 0; k < c->n_kernels; k++)
        if (c->kernels[k].kind == kind) return true;
    return false;
}

static int count(const char *hay, const char *needle) {
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
    return n;
}

TEST(pipeline_until_each_pass_gives_a_program_that_verifies) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    ir_func *ir = every_kind_ir(ctx);
    CHECK_MSG(ir, "%s", cj_error_message(ctx));
    static const compile_stage stage[] = {STAGE_IR,      STAGE_IR,      STAGE_IR,       STAGE_KERNELS, STAGE_KERNELS,
                                          STAGE_KERNELS, STAGE_PLANNED, STAGE_ANALYSED, STAGE_DONATED};
    static const char *const names[] = {"inline", "hoist",   "simplify", "fuse",  "schedule",
                                        "epilogue", "plan", "analyse", "donate"};
    CHECK_EQ_INT(compiler_n_passes(), 9);
    compile_options o = {.donated = donate_y, .verify = true};
    for (int i = 0; i < compiler_n_passes(); i++) {
        const char *name = compiler_pass_name(i);
        CHECK_MSG(!strcmp(name, names[i]), "pass %d is %s", i, name);
        compiled *c = compile_ir_until(ctx, ir, name, &o);
        CHECK_MSG(c, "until %s: %s", name, cj_error_message(ctx));
        CHECK_EQ_INT(c->stage, stage[i]);
        CHECK_MSG(compiled_verify(ctx, c, name) == 0, "%s", cj_error_message(ctx));
        /* what each stage holds, and nothing later */
        CHECK((c->kernels != NULL) == (stage[i] >= STAGE_KERNELS));
        if (stage[i] >= STAGE_KERNELS) {
            CHECK(has_kind(c, KERNEL_ROWS) && has_kind(c, KERNEL_SINGLE) && has_kind(c, KERNEL_LOOP) &&
                  has_kind(c, KERNEL_COLS));
            /* epilogue fusion is its own pass */
            CHECK(has_kind(c, KERNEL_DOT_EPILOGUE) == (i >= 5));
        }
        CHECK((c->mem.peak_bytes != 0) == (stage[i] >= STAGE_ANALYSED));
        CHECK((c->donor != NULL) == (stage[i] >= STAGE_DONATED));
        if (c->donor) CHECK_EQ_INT(c->donor[c->ir->out[0]], 3); /* y's buffer holds o0 */
        compiled_free(ctx, c);
    }
    /* until the last pass is the whole pipeline */
    compiled *all = compile_ir_until(ctx, ir, NULL, &o), *last = compile_ir_until(ctx, ir, "donate", &o);
    CHECK(all && last);
    strbuf a, b;
    sb_init(&a, ctx->mem);
    sb_init(&b, ctx->mem);
    compiled_dump(all, "fuse,plan", &a);
    compiled_dump(last, "fuse,plan", &b);
    CHECK(a.data && b.data && !strcmp(a.data, b.data));
    CHECK_STR_CONTAINS(a.data, "(in argument 3's buffer)");
    sb_free(&a);
    sb_free(&b);
    compiled_free(ctx, all);
    compiled_free(ctx, last);
    ir_free(ir);
    cj_ctx_free(ctx);
}

TEST(pipeline_unknown_pass_is_an_error_naming_the_passes) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    ir_func *ir = every_kind_ir(ctx);
    CHECK(ir);
    CHECK(compile_ir_until(ctx, ir, "fusion", NULL) == NULL);
    CHECK_EQ_INT(cj_error(ctx), CJ_ERR_ARG);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "no pass named 'fusion'");
    CHECK_STR_CONTAINS(cj_error_message(ctx), "inline, hoist, simplify, fuse, schedule, epilogue, plan, analyse, donate");
    cj_error_clear(ctx);
    /* and a dump list naming no pass */
    compile_options o = {.dump = "fuse,planning"};
    CHECK(compile_ir_until(ctx, ir, NULL, &o) == NULL);
    CHECK_EQ_INT(cj_error(ctx), CJ_ERR_ARG);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "no pass named 'planning' to dump after");
    CHECK_STR_CONTAINS(cj_error_message(ctx), "inline, hoist, simplify, fuse");
    cj_error_clear(ctx);
    ir_free(ir);
    cj_ctx_free(ctx);
}

TEST(pipeline_dump_after_one_pass_prints_only_that_pass) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    ir_func *ir = every_kind_ir(ctx);
    CHECK(ir);
    for (int i = 0; i < compiler_n_passes(); i++) {
        const char *name = compiler_pass_name(i);
        strbuf sb;
        sb_init(&sb, ctx->mem);
        compile_options o = {.donated = donate_y, .dump = name, .dump_to = &sb};
        compiled *c = compile_ir_until(ctx, ir, NULL, &o);
        CHECK_MSG(c, "%s", cj_error_message(ctx));
        char head[64];
        snprintf(head, sizeof head, "cjax: after %s:\n", name);
        CHECK_MSG(sb.data && !strncmp(sb.data, head, strlen(head)), "dump=%s: %s", name, sb.data ? sb.data : "");
        CHECK_EQ_INT(count(sb.data, "cjax: after "), 1);
        /* the same text as the pipeline stopped there, dumped */
        compiled *u = compile_ir_until(ctx, ir, name, &(compile_options){.donated = donate_y});
        CHECK(u);
        strbuf want;
        sb_init(&want, ctx->mem);
        sb_printf(&want, "%s", head);
        if (u->stage <= STAGE_IR) ir_print(u->ir, &want);
        else compiled_dump(u, u->stage >= STAGE_PLANNED ? "fuse,plan" : "fuse", &want);
        CHECK_MSG(!strcmp(sb.data, want.data), "dump=%s:\n%s\nvs\n%s", name, sb.data, want.data);
        /* each stage shows what it has */
        CHECK((strstr(sb.data, "{ lambda") != NULL) == (u->stage <= STAGE_IR));
        CHECK((strstr(sb.data, "kernels (") != NULL) == (u->stage >= STAGE_KERNELS));
        CHECK((strstr(sb.data, "buffers (arena") != NULL) == (u->stage >= STAGE_PLANNED));
        CHECK((strstr(sb.data, "memory: arguments") != NULL) == (u->stage >= STAGE_ANALYSED));
        CHECK((strstr(sb.data, "in argument 3's buffer") != NULL) == (u->stage >= STAGE_DONATED));
        CHECK((strstr(sb.data, "dot+epilogue") != NULL) == (i >= 5 && u->stage >= STAGE_KERNELS));
        sb_free(&want);
        sb_free(&sb);
        compiled_free(ctx, u);
        compiled_free(ctx, c);
    }
    /* "all": every pass once, in the table's order */
    strbuf sb;
    sb_init(&sb, ctx->mem);
    compiled *c = compile_ir_until(ctx, ir, NULL, &(compile_options){.dump = "all", .dump_to = &sb});
    CHECK(c && sb.data);
    CHECK_EQ_INT(count(sb.data, "cjax: after "), compiler_n_passes());
    const char *at = sb.data;
    for (int i = 0; i < compiler_n_passes(); i++) {
        char head[64];
        snprintf(head, sizeof head, "cjax: after %s:\n", compiler_pass_name(i));
        const char *p = strstr(at, head);
        CHECK_MSG(p, "no %s after the previous pass's dump", head);
        at = p + 1;
    }
    /* two named: those two, nothing else */
    compiled_free(ctx, c);
    sb_free(&sb);
    sb_init(&sb, ctx->mem);
    c = compile_ir_until(ctx, ir, NULL, &(compile_options){.dump = "simplify,plan,c", .dump_to = &sb});
    CHECK(c && sb.data);
    CHECK_EQ_INT(count(sb.data, "cjax: after "), 2);
    CHECK(strstr(sb.data, "cjax: after simplify:\n") && strstr(sb.data, "cjax: after plan:\n"));
    compiled_free(ctx, c);
    sb_free(&sb);
    ir_free(ir);
    cj_ctx_free(ctx);
}

/* The knob itself: CJAX_DUMP=schedule prints the program after schedule
 * to stderr, and no other pass. The knobs are read once per process, so
 * this sets the parsed value (and puts it back); stderr goes to a file. */
TEST(pipeline_cjax_dump_prints_only_the_named_pass_to_stderr) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    ir_func *ir = every_kind_ir(ctx);
    CHECK(ir);
    char path[] = "/tmp/cjax-pipeline-XXXXXX";
    int fd = mkstemp(path);
    CHECK(fd >= 0);
    rt_config *cfg = (rt_config *)rt_config_get();
    const char *saved = cfg->dump;
    cfg->dump = "schedule";
    fflush(stderr);
    int saved_fd = dup(2);
    dup2(fd, 2);
    compiled *c = compile_ir(ctx, ir);
    fflush(stderr);
    dup2(saved_fd, 2);
    close(saved_fd);
    cfg->dump = saved;
    char text[16384];
    ssize_t n = pread(fd, text, sizeof text - 1, 0);
    close(fd);
    remove(path);
    CHECK(c && n > 0);
    text[n] = 0;
    const char *want = "cjax: after schedule:\nkernels (";
    CHECK_MSG(!strncmp(text, want, strlen(want)), "%s", text);
    CHECK_EQ_INT(count(text, "cjax: after "), 1);
    compiled_free(ctx, c);
    ir_free(ir);
    cj_ctx_free(ctx);
}

/* ---- the verifier catches broken forms ---- */

typedef struct breaker {
    const char *after; /* break the program after this pass */
    void (*how)(compiled *c);
    int hit;
} breaker;

static int break_after(cj_ctx *ctx, compiled *c, const char *pass, void *arg) {
    (void)ctx;
    breaker *b = arg;
    if (!strcmp(pass, b->after)) {
        b->how(c);
        b->hit = 1;
    }
    return 0;
}

static int find_kind(const compiled *c, kernel_kind kind) {
    for (int k = 0; k < c->n_kernels; k++)
        if (c->kernels[k].kind == kind) return k;
    return -1;
}

/* kernel 1's first equation also listed as kernel 0's */
static void two_kernels_one_eqn(compiled *c) { c->kernels[1].eqns[0] = c->kernels[0].eqns[0]; }

/* the dot and the loop reading its product swapped, kernel_of following:
 * the loop now runs before what it reads is made */
static void consumer_first(compiled *c) {
    kernel k0 = c->kernels[0];
    c->kernels[0] = c->kernels[1];
    c->kernels[1] = k0;
    for (int v = 0; v < c->ir->n_vars; v++)
        if (c->kernel_of[v] == 0 || c->kernel_of[v] == 1) c->kernel_of[v] ^= 1;
}

static void loop_off_its_space(compiled *c) {
    int k = find_kind(c, KERNEL_LOOP);
    c->kernels[k].space.dims[0] += 1;
}

static void rows_wrong_length(compiled *c) { c->kernels[find_kind(c, KERNEL_ROWS)].row_len += 1; }

static void epilogue_without_dot(compiled *c) { c->kernels[find_kind(c, KERNEL_LOOP)].kind = KERNEL_DOT_EPILOGUE; }

/* two arena buffers live at once moved onto each other */
static void overlap_arena(compiled *c) {
    for (int u = 0; u < c->ir->n_vars; u++)
        for (int v = u + 1; v < c->ir->n_vars; v++)
            if (c->home[u] == HOME_ARENA && c->home[v] == HOME_ARENA && c->first_use[v] <= c->last_use[u] &&
                c->first_use[u] <= c->last_use[v] && c->offset[u] != c->offset[v]) {
                c->offset[v] = c->offset[u];
                return;
            }
}

static void output_without_buffer(compiled *c) { c->home[c->ir->out[1]] = HOME_NONE; }

/* o1 (f32[8]) said to take y's (f32[4,8]) buffer */
static void donation_of_another_type(compiled *c) {
    c->donor[c->ir->out[0]] = -1;
    c->donor[c->ir->out[1]] = 3;
}

TEST(pipeline_verifier_catches_a_broken_kernel_form) {
    static const struct {
        breaker b;
        const char *says;
    } cases[] = {
        {{"fuse", two_kernels_one_eqn, 0}, "is also in kernel 0"},
        {{"schedule", consumer_first, 0}, "defined later by kernel"},
        {{"fuse", loop_off_its_space, 0}, "outside the kernel's iteration space"},
        {{"epilogue", rows_wrong_length, 0}, "row length"},
        {{"epilogue", epilogue_without_dot, 0}, "not a dot"},
        {{"plan", overlap_arena, 0}, "overlaps"},
        {{"analyse", output_without_buffer, 0}, "program output 1"},
        {{"donate", donation_of_another_type, 0}, "buffer of another type"},
    };
    cj_ctx *ctx = cj_ctx_new(NULL);
    ir_func *ir = every_kind_ir(ctx);
    CHECK(ir);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        breaker b = cases[i].b;
        /* the arena and donation cases keep every temporary in the arena:
         * with output scratch no two arena temporaries of this program are
         * live together, and o1's buffer holds argmax's result first */
        compile_options o = {.donated = donate_y, .verify = true, .after_pass = break_after, .arg = &b,
                             .no_output_scratch = b.how == overlap_arena || b.how == donation_of_another_type};
        compiled *c = compile_ir_until(ctx, ir, NULL, &o);
        CHECK(b.hit);
        CHECK_MSG(!c, "breaking the form after %s (%s) went unseen", b.after, cases[i].says);
        CHECK_EQ_INT(cj_error(ctx), CJ_ERR_INTERNAL);
        char pass[64];
        snprintf(pass, sizeof pass, "after pass '%s' is malformed: ", b.after);
        CHECK_STR_CONTAINS(cj_error_message(ctx), pass);
        CHECK_STR_CONTAINS(cj_error_message(ctx), cases[i].says);
        CHECK_STR_CONTAINS(cj_error_message(ctx), "kernel ");
        cj_error_clear(ctx);
    }
    /* the message names the kernel with its kind and space */
    breaker b = {"fuse", loop_off_its_space, 0};
    CHECK(!compile_ir_until(ctx, ir, "fuse", &(compile_options){.verify = true, .after_pass = break_after, .arg = &b}));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "(loop f32[");
    cj_error_clear(ctx);
    ir_free(ir);
    cj_ctx_free(ctx);
}

/* Verification is on in the test binary without asking (the harness sets
 * CJAX_VERIFY=1), so a plain compile_ir catches a broken form too. */
TEST(pipeline_verifies_by_default_in_tests) {
    CHECK(compiler_verify_default());
    cj_ctx *ctx = cj_ctx_new(NULL);
    ir_func *ir = every_kind_ir(ctx);
    CHECK(ir);
    breaker b = {"plan", overlap_arena, 0};
    CHECK(!compile_ir_until(ctx, ir, NULL,
                            &(compile_options){.after_pass = break_after, .arg = &b, .no_output_scratch = true}));
    CHECK_STR_CONTAINS(cj_error_message(ctx), "after pass 'plan' is malformed");
    cj_error_clear(ctx);
    ir_free(ir);
    cj_ctx_free(ctx);
}

TEST(pipeline_out_of_memory_is_clean) {
    int completed = 0, failures = 0;
    for (long long k = 1; k <= 2000 && !completed; k++) {
        tu_alloc st;
        memset(&st, 0, sizeof st);
        cj_allocator al = tu_allocator(&st);
        cj_ctx *ctx = cj_ctx_new(&al);
        CHECK(ctx);
        ir_func *ir = every_kind_ir(ctx);
        CHECK(ir);
        st.fail_at = st.count + k;
        compiled *c = compile_ir_until(ctx, ir, NULL, &(compile_options){.donated = donate_y, .verify = true});
        st.fail_at = 0;
        if (!c) {
            failures++;
            CHECK(st.failed);
            CHECK_MSG(cj_error(ctx) == CJ_ERR_OOM, "%s", cj_error_message(ctx));
        } else {
            completed = 1;
            CHECK(compiled_verify(ctx, c, "donate") == 0);
            compiled_free(ctx, c);
        }
        ir_free(ir);
        cj_ctx_free(ctx);
        CHECK_EQ_INT(st.live, 0);
    }
    CHECK(completed);
    CHECK(failures >= 20);
}
