/* recompute.c — cheap producers recomputed in their consumers (compiler
 * layer; the second half of the fuse pass, after fuse_kernels).
 *
 * A value a LOOP or ROWS kernel computes and another such kernel reads
 * must be stored between them: a full buffer, live from its producer to
 * its last reader. When it is the end of a cheap elementwise chain, XLA's
 * fusion duplicates the chain into the consumer instead, and so does this:
 * each consumer kernel gets its own copy of the chain's equations, reading
 * the chain's inputs, and the value is never stored (a GELU's derivative
 * factors saved for the backward pass, a softmax's broadcast row sums, a
 * layer norm's scaled rows). The rule, for a value v of kernel P:
 *
 *   - v is no program output, and every kernel but P that reads it is a
 *     LOOP or ROWS kernel (not a long-rows one) reading it elementwise
 *     over v's own shape (a leaf, which reads other indices, or a SINGLE
 *     kernel needs the buffer anyway);
 *   - its chain is walked back from v through P's equations, elementwise
 *     and data-movement ones over v's shape, and stops at inputs: arguments
 *     and constants (always live), buffers every consumer already reads
 *     (their lives do not grow), and P's small values (a per-row value of a
 *     ROWS kernel, at most an eighth of v's bytes, which P then writes);
 *     anything else (a reduction, a big buffer a consumer does not read)
 *     rejects v;
 *   - the chain's work per element (the primitives' declared
 *     prim_cost.work: an add 1, a division 3, a transcendental 20) is at
 *     most RECOMPUTE_MAX_WORK, times the consumer kernels at most
 *     RECOMPUTE_MAX_TOTAL, and each consumer newly reads at most
 *     RECOMPUTE_MAX_NEW_INPUTS buffers;
 *   - the small values P starts writing take less than half v's bytes.
 *
 * Then the chain's equations are cloned, once per consumer kernel, into
 * the IR (each clone just after the equation it copies, so the IR stays in
 * a valid order) and into that kernel's list before its first reader, the
 * kernel's readers rewired to the clones, and
 * equations of P nothing reads any more are dropped (a kernel left empty
 * goes too). The kernels' in and out lists are rebuilt. */
#include <stdlib.h>
#include <string.h>

#include "program.h"

#define RECOMPUTE_MAX_WORK 8       /* per element of one chain */
#define RECOMPUTE_MAX_TOTAL 16     /* a chain's work times its consumer kernels */
#define RECOMPUTE_MAX_NEW_INPUTS 2 /* buffers one consumer kernel newly reads */
#define RECOMPUTE_MAX_CONSUMERS 8
#define RECOMPUTE_MIN_ELEMENTS 1024 /* smaller values are cheap to store */
#define RECOMPUTE_MAX_DEPTH 64

typedef struct candidate {
    int v, producer;
    int n_cons, cons[RECOMPUTE_MAX_CONSUMERS];
    int chain_at, n_chain; /* its equations in rc.chains, producers first */
    int roots_at, n_roots; /* the chain's inputs in rc.roots */
    float work;
    size_t new_bytes; /* small values of the producer it makes stored */
} candidate;

typedef struct rc {
    cj_ctx *ctx;
    compiled *c;
    int nv, ne;
    int *def;        /* per variable: defining equation, or -1 */
    int *eqn_kernel; /* per equation: its kernel, or -1 */
    int *mark;       /* per equation: the stamp of the walk (or kernel) that took it */
    int stamp;
    int *chains, n_chains, cap_chains;
    int *roots, n_roots, cap_roots;
    candidate *cands;
    int n_cands;
} rc;

static bool has(const int *a, int n, int v) {
    for (int i = 0; i < n; i++)
        if (a[i] == v) return true;
    return false;
}

static size_t aval_bytes(const rt_aval *a) { return rt_aval_nbytes(a); }

