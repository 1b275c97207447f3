/* export_dot.c — dot_general as C for exported units (export layer).
 *
 * The jit runs a matrix product through the library's GEMM (its tiles
 * AVX-512 or AVX2+FMA, or OpenBLAS); an exported unit carries its own:
 * a portable loop nest over the product's canonical form — batch, the
 * lhs's free elements M, the rhs's free elements N, the contracted K —
 * written for the operand layouts at hand. When the rhs's free axes are
 * one contiguous run (x·W, xᵀ·g) each output row is updated a K-step at
 * a time with a stride-1 loop over N the C compiler vectorises; otherwise
 * (g·Wᵀ) each element is a dot product over K. Index groups whose axes
 * are not one affine run (a transposed batch of several axes) are
 * decomposed with divisions per index, so code size depends on the ranks,
 * never on the sizes. Sums run in increasing k in the result's dtype,
 * without fused multiply-adds, so results differ from the jit's GEMM by
 * rounding only (the tests' documented tolerance). f32 and f64. */
#include <string.h>

#include "export.h"

/* Row-major strides of a. */
static void strides_of(const rt_aval *a, int64_t *st) {
    int64_t s = 1;
    for (int d = a->rank - 1; d >= 0; d--) {
        st[d] = s;
        s *= a->dims[d];
    }
}

typedef struct axis_group {
    int n;
    int64_t axes[CJ_MAX_RANK];
} axis_group;

/* The axes of a in neither list, in order (its free axes). */
static axis_group free_axes(const rt_aval *a, const prim_ivec *x, const prim_ivec *y) {
    axis_group g = {0};
    for (int d = 0; d < a->rank; d++) {
        bool used = false;
        for (int i = 0; i < x->n; i++) used |= x->v[i] == d;
        for (int i = 0; i < y->n; i++) used |= y->v[i] == d;
        if (!used) g.axes[g.n++] = d;
    }
    return g;
}

static axis_group group_of(const prim_ivec *v) {
    axis_group g = {0};
    for (int i = 0; i < v->n; i++) g.axes[g.n++] = v->v[i];
    return g;
}

static int64_t group_size(const rt_aval *a, const axis_group *g) {
    int64_t s = 1;
    for (int i = 0; i < g->n; i++) s *= a->dims[g->axes[i]];
    return s;
}

/* The C expression of the element offset in a of the group's flat index
 * `flat` (row-major over the group's axes in their order). */
static void group_offset(const rt_aval *a, const axis_group *g, const char *flat, char *out, size_t n);

void export_axes_offset(const rt_aval *a, const int64_t *axes, int n_axes, const char *flat, char *out, size_t n) {
    axis_group g = {0};
    for (int i = 0; i < n_axes; i++) g.axes[g.n++] = axes[i];
    group_offset(a, &g, flat, out, n);
}

static void group_offset(const rt_aval *a, const axis_group *g, const char *flat, char *out, size_t n) {
    int64_t st[CJ_MAX_RANK];
    strides_of(a, st);
    /* one affine run: each axis's stride is the next one's times its size
     * (axes of size 1 do not count) */
    int last = -1;
    bool affine = true;
    for (int i = 0; i < g->n; i++) {
        int d = (int)g->axes[i];
        if (a->dims[d] == 1) continue;
        if (last >= 0 && st[last] != st[d] * a->dims[d]) affine = false;
        last = d;
    }
    if (g->n == 0 || last < 0) {
        snprintf(out, n, "0");
        return;
    }
    if (affine) {
        snprintf(out, n, "(%s) * %lldLL", flat, (long long)st[last]);
        return;
    }
    size_t len = 0;
    int64_t inner = 1;
    out[0] = 0;
    for (int i = g->n - 1; i >= 0; i--) {
        int d = (int)g->axes[i];
        int w = snprintf(out + len, n - len, "%s((%s) / %lldLL %% %lldLL) * %lldLL", len ? " + " : "", flat,
                         (long long)inner, (long long)a->dims[d], (long long)st[d]);
        if (w < 0 || (size_t)w >= n - len) break;
        len += (size_t)w;
        inner *= a->dims[d];
    }
}

