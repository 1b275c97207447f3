/* codegen_nested.c — LOOP kernels with gathered leaves as nested loops
 * over the multi-index, one scalar statement per equation per element
 * (backend layer; codegen.c calls it for the kernels it accepts).
 *
 * The tile form (codegen.c) gathers each leaf into a tile array with its
 * own loop over short runs, then runs the arithmetic over the tiles: a
 * kernel whose leaves broadcast a small basis along a batch (vmap of a
 * hessian: runs of 7 elements) spends most of its time in the runs'
 * bookkeeping, once per leaf. Here the kernel's space is walked as nested
 * loops instead, the way XLA's loop emitter does: the multi-index is
 * recovered once per call, every leaf operand keeps a running offset
 * carried by additions from row to row, and the innermost axis is one
 * loop whose body reads each leaf at its offset plus the inner index
 * times a constant stride, computes every equation as a scalar and stores
 * the materialised values. A full row of a short innermost axis (at most
 * FULL_ROW elements) is a loop with a constant trip count, which gcc
 * unrolls and vectorises. Windows (pad, concatenate) are per-row flags
 * for the outer axes and compares of the inner index, so a padded row
 * needs no division either.
 *
 * Accepted: LOOP kernels of inline elementwise equations (no call through
 * the table) whose leaves have affine maps without interior padding on any
 * axis longer than 1, reshapes, iotas and dynamic slices, reading buffers
 * not written by the kernel itself, with at least one leaf the tile form
 * would gather (the others keep the tile form, which reads contiguous
 * leaves in place and vectorises them over whole tiles). Every value is
 * the same C expression of the same operands as in the tile form and the
 * interpreter, so the bits agree. */
#include <string.h>

#include "codegen.h"

enum { FULL_ROW = 64 }; /* innermost axes up to this long get a constant-trip loop for full rows */
enum { UNSWITCH_FLAGS = 2 }; /* full rows get a loop per combination of up to this many outer windows */
enum { BLOCK_MAX = 2048 };  /* elements of a leaf block copied once per call (see emit_blocks) */

static const char *ctype(cj_dtype dt) { return prim_c_type(dt); }

static int n_maps(const ir_eqn *e) { return e->n_in ? e->n_in : 1; }

/* One operand of a leaf over the kernel's reduced axes: the element at
 * multi-index x is src[offset + dyn + sum x[a] * stride[a]] (an iota's
 * value is that index itself, with no src) where lo[a] <= x[a] < hi[a]. */
typedef struct nest_operand {
    bool used;   /* read element by element (not a dynamic start, not never inside) */
    bool iota;
    int src;     /* variable read (iota: -1) */
    bool dyn;    /* + d<eqn>_<i> (codegen_leaf_prologue) */
    bool block;  /* read from b<op>, its block copied in iteration order (emit_blocks) */
    int64_t offset;
    int64_t stride[CJ_MAX_RANK];
    int64_t lo[CJ_MAX_RANK], hi[CJ_MAX_RANK]; /* clamped to [0, dim] */
} nest_operand;

typedef struct nest {
    const compiled *c;
    int k;
    int rank;                  /* reduced axes: size-1 axes dropped, mergeable neighbours merged */
    int64_t dim[CJ_MAX_RANK];
    int n_ops;                 /* all leaves' operands, in equation then operand order */
    nest_operand *ops;
    int *first_op;             /* per kernel equation j: its leaf's first operand in ops, -1 */
} nest;

static bool windowed(const nest_operand *o, int a, const int64_t *dim) { return o->lo[a] > 0 || o->hi[a] < dim[a]; }

/* Operand i of leaf eqn over space (unit axes dropped): false when the map
 * has a form this file does not write (interior padding on a long axis). */
