/* codegen_leaf.c — data-movement leaves of generated loops as index
 * arithmetic (backend layer).
 *
 * A fused leaf (broadcast, transpose, slice, rev, reshape, concatenate,
 * pad, dynamic_slice, iota) reads its operands through the index maps its
 * primitive defines (prim.h: prim_index_map, from fusion.c's
 * fuse_leaf_index_map). codegen.c asks here how a leaf lies over its
 * kernel's space and for the C that reads it, all decided at compile time:
 *
 * - contiguous in row-major order (a reshape, a slice of whole rows, a
 *   dynamic slice of a contiguous block): a pointer and an offset, read
 *   in place like any buffer;
 * - one value for the whole space (a broadcast of a scalar): one load
 *   before the loop;
 * - otherwise a gather into the tile, strength-reduced: the multi-index is
 *   divided out once per tile, then the innermost axis runs as a plain
 *   loop with a constant stride (gcc vectorises the contiguous and the
 *   repeated cases) and the outer axes carry by additions; axes that are
 *   contiguous with each other are merged first, so runs are as long as
 *   the layout allows. iota is the same loop with the index as the value.
 * - concatenate and pad select, per element, the first operand whose
 *   window holds the index (pad's value last), with the index carried
 *   incrementally: no division per element except pad's interior test.
 * - in small kernels (codegen.c's straight-line form) every index is a
 *   constant: an element is one load at a constant offset, or a constant.
 *
 * A dynamic_slice's start indices are read once per call, clamped as lax
 * clamps them, into d<eqn>_<operand> offsets declared before the loop. */
#include <string.h>

#include "codegen.h"

static const char *ctype(cj_dtype dt) {
    switch (dt) {
    case CJ_BOOL: return "unsigned char";
    case CJ_I32: return "int";
    case CJ_I64: return "long long";
    case CJ_F32: return "float";
    default: return "double";
    }
}

static int n_maps(const ir_eqn *e) { return e->n_in ? e->n_in : 1; }

static void map_of(const ir_func *ir, int eqn, int i, prim_index_map *m) {
    fuse_leaf_index_map(ir, &ir->eqns[eqn], i, m);
}

static bool has_dyn(const prim_index_map *m) {
    for (int d = 0; d < CJ_MAX_RANK; d++)
        if (m->dyn[d] >= 0) return true;
    return false;
}

/* Does the map read inside its window everywhere on axis d of space? */
static bool axis_unwindowed(const prim_index_map *m, const rt_aval *space, int d) {
    return m->lo[d] <= 0 && m->hi[d] >= space->dims[d] && (m->pitch[d] == 1 || space->dims[d] == 1);
}

static bool unwindowed(const prim_index_map *m, const rt_aval *space) {
    for (int d = 0; d < space->rank; d++)
        if (!axis_unwindowed(m, space, d)) return false;
    return true;
}

cg_leaf codegen_leaf_layout(const ir_func *ir, int eqn, const rt_aval *space, int from) {
    const ir_eqn *e = &ir->eqns[eqn];
    if (!e->n_in) return CG_LEAF_GATHER; /* iota: computed */
    prim_index_map m;
    map_of(ir, eqn, 0, &m);
    if (e->n_in > 1 && e->prim != PRIM_DYNAMIC_SLICE) return CG_LEAF_GATHER; /* concatenate, pad: selected */
    if (m.kind == MAP_LINEAR) return CG_LEAF_CONTIGUOUS;
    if (m.kind != MAP_AFFINE || !unwindowed(&m, space)) return CG_LEAF_GATHER;
    int64_t expect = 1;
    bool contiguous = true, repeated = true;
    for (int d = space->rank - 1; d >= from; d--) {
        if (space->dims[d] == 1) continue;
        contiguous &= m.stride[d] == expect;
        repeated &= m.stride[d] == 0;
        expect *= space->dims[d];
    }
    return contiguous ? CG_LEAF_CONTIGUOUS : repeated ? CG_LEAF_SCALAR : CG_LEAF_GATHER;
}

void codegen_leaf_prologue(const ir_func *ir, int eqn, strbuf *sb) {
    const ir_eqn *e = &ir->eqns[eqn];
    const int *in = ir_eqn_inputs(ir, e);
    for (int i = 0; i < e->n_in; i++) {
        prim_index_map m;
        map_of(ir, eqn, i, &m);
        if (m.kind != MAP_AFFINE || !has_dyn(&m)) continue;
        sb_printf(sb, "  const i64 d%d_%d = 0", eqn, i);
        for (int d = 0; d < CJ_MAX_RANK; d++) {
            if (m.dyn[d] < 0 || m.dyn_stride[d] == 0) continue;
            int u = in[m.dyn[d]];
            sb_printf(sb, " + cjk_clamp(*(const %s *)buf[%d], %lld) * %lld", ctype(ir->vars[u].dtype), u,
                      (long long)m.dyn_hi[d], (long long)m.dyn_stride[d]);
        }
        sb_printf(sb, ";\n");
    }
}

