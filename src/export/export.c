/* export.c — cj_export_c: a function object, traced and compiled as the
 * jit compiles it, written out as dependency-free C (export layer; see
 * export.h and docs/EXPORT.md).
 *
 * The function (any composition of jit, vmap, grad, checkpoint) is traced
 * for the input specs into IR and compiled by the jit's own pipeline
 * (compile_ir: fusion, schedule, plan, analysis), so the exported program
 * is the one the jit runs: the same kernels, the same buffer plan, the
 * same arena. Then name.c gets, in order: the types codegen.c's kernels
 * use; vmath.c's kernels when an entry needs them; the helpers and the
 * table entries (export_ops.c) and the products (export_dot.c); every
 * LOOP, ROWS and DOT_EPILOGUE kernel as codegen.c writes it for the jit,
 * but static; the constants as static const data; and the entry point,
 * which points each materialised variable at its home — an input, an
 * output, a constant, or its planned offset in the caller's workspace —
 * and runs the kernels in schedule order, as program_run does. The
 * workspace is the plan's arena (the memory analysis's temp_bytes),
 * followed by the block buffer a DOT_EPILOGUE kernel's product takes and
 * the row scratch of rows too long for the stack, which the jit takes
 * outside its arena (both 0 for most programs; the header lists them).
 *
 * What has no exported form yet — control-flow constructs, sort,
 * gathers and scatters, random bits, linear algebra, convolution, other
 * SINGLE kernels, long rows, integer row folds — is refused with an error
 * naming the kernel and the primitive, before any file is written. */
#include <stdio.h>
#include <string.h>

#include "../backend/codegen.h"
#include "../core/func.h"
#include "../runtime/vmath_dispatch.h"
#include "../runtime/vmath_tanhf.h"
#include "export.h"

#define WORK_ALIGN EXPORT_WORK_ALIGN

/* The helpers table entries use (export_ops.c): the eager kernels' own
 * expressions (elementwise_kernels.c), static inline so unused ones cost
 * nothing and warn of nothing. */