static bool operand_of(const compiled *c, int eqn, int i, const rt_aval *space, nest_operand *o) {
    const ir_eqn *e = &c->ir->eqns[eqn];
    prim_index_map m;
    if (fuse_leaf_index_map(c, eqn, i, &m) != 0) return false;
    memset(o, 0, sizeof *o);
    o->src = e->n_in ? ir_eqn_inputs(c->ir, e)[i] : -1;
    if (m.kind == MAP_NONE) return true; /* a dynamic start, read by the prologue */
    o->used = true;
    int r = 0; /* the reduced axis */
    int64_t pitch = 1, rm[CJ_MAX_RANK]; /* row-major pitch of each axis, for a reshape */
    for (int d = space->rank - 1; d >= 0; d--) rm[d] = pitch, pitch *= space->dims[d];
    if (m.kind == MAP_IOTA) o->iota = true, o->src = -1;
    if (m.kind == MAP_AFFINE) {
        o->offset = m.offset;
        for (int d = 0; d < CJ_MAX_RANK; d++) o->dyn |= m.dyn[d] >= 0 && m.dyn_stride[d] != 0;
    }
    for (int d = 0; d < space->rank; d++) {
        int64_t D = space->dims[d], s = m.kind == MAP_LINEAR ? rm[d] : m.kind == MAP_IOTA ? d == m.axis : m.stride[d];
        int64_t lo = m.kind == MAP_AFFINE ? m.lo[d] : 0, hi = m.kind == MAP_AFFINE ? m.hi[d] : D;
        int64_t p = m.kind == MAP_AFFINE ? m.pitch[d] : 1;
        if (D == 1) { /* x = 0: decided now */
            if (!(lo <= 0 && 0 < hi && (-lo) % p == 0)) o->used = false;
            else o->offset += (-lo) / p * s;
            continue;
        }
        if (p != 1) return false;
        o->offset -= lo * s;
        o->stride[r] = s;
        o->lo[r] = lo < 0 ? 0 : lo > D ? D : lo;
        o->hi[r] = hi < 0 ? 0 : hi > D ? D : hi;
        r++;
    }
    return true;
}

/* Merges reduced axis a into a + 1 where every operand steps over the
 * inner axis exactly and neither is windowed. */
static void merge_axes(nest *n) {
    for (int a = n->rank - 2; a >= 0; a--) {
        bool ok = true;
        for (int i = 0; i < n->n_ops && ok; i++) {
            const nest_operand *o = &n->ops[i];
            if (!o->used) continue;
            ok = o->stride[a] == o->stride[a + 1] * n->dim[a + 1] && !windowed(o, a, n->dim) &&
                 !windowed(o, a + 1, n->dim);
        }
        if (!ok) continue;
        n->dim[a] *= n->dim[a + 1];
        for (int i = 0; i < n->n_ops; i++) {
            nest_operand *o = &n->ops[i];
            o->stride[a] = o->stride[a + 1], o->lo[a] = 0, o->hi[a] = n->dim[a];
            for (int b = a + 1; b + 1 < n->rank; b++)
                o->stride[b] = o->stride[b + 1], o->lo[b] = o->lo[b + 1], o->hi[b] = o->hi[b + 1];
        }
        for (int b = a + 1; b + 1 < n->rank; b++) n->dim[b] = n->dim[b + 1];
        n->rank--;
    }
}

bool codegen_nested_applies(const compiled *c, int k) {
    const kernel *K = &c->kernels[k];
    if (K->kind != KERNEL_LOOP || rt_aval_size(&K->space) < 2) return false;
    bool gather = false;
    for (int j = 0; j < K->n_eqns; j++) {
        int eq = K->eqns[j];
        const ir_eqn *e = &c->ir->eqns[eq];
        if (fuse_is_leaf_map(e->prim)) {
            for (int i = 0; i < n_maps(e); i++) {
                nest_operand o;
                if (!operand_of(c, eq, i, &K->space, &o)) return false;
                if (o.src >= 0 && c->kernel_of[o.src] == k) return false;
            }
            gather |= codegen_leaf_layout(c, eq, &K->space, 0) == CG_LEAF_GATHER;
        } else if (!fuse_is_elementwise(e->prim) || e->n_in > 3 || !codegen_is_inline(c->ir, e)) {
            return false;
        }
    }
    return gather;
}

/* How the body names operand u (an in-kernel scalar, a rank-0 buffer
 * loaded once, or a buffer read at the element's own index). */
static void operand_name(const nest *n, int u, char *out, size_t size) {
    const compiled *c = n->c;
    if (c->kernel_of[u] == n->k) snprintf(out, size, "v%d", u);
    else if (c->ir->vars[u].rank == 0) snprintf(out, size, "s%d", u);
    else snprintf(out, size, "p%d[t + q]", u); /* hoisted_pointers */
}