static int push(cj_ctx *ctx, int **a, int *n, int *cap, int v) {
    if (*n == *cap) {
        int nc = *cap ? *cap * 2 : 64;
        int *na = rt_realloc(ctx->mem, *a, sizeof(int) * (size_t)*cap, sizeof(int) * (size_t)nc);
        if (!na) return core_oom(ctx, "jit: recompute");
        *a = na;
        *cap = nc;
    }
    (*a)[(*n)++] = v;
    return 0;
}

/* Does every consumer kernel of cd already read u? */
static bool read_by_all(const rc *r, const candidate *cd, int u) {
    for (int i = 0; i < cd->n_cons; i++) {
        const kernel *K = &r->c->kernels[cd->cons[i]];
        if (!has(K->in, K->n_in, u)) return false;
    }
    return true;
}

static int add_root(rc *r, candidate *cd, int u) {
    for (int i = 0; i < cd->n_roots; i++)
        if (r->roots[cd->roots_at + i] == u) return 0;
    if (push(r->ctx, &r->roots, &r->n_roots, &r->cap_roots, u) != 0) return -1;
    cd->n_roots++;
    return 0;
}

/* Takes equation d of the producer, and what it needs, into cd's chain
 * (producers first). 1: taken; 0: v cannot be recomputed; -1: out of
 * memory. */
static int walk(rc *r, candidate *cd, int d, int depth) {
    compiled *c = r->c;
    const ir_func *ir = c->ir;
    if (r->mark[d] == r->stamp) return 1;
    if (depth > RECOMPUTE_MAX_DEPTH) return 0;
    const ir_eqn *e = &ir->eqns[d];
    const rt_aval *va = &ir->vars[cd->v];
    bool leaf = fuse_is_leaf_map(e->prim);
    if (e->n_out != 1 || (!fuse_is_elementwise(e->prim) && !leaf)) return 0;
    if (!rt_aval_same_shape(&ir->vars[e->out], va)) return 0;
    r->mark[d] = r->stamp;
    cd->work += prim_lower(e->prim)->cost.work;
    if (cd->work > RECOMPUTE_MAX_WORK) return 0;
    const kernel *P = &c->kernels[cd->producer];
    const int *in = ir_eqn_inputs(ir, e);
    for (int i = 0; i < e->n_in; i++) {
        int u = in[i];
        const rt_aval *ua = &ir->vars[u];
        int p = c->kernel_of[u];
        if (p != cd->producer) {
            /* an argument, a constant or a scalar costs nothing to keep;
             * another kernel's buffer only if its life does not grow */
            if (p >= 0 && ua->rank > 0 && !read_by_all(r, cd, u)) return 0;
            if (add_root(r, cd, u) != 0) return -1;
            continue;
        }
        if (ua->rank == 0) return 0;
        if (P->kind == KERNEL_ROWS && fuse_row_form(P, ua) == FORM_SCALAR && aval_bytes(ua) * 8 <= aval_bytes(va)) {
            /* a per-row value: stored by the producer */
            if (!has(P->out, P->n_out, u)) {
                bool seen = false;
                for (int q = 0; q < cd->n_roots && !seen; q++) seen = r->roots[cd->roots_at + q] == u;
                if (!seen) cd->new_bytes += aval_bytes(ua);
            }
            if (add_root(r, cd, u) != 0) return -1;
            continue;
        }
        if (leaf) return 0; /* a leaf reads buffers: its operand would be P's value at other indices */
        if (has(P->out, P->n_out, u) && read_by_all(r, cd, u)) {
            if (add_root(r, cd, u) != 0) return -1;
            continue;
        }
        if (r->def[u] < 0) return 0;
        int t = walk(r, cd, r->def[u], depth + 1);
        if (t <= 0) return t;
    }
    if (push(r->ctx, &r->chains, &r->n_chains, &r->cap_chains, d) != 0) return -1;
    cd->n_chain++;
    return 1;
}

/* Fills cd for value v of kernel P. 1: v is to be recomputed; 0: not; -1:
 * out of memory. */