/* Is the group one run of stride 1 (offset(flat) == flat)? */
static bool unit_run(const rt_aval *a, const axis_group *g) {
    char t[256];
    group_offset(a, g, "f", t, sizeof t);
    return !strcmp(t, "(f) * 1LL") || (g->n == 0);
}

/* The stride of the group's flat index in a when its axes are one affine
 * run (size-1 axes aside; an empty group: stride 0), else false. */
static bool run_stride(const rt_aval *a, const axis_group *g, int64_t *stride) {
    int64_t st[CJ_MAX_RANK];
    strides_of(a, st);
    int last = -1;
    for (int i = 0; i < g->n; i++) {
        int d = (int)g->axes[i];
        if (a->dims[d] == 1) continue;
        if (last >= 0 && st[last] != st[d] * a->dims[d]) return false;
        last = d;
    }
    *stride = last < 0 ? 0 : st[last];
    return true;
}

/* Under CJX_USE_CBLAS (a macro the user defines, linking a CBLAS), a
 * product of at least CJX_CBLAS_MIN multiply-adds (default 32768) whose
 * operands are plain row-major matrices, either transposed, without
 * batch, goes to cblas_sgemm / cblas_dgemm: rows [m0, m1) of C. The
 * prototypes are declared here (CBLAS's enums are ints: RowMajor 101,
 * NoTrans 111, Trans 112), so no cblas.h is needed. Other layouts keep
 * the loops. */
static void emit_cblas(const rt_aval *l, const rt_aval *r, const rt_aval *o, const axis_group *lf,
                       const axis_group *lk, const axis_group *rk, const axis_group *rf, int64_t B, int64_t M,
                       int64_t N, int64_t K, strbuf *sb) {
    if (B != 1 || o->dtype != l->dtype || M == 0 || N == 0 || K == 0) return;
    int64_t am, ak, bk, bn;
    if (!run_stride(l, lf, &am) || !run_stride(l, lk, &ak) || !run_stride(r, rk, &bk) || !run_stride(r, rf, &bn))
        return;
    int ta, tb;
    int64_t lda, ldb;
    if ((ak == 1 || K == 1) && (am == K || M == 1)) ta = 111, lda = K;
    else if ((am == 1 || M == 1) && (ak == M || K == 1)) ta = 112, lda = M;
    else return;
    if ((bn == 1 || N == 1) && (bk == N || K == 1)) tb = 111, ldb = N;
    else if ((bk == 1 || K == 1) && (bn == K || N == 1)) tb = 112, ldb = K;
    else return;
    if (M > 0x7fffffff || N > 0x7fffffff || K > 0x7fffffff) return; /* CBLAS's int sizes */
    const char *fn = l->dtype == CJ_F64 ? "cblas_dgemm" : "cblas_sgemm";
    sb_printf(sb,
              "#ifdef CJX_USE_CBLAS\n"
              "  if (%lldLL * %lldLL * %lldLL >= CJX_CBLAS_MIN) { /* %s, %s */\n"
              "    %s(101, %d, %d, (int)(m1 - m0), %d, %d, 1, A + m0 * %lldLL, %d, B, %d, 0, C, %d);\n"
              "    return;\n"
              "  }\n"
              "#endif\n",
              (long long)M, (long long)N, (long long)K, ta == 111 ? "A" : "A^T", tb == 111 ? "B" : "B^T", fn, ta, tb,
              (int)N, (int)K, (long long)(ta == 111 ? lda : 1), (int)lda, (int)ldb, (int)N);
}

void export_dot_sizes(const ir_func *ir, const ir_eqn *e, int64_t *batch, int64_t *m, int64_t *n) {
    const int *in = ir_eqn_inputs(ir, e);
    const rt_aval *l = &ir->vars[in[0]], *r = &ir->vars[in[1]];
    const prim_params *p = &e->params;
    axis_group lb = group_of(&p->lhs_batch), lf = free_axes(l, &p->lhs_batch, &p->lhs_contract);
    axis_group rf = free_axes(r, &p->rhs_batch, &p->rhs_contract);
    *batch = group_size(l, &lb);
    *m = group_size(l, &lf);
    *n = group_size(r, &rf);
}