/* The buffers the loop reads at the element's own index (p<var>) and
 * writes (r<var>), each taken from the table once before the loop. Why:
 * generated C is built with -fno-strict-aliasing (cc_build.h), so a store
 * through a float pointer might, for the compiler, change buf[] itself; a
 * pointer read from buf[] inside the loop was then reloaded after every
 * store and the loop was not vectorised (3.4x slower on a jacfwd tangent
 * kernel). Locals cannot be changed by those stores. */
static void hoisted_pointers(const nest *n, strbuf *sb) {
    const compiled *c = n->c;
    const ir_func *ir = c->ir;
    const kernel *K = &c->kernels[n->k];
    for (int j = 0; j < K->n_eqns; j++) {
        const ir_eqn *e = &ir->eqns[K->eqns[j]];
        const char *T = ctype(ir->vars[e->out].dtype);
        if (c->home[e->out] != HOME_NONE) sb_printf(sb, "  %s *const r%d = (%s *)buf[%d];\n", T, e->out, T, e->out);
        if (n->first_op[j] >= 0) continue; /* a leaf: its operands are the gathered a<op> */
        const int *in = ir_eqn_inputs(ir, e);
        for (int q = 0; q < e->n_in && q < 3; q++) {
            int u = in[q], seen = 0;
            if (c->kernel_of[u] == n->k || ir->vars[u].rank == 0) continue;
            for (int jj = 0; jj < j && !seen; jj++) { /* declared for an earlier equation? */
                const ir_eqn *f = &ir->eqns[K->eqns[jj]];
                const int *fin = ir_eqn_inputs(ir, f);
                for (int qq = 0; n->first_op[jj] < 0 && qq < f->n_in && qq < 3; qq++) seen |= fin[qq] == u;
            }
            for (int qq = 0; qq < q; qq++) seen |= in[qq] == u;
            if (!seen)
                sb_printf(sb, "  const %s *const p%d = (const %s *)buf[%d];\n", ctype(ir->vars[u].dtype), u,
                          ctype(ir->vars[u].dtype), u);
        }
    }
}

/* The window test of operand o on the inner axis at index `x` ("" when open). */
static void inner_cond(const nest *n, const nest_operand *o, const char *x, char *out, size_t size) {
    int L = n->rank - 1;
    out[0] = 0;
    if (!windowed(o, L, n->dim)) return;
    if (o->lo[L] > 0 && o->hi[L] < n->dim[L])
        snprintf(out, size, "%s >= %lld && %s < %lld", x, (long long)o->lo[L], x, (long long)o->hi[L]);
    else if (o->lo[L] > 0) snprintf(out, size, "%s >= %lld", x, (long long)o->lo[L]);
    else snprintf(out, size, "%s < %lld", x, (long long)o->hi[L]);
}

static bool outer_windowed(const nest *n, const nest_operand *o) {
    for (int a = 0; a + 1 < n->rank; a++)
        if (windowed(o, a, n->dim)) return true;
    return false;
}

/* How many operands have an outer window (a per-row flag w<op>); the
 * first `cap` of them, in operand order, into flag[]. */
static int outer_flags(const nest *n, int *flag, int cap) {
    int k = 0;
    for (int oi = 0; oi < n->n_ops; oi++)
        if (n->ops[oi].used && outer_windowed(n, &n->ops[oi])) {
            if (k < cap) flag[k] = oi;
            k++;
        }
    return k;
}

/* The body of the inner loop: every equation as a scalar, materialised
 * values stored. `x` is the inner index's C expression. With `fixed`, the
 * row's outer windows are known: flag f (outer_flags' order) is bit f of
 * `open`, so an operand is read without its test or not at all. */