void codegen_leaf_base(const ir_func *ir, int eqn, int i, char *out, size_t n) {
    prim_index_map m;
    map_of(ir, eqn, i, &m);
    if (m.kind == MAP_LINEAR) snprintf(out, n, "0");
    else if (has_dyn(&m)) snprintf(out, n, "%lld + d%d_%d", (long long)m.offset, eqn, i);
    else snprintf(out, n, "%lld", (long long)m.offset);
}

void codegen_leaf_strides(const ir_func *ir, int eqn, int64_t *stride) {
    prim_index_map m;
    map_of(ir, eqn, 0, &m);
    memcpy(stride, m.stride, sizeof m.stride);
}

/* ---- gathers into a tile or a row ---- */

/* The space's axes of size > 1 with a stride each, merged where the outer
 * axis steps exactly over the inner one (s_outer == s_inner * D_inner). */
typedef struct axes {
    int n;
    int64_t dim[CJ_MAX_RANK], stride[CJ_MAX_RANK], pitch[CJ_MAX_RANK]; /* pitch: row-major elements per step */
} axes;

static axes merged_axes(const rt_aval *space, const int64_t *stride) {
    axes r = {0}, a = {0};
    for (int d = space->rank - 1; d >= 0; d--) { /* inner to outer, into r reversed */
        if (space->dims[d] == 1) continue;
        if (r.n && stride[d] == r.stride[r.n - 1] * r.dim[r.n - 1]) {
            r.dim[r.n - 1] *= space->dims[d];
            continue;
        }
        r.dim[r.n] = space->dims[d];
        r.stride[r.n++] = stride[d];
    }
    a.n = r.n;
    int64_t p = 1;
    for (int q = 0; q < r.n; q++) {
        int i = r.n - 1 - q;
        a.dim[i] = r.dim[q];
        a.stride[i] = r.stride[q];
        a.pitch[i] = p;
        p *= r.dim[q];
    }
    return a;
}

/* i<q> = the index along merged axis q of flat element `start`. */
static void emit_indices(const axes *a, const char *start, strbuf *sb) {
    for (int q = 0; q < a->n; q++) {
        if (q == 0 && a->pitch[q] == 1) sb_printf(sb, "      i64 i0 = %s;\n", start);
        else if (q == 0) sb_printf(sb, "      i64 i0 = (%s) / %lld;\n", start, (long long)a->pitch[q]);
        else if (a->pitch[q] == 1) sb_printf(sb, "      i64 i%d = (%s) %% %lld;\n", q, start, (long long)a->dim[q]);
        else
            sb_printf(sb, "      i64 i%d = (%s) / %lld %% %lld;\n", q, start, (long long)a->pitch[q],
                      (long long)a->dim[q]);
    }
}

/* An affine leaf (one map, no window) or iota: runs along the innermost
 * merged axis with a constant stride, carrying into the outer ones. */
