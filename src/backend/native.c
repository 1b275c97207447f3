/* native.c — the generated-C backend: build in the background, switch over
 * when ready, run the generated LOOP and ROWS kernels on the pool, and the
 * generated control-flow constructs (backend layer).
 *
 * native_start makes the state of each construct generated code can run
 * (codegen_control_state.c), writes the program's C (codegen.c,
 * codegen_control.c) and compiles it through
 * cc_build, with a context of its own so the compile never touches the
 * caller's context (contexts are single-threaded) and a failure never
 * becomes the caller's sticky error. In tiered mode (the default) the
 * compile runs in a background thread while calls run on the interpreter;
 * the first call after it finishes installs the kernels. In cc mode the
 * first call waits for it. Either way a missing or failing compiler leaves
 * the program on the interpreter, with the reason kept for
 * cj_jit_program_info. Generated kernels compute exactly what the
 * interpreter computes, so switching mid-stream changes no result. */
#include <math.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../prim/elementwise_kernels.h"
#include "../runtime/threads.h"
#include "../runtime/vmath.h"
#include "program_impl.h"

/* Test hook: build options every program uses from now on (NULL: the
 * configured defaults). Not for concurrent use with builds in flight. */
static cc_build_options testing_options;
static int have_testing_options;

void native_set_build_options_for_testing(const cc_build_options *o) {
    have_testing_options = o != NULL;
    if (o) testing_options = *o;
}

/* CJAX_VERBOSE=1: the first program of the process that cannot use
 * generated C says so on stderr, once (cj_jit_program_info says it for
 * every program): without a working C compiler every jitted program runs
 * on the interpreter, several times slower, and nothing else shows it. */
static void say_interpreter_only(const char *why) {
    static atomic_int said;
    if (!rt_config_get()->verbose || atomic_exchange(&said, 1)) return;
    fprintf(stderr, "cjax: generated C is not used, so jitted programs run on the interpreter (slower): %s\n",
            why);
}

static void *build_main(void *arg) {
    program *p = arg;
    cj_ctx *bctx = p->build_ctx;
    /* The kernels install_symbol will look for are checked before the
     * object is cached; native_free's cancel stops the compiler. */
    cc_build_control ctl = {0, p->required, &p->cancel};
    p->module = cc_build_ctl(bctx, p->source, have_testing_options ? &testing_options : NULL, &ctl, &p->info);
    if (!p->module) {
        snprintf(p->native_error, sizeof p->native_error, "%s", cj_error_message(bctx));
        say_interpreter_only(p->native_error);
        atomic_store(&p->native_state, NATIVE_FAILED);
    } else {
        atomic_store(&p->native_state, NATIVE_READY);
    }
    return NULL;
}

/* What a generated ROWS kernel calls for a row reduction: reduce.c's own
 * fold of one contiguous run, so generated code and the interpreter agree
 * bit for bit. */
cjk_fold_fn native_row_fold(prim_id prim, cj_dtype dt) {
    const prim_lowering *l = prim_lower(prim);
    return l->kind == LOWER_REDUCTION && l->row_fold ? l->row_fold(prim, dt) : NULL;
}

/* ---- the table ---- */

/* The program's per-thread scratch (interp.c sizes it for the largest
 * kernel, so generated row arrays always fit). */
static char *claim_cb(const void *prog, int *slot) { return interp_claim_scratch((program *)prog, slot); }
static void release_cb(const void *prog, int slot) { interp_release_scratch((program *)prog, slot); }

