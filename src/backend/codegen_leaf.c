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
 *   window holds the index (pad's value last), running along the innermost
 *   axis with the outer indices fixed per run: no division per element
 *   except pad's interior test.
 * - in small kernels (codegen.c's straight-line form) every index is a
 *   constant: an element is one load at a constant offset, or a constant.
 *
 * A dynamic_slice's start indices are read once per call, clamped as lax
 * clamps them, into d<eqn>_<operand> offsets declared before the loop. */
#include <string.h>

#include "codegen.h"

static const char *ctype(cj_dtype dt) { return prim_c_type(dt); }

static int n_maps(const ir_eqn *e) { return e->n_in ? e->n_in : 1; }

static void map_of(const compiled *c, int eqn, int i, prim_index_map *m) { fuse_leaf_index_map(c, eqn, i, m); }

static bool has_dyn(const prim_index_map *m) {
    for (int d = 0; d < CJ_MAX_RANK; d++)
        if (m->dyn[d] >= 0) return true;
    return false;
}

/* Does the map read inside its window everywhere on axis d of space? */
static bool axis_unwindowed(const prim_index_map *m, const rt_aval *space, int d) {
    /* (a pitch still decides a size-1 axis: index 0 may fall between the
     * operand's elements) */
    return m->lo[d] <= 0 && m->hi[d] >= space->dims[d] &&
           (m->pitch[d] == 1 || (space->dims[d] == 1 && (-m->lo[d]) % m->pitch[d] == 0));
}

static bool unwindowed(const prim_index_map *m, const rt_aval *space) {
    for (int d = 0; d < space->rank; d++)
        if (!axis_unwindowed(m, space, d)) return false;
    return true;
}

cg_leaf codegen_leaf_layout(const compiled *c, int eqn, const rt_aval *space, int from) {
    const ir_func *ir = c->ir;
    const ir_eqn *e = &ir->eqns[eqn];
    if (!e->n_in) return CG_LEAF_GATHER; /* iota: computed */
    prim_index_map m;
    map_of(c, eqn, 0, &m);
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

void codegen_leaf_prologue(const compiled *c, int eqn, strbuf *sb) {
    const ir_func *ir = c->ir;
    const ir_eqn *e = &ir->eqns[eqn];
    const int *in = ir_eqn_inputs(ir, e);
    for (int i = 0; i < e->n_in; i++) {
        prim_index_map m;
        map_of(c, eqn, i, &m);
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

void codegen_leaf_base(const compiled *c, int eqn, int i, char *out, size_t n) {
    prim_index_map m;
    map_of(c, eqn, i, &m);
    if (m.kind == MAP_LINEAR) snprintf(out, n, "0");
    else if (has_dyn(&m)) snprintf(out, n, "%lld + d%d_%d", (long long)m.offset, eqn, i);
    else snprintf(out, n, "%lld", (long long)m.offset);
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
static void emit_affine_gather(const compiled *c, int eqn, const rt_aval *space, const char *start, const char *len,
                               const char *dst, strbuf *sb) {
    const ir_func *ir = c->ir;
    const ir_eqn *e = &ir->eqns[eqn];
    const char *T = ctype(ir->vars[e->out].dtype);
    prim_index_map m;
    map_of(c, eqn, 0, &m);
    int64_t stride[CJ_MAX_RANK] = {0};
    bool iota = m.kind == MAP_IOTA;
    if (iota) stride[m.axis] = 1; /* the value is the index along the axis: affine with this stride */
    else memcpy(stride, m.stride, sizeof stride);
    axes a = merged_axes(space, stride);
    char base[64];
    if (iota) snprintf(base, sizeof base, "0");
    else codegen_leaf_base(c, eqn, 0, base, sizeof base);
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

/* The condition that map m's window holds index (x0, ..) (axes of space
 * unmerged), or "" when it always does. */
static void window_cond(const prim_index_map *m, const rt_aval *space, int upto, char *out, size_t n) {
    size_t len = 0;
    out[0] = 0;
    for (int d = 0; d < upto && len < n; d++) {
        if (axis_unwindowed(m, space, d)) continue;
        const char *and = len ? " && " : "";
        long long lo = (long long)m->lo[d], hi = (long long)m->hi[d], p = (long long)m->pitch[d];
        if (p > 1)
            len += (size_t)snprintf(out + len, n - len, "%sx%d >= %lld && x%d < %lld && (x%d - %lld) %% %lld == 0", and,
                                    d, lo, d, hi, d, lo, p);
        else if (lo > 0 && hi < space->dims[d])
            len += (size_t)snprintf(out + len, n - len, "%sx%d >= %lld && x%d < %lld", and, d, lo, d, hi);
        else if (lo > 0)
            len += (size_t)snprintf(out + len, n - len, "%sx%d >= %lld", and, d, lo);
        else
            len += (size_t)snprintf(out + len, n - len, "%sx%d < %lld", and, d, hi);
    }
}

/* + each axis' term of map m at index (x0, ..), axes [0, rank). */
static void emit_terms(const prim_index_map *m, int rank, strbuf *sb) {
    for (int d = 0; d < rank; d++) {
        if (m->stride[d] == 0) continue; /* (a size-1 axis still adds -lo: pad cropping it) */
        if (m->pitch[d] > 1)
            sb_printf(sb, " + (x%d - %lld) / %lld * %lld", d, (long long)m->lo[d], (long long)m->pitch[d],
                      (long long)m->stride[d]);
        else if (m->lo[d])
            sb_printf(sb, " + (x%d - %lld) * %lld", d, (long long)m->lo[d], (long long)m->stride[d]);
        else
            sb_printf(sb, " + x%d * %lld", d, (long long)m->stride[d]);
    }
}

/* Segments of the innermost axis over which every operand's window is
 * either open or shut (no operand has an interior pitch on it): per run,
 * per segment, the outer conditions pick the operand once and the
 * segment is a plain strided loop (a fill for the padding value), which
 * gcc vectorises. False when some operand has a pitch there. */
static bool emit_window_segments(const compiled *c, int eqn, const rt_aval *space, const char *dst, strbuf *sb) {
    const ir_func *ir = c->ir;
    const ir_eqn *e = &ir->eqns[eqn];
    const int *in = ir_eqn_inputs(ir, e);
    const char *T = ctype(ir->vars[e->out].dtype);
    int r = space->rank, L = r - 1;
    int64_t D = space->dims[L], cut[2 * PRIM_MAX_OPERANDS + 2];
    int n_cut = 0;
    cut[n_cut++] = 0;
    cut[n_cut++] = D;
    for (int i = 0; i < e->n_in; i++) {
        prim_index_map m;
        map_of(c, eqn, i, &m);
        if (m.kind != MAP_AFFINE) continue;
        if (m.pitch[L] > 1) return false;
        int64_t lo = m.lo[L] < 0 ? 0 : m.lo[L] > D ? D : m.lo[L], hi = m.hi[L] < 0 ? 0 : m.hi[L] > D ? D : m.hi[L];
        cut[n_cut++] = lo;
        cut[n_cut++] = hi;
    }
    for (int a = 1; a < n_cut; a++) /* sort (few entries) */
        for (int b = a; b > 0 && cut[b - 1] > cut[b]; b--) {
            int64_t t = cut[b];
            cut[b] = cut[b - 1];
            cut[b - 1] = t;
        }
    for (int sg = 0; sg + 1 < n_cut; sg++) {
        int64_t a = cut[sg], b = cut[sg + 1];
        if (a == b) continue;
        sb_printf(sb, "        { const i64 qa = %lld - i%d > 0 ? %lld - i%d : 0, qb = %lld - i%d < run ? %lld - i%d : run;\n",
                  (long long)a, L, (long long)a, L, (long long)b, L, (long long)b, L);
        sb_printf(sb, "          if (qa < qb) {\n");
        bool closed = false;
        int branches = 0;
        for (int i = 0; i < e->n_in && !closed; i++) {
            prim_index_map m;
            map_of(c, eqn, i, &m);
            if (m.kind != MAP_AFFINE || m.lo[L] > a || m.hi[L] < b) continue; /* shut over this segment */
            char cond[1024], base[64];
            window_cond(&m, space, L, cond, sizeof cond);
            codegen_leaf_base(c, eqn, i, base, sizeof base);
            if (cond[0]) sb_printf(sb, "            %sif (%s)\n", branches ? "else " : "", cond);
            else if (branches) sb_printf(sb, "            else\n");
            branches++;
            sb_printf(sb, "              for (i64 q = qa; q < qb; q++) { const i64 x%d = i%d + q; %s[j + q] = ((const %s *)buf[%d])[%s",
                      L, L, dst, T, in[i], base);
            emit_terms(&m, r, sb);
            sb_printf(sb, "]; }\n");
            closed = !cond[0];
        }
        if (!closed) /* unreachable: concatenate's operands tile the result, pad's value is everywhere else */
            sb_printf(sb, "            %sfor (i64 q = qa; q < qb; q++) %s[j + q] = 0;\n", branches ? "else " : "", dst);
        sb_printf(sb, "          }\n        }\n");
    }
    return true;
}

/* concatenate, pad: the first operand whose window holds each index. The
 * index runs along the innermost axis (x<last> = i<last> + q) with the
 * outer ones fixed per run, so the outer halves of the conditions and
 * offsets are invariant in the inner loop, and the carry is per run. */
static void emit_window_gather(const compiled *c, int eqn, const rt_aval *space, const char *start, const char *len,
                               const char *dst, strbuf *sb) {
    const ir_func *ir = c->ir;
    const ir_eqn *e = &ir->eqns[eqn];
    const int *in = ir_eqn_inputs(ir, e);
    const char *T = ctype(ir->vars[e->out].dtype);
    int r = space->rank, L = r - 1;
    sb_printf(sb, "    { /* %s: the operand whose window holds each index */\n", prim_names[e->prim]);
    int64_t pitch = 1;
    for (int d = r - 1; d >= 0; d--) { /* unmerged: windows are per axis */
        sb_printf(sb, "      i64 i%d = (%s) / %lld %% %lld;\n", d, start, (long long)pitch, (long long)space->dims[d]);
        pitch *= space->dims[d];
    }
    sb_printf(sb, "      for (i64 j = 0; j < %s;) {\n", len);
    sb_printf(sb, "        i64 run = %lld - i%d;\n        if (run > %s - j) run = %s - j;\n",
              (long long)space->dims[L], L, len, len);
    for (int d = 0; d < L; d++) sb_printf(sb, "        const i64 x%d = i%d;\n", d, d);
    if (emit_window_segments(c, eqn, space, dst, sb)) goto advance;
    sb_printf(sb, "        for (i64 q = 0; q < run; q++) {\n          const i64 x%d = i%d + q;\n", L, L);
    bool closed = false;
    int branches = 0;
    for (int i = 0; i < e->n_in && !closed; i++) {
        prim_index_map m;
        map_of(c, eqn, i, &m);
        if (m.kind != MAP_AFFINE) continue;
        char cond[1024], base[64];
        window_cond(&m, space, r, cond, sizeof cond);
        codegen_leaf_base(c, eqn, i, base, sizeof base);
        if (cond[0]) sb_printf(sb, "          %sif (%s) ", branches ? "else " : "", cond);
        else sb_printf(sb, "          %s", branches ? "else " : "");
        branches++;
        sb_printf(sb, "%s[j + q] = ((const %s *)buf[%d])[%s", dst, T, in[i], base);
        emit_terms(&m, r, sb);
        sb_printf(sb, "];\n");
        closed = !cond[0];
    }
    if (!closed && branches) sb_printf(sb, "          else %s[j + q] = 0;\n", dst); /* unreachable: concatenate's operands tile it */
    sb_printf(sb, "        }\n");
advance:
    sb_printf(sb, "        j += run;\n        i%d += run;\n", L);
    for (int d = L; d > 0; d--) { /* carry */
        sb_printf(sb, "%*sif (i%d == %lld) {\n%*si%d = 0;\n%*si%d++;\n", 8 + 2 * (L - d), "", d,
                  (long long)space->dims[d], 10 + 2 * (L - d), "", d, 10 + 2 * (L - d), "", d - 1);
    }
    for (int d = 1; d <= L; d++) sb_printf(sb, "%*s}\n", 8 + 2 * (L - d), "");
    sb_printf(sb, "      }\n    }\n");
}

void codegen_leaf_gather(const compiled *c, int eqn, const rt_aval *space, const char *start, const char *len,
                         const char *dst, strbuf *sb) {
    const ir_func *ir = c->ir;
    const ir_eqn *e = &ir->eqns[eqn];
    prim_index_map m;
    map_of(c, eqn, 0, &m);
    if (m.kind == MAP_LINEAR) {
        const char *T = ctype(ir->vars[e->out].dtype);
        sb_printf(sb, "    for (i64 j = 0; j < %s; j++) %s[j] = ((const %s *)buf[%d])[(%s) + j];\n", len, dst, T,
                  ir_eqn_inputs(ir, e)[0], start);
    } else if (e->n_in > 1 && e->prim != PRIM_DYNAMIC_SLICE && space->rank > 0) {
        emit_window_gather(c, eqn, space, start, len, dst, sb);
    } else {
        emit_affine_gather(c, eqn, space, start, len, dst, sb);
    }
}

/* ---- straight-line code: one element at a constant index ---- */

void codegen_leaf_element(const compiled *c, int eqn, const rt_aval *space, int64_t flat, char *out, size_t n) {
    const ir_func *ir = c->ir;
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
        map_of(c, eqn, i, &m);
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