static void emit_affine_gather(const ir_func *ir, int eqn, const rt_aval *space, const char *start, const char *len,
                               const char *dst, strbuf *sb) {
    const ir_eqn *e = &ir->eqns[eqn];
    const char *T = ctype(ir->vars[e->out].dtype);
    prim_index_map m;
    map_of(ir, eqn, 0, &m);
    int64_t stride[CJ_MAX_RANK] = {0};
    bool iota = m.kind == MAP_IOTA;
    if (iota) stride[m.axis] = 1; /* the value is the index along the axis: affine with this stride */
    else memcpy(stride, m.stride, sizeof stride);
    axes a = merged_axes(space, stride);
    char base[64];
    if (iota) snprintf(base, sizeof base, "0");
    else codegen_leaf_base(ir, eqn, 0, base, sizeof base);
    sb_printf(sb, "    { /* %s: index arithmetic */\n", prim_names[e->prim]);
    if (!iota) {
        int u = ir_eqn_inputs(ir, e)[0];
        sb_printf(sb, "      const %s *const src = (const %s *)buf[%d] + (%s);\n", T, T, u, base);
    }
    if (a.n == 0) { /* one element */
        sb_printf(sb, "      for (i64 j = 0; j < %s; j++) %s[j] = %s;\n    }\n", len, dst, iota ? "0" : "src[0]");
        return;
    }
    emit_indices(&a, start, sb);
    int L = a.n - 1;
    long long S = (long long)a.stride[L];
    sb_printf(sb, "      i64 off = 0");
    for (int q = 0; q < a.n; q++)
        if (a.stride[q]) sb_printf(sb, " + i%d * %lld", q, (long long)a.stride[q]);
    sb_printf(sb, ";\n      for (i64 j = 0; j < %s;) {\n", len);
    sb_printf(sb, "        i64 run = %lld - i%d;\n        if (run > %s - j) run = %s - j;\n", (long long)a.dim[L], L,
              len, len);
    const char *load = iota ? "" : "src";
    char elem[96];
    if (iota) snprintf(elem, sizeof elem, S ? "(%s)(off + q * %lld)" : "(%s)off", T, S);
    else if (S == 0) snprintf(elem, sizeof elem, "%s[off]", load);
    else if (S == 1) snprintf(elem, sizeof elem, "%s[off + q]", load);
    else snprintf(elem, sizeof elem, "%s[off + q * %lld]", load, S);
    sb_printf(sb, "        for (i64 q = 0; q < run; q++) %s[j + q] = %s;\n", dst, elem);
    sb_printf(sb, "        j += run;\n        i%d += run;\n", L);
    if (S) sb_printf(sb, "        off += run * %lld;\n", S);
    /* carry: nested, from the innermost axis out */
    for (int q = L; q > 0; q--) {
        sb_printf(sb, "%*sif (i%d == %lld) {\n", 8 + 2 * (L - q), "", q, (long long)a.dim[q]);
        sb_printf(sb, "%*si%d = 0;\n", 10 + 2 * (L - q), "", q);
        if (a.stride[q]) sb_printf(sb, "%*soff -= %lld;\n", 10 + 2 * (L - q), "", (long long)(a.dim[q] * a.stride[q]));
        sb_printf(sb, "%*si%d++;\n", 10 + 2 * (L - q), "", q - 1);
        if (a.stride[q - 1]) sb_printf(sb, "%*soff += %lld;\n", 10 + 2 * (L - q), "", (long long)a.stride[q - 1]);
    }
    for (int q = 1; q <= L; q++) sb_printf(sb, "%*s}\n", 8 + 2 * (L - q), "");
    sb_printf(sb, "      }\n    }\n");
}

/* The condition that map m's window holds index (i0, ..) (axes of space
 * unmerged), or "" when it always does. */
static void window_cond(const prim_index_map *m, const rt_aval *space, char *out, size_t n) {
    size_t len = 0;
    out[0] = 0;
    for (int d = 0; d < space->rank && len < n; d++) {
        if (axis_unwindowed(m, space, d)) continue;
        const char *and = len ? " && " : "";
        long long lo = (long long)m->lo[d], hi = (long long)m->hi[d], p = (long long)m->pitch[d];
        if (p > 1)
            len += (size_t)snprintf(out + len, n - len, "%si%d >= %lld && i%d < %lld && (i%d - %lld) %% %lld == 0", and,
                                    d, lo, d, hi, d, lo, p);
        else if (lo > 0 && hi < space->dims[d])
            len += (size_t)snprintf(out + len, n - len, "%si%d >= %lld && i%d < %lld", and, d, lo, d, hi);
        else if (lo > 0)
            len += (size_t)snprintf(out + len, n - len, "%si%d >= %lld", and, d, lo);
        else
            len += (size_t)snprintf(out + len, n - len, "%si%d < %lld", and, d, hi);
    }
}