int native_fill_table(cj_ctx *ctx, program *p, cjk_rt *rt, void ***ew) {
    const compiled *c = p->c;
    void **table = rt_calloc(ctx->mem, sizeof(void *) * (size_t)(c->ir->n_eqns + 1));
    if (!table) return -1;
    for (int e = 0; e < c->ir->n_eqns; e++) {
        const ir_eqn *q = &c->ir->eqns[e];
        if (p->eqn_kernel[e] < 0) continue; /* a leaf fusion composed away */
        const kernel *K = &c->kernels[p->eqn_kernel[e]];
        if (K->kind == KERNEL_ROWS && prim_lower(q->prim)->kind == LOWER_REDUCTION) { /* a row reduction's fold */
            table[e] = (void *)native_row_fold(q->prim, c->ir->vars[ir_eqn_inputs(c->ir, q)[0]].dtype);
            continue;
        }
        if (!codegen_needs_kernel(c, e)) continue;
        int j = 0;
        while ((q->prim == PRIM_SIN || q->prim == PRIM_COS) && K->eqns[j] != e) j++;
        if ((q->prim == PRIM_SIN || q->prim == PRIM_COS) && codegen_sincos_partner(c, p->eqn_kernel[e], j) >= 0) { /* sin and cos of one value */
            bool f64 = c->ir->vars[ir_eqn_inputs(c->ir, q)[0]].dtype == CJ_F64;
            table[e] = f64 ? (void *)vm_sincos_f64 : (void *)vm_sincos_f32;
            continue;
        }
        cj_dtype dt = c->ir->vars[ir_eqn_inputs(c->ir, q)[prim_lower(q->prim)->dtype_operand]].dtype;
        table[e] = (void *)ew_kernel(q->prim, dt);
    }
    *ew = table;
    rt->ew = table;
    rt->prog = p;
    rt->claim = claim_cb;
    rt->release = release_cb;
    return 0;
}

/* A construct kernel's state, when generated code can run it: its loop
 * or branch then goes into this program's C (codegen_control.c). */
static int make_constructs(cj_ctx *ctx, program *p, int *generated) {
    const compiled *c = p->c;
    for (int k = 0; k < c->n_kernels; k++) {
        const kernel *K = &c->kernels[k];
        if (K->kind != KERNEL_SINGLE || prim_lower(c->ir->eqns[K->eqns[0]].prim)->kind != LOWER_CONSTRUCT) continue;
        if (!p->cf) {
            p->cf = rt_calloc(ctx->mem, sizeof(cf_native *) * (size_t)(c->n_kernels + 1));
            p->native_cf = rt_calloc(ctx->mem, sizeof(cjk_construct_fn) * (size_t)(c->n_kernels + 1));
            if (!p->cf || !p->native_cf) return core_oom(ctx, "jit: generated code tables");
        }
        p->cf[k] = cf_native_make(ctx, c, k, p->mode, 0);
        if (ctx->err) return -1;
        *generated += p->cf[k] != NULL;
    }
    return 0;
}

/* "cjk_kernel_<k>\0...cjk_construct_<k>\0\0": every symbol native_poll
 * installs, so cc_build never caches an object that lacks one. */
static char *required_symbols(const program *p) {
    const compiled *c = p->c;
    size_t size = 1, used = 0;
    for (int k = 0; k < c->n_kernels; k++)
        size += (codegen_exports(c, k) ? 32 : 0) + (p->cf && p->cf[k] ? 32 : 0);
    char *list = malloc(size);
    if (!list) return NULL;
    for (int k = 0; k < c->n_kernels; k++) {
        if (codegen_exports(c, k)) used += (size_t)snprintf(list + used, 32, "cjk_kernel_%d", k) + 1;
        if (p->cf && p->cf[k]) used += (size_t)snprintf(list + used, 32, "cjk_construct_%d", k) + 1;
    }
    list[used] = 0;
    return list;
}

void native_start(cj_ctx *ctx, program *p) {
    atomic_store(&p->native_state, NATIVE_NONE);
    if (p->mode == CJ_BACKEND_INTERP) return;
    const compiled *c = p->c;
    int generated = 0;
    for (int k = 0; k < c->n_kernels; k++) generated += codegen_exports(c, k);
    if (make_constructs(ctx, p, &generated) != 0) return;
    if (!generated) return; /* nothing to generate */

    p->native = rt_calloc(ctx->mem, sizeof(cjk_kernel_fn) * (size_t)(c->n_kernels + 1));
    if (!p->native || native_fill_table(ctx, p, &p->rt, &p->ew_table) != 0) {
        core_oom(ctx, "jit: generated code tables");
        return;
    }

    strbuf sb;
    sb_init(&sb, ctx->mem);
    codegen_program(c, p->cf, &sb);
    if (sb.failed || !sb.data) {
        sb_free(&sb);
        core_oom(ctx, "jit: generating C");
        return;
    }
    /* the source, the symbol list and the build context are
     * plain-malloc'd: the build thread owns them while it runs */
    p->source = strdup(sb.data);
    sb_free(&sb);
    p->required = required_symbols(p);
    p->build_ctx = core_ctx_new(NULL);
    if (!p->source || !p->required || !p->build_ctx) {
        snprintf(p->native_error, sizeof p->native_error, "out of memory preparing the C build");
        atomic_store(&p->native_state, NATIVE_FAILED);
        return;
    }
    if (compiler_dump_wants("c"))
        fprintf(stderr, "cjax: generated C:\n%s", p->source);
    atomic_store(&p->native_state, NATIVE_BUILDING);
    if (p->mode == CJ_BACKEND_CC) {
        build_main(p);
        native_poll(p);
        return;
    }
    if (pthread_create(&p->thread, NULL, build_main, p) == 0) {
        p->thread_started = 1;
    } else { /* no thread: compile now rather than never */
        build_main(p);
    }
}