static const char helpers_text[] =
    "static inline unsigned int cjx_bits_f(float x) { unsigned int u; memcpy(&u, &x, sizeof u); return u; }\n"
    "static inline unsigned long long cjx_bits_d(double x) { unsigned long long u; memcpy(&u, &x, sizeof u); return u; }\n"
    "static inline float cjx_from_f(unsigned int u) { float x; memcpy(&x, &u, sizeof x); return x; }\n"
    "static inline double cjx_from_d(unsigned long long u) { double x; memcpy(&x, &u, sizeof x); return x; }\n"
    /* NaN-propagating max/min with IEEE 754-2019's zeros */
    "static inline float cjx_max_f(float a, float b) { float r = a > b ? a : b; r = a == b ? cjx_from_f(cjx_bits_f(a) & cjx_bits_f(b)) : r; return a != a ? a : r; }\n"
    "static inline float cjx_min_f(float a, float b) { float r = a < b ? a : b; r = a == b ? cjx_from_f(cjx_bits_f(a) | cjx_bits_f(b)) : r; return a != a ? a : r; }\n"
    "static inline double cjx_max_d(double a, double b) { double r = a > b ? a : b; r = a == b ? cjx_from_d(cjx_bits_d(a) & cjx_bits_d(b)) : r; return a != a ? a : r; }\n"
    "static inline double cjx_min_d(double a, double b) { double r = a < b ? a : b; r = a == b ? cjx_from_d(cjx_bits_d(a) | cjx_bits_d(b)) : r; return a != a ? a : r; }\n"
    "static inline int cjx_max_i32(int a, int b) { return a > b ? a : b; }\n"
    "static inline int cjx_min_i32(int a, int b) { return a < b ? a : b; }\n"
    "static inline long long cjx_max_i64(long long a, long long b) { return a > b ? a : b; }\n"
    "static inline long long cjx_min_i64(long long a, long long b) { return a < b ? a : b; }\n"
    /* XLA's integer division: x / 0 = -1, INT_MIN / -1 wraps; x % 0 = x */
    "static inline int cjx_idiv_i32(int a, int b) { return b == 0 ? -1 : b == -1 ? (int)(0u - (unsigned int)a) : a / b; }\n"
    "static inline long long cjx_idiv_i64(long long a, long long b) { return b == 0 ? -1 : b == -1 ? (long long)(0ull - (unsigned long long)a) : a / b; }\n"
    "static inline int cjx_irem_i32(int a, int b) { return b == 0 ? a : b == -1 ? 0 : a % b; }\n"
    "static inline long long cjx_irem_i64(long long a, long long b) { return b == 0 ? a : b == -1 ? 0 : a % b; }\n"
    "static inline unsigned char cjx_finite_f(float x) { return (cjx_bits_f(x) & 0x7fffffffu) < 0x7f800000u; }\n"
    "static inline unsigned char cjx_finite_d(double x) { return (cjx_bits_d(x) & 0x7fffffffffffffffull) < 0x7ff0000000000000ull; }\n"
    "static inline unsigned char cjx_signbit_f(float x) { return (unsigned char)(cjx_bits_f(x) >> 31); }\n"
    "static inline unsigned char cjx_signbit_d(double x) { return (unsigned char)(cjx_bits_d(x) >> 63); }\n"
    /* floor, ceil and rint without libm: exact below 2^23 (2^52), where
     * every float is an integer already; zeros and NaN pass through */
    "static inline float cjx_floor_f(float x) { if (!(x > -0x1p23f && x < 0x1p23f) || x == 0) return x; float t = (float)(int)x; return t > x ? t - 1.0f : t; }\n"
    "static inline float cjx_ceil_f(float x) { if (!(x > -0x1p23f && x < 0x1p23f) || x == 0) return x; float t = (float)(int)x; t = t < x ? t + 1.0f : t; return t == 0 && x < 0 ? -0.0f : t; }\n"
    "static inline float cjx_rint_f(float x) { if (!(x > -0x1p23f && x < 0x1p23f)) return x; float a = x < 0 ? -x : x; volatile float t = a + 0x1p23f; float r = t - 0x1p23f; return cjx_from_f(cjx_bits_f(r) | (cjx_bits_f(x) & 0x80000000u)); }\n"
    "static inline double cjx_floor_d(double x) { if (!(x > -0x1p52 && x < 0x1p52) || x == 0) return x; double t = (double)(long long)x; return t > x ? t - 1.0 : t; }\n"
    "static inline double cjx_ceil_d(double x) { if (!(x > -0x1p52 && x < 0x1p52) || x == 0) return x; double t = (double)(long long)x; t = t < x ? t + 1.0 : t; return t == 0 && x < 0 ? -0.0 : t; }\n"
    "static inline double cjx_rint_d(double x) { if (!(x > -0x1p52 && x < 0x1p52)) return x; double a = x < 0 ? -x : x; volatile double t = a + 0x1p52; double r = t - 0x1p52; return cjx_from_d(cjx_bits_d(r) | (cjx_bits_d(x) & 0x8000000000000000ull)); }\n"
    /* the runtime's converter: truncation, NaN -> 0, saturation */
    "static inline int cjx_f_to_i32(float x) { return x != x ? 0 : x >= 0x1p31f ? 2147483647 : x <= -0x1p31f ? (-2147483647 - 1) : (int)x; }\n"
    "static inline int cjx_d_to_i32(double x) { return x != x ? 0 : x >= 0x1p31 ? 2147483647 : x <= -0x1p31 ? (-2147483647 - 1) : (int)x; }\n"
    "static inline long long cjx_f_to_i64(float x) { return x != x ? 0 : x >= 0x1p63f ? 9223372036854775807LL : x <= -0x1p63f ? (-9223372036854775807LL - 1) : (long long)x; }\n"
    "static inline long long cjx_d_to_i64(double x) { return x != x ? 0 : x >= 0x1p63 ? 9223372036854775807LL : x <= -0x1p63 ? (-9223372036854775807LL - 1) : (long long)x; }\n"
    /* the table's scratch is the workspace's row region, one slot */
    "static char *cjx_claim(const void *prog, int *slot) { *slot = 0; return (char *)prog; }\n"
    "static void cjx_release(const void *prog, int slot) { (void)prog, (void)slot; }\n";

static bool c_identifier(const char *s) {
    if (!s || !*s || strlen(s) > 64) return false;
    if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_')) return false;
    for (const char *p = s; *p; p++)
        if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_'))
            return false;
    return true;
}

static size_t align_up(size_t n) { return export_align(n); }