/* concatenate, pad: per element, the first operand whose window holds it. */
static void emit_window_gather(const ir_func *ir, int eqn, const rt_aval *space, const char *start, const char *len,
                               const char *dst, strbuf *sb) {
    const ir_eqn *e = &ir->eqns[eqn];
    const int *in = ir_eqn_inputs(ir, e);
    const char *T = ctype(ir->vars[e->out].dtype);
    int r = space->rank;
    sb_printf(sb, "    { /* %s: the operand whose window holds each index */\n", prim_names[e->prim]);
    int64_t pitch = 1;
    for (int d = r - 1; d >= 0; d--) { /* unmerged: windows are per axis */
        sb_printf(sb, "      i64 i%d = (%s) / %lld %% %lld;\n", d, start, (long long)pitch, (long long)space->dims[d]);
        pitch *= space->dims[d];
    }
    sb_printf(sb, "      for (i64 j = 0; j < %s; j++) {\n", len);
    bool closed = false;
    int branches = 0;
    for (int i = 0; i < e->n_in && !closed; i++) {
        prim_index_map m;
        map_of(ir, eqn, i, &m);
        if (m.kind != MAP_AFFINE) continue;
        char cond[1024], base[64];
        window_cond(&m, space, cond, sizeof cond);
        codegen_leaf_base(ir, eqn, i, base, sizeof base);
        if (cond[0]) sb_printf(sb, "        %sif (%s) ", branches ? "else " : "", cond);
        else sb_printf(sb, "        %s", branches ? "else " : "");
        branches++;
        sb_printf(sb, "%s[j] = ((const %s *)buf[%d])[%s", dst, T, in[i], base);
        for (int d = 0; d < r; d++) {
            if (m.stride[d] == 0) continue; /* (a size-1 axis still adds -lo: pad cropping it) */
            if (m.pitch[d] > 1)
                sb_printf(sb, " + (i%d - %lld) / %lld * %lld", d, (long long)m.lo[d], (long long)m.pitch[d],
                          (long long)m.stride[d]);
            else if (m.lo[d])
                sb_printf(sb, " + (i%d - %lld) * %lld", d, (long long)m.lo[d], (long long)m.stride[d]);
            else
                sb_printf(sb, " + i%d * %lld", d, (long long)m.stride[d]);
        }
        sb_printf(sb, "];\n");
        closed = !cond[0];
    }
    if (!closed && branches) sb_printf(sb, "        else %s[j] = 0;\n", dst); /* unreachable: concatenate's operands tile it */
    /* the next index */
    for (int d = r - 1; d >= 0; d--) {
        sb_printf(sb, "%*sif (++i%d == %lld) {\n%*si%d = 0;\n", 8 + 2 * (r - 1 - d), "", d, (long long)space->dims[d],
                  10 + 2 * (r - 1 - d), "", d);
    }
    for (int d = 0; d < r; d++) sb_printf(sb, "%*s}\n", 8 + 2 * (r - 1 - d), "");
    sb_printf(sb, "      }\n    }\n");
}

void codegen_leaf_gather(const ir_func *ir, int eqn, const rt_aval *space, const char *start, const char *len,
                         const char *dst, strbuf *sb) {
    const ir_eqn *e = &ir->eqns[eqn];
    prim_index_map m;
    map_of(ir, eqn, 0, &m);
    if (m.kind == MAP_LINEAR) {
        const char *T = ctype(ir->vars[e->out].dtype);
        sb_printf(sb, "    for (i64 j = 0; j < %s; j++) %s[j] = ((const %s *)buf[%d])[(%s) + j];\n", len, dst, T,
                  ir_eqn_inputs(ir, e)[0], start);
    } else if (e->n_in > 1 && e->prim != PRIM_DYNAMIC_SLICE) {
        emit_window_gather(ir, eqn, space, start, len, dst, sb);
    } else {
        emit_affine_gather(ir, eqn, space, start, len, dst, sb);
    }
}

/* ---- straight-line code: one element at a constant index ---- */

void codegen_leaf_element(const ir_func *ir, int eqn, const rt_aval *space, int64_t flat, char *out, size_t n) {
    const ir_eqn *e = &ir->eqns[eqn];
    const int *in = ir_eqn_inputs(ir, e);
    const char *T = ctype(ir->vars[e->out].dtype);
    int64_t idx[CJ_MAX_RANK], rem = flat;
    for (int d = space->rank - 1; d >= 0; d--) {
        idx[d] = space->dims[d] ? rem % space->dims[d] : 0;
        rem = space->dims[d] ? rem / space->dims[d] : 0;
    }
    for (int i = 0; i < n_maps(e); i++) {
        prim_index_map m;
        map_of(ir, eqn, i, &m);
        if (m.kind == MAP_IOTA) {
            snprintf(out, n, "(%s)%lld", T, (long long)idx[m.axis]);
            return;
        }
        if (m.kind == MAP_LINEAR) {
            snprintf(out, n, "((const %s *)buf[%d])[%lld]", T, in[i], (long long)flat);
            return;
        }
        if (m.kind != MAP_AFFINE) continue;
        int64_t off = m.offset;
        bool inside = true;
        for (int d = 0; d < space->rank && inside; d++) {
            int64_t q = idx[d] - m.lo[d];
            inside = idx[d] >= m.lo[d] && idx[d] < m.hi[d] && q % m.pitch[d] == 0;
            off += q / m.pitch[d] * m.stride[d];
        }
        if (!inside) continue;
        if (has_dyn(&m)) snprintf(out, n, "((const %s *)buf[%d])[%lld + d%d_%d]", T, in[i], (long long)off, eqn, i);
        else snprintf(out, n, "((const %s *)buf[%d])[%lld]", T, in[i], (long long)off);
        return;
    }
    snprintf(out, n, "(%s)0", T); /* unreachable: some operand's window holds every index */
}