static int consider(rc *r, candidate *cd, int v, int pk, const int *rd_start, const int *rd) {
    compiled *c = r->c;
    const ir_func *ir = c->ir;
    const rt_aval *va = &ir->vars[v];
    memset(cd, 0, sizeof *cd);
    cd->v = v;
    cd->producer = pk;
    if (r->def[v] < 0 || rt_aval_size(va) < RECOMPUTE_MIN_ELEMENTS) return 0;
    for (int i = 0; i < ir->n_out; i++)
        if (ir->out[i] == v) return 0;
    for (int q = rd_start[v]; q < rd_start[v + 1]; q++) {
        int re = rd[q], k = r->eqn_kernel[re];
        if (k < 0 || k == pk) continue;
        const kernel *K = &c->kernels[k];
        const ir_eqn *e = &ir->eqns[re];
        int outer;
        int64_t len;
        if (K->kind == KERNEL_LOOP) {
            if (!fuse_is_elementwise(e->prim) || !rt_aval_same_shape(&K->space, va)) return 0;
        } else if (K->kind == KERNEL_ROWS && !fuse_is_long_rows(K)) {
            if (!fuse_is_elementwise(e->prim) && !fuse_is_row_reduce(ir, e, &outer, &len)) return 0;
            if (fuse_row_form(K, va) != FORM_ROW) return 0;
        } else {
            return 0;
        }
        if (has(cd->cons, cd->n_cons, k)) continue;
        if (cd->n_cons == RECOMPUTE_MAX_CONSUMERS) return 0;
        cd->cons[cd->n_cons++] = k;
    }
    if (cd->n_cons == 0) return 0;
    cd->chain_at = r->n_chains;
    cd->roots_at = r->n_roots;
    r->stamp++;
    int t = walk(r, cd, r->def[v], 0);
    if (t <= 0) return t;
    if (cd->work * (float)cd->n_cons > RECOMPUTE_MAX_TOTAL) return 0;
    if (cd->new_bytes * 2 >= aval_bytes(va)) return 0;
    for (int i = 0; i < cd->n_cons; i++) {
        const kernel *K = &c->kernels[cd->cons[i]];
        int fresh = 0;
        for (int q = 0; q < cd->n_roots; q++) {
            int u = r->roots[cd->roots_at + q];
            if (ir->vars[u].rank > 0 && !has(K->in, K->n_in, u)) fresh++;
        }
        if (fresh > RECOMPUTE_MAX_NEW_INPUTS) return 0;
    }
    return 1;
}

/* ---- the rewrite ---- */

typedef struct clone_site {
    int kernel;
    int first, n; /* the clones' equation indices: first .. first+n-1 */
} clone_site;