int export_dot(const compiled *c, int e, int id, export_mode *m, strbuf *sb, char *why, size_t why_n) {
    const ir_func *ir = c->ir;
    const ir_eqn *q = &ir->eqns[e];
    const int *in = ir_eqn_inputs(ir, q);
    const rt_aval *l = &ir->vars[in[0]], *r = &ir->vars[in[1]], *o = &ir->vars[q->out];
    if (!(l->dtype == CJ_F32 || l->dtype == CJ_F64) || r->dtype != l->dtype || !(o->dtype == CJ_F32 || o->dtype == CJ_F64)) {
        snprintf(why, why_n, "dot_general of %s and %s into %s has no exported form yet (f32 and f64 only)",
                 cj_dtype_name(l->dtype), cj_dtype_name(r->dtype), cj_dtype_name(o->dtype));
        return -1;
    }
    (void)m;
    const prim_params *p = &q->params;
    axis_group lb = group_of(&p->lhs_batch), rb = group_of(&p->rhs_batch);
    axis_group lk = group_of(&p->lhs_contract), rk = group_of(&p->rhs_contract);
    axis_group lf = free_axes(l, &p->lhs_batch, &p->lhs_contract), rf = free_axes(r, &p->rhs_batch, &p->rhs_contract);
    int64_t B = group_size(l, &lb), M = group_size(l, &lf), N = group_size(r, &rf), K = group_size(l, &lk);
    const char *T = prim_c_type(l->dtype), *TO = prim_c_type(o->dtype);
    char lbo[600], rbo[600], lmo[600], lko[600], rko[600], rno[600];
    group_offset(l, &lb, "bt", lbo, sizeof lbo);
    group_offset(r, &rb, "bt", rbo, sizeof rbo);
    group_offset(l, &lf, "m", lmo, sizeof lmo);
    group_offset(l, &lk, "k", lko, sizeof lko);
    group_offset(r, &rk, "k", rko, sizeof rko);
    group_offset(r, &rf, "n", rno, sizeof rno);
    sb_printf(sb,
              "/* dot_general %s[%lld batch, %lld x %lld] . [%lld x %lld] -> %s */\n"
              "static void cjx_dot%d(const void *lp, const void *rp, void *op, i64 m0, i64 m1) {\n"
              "  const %s *A = (const %s *)lp, *B = (const %s *)rp;\n"
              "  %s *C = (%s *)op;\n",
              cj_dtype_name(l->dtype), (long long)B, (long long)M, (long long)K, (long long)K, (long long)N,
              cj_dtype_name(o->dtype), id, T, T, T, TO, TO);
    emit_cblas(l, r, o, &lf, &lk, &rk, &rf, B, M, N, K, sb);
    sb_printf(sb,
              "  for (i64 bt = 0; bt < %lldLL; bt++) {\n"
              "    const %s *Ab = A + %s, *Bb = B + %s;\n"
              "    %s *Cb = C + bt * (m1 - m0) * %lldLL;\n"
              "    for (i64 m = m0; m < m1; m++) {\n"
              "      const %s *Am = Ab + %s;\n"
              "      %s *Cm = Cb + (m - m0) * %lldLL;\n",
              (long long)B, T, lbo, rbo, TO, (long long)N, T, lmo, TO, (long long)N);
    if (unit_run(r, &rf)) {
        sb_printf(sb,
                  "      for (i64 n = 0; n < %lldLL; n++) Cm[n] = 0;\n"
                  "      for (i64 k = 0; k < %lldLL; k++) {\n"
                  "        const %s a = (%s)Am[%s];\n"
                  "        const %s *Bk = Bb + %s;\n"
                  "        for (i64 n = 0; n < %lldLL; n++) Cm[n] += a * (%s)Bk[n];\n"
                  "      }\n",
                  (long long)N, (long long)K, TO, TO, lko, T, rko, (long long)N, TO);
    } else {
        sb_printf(sb,
                  "      for (i64 n = 0; n < %lldLL; n++) {\n"
                  "        const %s *Bn = Bb + %s;\n"
                  "        %s s = 0;\n"
                  "        for (i64 k = 0; k < %lldLL; k++) s += (%s)Am[%s] * (%s)Bn[%s];\n"
                  "        Cm[n] = s;\n"
                  "      }\n",
                  (long long)N, T, rno, TO, (long long)K, TO, lko, TO, rko);
    }
    sb_printf(sb, "    }\n  }\n}\n");
    return 0;
}