/* Finds generated function `<prefix>_<k>` and stores its address in *dst;
 * a missing one fails the whole switch-over: every kernel stays on the
 * interpreter, with the reason kept for cj_jit_program_info. */
static int install_symbol(program *p, const char *prefix, int k, void *dst, size_t size) {
    char name[48];
    snprintf(name, sizeof name, "%s_%d", prefix, k);
    void *sym = cc_symbol(p->module, name);
    if (!sym) {
        snprintf(p->native_error, sizeof p->native_error, "generated code lacks %s", name);
        atomic_store(&p->native_state, NATIVE_FAILED);
        memset(p->native, 0, sizeof(cjk_kernel_fn) * (size_t)p->c->n_kernels);
        if (p->native_cf) memset(p->native_cf, 0, sizeof(cjk_construct_fn) * (size_t)p->c->n_kernels);
        return -1;
    }
    memcpy(dst, &sym, size); /* object → function pointer */
    return 0;
}

void native_poll(program *p) {
    if (p->native_installed || atomic_load(&p->native_state) != NATIVE_READY) return;
    const compiled *c = p->c;
    for (int k = 0; k < c->n_kernels; k++)
        if (codegen_exports(c, k) && install_symbol(p, "cjk_kernel", k, &p->native[k], sizeof p->native[k]) != 0)
            return;
    for (int k = 0; k < c->n_kernels && p->cf; k++)
        if (p->cf[k] && install_symbol(p, "cjk_construct", k, &p->native_cf[k], sizeof p->native_cf[k]) != 0)
            return;
    p->native_installed = 1;
}

static atomic_long construct_runs;

long native_construct_runs_for_testing(void) { return atomic_load(&construct_runs); }

bool native_run_construct(cj_ctx *ctx, program *p, int k, char *const *buf, int *status) {
    if (!p->native_installed || !p->native_cf || !p->native_cf[k]) return false;
    cf_native *n = p->cf[k];
    *status = cf_native_ready(ctx, n);
    if (*status == 0 && p->native_cf[k](&n->gen, buf) != 0) *status = -1; /* the callback recorded why */
    atomic_fetch_add(&construct_runs, 1);
    return true;
}

typedef struct native_job {
    cjk_kernel_fn fn;
    const cjk_rt *rt;
    char *const *buf;
    int64_t base; /* where the pool's range starts in the kernel's space */
} native_job;

static void native_range(void *arg, int64_t begin, int64_t end) {
    native_job *j = arg;
    j->fn(j->rt, j->buf, j->base + begin, j->base + end);
}

/* Elements [begin, end) of a loop kernel's space on the pool, in chunks
 * of whole tiles (so the tiles are those of one call over the range). */
static void spread_elements(cjk_kernel_fn fn, const cjk_rt *rt, char *const *buf, int64_t begin, int64_t end) {
    if (end <= begin) return;
    native_job job = {fn, rt, buf, begin};
    int64_t n = end - begin, grain = n;
    if (n >= RT_PARALLEL_MIN_ELEMS) {
        grain = n / ((int64_t)rt_num_threads() * 4);
        grain = (grain + CODEGEN_TILE - 1) / CODEGEN_TILE * CODEGEN_TILE;
        if (grain < 4 * CODEGEN_TILE) grain = 4 * CODEGEN_TILE;
    }
    rt_parallel_for(n, grain, native_range, &job);
}