static int sort_ints(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

/* What the rewrite builds before it changes anything: on out of memory
 * the compiled program is left as fusion made it. */
typedef struct staged {
    ir_func *ir;          /* a copy of c->ir with the clones, then reordered */
    int *orig;            /* per clone: the equation it copies */
    prim_index_map **cmap; /* per clone: its composed maps, or NULL */
    int **lists, *caps, *counts; /* per kernel: its new equation list */
    int *ek, *readers, *def, *work, *old2new;
    char *dead;
    ir_eqn *neqns;
    prim_index_map **ncomp;
    int *nkof;
    kernel *nks;
} staged;

static int rewrite(rc *r) {
    cj_ctx *ctx = r->ctx;
    compiled *c = r->c;
    const int ne0 = r->ne, nk0 = c->n_kernels;
    int *is_cand = rt_calloc(ctx->mem, sizeof(int) * (size_t)(r->nv + 1)); /* 1 + candidate index */
    int *map = rt_alloc(ctx->mem, sizeof(int) * (size_t)(r->nv + 1));
    int *list = rt_alloc(ctx->mem, sizeof(int) * (size_t)(ne0 + 1));
    clone_site *sites = rt_calloc(ctx->mem, sizeof(clone_site) * (size_t)(nk0 + 1));
    staged st = {0};
    int n_sites = 0, total = 0, ne1 = 0, nv1 = 0;
    bool ok = is_cand && map && list && sites;
    if (ok) {
        for (int i = 0; i < r->n_cands; i++) is_cand[r->cands[i].v] = i + 1;
        for (int v = 0; v <= r->nv; v++) map[v] = -1;
        /* how many clones: to size the per-equation arrays once */
        for (int k = 0; k < nk0; k++) {
            const kernel *K = &c->kernels[k];
            r->stamp++;
            for (int i = 0; i < K->n_in; i++) {
                int ci = is_cand[K->in[i]] - 1;
                if (ci < 0 || !has(r->cands[ci].cons, r->cands[ci].n_cons, k)) continue;
                const candidate *cd = &r->cands[ci];
                for (int q = 0; q < cd->n_chain; q++) {
                    int d = r->chains[cd->chain_at + q];
                    if (r->mark[d] != r->stamp) r->mark[d] = r->stamp, total++;
                }
            }
        }
        st.ir = ir_copy(c->ir);
        st.orig = rt_alloc(ctx->mem, sizeof(int) * (size_t)(total + 1));
        st.cmap = rt_calloc(ctx->mem, sizeof *st.cmap * (size_t)(total + 1));
        ok = st.ir && st.orig && st.cmap;
    }
    ir_func *ir = st.ir;
    for (int k = 0; k < nk0 && ok; k++) {
        kernel *K = &c->kernels[k];
        int n = 0;
        r->stamp++;
        for (int i = 0; i < K->n_in; i++) {
            int ci = is_cand[K->in[i]] - 1;
            if (ci < 0 || !has(r->cands[ci].cons, r->cands[ci].n_cons, k)) continue;
            const candidate *cd = &r->cands[ci];
            for (int q = 0; q < cd->n_chain; q++) {
                int d = r->chains[cd->chain_at + q];
                if (r->mark[d] != r->stamp) r->mark[d] = r->stamp, list[n++] = d;
            }
        }
        if (n == 0) continue;
        qsort(list, (size_t)n, sizeof *list, sort_ints); /* IR order is a valid order */
        clone_site *s = &sites[n_sites++];
        s->kernel = k;
        s->first = ir->n_eqns;
        s->n = n;
        for (int j = 0; j < n && ok; j++) {
            const ir_eqn e = ir->eqns[list[j]]; /* copies: ir_add_eqn may move the arrays */
            const rt_aval out = ir->vars[e.out];
            int ins[PRIM_MAX_OPERANDS];
            for (int i = 0; i < e.n_in; i++) {
                int u = ir_eqn_inputs(ir, &e)[i];
                ins[i] = map[u] >= 0 ? map[u] : u;
            }
            int x = ir->n_eqns - ne0, nv = ir_add_eqn(ir, e.prim, &e.params, e.n_in, ins, &out);
            if (nv < 0) {
                ok = false;
                break;
            }
            ir->eqns[ir->n_eqns - 1].region = e.region;
            st.orig[x] = list[j];
            const prim_index_map *m0 = c->composed ? c->composed[list[j]] : NULL;
            if (m0) {
                st.cmap[x] = rt_alloc(ctx->mem, sizeof *m0 * (size_t)e.n_in);
                if (!st.cmap[x]) {
                    ok = false;
                    break;
                }
                memcpy(st.cmap[x], m0, sizeof *m0 * (size_t)e.n_in);
            }
            map[e.out] = nv;
        }
        /* the kernel's own equations (in the copy) read the clones */
        for (int j = 0; j < K->n_eqns && ok; j++) {
            const ir_eqn *e = &ir->eqns[K->eqns[j]];
            int *in = (int *)ir_eqn_inputs(ir, e);
            for (int i = 0; i < e->n_in; i++)
                if (map[in[i]] >= 0) in[i] = map[in[i]];
        }
        for (int j = 0; j < n; j++) map[ir->eqns[list[j]].out] = -1;
    }
    if (ok) {
        ne1 = ir->n_eqns, nv1 = ir->n_vars;
        st.ek = rt_alloc(ctx->mem, sizeof(int) * (size_t)ne1);
        st.readers = rt_calloc(ctx->mem, sizeof(int) * (size_t)(nv1 + 1));
        st.def = rt_alloc(ctx->mem, sizeof(int) * (size_t)(nv1 + 1));
        st.work = rt_alloc(ctx->mem, sizeof(int) * (size_t)(ne1 + 1));
        st.old2new = rt_alloc(ctx->mem, sizeof(int) * (size_t)ne1);
        st.dead = rt_calloc(ctx->mem, (size_t)ne1 + 1);
        st.neqns = rt_alloc(ir->mem, sizeof(ir_eqn) * (size_t)ne1);
        st.nkof = rt_alloc(ctx->mem, sizeof(int) * (size_t)(nv1 + 1));
        st.counts = rt_calloc(ctx->mem, sizeof(int) * (size_t)(nk0 + 1));
        st.lists = rt_calloc(ctx->mem, sizeof(int *) * (size_t)(nk0 + 1));
        st.caps = rt_calloc(ctx->mem, sizeof(int) * (size_t)(nk0 + 1));
        ok = st.ek && st.readers && st.def && st.work && st.old2new && st.dead && st.neqns && st.nkof &&
             st.counts && st.lists && st.caps;
    }
    int n_new = 0;
    if (ok) {
        int *ek = st.ek, *readers = st.readers, *def = st.def, *work = st.work, *old2new = st.old2new;
        char *dead = st.dead;
        for (int e = 0; e < ne1; e++) ek[e] = e < ne0 ? r->eqn_kernel[e] : -1;
        for (int i = 0; i < n_sites; i++)
            for (int j = 0; j < sites[i].n; j++) ek[sites[i].first + j] = sites[i].kernel;
        for (int v = 0; v <= nv1; v++) def[v] = -1;
        for (int e = 0; e < ne1; e++) {
            const ir_eqn *q = &ir->eqns[e];
            for (int j = 0; j < q->n_out; j++) def[q->out + j] = e;
            for (int i = 0; i < q->n_in; i++) readers[ir_eqn_inputs(ir, q)[i]]++;
        }
        for (int i = 0; i < ir->n_out; i++) readers[ir->out[i]]++;
        /* dead code of the producers: what only the recomputed values needed */
        int n_work = 0;
        for (int e = 0; e < ne1; e++) work[n_work++] = e;
        while (n_work > 0) {
            int e = work[--n_work];
            const ir_eqn *q = &ir->eqns[e];
            if (dead[e] || ek[e] < 0 || q->n_out != 1 || readers[q->out] > 0) continue;
            kernel_kind kk = c->kernels[ek[e]].kind;
            if ((kk != KERNEL_LOOP && kk != KERNEL_ROWS) || (!fuse_is_elementwise(q->prim) && !fuse_is_leaf_map(q->prim)))
                continue;
            dead[e] = 1;
            for (int i = 0; i < q->n_in; i++) {
                int u = ir_eqn_inputs(ir, q)[i];
                if (--readers[u] == 0 && def[u] >= 0) work[n_work++] = def[u];
            }
        }
        /* the new order: each clone just after the equation it copies (its
         * operands are the chain's inputs, defined before that one, or
         * earlier clones; its readers come after the value) */
        for (int e = 0; e < ne0; e++) {
            old2new[e] = dead[e] ? -1 : n_new;
            if (!dead[e]) st.neqns[n_new++] = ir->eqns[e];
            for (int x = ne0; x < ne1; x++) {
                if (st.orig[x - ne0] != e) continue;
                old2new[x] = dead[x] ? -1 : n_new;
                if (!dead[x]) st.neqns[n_new++] = ir->eqns[x];
            }
        }
        /* the kernels' lists, renumbered, clones before their first reader */
        for (int k = 0; k < nk0 && ok; k++) {
            const kernel *K = &c->kernels[k];
            const clone_site *s = NULL;
            for (int i = 0; i < n_sites; i++)
                if (sites[i].kernel == k) s = &sites[i];
            int cap = K->n_eqns + (s ? s->n : 0), n = 0;
            st.caps[k] = cap ? cap : 1;
            int *l = st.lists[k] = rt_alloc(ctx->mem, sizeof(int) * (size_t)st.caps[k]);
            if (!l) {
                ok = false;
                break;
            }
            bool placed = s == NULL;
            for (int j = 0; j < K->n_eqns; j++) {
                int e = K->eqns[j];
                if (!placed) {
                    const ir_eqn *q = &ir->eqns[e];
                    bool reads = false;
                    for (int i = 0; i < q->n_in && !reads; i++) {
                        int u = ir_eqn_inputs(ir, q)[i];
                        reads = def[u] >= s->first && def[u] < s->first + s->n;
                    }
                    if (reads) {
                        for (int x = 0; x < s->n; x++)
                            if (old2new[s->first + x] >= 0) l[n++] = old2new[s->first + x];
                        placed = true;
                    }
                }
                if (old2new[e] >= 0) l[n++] = old2new[e];
            }
            st.counts[k] = n;
        }
        /* the kernel array, sized by the equations as compiled_free expects */
        st.nks = ok ? rt_calloc(ctx->mem, sizeof(kernel) * (size_t)(n_new ? n_new : 1)) : NULL;
        st.ncomp = ok ? rt_calloc(ctx->mem, sizeof *st.ncomp * (size_t)(n_new ? n_new : 1)) : NULL;
        ok = ok && st.nks && st.ncomp;
    }
    if (ok) {
        /* commit: nothing below allocates */
        int *old2new = st.old2new;
        for (int e = 0; e < ne1; e++) {
            prim_index_map *m = e < ne0 ? (c->composed ? c->composed[e] : NULL) : st.cmap[e - ne0];
            if (!m) continue;
            if (old2new[e] >= 0) st.ncomp[old2new[e]] = m;
            else rt_free(ctx->mem, m, sizeof(prim_index_map) * (size_t)ir->eqns[e].n_in);
            if (e < ne0) c->composed[e] = NULL;
            else st.cmap[e - ne0] = NULL;
        }
        if (c->composed) rt_free(ctx->mem, c->composed, sizeof(prim_index_map *) * (size_t)(ne0 ? ne0 : 1));
        c->composed = st.ncomp;
        st.ncomp = NULL;
        int nk = 0;
        for (int k = 0; k < nk0; k++) {
            kernel *K = &c->kernels[k];
            int n = st.counts[k];
            rt_free(ctx->mem, K->eqns, sizeof(int) * (size_t)K->cap_eqns);
            K->eqns = st.lists[k];
            K->n_eqns = n;
            K->cap_eqns = st.caps[k];
            st.lists[k] = NULL;
            if (n == 0) { /* a kernel left empty goes */
                rt_free(ctx->mem, K->eqns, sizeof(int) * (size_t)K->cap_eqns);
                if (K->in) rt_free(ctx->mem, K->in, sizeof(int) * (size_t)K->n_in);
                if (K->out) rt_free(ctx->mem, K->out, sizeof(int) * (size_t)K->n_out);
                continue;
            }
            st.nks[nk++] = *K;
        }
        /* the kernel array is sized by the equations (compiled_free) */
        rt_free(ctx->mem, c->kernels, sizeof(kernel) * (size_t)(ne0 ? ne0 : 1));
        c->kernels = st.nks;
        c->n_kernels = nk;
        st.nks = NULL;
        rt_free(ir->mem, ir->eqns, sizeof(ir_eqn) * (size_t)ir->cap_eqns);
        ir->eqns = st.neqns;
        ir->n_eqns = n_new;
        ir->cap_eqns = ne1;
        st.neqns = NULL;
        for (int v = 0; v <= nv1; v++) st.nkof[v] = -1;
        for (int k = 0; k < c->n_kernels; k++)
            for (int j = 0; j < c->kernels[k].n_eqns; j++) {
                const ir_eqn *q = &ir->eqns[c->kernels[k].eqns[j]];
                for (int o = 0; o < q->n_out; o++) st.nkof[q->out + o] = k;
            }
        rt_free(ctx->mem, c->kernel_of, sizeof(int) * (size_t)(r->nv + 1));
        c->kernel_of = st.nkof;
        st.nkof = NULL;
        ir_free(c->ir);
        c->ir = ir;
        st.ir = NULL;
    }
    /* what is left of the staging (all of it on failure) */
    for (int x = 0; st.cmap && x < total; x++) /* a clone's maps: one per operand of its equation */
        if (st.cmap[x]) rt_free(ctx->mem, st.cmap[x], sizeof(prim_index_map) * (size_t)st.ir->eqns[ne0 + x].n_in);
    if (st.ir) ir_free(st.ir);
    if (st.orig) rt_free(ctx->mem, st.orig, sizeof(int) * (size_t)(total + 1));
    if (st.cmap) rt_free(ctx->mem, st.cmap, sizeof *st.cmap * (size_t)(total + 1));
    for (int k = 0; st.lists && k < nk0; k++)
        if (st.lists[k]) rt_free(ctx->mem, st.lists[k], sizeof(int) * (size_t)st.caps[k]);
    if (st.lists) rt_free(ctx->mem, st.lists, sizeof(int *) * (size_t)(nk0 + 1));
    if (st.caps) rt_free(ctx->mem, st.caps, sizeof(int) * (size_t)(nk0 + 1));
    if (st.counts) rt_free(ctx->mem, st.counts, sizeof(int) * (size_t)(nk0 + 1));
    if (st.ek) rt_free(ctx->mem, st.ek, sizeof(int) * (size_t)ne1);
    if (st.readers) rt_free(ctx->mem, st.readers, sizeof(int) * (size_t)(nv1 + 1));
    if (st.def) rt_free(ctx->mem, st.def, sizeof(int) * (size_t)(nv1 + 1));
    if (st.work) rt_free(ctx->mem, st.work, sizeof(int) * (size_t)(ne1 + 1));
    if (st.old2new) rt_free(ctx->mem, st.old2new, sizeof(int) * (size_t)ne1);
    if (st.dead) rt_free(ctx->mem, st.dead, (size_t)ne1 + 1);
    if (st.neqns) rt_free(c->ir->mem, st.neqns, sizeof(ir_eqn) * (size_t)ne1);
    if (st.ncomp) rt_free(ctx->mem, st.ncomp, sizeof *st.ncomp * (size_t)(n_new ? n_new : 1));
    if (st.nkof) rt_free(ctx->mem, st.nkof, sizeof(int) * (size_t)(nv1 + 1));
    if (st.nks) rt_free(ctx->mem, st.nks, sizeof(kernel) * (size_t)(n_new ? n_new : 1));
    if (is_cand) rt_free(ctx->mem, is_cand, sizeof(int) * (size_t)(r->nv + 1));
    if (map) rt_free(ctx->mem, map, sizeof(int) * (size_t)(r->nv + 1));
    if (list) rt_free(ctx->mem, list, sizeof(int) * (size_t)(ne0 + 1));
    if (sites) rt_free(ctx->mem, sites, sizeof(clone_site) * (size_t)(nk0 + 1));
    return ok ? 0 : core_oom(ctx, "jit: recompute");
}

int fuse_recompute(cj_ctx *ctx, compiled *c) {
    ir_func *ir = c->ir;
    rc r = {.ctx = ctx, .c = c, .nv = ir->n_vars, .ne = ir->n_eqns};
    size_t nv1 = (size_t)ir->n_vars + 1, ne1 = (size_t)ir->n_eqns + 1;
    r.def = rt_alloc(ctx->mem, sizeof(int) * nv1);
    r.eqn_kernel = rt_alloc(ctx->mem, sizeof(int) * ne1);
    r.mark = rt_calloc(ctx->mem, sizeof(int) * ne1);
    int *rd_start = rt_calloc(ctx->mem, sizeof(int) * (nv1 + 1));
    int n_ops = 0;
    for (int e = 0; e < ir->n_eqns; e++) n_ops += ir->eqns[e].n_in;
    int *rd = rt_alloc(ctx->mem, sizeof(int) * (size_t)(n_ops + 1)), *fill = rt_alloc(ctx->mem, sizeof(int) * nv1);
    int n_cand_cap = 0;
    for (int k = 0; k < c->n_kernels; k++) n_cand_cap += c->kernels[k].n_out;
    r.cands = rt_alloc(ctx->mem, sizeof(candidate) * (size_t)(n_cand_cap + 1));
    int status = 0;
    if (!r.def || !r.eqn_kernel || !r.mark || !rd_start || !rd || !fill || !r.cands) {
        status = core_oom(ctx, "jit: recompute");
        goto done;
    }
    for (size_t v = 0; v < nv1; v++) r.def[v] = -1;
    for (int e = 0; e < ir->n_eqns; e++) {
        r.eqn_kernel[e] = -1;
        const ir_eqn *q = &ir->eqns[e];
        for (int j = 0; j < q->n_out; j++) r.def[q->out + j] = e;
    }
    for (int k = 0; k < c->n_kernels; k++)
        for (int j = 0; j < c->kernels[k].n_eqns; j++) r.eqn_kernel[c->kernels[k].eqns[j]] = k;
    /* readers of each variable: a table of equation indices */
    for (int e = 0; e < ir->n_eqns; e++)
        for (int i = 0; i < ir->eqns[e].n_in; i++) rd_start[ir_eqn_inputs(ir, &ir->eqns[e])[i] + 1]++;
    for (size_t v = 0; v < nv1; v++) rd_start[v + 1] += rd_start[v];
    memcpy(fill, rd_start, sizeof(int) * nv1);
    for (int e = 0; e < ir->n_eqns; e++)
        for (int i = 0; i < ir->eqns[e].n_in; i++) rd[fill[ir_eqn_inputs(ir, &ir->eqns[e])[i]]++] = e;
    for (int k = 0; k < c->n_kernels && status == 0; k++) {
        const kernel *P = &c->kernels[k];
        if (P->kind != KERNEL_LOOP && P->kind != KERNEL_ROWS) continue;
        for (int i = 0; i < P->n_out; i++) {
            int chains0 = r.n_chains, roots0 = r.n_roots;
            int t = consider(&r, &r.cands[r.n_cands], P->out[i], k, rd_start, rd);
            if (t < 0) {
                status = -1;
                break;
            }
            if (t > 0) r.n_cands++;
            else r.n_chains = chains0, r.n_roots = roots0; /* what the rejected walk took */
        }
    }
    if (status == 0 && r.n_cands > 0) status = rewrite(&r);
    if (status == 0 && r.n_cands > 0) status = fuse_kernel_boundaries(ctx, c);
done:
    if (r.def) rt_free(ctx->mem, r.def, sizeof(int) * nv1);
    if (r.eqn_kernel) rt_free(ctx->mem, r.eqn_kernel, sizeof(int) * ne1);
    if (r.mark) rt_free(ctx->mem, r.mark, sizeof(int) * ne1);
    if (rd_start) rt_free(ctx->mem, rd_start, sizeof(int) * (nv1 + 1));
    if (rd) rt_free(ctx->mem, rd, sizeof(int) * (size_t)(n_ops + 1));
    if (fill) rt_free(ctx->mem, fill, sizeof(int) * nv1);
    if (r.cands) rt_free(ctx->mem, r.cands, sizeof(candidate) * (size_t)(n_cand_cap + 1));
    if (r.chains) rt_free(ctx->mem, r.chains, sizeof(int) * (size_t)r.cap_chains);
    if (r.roots) rt_free(ctx->mem, r.roots, sizeof(int) * (size_t)r.cap_roots);
    return status;
}