static void shape_text(const rt_aval *a, char *out, size_t n) {
    size_t len = (size_t)snprintf(out, n, "%s[", cj_dtype_name(a->dtype));
    for (int d = 0; d < a->rank && len < n; d++)
        len += (size_t)snprintf(out + len, n - len, "%s%lld", d ? "," : "", (long long)a->dims[d]);
    if (len < n) snprintf(out + len, n - len, "]");
}

typedef struct export_job {
    cj_ctx *ctx;
    const char *name, *fname;
    char upper[80];
    compiled *c;
    export_unit u;
    export_prog top;
    int *weight_of;        /* per constant: its weight input, -1 when static */
    int n_weights;
    size_t arena, control, dot_block, row_scratch, work;
    char why[512];
} export_job;

static void emit_header(export_job *j, strbuf *h) {
    const compiled *c = j->c;
    const ir_func *ir = c->ir;
    char shape[200];
    sb_printf(h, "/* %s.h — generated by cjax's cj_export_c from the function \"%s\": C99, no cjax,\n"
                 " * no allocation, no global mutable state (calls with separate workspaces may\n"
                 " * run on different threads at once).\n *\n", j->name, j->fname);
    sb_printf(h, " *   int %s(", j->name);
    int pos = 0;
    for (int i = 0; i < ir->n_in; i++) sb_printf(h, "%sconst %s *in%d", pos++ ? ", " : "", prim_c_type(ir->vars[ir->in[i]].dtype), i);
    for (int i = 0; i < ir->n_consts; i++)
        if (j->weight_of[i] >= 0)
            sb_printf(h, "%sconst %s *w%d", pos++ ? ", " : "", prim_c_type(ir->vars[ir->consts[i].var].dtype), j->weight_of[i]);
    for (int i = 0; i < ir->n_out; i++) sb_printf(h, "%s%s *out%d", pos++ ? ", " : "", prim_c_type(ir->vars[ir->out[i]].dtype), i);
    sb_printf(h, "%svoid *work);\n *\n", pos ? ", " : "");
    for (int i = 0; i < ir->n_in; i++) {
        shape_text(&ir->vars[ir->in[i]], shape, sizeof shape);
        sb_printf(h, " *   in%d   %s\n", i, shape);
    }
    for (int i = 0; i < ir->n_consts; i++)
        if (j->weight_of[i] >= 0) {
            shape_text(&ir->vars[ir->consts[i].var], shape, sizeof shape);
            sb_printf(h, " *   w%d    %s (a constant the trace captured, passed in)\n", j->weight_of[i], shape);
        }
    for (int i = 0; i < ir->n_out; i++) {
        shape_text(&ir->vars[ir->out[i]], shape, sizeof shape);
        sb_printf(h, " *   out%d  %s\n", i, shape);
    }
    sb_printf(h,
              " *   work  %zu bytes aligned to %d (%s_work_bytes(), %s_work_align()): the\n"
              " *         plan's temporaries, %zu bytes (the memory analysis's temp_bytes)",
              j->work, WORK_ALIGN, j->name, j->name, j->arena);
    if (j->control)
        sb_printf(h, ",\n *         then control flow's, %zu bytes (loop bodies' and branches'\n"
                     " *         temporaries, carries' second buffers)", j->control);
    if (j->dot_block) sb_printf(h, ",\n *         then a matrix product's block, %zu bytes", j->dot_block);
    if (j->row_scratch) sb_printf(h, ",\n *         then row scratch, %zu bytes", j->row_scratch);
    sb_printf(h, "\n *\n"
                 " * Arrays are dense, row-major, of the C types above. Outputs must not overlap\n"
                 " * the inputs, each other or the workspace. Returns 0, or -1 (nothing written)\n"
                 " * when work is NULL or misaligned while the program needs one.\n"
                 " * Built with the same fused multiply-adds as the library (%s), the\n"
                 " * results equal cjax's jit bit for bit except matrix products, whose sums\n"
                 " * round differently (docs/EXPORT.md). */\n",
              j->u.mode.fma ? "FMA enabled: -mfma or an -march with it; no -ffp-contract=fast" : "no FMA");
    sb_printf(h, "#ifndef %s_H\n#define %s_H\n\n#include <stddef.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n",
              j->upper, j->upper);
    sb_printf(h, "#define %s_N_INPUTS %d\n#define %s_N_WEIGHTS %d\n#define %s_N_OUTPUTS %d\n", j->upper, ir->n_in,
              j->upper, j->n_weights, j->upper, ir->n_out);
    sb_printf(h, "#define %s_WORK_BYTES ((size_t)%zu)\n#define %s_WORK_ALIGN ((size_t)%d)\n", j->upper, j->work,
              j->upper, WORK_ALIGN);
    /* shapes and dtypes as constants */
    for (int pass = 0; pass < 3; pass++) {
        int count = pass == 0 ? ir->n_in : pass == 1 ? ir->n_consts : ir->n_out;
        for (int i = 0; i < count; i++) {
            const rt_aval *a;
            char tag[16];
            if (pass == 0) a = &ir->vars[ir->in[i]], snprintf(tag, sizeof tag, "IN%d", i);
            else if (pass == 1) {
                if (j->weight_of[i] < 0) continue;
                a = &ir->vars[ir->consts[i].var];
                snprintf(tag, sizeof tag, "W%d", j->weight_of[i]);
            } else a = &ir->vars[ir->out[i]], snprintf(tag, sizeof tag, "OUT%d", i);
            sb_printf(h, "#define %s_%s_DTYPE \"%s\"\n#define %s_%s_RANK %d\n#define %s_%s_SIZE %lld\n#define %s_%s_DIMS {",
                      j->upper, tag, cj_dtype_name(a->dtype), j->upper, tag, a->rank, j->upper, tag,
                      (long long)rt_aval_size(a), j->upper, tag);
            for (int d = 0; d < a->rank; d++) sb_printf(h, "%s%lld", d ? ", " : "", (long long)a->dims[d]);
            sb_printf(h, "%s}\n", a->rank ? "" : "1");
        }
    }
    sb_printf(h, "\nsize_t %s_work_bytes(void);\nsize_t %s_work_align(void);\nint %s(", j->name, j->name, j->name);
    pos = 0;
    for (int i = 0; i < ir->n_in; i++) sb_printf(h, "%sconst %s *in%d", pos++ ? ", " : "", prim_c_type(ir->vars[ir->in[i]].dtype), i);
    for (int i = 0; i < ir->n_consts; i++)
        if (j->weight_of[i] >= 0)
            sb_printf(h, "%sconst %s *w%d", pos++ ? ", " : "", prim_c_type(ir->vars[ir->consts[i].var].dtype), j->weight_of[i]);
    for (int i = 0; i < ir->n_out; i++) sb_printf(h, "%s%s *out%d", pos++ ? ", " : "", prim_c_type(ir->vars[ir->out[i]].dtype), i);
    sb_printf(h, "%svoid *work);\n\n#ifdef __cplusplus\n}\n#endif\n\n#endif\n", pos ? ", " : "");
}