static void emit_body(const nest *n, const char *x, const char *pad, bool fixed, unsigned open, strbuf *sb) {
    const compiled *c = n->c;
    const ir_func *ir = c->ir;
    const kernel *K = &c->kernels[n->k];
    int L = n->rank - 1;
    for (int j = 0; j < K->n_eqns; j++) {
        const ir_eqn *e = &ir->eqns[K->eqns[j]];
        const char *T = ctype(ir->vars[e->out].dtype);
        if (n->first_op[j] >= 0) {
            sb_printf(sb, "%sconst %s v%d = ", pad, T, e->out);
            bool closed = false;
            for (int i = 0; i < n_maps(e) && !closed; i++) {
                int oi = n->first_op[j] + i;
                const nest_operand *o = &n->ops[oi];
                if (!o->used) continue;
                char cond[160], val[160];
                inner_cond(n, o, x, cond, sizeof cond);
                bool outer = outer_windowed(n, o);
                if (outer && fixed) { /* decided for the row */
                    int f = 0;
                    for (int b = 0; b < oi; b++) f += n->ops[b].used && outer_windowed(n, &n->ops[b]);
                    if (!(open >> f & 1)) continue;
                    outer = false;
                }
                long long S = (long long)o->stride[L];
                char at[96];
                if (S == 0) snprintf(at, sizeof at, "o%d", oi);
                else if (S == 1) snprintf(at, sizeof at, "o%d + q", oi);
                else snprintf(at, sizeof at, "o%d + q * %lld", oi, S);
                if (o->iota) snprintf(val, sizeof val, "(%s)(%s)", T, at);
                else snprintf(val, sizeof val, "a%d[%s]", oi, at);
                if (!cond[0] && !outer) {
                    sb_printf(sb, "%s;\n", val);
                    closed = true;
                } else if (outer) {
                    sb_printf(sb, "w%d%s%s ? %s : ", oi, cond[0] ? " && " : "", cond, val);
                } else {
                    sb_printf(sb, "%s ? %s : ", cond, val);
                }
            }
            if (!closed) sb_printf(sb, "(%s)0;\n", T); /* unreachable: some operand's window holds every index */
        } else {
            const int *in = ir_eqn_inputs(ir, e);
            char a[3][96] = {"", "", ""}, rhs[768];
            for (int q = 0; q < e->n_in && q < 3; q++) operand_name(n, in[q], a[q], sizeof a[q]);
            codegen_inline_rhs(ir, e, a[0], a[1], a[2], rhs, sizeof rhs);
            sb_printf(sb, "%sconst %s v%d = %s;\n", pad, T, e->out, rhs);
        }
        if (c->home[e->out] != HOME_NONE) sb_printf(sb, "%sr%d[t + q] = v%d;\n", pad, e->out, e->out);
    }
}

/* The operand (eqn, operand i) that ops[oi] is. */
static void operand_origin(const nest *n, int oi, int *eqn, int *i) {
    const kernel *K = &n->c->kernels[n->k];
    *eqn = -1, *i = 0;
    for (int j = 0; j < K->n_eqns; j++)
        if (n->first_op[j] >= 0 && oi >= n->first_op[j]) *eqn = K->eqns[j], *i = oi - n->first_op[j];
}

/* A leaf operand the same for every index of the outermost axis (a basis
 * broadcast along a batch) but read with a stride along the inner one (a
 * transposed basis) is copied once per call into a block in iteration
 * order, b<op>[...]: the inner loop then reads it contiguously, and gcc
 * vectorises loads it could not gather. Its offsets and strides become
 * the block's. */
static void emit_blocks(nest *n, const int64_t *pitch, strbuf *sb) {
    const ir_func *ir = n->c->ir;
    int L = n->rank - 1;
    if (n->rank < 2 || pitch[0] > BLOCK_MAX) return;
    for (int oi = 0; oi < n->n_ops; oi++) {
        nest_operand *o = &n->ops[oi];
        bool open = true;
        for (int a = 0; a <= L; a++) open &= !windowed(o, a, n->dim);
        if (!o->used || o->iota || !open || o->stride[0] != 0 || o->stride[L] == 0 || o->stride[L] == 1) continue;
        const char *T = ctype(ir->vars[o->src].dtype);
        int eqn, i;
        operand_origin(n, oi, &eqn, &i);
        sb_printf(sb, "  %s b%d[%lld];\n  {\n    const %s *const src = (const %s *)buf[%d];\n    i64 k = 0;\n", T, oi,
                  (long long)pitch[0], T, T, o->src);
        for (int a = 1; a <= L; a++)
            sb_printf(sb, "%*sfor (i64 y%d = 0; y%d < %lld; y%d++)\n", 2 + 2 * a, "", a, a, (long long)n->dim[a], a);
        sb_printf(sb, "%*sb%d[k++] = src[%lld", 4 + 2 * L, "", oi, (long long)o->offset);
        if (o->dyn) sb_printf(sb, " + d%d_%d", eqn, i);
        for (int a = 1; a <= L; a++)
            if (o->stride[a]) sb_printf(sb, " + y%d * %lld", a, (long long)o->stride[a]);
        sb_printf(sb, "];\n  }\n");
        o->block = true, o->offset = 0, o->dyn = false;
        for (int a = 1; a <= L; a++) o->stride[a] = pitch[a];
    }
}