/* Rows [begin, end) of a rows kernel on the pool. */
static void spread_rows(const kernel *K, cjk_kernel_fn fn, const cjk_rt *rt, char *const *buf, int64_t begin,
                        int64_t end) {
    if (end <= begin) return;
    native_job job = {fn, rt, buf, begin};
    int64_t rows = end - begin, grain = rows;
    if (rows * K->row_len >= RT_PARALLEL_MIN_ELEMS) {
        /* about four chunks per thread so uneven rows balance, each at
         * least a few thousand elements so a chunk outweighs its dispatch */
        int64_t least = (4 * CODEGEN_TILE + K->row_len - 1) / K->row_len;
        grain = rows / ((int64_t)rt_num_threads() * 4);
        if (grain < least) grain = least;
        if (grain < 1) grain = 1;
    }
    rt_parallel_for(rows, grain, native_range, &job);
}

void native_spread(program *p, int k, cjk_kernel_fn fn, const cjk_rt *rt, char *const *buf, int64_t begin,
                   int64_t end) {
    const kernel *K = &p->c->kernels[k];
    if (K->kind == KERNEL_ROWS) spread_rows(K, fn, rt, buf, begin, end);
    else spread_elements(fn, rt, buf, begin, end);
}

bool native_run_loop(program *p, int k, char *const *buf) {
    if (!p->native_installed || !p->native[k]) return false;
    spread_elements(p->native[k], &p->rt, buf, 0, rt_aval_size(&p->c->kernels[k].space));
    return true;
}

bool native_run_loop_range(program *p, int k, char *const *buf, int64_t begin, int64_t end) {
    if (!p->native_installed || !p->native[k]) return false;
    spread_elements(p->native[k], &p->rt, buf, begin, end);
    return true;
}

void native_run_units(program *p, int k, char *const *buf, int64_t n, bool parallel) {
    native_job job = {p->native[k], &p->rt, buf, 0};
    rt_parallel_for(n, parallel ? 1 : n, native_range, &job);
}

bool native_run_rows(program *p, int k, char *const *buf) {
    if (!p->native_installed || !p->native[k]) return false;
    const kernel *K = &p->c->kernels[k];
    if (fuse_is_long_rows(K)) return false; /* interp.c runs its tiles through native_run_loop_range */
    int64_t rows = 1;
    for (int d = 0; d < K->outer_rank; d++) rows *= K->space.dims[d];
    spread_rows(K, p->native[k], &p->rt, buf, 0, rows);
    return true;
}

void native_free(cj_ctx *ctx, program *p) {
    /* A build still running is of no use now: stop it (its compiler is
     * killed) rather than wait up to the compiler timeout. */
    atomic_store(&p->cancel, 1);
    if (p->thread_started) pthread_join(p->thread, NULL);
    p->thread_started = 0;
    if (p->module) cc_module_free(p->build_ctx, p->module);
    p->module = NULL;
    if (p->build_ctx) cj_ctx_free(p->build_ctx);
    p->build_ctx = NULL;
    free(p->source);
    p->source = NULL;
    free(p->required);
    p->required = NULL;
    if (p->ew_table) rt_free(ctx->mem, p->ew_table, sizeof(void *) * (size_t)(p->c->ir->n_eqns + 1));
    if (p->native) rt_free(ctx->mem, p->native, sizeof(cjk_kernel_fn) * (size_t)(p->c->n_kernels + 1));
    if (p->cf) {
        for (int k = 0; k < p->c->n_kernels; k++) cf_native_free(ctx, p->cf[k]);
        rt_free(ctx->mem, p->cf, sizeof(cf_native *) * (size_t)(p->c->n_kernels + 1));
    }
    if (p->native_cf) rt_free(ctx->mem, p->native_cf, sizeof(cjk_construct_fn) * (size_t)(p->c->n_kernels + 1));
    p->ew_table = NULL;
    p->native = NULL;
    p->cf = NULL;
    p->native_cf = NULL;
}

const char *program_source(const program *p) { return p->source; }

void program_backend_info(program *p, cj_program_info *info) {
    native_poll(p);
    int st = atomic_load(&p->native_state);
    info->native = p->native_installed;
    info->native_pending = st == NATIVE_BUILDING;
    if (st == NATIVE_READY || st == NATIVE_FAILED) {
        info->from_disk_cache = p->info.from_disk_cache;
        info->compile_ms = p->info.compile_ms;
        info->code_bytes = p->info.so_bytes;
    }
    info->compile_error = st == NATIVE_FAILED ? p->native_error : "";
}