/* The entry point: program_run's buffer table with the caller's
 * pointers, the entry program's binder and runner over the workspace. */
static void emit_entry(export_job *j, strbuf *sb) {
    const compiled *c = j->c;
    const ir_func *ir = c->ir;
    sb_printf(sb, "\nsize_t %s_work_bytes(void) { return %zu; }\nsize_t %s_work_align(void) { return %d; }\n\n",
              j->name, j->work, j->name, WORK_ALIGN);
    sb_printf(sb, "int %s(", j->name);
    int pos = 0;
    for (int i = 0; i < ir->n_in; i++) sb_printf(sb, "%sconst %s *in%d", pos++ ? ", " : "", prim_c_type(ir->vars[ir->in[i]].dtype), i);
    for (int i = 0; i < ir->n_consts; i++)
        if (j->weight_of[i] >= 0)
            sb_printf(sb, "%sconst %s *w%d", pos++ ? ", " : "", prim_c_type(ir->vars[ir->consts[i].var].dtype), j->weight_of[i]);
    for (int i = 0; i < ir->n_out; i++) sb_printf(sb, "%s%s *out%d", pos++ ? ", " : "", prim_c_type(ir->vars[ir->out[i]].dtype), i);
    sb_printf(sb, "%svoid *work) {\n", pos ? ", " : "");
    sb_printf(sb, "  char *const ws = (char *)work;\n");
    if (j->work) sb_printf(sb, "  if (!ws || (unsigned long long)ws %% %d) return -1;\n", WORK_ALIGN);
    size_t block_at = align_up(j->top.need), rows_at = block_at + align_up(j->dot_block);
    sb_printf(sb, "  const cjx_env env = {ws + %zu, ws + %zu};\n  char *buf[%d];\n  memset(buf, 0, sizeof buf);\n",
              rows_at, block_at, ir->n_vars + 1);
    for (int i = 0; i < ir->n_in; i++) sb_printf(sb, "  buf[%d] = (char *)in%d;\n", ir->in[i], i);
    for (int i = 0; i < ir->n_consts; i++)
        if (j->weight_of[i] >= 0) sb_printf(sb, "  buf[%d] = (char *)w%d;\n", ir->consts[i].var, j->weight_of[i]);
    /* each output variable's first position is its caller buffer */
    for (int v = 0; v < ir->n_vars; v++)
        if (c->home[v] == HOME_OUTPUT)
            for (int i = 0; i < ir->n_out; i++)
                if (ir->out[i] == v) {
                    sb_printf(sb, "  buf[%d] = (char *)out%d;\n", v, i);
                    break;
                }
    sb_printf(sb, "  cjx_bind0(buf, ws);\n  cjx_run0(&env, buf, ws);\n");
    /* outputs that are inputs, constants or another output's variable */
    for (int i = 0; i < ir->n_out; i++) {
        int v = ir->out[i], first = -1;
        for (int q = 0; q < ir->n_out && first < 0; q++)
            if (ir->out[q] == v) first = q;
        if (c->home[v] == HOME_OUTPUT && first == i) continue;
        size_t bytes = rt_aval_nbytes(&ir->vars[v]);
        if (bytes) sb_printf(sb, "  memcpy(out%d, buf[%d], %zu);\n", i, v, bytes);
    }
    sb_printf(sb, "  return 0;\n}\n");
}