static void emit_nested(nest *n, const char *prefix, bool exported, strbuf *sb) {
    const compiled *c = n->c;
    const ir_func *ir = c->ir;
    const kernel *K = &c->kernels[n->k];
    int L = n->rank - 1;
    sb_printf(sb, "\n%svoid %skernel_%d(const cjk_rt *rt, char *const *buf, i64 begin, i64 end) {\n",
              exported ? "" : "static ", prefix, n->k);
    sb_printf(sb, "  (void)rt; /* nested loops over %d axes (codegen_nested.c) */\n", n->rank);
    for (int j = 0; j < K->n_eqns; j++)
        if (n->first_op[j] >= 0) codegen_leaf_prologue(c, K->eqns[j], sb);
    for (int i = 0; i < K->n_in; i++) { /* rank-0 buffers read as scalars, loaded once */
        int u = K->in[i];
        if (ir->vars[u].rank == 0)
            sb_printf(sb, "  const %s s%d = *(const %s *)buf[%d];\n", ctype(ir->vars[u].dtype), u,
                      ctype(ir->vars[u].dtype), u);
    }
    hoisted_pointers(n, sb);
    /* the multi-index of begin, divided out once */
    int64_t pitch[CJ_MAX_RANK], p = 1;
    for (int a = L; a >= 0; a--) pitch[a] = p, p *= n->dim[a];
    for (int a = 0; a <= L; a++)
        sb_printf(sb, "  i64 x%d = begin / %lld %% %lld;\n", a, (long long)pitch[a], (long long)n->dim[a]);
    emit_blocks(n, pitch, sb);
    for (int oi = 0; oi < n->n_ops; oi++) { /* each operand's offset at the start of the row */
        const nest_operand *o = &n->ops[oi];
        if (!o->used) continue;
        int eqn = -1, i = 0;
        for (int j = 0; j < K->n_eqns; j++)
            if (n->first_op[j] >= 0 && oi >= n->first_op[j]) eqn = K->eqns[j], i = oi - n->first_op[j];
        if (o->block) {
            sb_printf(sb, "  const %s *const a%d = b%d;\n", ctype(ir->vars[o->src].dtype), oi, oi);
        } else if (!o->iota) {
            const char *T = ctype(ir->vars[o->src].dtype);
            sb_printf(sb, "  const %s *const a%d = (const %s *)buf[%d];\n", T, oi, T, o->src);
        }
        sb_printf(sb, "  i64 o%d = %lld", oi, (long long)o->offset);
        if (o->dyn) sb_printf(sb, " + d%d_%d", eqn, i);
        for (int a = 0; a <= L; a++)
            if (o->stride[a]) sb_printf(sb, " + x%d * %lld", a, (long long)o->stride[a]);
        sb_printf(sb, ";\n");
    }
    sb_printf(sb, "  for (i64 t = begin; t < end;) {\n");
    sb_printf(sb, "    i64 run = %lld - x%d;\n    if (run > end - t) run = end - t;\n", (long long)n->dim[L], L);
    for (int oi = 0; oi < n->n_ops; oi++) { /* outer windows: one flag per row */
        const nest_operand *o = &n->ops[oi];
        if (!o->used || !outer_windowed(n, o)) continue;
        sb_printf(sb, "    const int w%d = 1", oi);
        for (int a = 0; a < L; a++) {
            if (!windowed(o, a, n->dim)) continue;
            if (o->lo[a] > 0) sb_printf(sb, " && x%d >= %lld", a, (long long)o->lo[a]);
            if (o->hi[a] < n->dim[a]) sb_printf(sb, " && x%d < %lld", a, (long long)o->hi[a]);
        }
        sb_printf(sb, ";\n");
    }
    const char *pad = "      ";
    if (n->dim[L] <= FULL_ROW) { /* a full row: a constant trip count */
        int flag[UNSWITCH_FLAGS], k = outer_flags(n, flag, UNSWITCH_FLAGS);
        sb_printf(sb, "    if (run == %lld) {\n", (long long)n->dim[L]);
        if (k >= 1 && k <= UNSWITCH_FLAGS) { /* a loop per combination: no test per element */
            for (unsigned m = 0; m < 1u << k; m++) {
                sb_printf(sb, "      %sif (", m ? "} else " : "");
                for (int f = 0; f < k; f++) sb_printf(sb, "%s%sw%d", f ? " && " : "", m >> f & 1 ? "" : "!", flag[f]);
                sb_printf(sb, ") {\n        for (i64 q = 0; q < %lld; q++) {\n", (long long)n->dim[L]);
                emit_body(n, "q", "          ", true, m, sb);
                sb_printf(sb, "        }\n");
            }
            sb_printf(sb, "      }\n");
        } else {
            sb_printf(sb, "      for (i64 q = 0; q < %lld; q++) {\n", (long long)n->dim[L]);
            emit_body(n, "q", "        ", false, 0, sb);
            sb_printf(sb, "      }\n");
        }
        sb_printf(sb, "    } else {\n");
        char x[32];
        snprintf(x, sizeof x, "(x%d + q)", L);
        sb_printf(sb, "      for (i64 q = 0; q < run; q++) {\n");
        emit_body(n, x, "        ", false, 0, sb);
        sb_printf(sb, "      }\n    }\n");
    } else {
        char x[32];
        snprintf(x, sizeof x, "(x%d + q)", L);
        sb_printf(sb, "    for (i64 q = 0; q < run; q++) {\n");
        emit_body(n, x, pad, false, 0, sb);
        sb_printf(sb, "    }\n");
    }
    /* advance: the inner index and offsets by the run, then carry outwards */
    sb_printf(sb, "    t += run;\n    x%d += run;\n", L);
    for (int oi = 0; oi < n->n_ops; oi++)
        if (n->ops[oi].used && n->ops[oi].stride[L])
            sb_printf(sb, "    o%d += run * %lld;\n", oi, (long long)n->ops[oi].stride[L]);
    for (int a = L; a > 0; a--) {
        int ind = 4 + 2 * (L - a);
        sb_printf(sb, "%*sif (x%d == %lld) {\n%*sx%d = 0;\n%*sx%d++;\n", ind, "", a, (long long)n->dim[a], ind + 2, "",
                  a, ind + 2, "", a - 1);
        for (int oi = 0; oi < n->n_ops; oi++) {
            const nest_operand *o = &n->ops[oi];
            if (!o->used) continue;
            int64_t step = o->stride[a - 1] - n->dim[a] * o->stride[a];
            if (step) sb_printf(sb, "%*so%d += %lld;\n", ind + 2, "", oi, (long long)step);
        }
    }
    for (int a = 1; a <= L; a++) sb_printf(sb, "%*s}\n", 4 + 2 * (L - a), "");
    sb_printf(sb, "  }\n}\n");
}