/* Writes text to dir/file through a temporary, so a failure leaves no
 * partial file. */
static int write_file(cj_ctx *ctx, const char *dir, const char *file, const strbuf *sb, const char *what) {
    char path[4096], tmp[4200];
    snprintf(path, sizeof path, "%s/%s", dir && *dir ? dir : ".", file);
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    if (!f) return core_error(ctx, CJ_ERR_IO, "%s: cannot write %s", what, tmp);
    size_t n = sb->len;
    bool ok = fwrite(sb->data, 1, n, f) == n;
    ok &= fclose(f) == 0;
    if (!ok || rename(tmp, path) != 0) {
        remove(tmp);
        return core_error(ctx, CJ_ERR_IO, "%s: cannot write %s", what, path);
    }
    return 0;
}

static int run_export(export_job *j, const cj_export_opts *opts, cj_export_info *info, const char *what) {
    cj_ctx *ctx = j->ctx;
    const compiled *c = j->c;
    const ir_func *ir = c->ir;
    export_unit *u = &j->u;
    strbuf src, hdr;
    sb_init(&src, ctx->mem);
    sb_init(&hdr, ctx->mem);
    int status = -1;
    j->top.c = j->c;
    j->top.weight_of = j->weight_of;
    if (export_program(u, &j->top, 0) != 0) {
        if (!ctx->err) core_error(ctx, CJ_ERR_ARG, "%s: %s", what, u->why);
        goto done;
    }
    j->arena = c->arena_bytes;
    j->control = j->top.need > j->arena ? j->top.need - align_up(j->arena) : 0;
    j->dot_block = u->dot_block;
    j->row_scratch = u->row_scratch;
    j->work = j->dot_block || j->row_scratch ? align_up(j->top.need) + align_up(j->dot_block) + j->row_scratch
                                             : j->top.need;
    u->mode.uses_libm |= u->mode.libm && u->mode.vmath; /* the trig fix-ups name libm */

    /* the source */
    sb_printf(&src, "/* %s.c — generated by cjax's cj_export_c from \"%s\" (%d kernels, %d equations);\n"
                    " * see %s.h. Compile as C99 (gcc, clang): no other file is needed%s. */\n",
              j->name, j->fname, c->n_kernels, ir->n_eqns, j->name,
              j->u.mode.uses_libm ? " but libm" : "; no libm with -fno-math-errno (a square root's errno path calls it)");
    if (j->u.mode.uses_libm) sb_printf(&src, "#include <math.h>\n");
    sb_printf(&src, "#include <stdint.h>\n#include <string.h>\n\n#include \"%s.h\"\n\n", j->name);
    /* the optional CBLAS call of large products (export_dot.c) */
    sb_printf(&src, "#ifdef CJX_USE_CBLAS\n#ifndef CJX_CBLAS_MIN\n#define CJX_CBLAS_MIN 32768\n#endif\n"
                    "void cblas_sgemm(int, int, int, int, int, int, float, const float *, int, const float *, int, float,\n"
                    "                 float *, int);\n"
                    "void cblas_dgemm(int, int, int, int, int, int, double, const double *, int, const double *, int,\n"
                    "                 double, double *, int);\n#endif\n\n");
    /* a library of inline pieces, of which a program uses some: clang
     * warns of unused static inline functions (gcc does not) */
    sb_printf(&src, "#if defined(__GNUC__)\n#pragma GCC diagnostic push\n"
                    "#pragma GCC diagnostic ignored \"-Wunused-function\"\n#endif\n");
    codegen_unit_types(&src);
    sb_printf(&src, "#define CJK_FMAF(a, b, c) %s\n", j->u.mode.fma ? "__builtin_fmaf((a), (b), (c))" : "((a) * (b) + (c))");
    sb_printf(&src, "%s\n", VM_TANHF_STR(VM_TANHF_SRC(CJK_FMAF)));
    if (j->u.mode.vmath) {
        size_t len = 0;
        const char *vt = export_vmath_text(&len);
        if (!vt) {
            core_error(ctx, CJ_ERR_INTERNAL, "%s: the embedded vector math lacks its markers", what);
            goto done;
        }
        sb_printf(&src, "\n/* ---- cjax's vector math (src/runtime/vmath.c): its kernels, %s ---- */\n"
                        "#define VM_FMA %d\n#define VM_TANHF_SRC(F) /* cjk_tanhf: above */\n"
                        "#define sqrt(x) __builtin_sqrt(x)\n",
                  j->u.mode.fma ? "with fused multiply-adds" : "without fused multiply-adds", j->u.mode.fma ? 1 : 0);
        sb_printf(&src, "%.*s", (int)len, vt);
        sb_printf(&src, "/* ---- end of vector math ---- */\n\n");
    }
    sb_printf(&src, "%s", helpers_text);
    sb_printf(&src, "#if defined(__GNUC__)\n#pragma GCC diagnostic pop\n#endif\n");
    /* the typedefs of what the programs' functions share: the row region
     * and a product's block, in the workspace */
    sb_printf(&src, "typedef struct { char *rows, *block; } cjx_env;\n");
    if (u->ops.data) sb_printf(&src, "%s", u->ops.data);
    if (u->tables.data) sb_printf(&src, "%s", u->tables.data);
    /* the kernels are the jit's text (built with -w): a rank-0 operand
     * loaded for statements that became table calls, a table they do not
     * call, stay unused there */
    sb_printf(&src, "\n#if defined(__GNUC__)\n#pragma GCC diagnostic push\n"
                    "#pragma GCC diagnostic ignored \"-Wunused-parameter\"\n"
                    "#pragma GCC diagnostic ignored \"-Wunused-variable\"\n"
                    "#pragma GCC diagnostic ignored \"-Wunused-but-set-variable\"\n#endif\n");
    if (u->kernels.data) sb_printf(&src, "%s", u->kernels.data);
    sb_printf(&src, "#if defined(__GNUC__)\n#pragma GCC diagnostic pop\n#endif\n");
    if (u->consts.data) sb_printf(&src, "%s", u->consts.data);
    if (u->progs.data) sb_printf(&src, "%s", u->progs.data);
    emit_entry(j, &src);
    emit_header(j, &hdr);
    if (src.failed || hdr.failed || u->kernels.failed || u->ops.failed || u->tables.failed || u->consts.failed ||
        u->progs.failed) {
        core_oom(ctx, what);
        goto done;
    }
    char file[96];
    snprintf(file, sizeof file, "%s.h", j->name);
    if (write_file(ctx, opts ? opts->dir : NULL, file, &hdr, what) != 0) goto done;
    snprintf(file, sizeof file, "%s.c", j->name);
    if (write_file(ctx, opts ? opts->dir : NULL, file, &src, what) != 0) goto done;
    if (info) {
        info->work_bytes = j->work;
        info->work_align = WORK_ALIGN;
        info->temp_bytes = j->arena;
        info->scratch_bytes = j->work - j->arena;
        info->source_bytes = src.len;
        info->header_bytes = hdr.len;
        info->constant_bytes = c->mem.constant_bytes;
        info->n_kernels = c->n_kernels;
        info->n_weights = j->n_weights;
        info->uses_libm = j->u.mode.uses_libm;
        info->fma = j->u.mode.fma;
    }
    status = 0;
done:
    sb_free(&src);
    sb_free(&hdr);
    return status;
}