void codegen_nested_kernel(const compiled *c, int k, const char *prefix, bool exported, strbuf *sb) {
    const kernel *K = &c->kernels[k];
    nest n = {.c = c, .k = k};
    int total = 0;
    for (int j = 0; j < K->n_eqns; j++) {
        const ir_eqn *e = &c->ir->eqns[K->eqns[j]];
        if (fuse_is_leaf_map(e->prim)) total += n_maps(e);
    }
    size_t ops_bytes = sizeof(nest_operand) * (size_t)(total + 1), first_bytes = sizeof(int) * (size_t)(K->n_eqns + 1);
    n.ops = rt_calloc(sb->mem, ops_bytes);
    n.first_op = rt_calloc(sb->mem, first_bytes);
    if (!n.ops || !n.first_op) {
        sb->failed = 1;
        goto done;
    }
    for (int j = 0; j < K->n_eqns; j++) {
        int eq = K->eqns[j];
        const ir_eqn *e = &c->ir->eqns[eq];
        n.first_op[j] = -1;
        if (!fuse_is_leaf_map(e->prim)) continue;
        n.first_op[j] = n.n_ops;
        for (int i = 0; i < n_maps(e); i++) {
            if (!operand_of(c, eq, i, &K->space, &n.ops[n.n_ops])) { /* codegen_nested_applies said yes */
                sb->failed = 1;
                goto done;
            }
            n.n_ops++;
        }
    }
    for (int d = 0; d < K->space.rank; d++) /* the axes operand_of kept */
        if (K->space.dims[d] != 1) n.dim[n.rank++] = K->space.dims[d];
    merge_axes(&n);
    emit_nested(&n, prefix, exported, sb);
done:
    if (n.ops) rt_free(sb->mem, n.ops, ops_bytes);
    if (n.first_op) rt_free(sb->mem, n.first_op, first_bytes);
}