cj_status cj_export_c(cj_func *f, int n_in, const cj_spec *in, const char *name, const cj_export_opts *opts,
                      cj_export_info *info) {
    if (!func_check(NULL, f, "cj_export_c", "f")) return CJ_ERR_ARG;
    cj_ctx *ctx = f->ctx;
    if (ctx->err) return ctx->err;
    char what[200];
    snprintf(what, sizeof what, "cj_export_c(%s)", f->name);
    if (!c_identifier(name))
        return core_error(ctx, CJ_ERR_ARG, "%s: name \"%s\" is not a C identifier of at most 64 characters", what,
                          name ? name : "(null)"),
               ctx->err;
    if (n_in != f->n_in || (n_in > 0 && !in))
        return core_error(ctx, CJ_ERR_ARG, "%s: the function takes %d inputs, %d specs given", what, f->n_in, n_in),
               ctx->err;
    if (n_in > 64) return core_error(ctx, CJ_ERR_ARG, "%s: more than 64 inputs", what), ctx->err;
    if (opts && (opts->math < CJ_EXPORT_MATH_NATIVE || opts->math > CJ_EXPORT_MATH_FLOAT))
        return core_error(ctx, CJ_ERR_ARG, "%s: math mode %d is not a CJ_EXPORT_MATH_* value", what, opts->math),
               ctx->err;
    if (info) memset(info, 0, sizeof *info);
    rt_aval avals[64];
    for (int i = 0; i < n_in; i++)
        if (core_spec_aval(ctx, what, i, &in[i], &avals[i]) != 0) return ctx->err;
    ir_func *ir = func_trace_to_ir(f, avals, NULL, what);
    if (!ir) return ctx->err;
    /* a reduction over leading axes stays its own kernel here: a COLS
     * kernel's per-column values are the interpreter's (run_cols) */
    const compile_options copts = {.no_cols = true};
    compiled *c = compile_ir_until(ctx, ir, NULL, &copts);
    ir_free(ir);
    if (!c) return ctx->err;
    export_job j;
    memset(&j, 0, sizeof j);
    j.ctx = ctx;
    j.name = name;
    j.fname = f->name;
    j.c = c;
    for (size_t i = 0; name[i] && i + 1 < sizeof j.upper; i++)
        j.upper[i] = (char)(name[i] >= 'a' && name[i] <= 'z' ? name[i] - 'a' + 'A' : name[i]);
    int fma = opts ? opts->fma : CJ_EXPORT_FMA_MATCH;
    j.u.ctx = ctx;
    j.u.mode.fma = fma == CJ_EXPORT_FMA_ON || (fma == CJ_EXPORT_FMA_MATCH && vm_active()->fma);
    j.u.mode.libm = opts && opts->libm;
    j.u.mode.math = opts ? opts->math : CJ_EXPORT_MATH_NATIVE;
    sb_init(&j.u.ops, ctx->mem);
    sb_init(&j.u.tables, ctx->mem);
    sb_init(&j.u.kernels, ctx->mem);
    sb_init(&j.u.consts, ctx->mem);
    sb_init(&j.u.progs, ctx->mem);
    size_t nc = sizeof(int) * (size_t)(c->ir->n_consts + 1);
    j.weight_of = rt_alloc(ctx->mem, nc);
    int status = -1;
    if (!j.weight_of) {
        core_oom(ctx, what);
    } else {
        for (int i = 0; i < c->ir->n_consts; i++) {
            bool w = opts && opts->weights_as_inputs && rt_aval_size(&c->ir->vars[c->ir->consts[i].var]) > 1;
            j.weight_of[i] = w ? j.n_weights++ : -1;
        }
        status = run_export(&j, opts, info, what);
    }
    j.top.owned = false; /* c is freed below */
    export_prog_release(&j.u, &j.top);
    sb_free(&j.u.ops);
    sb_free(&j.u.tables);
    sb_free(&j.u.kernels);
    sb_free(&j.u.consts);
    sb_free(&j.u.progs);
    if (j.weight_of) rt_free(ctx->mem, j.weight_of, nc);
    compiled_free(ctx, c);
    return status == 0 ? CJ_OK : ctx->err;
}
