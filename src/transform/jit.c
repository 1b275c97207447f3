/* jit.c — jax.jit: staging, the trace cache and running programs
 * (transform layer).
 *
 * A jitted function keeps a cache of entries keyed by the types of its
 * inputs (dtype, weak type, shape) and the bytes of its static inputs.
 * A miss traces the wrapped function into IR (func_trace_to_ir), verifies
 * it, and has the backend prepare a program; a hit only runs the program.
 * Called under another trace (a vmap, or an enclosing jit), the cached IR
 * is re-bound equation by equation, so the wrapped function is not called
 * again.
 *
 * The cache is bounded, least recently used first out, as JAX's is: a
 * chained hash table finds an entry by its key's hash in O(1), a doubly
 * linked list keeps them in order of use (the most recent is tried before
 * hashing, the common case of a loop calling with one signature), and a
 * new entry beyond the capacity (CJAX_JIT_CACHE_SIZE, or
 * cj_jit_set_cache_size) evicts the least recently used one, freeing its program and
 * IR. The hashes of recently evicted keys are kept so that a miss on one
 * can say so. Eviction happens only when a miss inserts an entry (or the
 * size is lowered): running or re-binding a cached program calls no user
 * code, so no entry in use can be evicted under its caller. */
#include <stdio.h>
#include <string.h>

#include "../api/api.h"
#include "../backend/backend.h"
#include "../compiler/picture.h"
#include "../compiler/program.h"
#include "../core/func.h"

typedef struct jit_entry {
    uint64_t hash;
    rt_aval *avals;        /* one per input (static ones too) */
    uint8_t *static_bytes; /* the static inputs' type and data, concatenated */
    size_t static_len;
    ir_func *ir;
    program *prog;
    int has_collective; /* the IR holds a collective: it runs through the trace binding its axis */
    struct jit_entry *prev, *next; /* order of use, most recent first */
    struct jit_entry *chain;       /* the next entry in its hash bucket */
} jit_entry;

#define JIT_EVICTED_KEPT 256 /* hashes of evicted keys remembered for explanations */

typedef struct jit_state {
    uint8_t is_static[64], is_donated[64];
    cj_backend backend;
    int capacity;                  /* entries kept at most */
    jit_entry *head, *tail;        /* most and least recently used */
    jit_entry **buckets;           /* n_buckets (a power of two) chains */
    int n_buckets;
    uint64_t *evicted;             /* ring of JIT_EVICTED_KEPT hashes, made at the first eviction */
    int n_evicted;                 /* how many of them are set */
    cj_jit_stats stats;
    char last_miss[512];
    char last_donation[512];
} jit_state;

static int jit_call(cj_func *f, const cj_val *in, cj_val *out);
static void jit_free_state(cj_func *f);
static const func_ops jit_ops = {"jit", jit_call, jit_free_state};

static void entry_free(cj_ctx *ctx, int n_in, jit_entry *e) {
    program_free(ctx, e->prog);
    ir_free(e->ir);
    if (e->avals) rt_free(ctx->mem, e->avals, sizeof(rt_aval) * (size_t)(n_in ? n_in : 1));
    if (e->static_bytes) rt_free(ctx->mem, e->static_bytes, e->static_len);
    rt_free(ctx->mem, e, sizeof *e);
}

/* ---- the cache: hash buckets and the order of use ---- */
static void list_unlink(jit_state *st, jit_entry *e) {
    if (e->prev) e->prev->next = e->next;
    else st->head = e->next;
    if (e->next) e->next->prev = e->prev;
    else st->tail = e->prev;
    e->prev = e->next = NULL;
}

static void list_push_front(jit_state *st, jit_entry *e) {
    e->prev = NULL;
    e->next = st->head;
    if (st->head) st->head->prev = e;
    st->head = e;
    if (!st->tail) st->tail = e;
}

static void bucket_remove(jit_state *st, jit_entry *e) {
    if (!st->buckets) return;
    for (jit_entry **link = &st->buckets[e->hash & (uint64_t)(st->n_buckets - 1)]; *link; link = &(*link)->chain)
        if (*link == e) {
            *link = e->chain;
            break;
        }
    e->chain = NULL;
}

/* Unlinks e from the cache and frees it. */
static void remove_entry(cj_func *f, jit_entry *e) {
    jit_state *st = f->state;
    bucket_remove(st, e);
    list_unlink(st, e);
    entry_free(f->ctx, f->n_in, e);
    st->stats.entries--;
}

/* A table with room for one more entry (one bucket per entry at most).
 * When growing fails the old table stays, with longer chains. */
static int ensure_buckets(cj_func *f) {
    jit_state *st = f->state;
    if (st->buckets && (uint64_t)st->n_buckets > st->stats.entries) return 0;
    int n = st->n_buckets ? 2 * st->n_buckets : 16;
    jit_entry **grown = rt_calloc(f->ctx->mem, sizeof(jit_entry *) * (size_t)n);
    if (!grown) return st->buckets ? 0 : core_oom(f->ctx, f->name);
    if (st->buckets) rt_free(f->ctx->mem, st->buckets, sizeof(jit_entry *) * (size_t)st->n_buckets);
    st->buckets = grown;
    st->n_buckets = n;
    for (jit_entry *e = st->head; e; e = e->next) {
        jit_entry **b = &grown[e->hash & (uint64_t)(n - 1)];
        e->chain = *b;
        *b = e;
    }
    return 0;
}

/* Drops e, remembering its key's hash for explain_miss. */
static void evict_entry(cj_func *f, jit_entry *e) {
    jit_state *st = f->state;
    if (!st->evicted) st->evicted = rt_calloc(f->ctx->mem, sizeof(uint64_t) * JIT_EVICTED_KEPT);
    if (st->evicted) {
        st->evicted[st->stats.evictions % JIT_EVICTED_KEPT] = e->hash;
        if (st->n_evicted < JIT_EVICTED_KEPT) st->n_evicted++;
    }
    st->stats.evictions++;
    remove_entry(f, e);
}

/* Drops least recently used entries until `keep` remain. */
static void evict_down_to(cj_func *f, uint64_t keep) {
    jit_state *st = f->state;
    while (st->tail && st->stats.entries > keep) evict_entry(f, st->tail);
}

static int was_evicted(const jit_state *st, uint64_t hash) {
    for (int i = 0; i < st->n_evicted; i++)
        if (st->evicted[i] == hash) return 1;
    return 0;
}

static void clear_entries(cj_func *f) {
    jit_state *st = f->state;
    for (jit_entry *e = st->head, *next; e; e = next) {
        next = e->next;
        remove_entry(f, e);
    }
    st->n_evicted = 0; /* a later miss is not an eviction's */
}

static void jit_free_state(cj_func *f) {
    jit_state *st = f->state;
    if (!st) return;
    clear_entries(f);
    if (st->buckets) rt_free(f->ctx->mem, st->buckets, sizeof(jit_entry *) * (size_t)st->n_buckets);
    if (st->evicted) rt_free(f->ctx->mem, st->evicted, sizeof(uint64_t) * JIT_EVICTED_KEPT);
    rt_free(f->ctx->mem, st, sizeof(jit_state));
    f->state = NULL;
}

cj_func *cj_jit(cj_func *inner, const cj_jit_opts *opts) {
    if (!func_check(NULL, inner, "cj_jit", "f")) return NULL; /* NULL, freed, or of a freed context */
    cj_ctx *ctx = inner->ctx;
    if (opts && ((opts->n_static > 0 && !opts->static_argnums) || (opts->n_donate > 0 && !opts->donate_argnums)))
        return core_error(ctx, CJ_ERR_ARG, "cj_jit(%s): %s is NULL", inner->name,
                          opts->n_static > 0 && !opts->static_argnums ? "static_argnums" : "donate_argnums"),
               NULL;
    jit_state *st = rt_calloc(ctx->mem, sizeof *st);
    if (!st) {
        core_oom(ctx, "cj_jit");
        return NULL;
    }
    if (opts) {
        for (int i = 0; i < opts->n_static; i++) {
            int a = opts->static_argnums ? opts->static_argnums[i] : -1;
            if (a < 0) a += inner->n_in;
            if (a < 0 || a >= inner->n_in) {
                core_error(ctx, CJ_ERR_ARG, "cj_jit(%s): static_argnums[%d] = %d is out of range for %d inputs",
                           inner->name, i, opts->static_argnums ? opts->static_argnums[i] : -1, inner->n_in);
                rt_free(ctx->mem, st, sizeof *st);
                return NULL;
            }
            st->is_static[a] = 1;
        }
        for (int i = 0; i < opts->n_donate; i++) {
            int a = opts->donate_argnums ? opts->donate_argnums[i] : -1;
            if (a < 0) a += inner->n_in;
            if (a < 0 || a >= inner->n_in || st->is_static[a]) {
                core_error(ctx, CJ_ERR_ARG, "cj_jit(%s): donate_argnums[%d] is out of range or static",
                           inner->name, i);
                rt_free(ctx->mem, st, sizeof *st);
                return NULL;
            }
            st->is_donated[a] = 1;
        }
        st->backend = opts->backend;
    }
    st->capacity = rt_config_get()->jit_cache_size;
    char name[256];
    snprintf(name, sizeof name, "jit(%s)", inner->name);
    cj_func *f = func_new(ctx, name, &jit_ops, inner->n_in, inner->n_out);
    if (!f) {
        rt_free(ctx->mem, st, sizeof *st);
        return NULL;
    }
    f->inner = func_retain(inner);
    f->state = st;
    return f;
}

/* ---- keys ---- */
static uint64_t fnv(uint64_t h, const void *data, size_t n) {
    const uint8_t *p = data;
    for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

static uint64_t aval_hash(uint64_t h, const rt_aval *a) {
    int32_t head[3] = {(int32_t)a->dtype, a->weak ? 1 : 0, a->rank};
    h = fnv(h, head, sizeof head);
    return fnv(h, a->dims, sizeof(int64_t) * (size_t)a->rank);
}

/* The static inputs' bytes: type header then data, for each in order. */
static size_t static_key_len(cj_func *f, core_value *const *vals) {
    jit_state *st = f->state;
    size_t n = 0;
    for (int i = 0; i < f->n_in; i++)
        if (st->is_static[i]) n += sizeof(rt_aval) + rt_aval_nbytes(&vals[i]->aval);
    return n;
}

static void static_key_write(cj_func *f, core_value *const *vals, uint8_t *dst) {
    jit_state *st = f->state;
    for (int i = 0; i < f->n_in; i++) {
        if (!st->is_static[i]) continue;
        rt_aval a = rt_aval_make(vals[i]->aval.dtype, vals[i]->aval.rank, vals[i]->aval.dims);
        a.weak = vals[i]->aval.weak;
        memcpy(dst, &a, sizeof a);
        dst += sizeof a;
        size_t nb = rt_aval_nbytes(&a);
        memcpy(dst, vals[i]->arr->data, nb);
        dst += nb;
    }
}

/* The axis environment a trace sees (every named axis bound now, with
 * its size) is part of the key, as in JAX: a collective's result type
 * depends on its axis's size, and an unbound name fails the trace. */
static size_t env_key_len(const cj_ctx *ctx) {
    size_t n = 0;
    for (int l = 1; l < ctx->n_traces; l++) n += (size_t)ctx->traces[l]->n_axes * 2 * sizeof(int64_t);
    return n;
}

static void env_key_write(const cj_ctx *ctx, uint8_t *dst) {
    for (int l = 1; l < ctx->n_traces; l++)
        for (int a = 0; a < ctx->traces[l]->n_axes; a++) {
            int64_t pair[2] = {ctx->traces[l]->axis_name[a], ctx->traces[l]->axis_size[a]};
            memcpy(dst, pair, sizeof pair);
            dst += sizeof pair;
        }
}

static int entry_matches(cj_func *f, const jit_entry *e, uint64_t hash, core_value *const *vals,
                         const uint8_t *skey, size_t slen) {
    if (e->hash != hash || e->static_len != slen) return 0;
    for (int i = 0; i < f->n_in; i++)
        if (!rt_aval_equal(&e->avals[i], &vals[i]->aval)) return 0;
    return slen == 0 || memcmp(e->static_bytes, skey, slen) == 0;
}

/* How much two input types differ: one point each for shape, dtype, weak. */
static int aval_distance(const rt_aval *a, const rt_aval *b) {
    return !rt_aval_same_shape(a, b) + (a->dtype != b->dtype) + (!a->weak != !b->weak);
}

/* Describes how the call's key differs from the closest cached entry. */
static void explain_miss(cj_func *f, core_value *const *vals, uint64_t hash) {
    jit_state *st = f->state;
    const jit_entry *best = NULL;
    int best_diff = 1 << 30;
    for (const jit_entry *e = st->head; e; e = e->next) {
        int d = 0;
        for (int i = 0; i < f->n_in; i++) d += aval_distance(&e->avals[i], &vals[i]->aval);
        if (d < best_diff) {
            best_diff = d;
            best = e;
        }
    }
    char *m = st->last_miss;
    size_t cap = sizeof st->last_miss, len = 0;
    if (was_evicted(st, hash)) {
        snprintf(m, cap, "%s: an entry for these types was evicted (cache size %d)", f->name, st->capacity);
    } else if (!best) {
        snprintf(m, cap, "%s: first call, nothing cached yet", f->name);
    } else {
        len = (size_t)snprintf(m, cap, "%s:", f->name);
        int listed = 0;
        for (int i = 0; i < f->n_in && len < cap; i++) {
            const rt_aval *a = &best->avals[i], *b = &vals[i]->aval;
            if (rt_aval_equal(a, b)) continue;
            char ta[96], tb[96], what[40] = "";
            rt_aval_str(a, ta, sizeof ta);
            rt_aval_str(b, tb, sizeof tb);
            if (!rt_aval_same_shape(a, b)) strcat(what, "shape");
            if (a->dtype != b->dtype) strcat(what, what[0] ? " and dtype" : "dtype");
            if (!a->weak != !b->weak) strcat(what, what[0] ? " and weak type" : "weak type");
            len += (size_t)snprintf(m + len, cap - len, "%s argument %d %s %s%s → %s%s", listed ? ";" : "", i,
                                    what, ta, a->weak ? "(weak)" : "", tb, b->weak ? "(weak)" : "");
            listed++;
        }
        if (!listed && len < cap) {
            /* types equal: a static value differs */
            for (int i = 0; i < f->n_in; i++) {
                if (!st->is_static[i]) continue;
                if (len >= cap) break;
                double now = rt_get_f64(vals[i]->aval.dtype, vals[i]->arr->data, 0);
                if (vals[i]->arr->size == 1)
                    len += (size_t)snprintf(m + len, cap - len, " static argument %d has a new value (%g)", i, now);
                else
                    len += (size_t)snprintf(m + len, cap - len, " static argument %d has new contents", i);
                break;
            }
        }
    }
    if (rt_config_get()->explain_cache_misses) fprintf(stderr, "cjax: cache miss: %s\n", m);
}

static jit_entry *make_entry(cj_func *f, uint64_t hash, core_value *const *vals, const cj_val *in,
                             const uint8_t *skey, size_t slen) {
    cj_ctx *ctx = f->ctx;
    jit_state *st = f->state;
    uint8_t donated[64] = {0};
    int n_ir_in = 0, any_donated = 0;
    for (int i = 0; i < f->n_in; i++) {
        if (st->is_static[i]) continue;
        donated[n_ir_in++] = st->is_donated[i];
        any_donated |= st->is_donated[i];
    }
    jit_entry *e = rt_calloc(ctx->mem, sizeof *e);
    if (!e) {
        core_oom(ctx, f->name);
        return NULL;
    }
    e->hash = hash;
    e->avals = rt_alloc(ctx->mem, sizeof(rt_aval) * (size_t)(f->n_in ? f->n_in : 1));
    e->static_len = slen;
    e->static_bytes = slen ? rt_alloc(ctx->mem, slen) : NULL;
    if (!e->avals || (slen && !e->static_bytes)) {
        core_oom(ctx, f->name);
        entry_free(ctx, f->n_in, e);
        return NULL;
    }
    for (int i = 0; i < f->n_in; i++) e->avals[i] = vals[i]->aval;
    if (slen) memcpy(e->static_bytes, skey, slen);

    cj_val statics[64];
    for (int i = 0; i < f->n_in; i++) statics[i] = st->is_static[i] ? in[i] : core_err_val(NULL);
    char what[300];
    snprintf(what, sizeof what, "%s", f->name);
    e->ir = func_trace_to_ir(f->inner, e->avals, statics, what);
    st->stats.traces++;
    if (!e->ir || ir_verify(ctx, e->ir) != 0) {
        entry_free(ctx, f->n_in, e);
        return NULL;
    }
    /* A collective staged here (the jit runs inside the vmap binding its
     * axis) means what that vmap makes of it: the entry's IR is evaluated
     * through the traces (jit_call) and never compiled alone. */
    for (int k = 0; k < e->ir->n_eqns; k++) e->has_collective |= prim_rules[e->ir->eqns[k].prim].collective;
    if (e->has_collective) return e;
    if (!(e->prog = backend_prepare(ctx, e->ir, st->backend, any_donated ? donated : NULL))) {
        entry_free(ctx, f->n_in, e);
        return NULL;
    }
    compiler_dump_pictures(ctx, program_compiled(e->prog), f->name); /* CJAX_DUMP=svg,dot */
    return e;
}

/* Finds (or traces and prepares) the cache entry for these inputs. vals
 * receives the inputs' values; *all_concrete whether the call can run the
 * program on arrays. NULL with the error recorded. */
static jit_entry *jit_lookup(cj_func *f, const cj_val *in, core_value **vals, int *all_concrete) {
    cj_ctx *ctx = f->ctx;
    jit_state *st = f->state;
    *all_concrete = ctx->dynamic_level == 0;
    for (int i = 0; i < f->n_in; i++) {
        vals[i] = core_peek(in[i]); /* validated by cj_call */
        if (vals[i]->kind != VALUE_ARRAY) {
            if (st->is_static[i]) {
                core_error(ctx, CJ_ERR_CONCRETIZATION,
                           "%s: static argument %d is a traced value; static arguments must be "
                           "concrete arrays known when the function is called",
                           f->name, i);
                return NULL;
            }
            *all_concrete = 0;
        }
    }
    uint8_t skey_small[256], *skey = skey_small;
    size_t vlen = static_key_len(f, vals), slen = vlen + env_key_len(ctx);
    if (slen > sizeof skey_small && !(skey = rt_alloc(ctx->mem, slen))) {
        core_oom(ctx, f->name);
        return NULL;
    }
    static_key_write(f, vals, skey);
    env_key_write(ctx, skey + vlen);
    uint64_t hash = 0xcbf29ce484222325ull;
    for (int i = 0; i < f->n_in; i++) hash = aval_hash(hash, &vals[i]->aval);
    hash = fnv(hash, skey, slen);

    /* the most recent entry first (a loop calling with one signature),
     * then the key's bucket */
    jit_entry *e = st->head;
    if (e && !entry_matches(f, e, hash, vals, skey, slen)) {
        e = NULL;
        if (st->buckets)
            for (jit_entry *c = st->buckets[hash & (uint64_t)(st->n_buckets - 1)]; c; c = c->chain)
                if (entry_matches(f, c, hash, vals, skey, slen)) {
                    e = c;
                    break;
                }
    }
    if (e) {
        st->stats.hits++;
        if (e != st->head) {
            list_unlink(st, e);
            list_push_front(st, e);
        }
    } else {
        st->stats.misses++;
        explain_miss(f, vals, hash);
        e = make_entry(f, hash, vals, in, skey, slen);
        if (e) {
            evict_down_to(f, (uint64_t)st->capacity - 1);
            if (ensure_buckets(f) != 0) {
                entry_free(ctx, f->n_in, e);
                e = NULL;
            } else {
                jit_entry **b = &st->buckets[hash & (uint64_t)(st->n_buckets - 1)];
                e->chain = *b;
                *b = e;
                list_push_front(st, e);
                st->stats.entries++;
            }
        }
    }
    if (skey != skey_small) rt_free(ctx->mem, skey, slen);
    return e;
}

/* After a run: donated inputs whose buffers became outputs are consumed
 * (their handles stale, as JAX deletes donated arrays); the outcome of
 * every requested donation is kept for cj_jit_last_donation. */
static void note_donations(cj_func *f, jit_entry *e, const cj_val *in, const int *arg_of, int n_dyn,
                           const uint8_t *used, int into) {
    jit_state *st = f->state;
    char *m = st->last_donation;
    size_t cap = sizeof st->last_donation, len = 0;
    m[0] = 0;
    for (int d = 0; d < n_dyn; d++) {
        int i = arg_of[d];
        if (!st->is_donated[i] || len >= cap) continue;
        if (used[d]) {
            len += (size_t)snprintf(m + len, cap - len, "%sargument %d donated: its buffer holds an output",
                                    len ? "; " : "", i);
            core_value *v = core_peek(in[i]);
            if (v) {
                core_release(f->ctx, in[i].slot);
                core_slot(f->ctx, in[i].slot)->was_donated = 1;
            }
        } else {
            const char *why = program_compiled(e->prog)->donation_note;
            core_value *v = core_peek(in[i]);
            if (v && v->kind == VALUE_ARRAY && v->arr->borrowed)
                why = "the array is borrowed: cjax never writes the caller's memory";
            else if (into)
                why = "cj_call_into writes every output into the caller's buffer";
            else if (!why[0])
                why = "the array is shared with another value or argument";
            len += (size_t)snprintf(m + len, cap - len, "%sargument %d donated but not used (%s)", len ? "; " : "",
                                    i, why);
        }
    }
}

static int jit_call(cj_func *f, const cj_val *in, cj_val *out) {
    cj_ctx *ctx = f->ctx;
    jit_state *st = f->state;
    core_value *vals[64];
    int all_concrete;
    jit_entry *e = jit_lookup(f, in, vals, &all_concrete);
    if (!e) return -1;
    int n_dyn = 0;
    if (all_concrete && !e->has_collective) {
        rt_array *args[64], *res[64];
        int arg_of[64]; /* IR input position → argument number */
        for (int i = 0; i < f->n_in; i++)
            if (!st->is_static[i]) {
                arg_of[n_dyn] = i;
                args[n_dyn++] = vals[i]->arr;
            }
        uint8_t used[64] = {0};
        if (program_run(ctx, e->prog, args, res, used) != 0) return -1;
        for (int i = 0; i < f->n_out; i++) out[i] = core_wrap_array(ctx, res[i]);
        note_donations(f, e, in, arg_of, n_dyn, used, 0);
        return ctx->err ? -1 : 0;
    }
    cj_val args[64];
    for (int i = 0; i < f->n_in; i++)
        if (!st->is_static[i]) args[n_dyn++] = in[i];
    return ir_eval_values(ctx, e->ir, args, out);
}

/* e, or NULL with the error when it has no compiled program (it holds a
 * collective over an axis an enclosing vmap binds). */
static jit_entry *no_program(cj_func *f, jit_entry *e, const char *op) {
    if (!e || e->prog) return e;
    core_error(f->ctx, CJ_ERR_UNSUPPORTED,
               "%s(%s): the program holds collectives over an axis an enclosing vmap binds; it runs through that "
               "vmap and has no compiled form of its own (jit the vmapped function instead)",
               op, f->name);
    return NULL;
}

/* cj_call_into: each buffer against its output's type, before anything
 * runs. 0 or -1 recorded. */
static int check_out_buffers(cj_func *f, const ir_func *ir, const cj_out_buffer *out) {
    cj_ctx *ctx = f->ctx;
    for (int i = 0; i < ir->n_out; i++) {
        const rt_aval *a = &ir->vars[ir->out[i]];
        char want[96], got[96], what[64];
        rt_aval_str(a, want, sizeof want);
        const cj_out_buffer *b = &out[i];
        if (!rt_dtype_valid((int)b->dtype) || b->rank < 0 || b->rank > CJ_MAX_RANK || (b->rank && !b->dims))
            return core_error(ctx, CJ_ERR_ARG,
                              "cj_call_into(%s): output %d's buffer has an invalid type (dtype %d, rank %d%s); "
                              "the output is %s",
                              f->name, i, (int)b->dtype, b->rank, b->rank && !b->dims ? ", dims NULL" : "", want);
        rt_aval g = rt_aval_make(b->dtype, b->rank, b->dims);
        rt_aval_str(&g, got, sizeof got);
        if (g.dtype != a->dtype)
            return core_error(ctx, CJ_ERR_DTYPE, "cj_call_into(%s): output %d is %s, its buffer is described as %s",
                              f->name, i, want, got);
        if (!rt_aval_same_shape(&g, a))
            return core_error(ctx, CJ_ERR_SHAPE, "cj_call_into(%s): output %d is %s, its buffer is described as %s",
                              f->name, i, want, got);
        snprintf(what, sizeof what, "output %d's buffer", i);
        char op[160];
        snprintf(op, sizeof op, "cj_call_into(%s)", f->name);
        if (api_check_buffer(ctx, op, what, a, b->data, b->size) != 0) return -1;
    }
    return 0;
}

static cj_status call_into_held(cj_func *f, const cj_val *in, const cj_out_buffer *out) {
    cj_ctx *ctx = f->ctx;
    if (ctx->err) return ctx->err;
    if (f->ops != &jit_ops) {
        core_error(ctx, CJ_ERR_ARG, "cj_call_into: '%s' is not a jitted function (wrap it with cj_jit)", f->name);
        return ctx->err;
    }
    if ((f->n_in && !in) || (f->n_out && !out)) {
        core_error(ctx, CJ_ERR_ARG, "cj_call_into(%s): %s is NULL", f->name, !out && f->n_out ? "out" : "in");
        return ctx->err;
    }
    for (int i = 0; i < f->n_in; i++) {
        if (in[i].ctx != ctx) {
            core_error(ctx, CJ_ERR_ARG, "cj_call_into(%s): input %d %s", f->name, i,
                       in[i].ctx ? "belongs to another context" : "is an error value without a context");
            return ctx->err;
        }
        core_value *v = core_get(in[i], "cj_call_into");
        if (!v) return ctx->err;
        if (v->kind != VALUE_ARRAY || ctx->dynamic_level != 0) {
            core_error(ctx, CJ_ERR_CONCRETIZATION,
                       "cj_call_into(%s): input %d is a traced value; writing into caller buffers needs concrete "
                       "inputs (call it outside any trace)",
                       f->name, i);
            return ctx->err;
        }
    }
    jit_state *st = f->state;
    core_value *vals[64];
    int all_concrete;
    jit_entry *e = no_program(f, jit_lookup(f, in, vals, &all_concrete), "cj_call_into");
    if (!e) return ctx->err;
    if (check_out_buffers(f, e->ir, out) != 0) return ctx->err;
    rt_array *args[64], *res[64];
    void *into[64];
    int arg_of[64], n_dyn = 0;
    for (int i = 0; i < f->n_in; i++)
        if (!st->is_static[i]) {
            arg_of[n_dyn] = i;
            args[n_dyn++] = vals[i]->arr;
        }
    for (int i = 0; i < f->n_out; i++) into[i] = out[i].data;
    uint8_t used[64] = {0};
    if (program_run_into(ctx, e->prog, args, res, used, into) != 0) return ctx->err ? ctx->err : CJ_ERR_INTERNAL;
    for (int i = 0; i < f->n_out; i++) {
        size_t n = rt_aval_nbytes(&res[i]->aval);
        if (res[i]->data == out[i].data) {
            st->stats.into_direct++;
        } else {
            if (n) memcpy(out[i].data, res[i]->data, n);
            st->stats.into_copied++;
        }
        rt_array_unref(res[i]);
    }
    note_donations(f, e, in, arg_of, n_dyn, used, 1);
    return ctx->err;
}

cj_status cj_call_into(cj_func *f, const cj_val *in, const cj_out_buffer *out) {
    if (!func_check(NULL, f, "cj_call_into", "f")) return CJ_ERR_ARG;
    if (core_enter(f->ctx, "cj_call_into") != 0) return CJ_ERR_ARG;
    cj_status s = call_into_held(f, in, out);
    core_leave(f->ctx);
    return s;
}

/* The cache entry for a jitted function and example inputs (traced and
 * compiled now if it was not cached), after the checks every analysis
 * entry point shares: f is a jitted function, `in` is given when f has
 * inputs (a function of no inputs may pass NULL) and holds values of f's
 * context, and the result pointer `out` (named out_name; none when
 * out_name is NULL) is given. NULL with the error recorded (with f NULL
 * there is no context to record it in: the caller returns CJ_ERR_ARG). */
static jit_entry *entry_for(cj_func *f, const cj_val *in, const void *out, const char *out_name, const char *op) {
    if (!func_check(NULL, f, op, "f")) return NULL; /* NULL, freed, or of a freed context */
    cj_ctx *ctx = f->ctx;
    if (ctx->err) return NULL;
    if (f->ops != &jit_ops) {
        core_error(ctx, CJ_ERR_ARG, "%s: '%s' is not a jitted function (wrap it with cj_jit)", op, f->name);
        return NULL;
    }
    if (!in && f->n_in > 0) {
        core_error(ctx, CJ_ERR_ARG, "%s(%s): in is NULL, the function has %d input%s", op, f->name, f->n_in,
                   f->n_in == 1 ? "" : "s");
        return NULL;
    }
    if (out_name && !out) {
        core_error(ctx, CJ_ERR_ARG, "%s(%s): %s is NULL", op, f->name, out_name);
        return NULL;
    }
    for (int i = 0; i < f->n_in; i++) {
        if (in[i].ctx && in[i].ctx != ctx) {
            core_error(ctx, CJ_ERR_ARG, "%s(%s): input %d belongs to another context", op, f->name, i);
            return NULL;
        }
        if (!core_get(in[i], op)) return NULL;
    }
    core_value *vals[64];
    int all_concrete;
    return no_program(f, jit_lookup(f, in, vals, &all_concrete), op);
}

static const compiled *compiled_for(cj_func *f, const cj_val *in, const void *out, const char *out_name,
                                    const char *op) {
    jit_entry *e = entry_for(f, in, out, out_name, op);
    return e ? program_compiled(e->prog) : NULL;
}

cj_status cj_jit_memory_analysis(cj_func *f, const cj_val *in, cj_memory_analysis *out) {
    jit_entry *e = entry_for(f, in, out, "out", "cj_jit_memory_analysis");
    if (!e) return f ? f->ctx->err : CJ_ERR_ARG;
    const compiled *c = program_compiled(e->prog);
    cj_program_info info;
    memset(&info, 0, sizeof info);
    program_backend_info(e->prog, &info);
    out->argument_bytes = c->mem.argument_bytes;
    out->output_bytes = c->mem.output_bytes;
    out->temp_bytes = c->mem.temp_bytes;
    out->alias_bytes = c->mem.alias_bytes;
    /* known once the generated C is built (0 before, and on the interpreter) */
    out->generated_code_bytes = info.code_bytes;
    out->constant_bytes = c->mem.constant_bytes;
    out->peak_bytes = c->mem.peak_bytes;
    return CJ_OK;
}

cj_status cj_jit_cost_analysis(cj_func *f, const cj_val *in, cj_cost_analysis *out) {
    const compiled *c = compiled_for(f, in, out, "out", "cj_jit_cost_analysis");
    if (!c) return f ? f->ctx->err : CJ_ERR_ARG;
    out->flops = c->cost.flops;
    out->transcendentals = c->cost.transcendentals;
    out->bytes_accessed = c->cost.bytes_accessed;
    return CJ_OK;
}

cj_status cj_jit_program_info(cj_func *f, const cj_val *in, cj_program_info *out) {
    jit_entry *e = entry_for(f, in, out, "out", "cj_jit_program_info");
    if (!e) return f ? f->ctx->err : CJ_ERR_ARG;
    const compiled *c = program_compiled(e->prog);
    memset(out, 0, sizeof *out);
    out->n_kernels = c->n_kernels;
    for (int k = 0; k < c->n_kernels; k++) out->n_fused_kernels += c->kernels[k].kind != KERNEL_SINGLE;
    out->n_equations = c->ir->n_eqns;
    program_backend_info(e->prog, out);
    return CJ_OK;
}

/* Does the comma list `what` name `item`? */
static bool names(const char *what, const char *item) {
    size_t n = strlen(item);
    for (const char *p = what; p && *p;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (len == n && !strncmp(p, item, n)) return true;
        p = comma ? comma + 1 : NULL;
    }
    return false;
}

/* The dumps cj_jit_dump knows, for its message about one it does not. */
static const char *const dump_names[] = {"simplify", "fuse", "schedule", "plan", "c"};

/* Checks that every item of the comma list names a dump; 0, or -1 with
 * the error recorded. */
static int check_dump_names(cj_func *f, const char *what) {
    for (const char *p = what;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        int known = 0;
        for (size_t k = 0; k < sizeof dump_names / sizeof dump_names[0]; k++)
            known |= strlen(dump_names[k]) == len && !strncmp(p, dump_names[k], len);
        if (!known)
            return core_error(f->ctx, CJ_ERR_ARG,
                              "cj_jit_dump(%s): no dump named '%.*s' in \"%.200s\" (the dumps are simplify, fuse, "
                              "schedule, plan, c; NULL for all)",
                              f->name, (int)(len < 64 ? len : 64), p, what);
        if (!comma) return 0;
        p = comma + 1;
    }
}

char *cj_jit_dump(cj_func *f, const cj_val *in, const char *what) {
    if (!f || f->ctx->err) return NULL;
    if (what && check_dump_names(f, what) != 0) return NULL;
    jit_entry *e = entry_for(f, in, NULL, NULL, "cj_jit_dump");
    if (!e) return NULL;
    const compiled *c = program_compiled(e->prog);
    cj_ctx *ctx = f->ctx;
    strbuf sb;
    sb_init(&sb, ctx->mem);
    if (!what || names(what, "simplify")) ir_print(c->ir, &sb);
    if (!what || names(what, "fuse") || names(what, "schedule") || names(what, "plan"))
        compiled_dump(c, what ? what : "fuse,plan", &sb);
    if (!what || names(what, "c")) {
        const char *src = program_source(e->prog);
        if (!src) sb_printf(&sb, "(no generated C: this program runs on the interpreter)\n");
        else sb_printf(&sb, "%s", src);
    }
    char *s = !sb.failed && sb.data ? rt_strdup(ctx->mem, sb.data) : NULL;
    sb_free(&sb);
    if (!s) core_oom(ctx, "cj_jit_dump");
    return s;
}

/* The pictures: the function's name titles them (picture.h). */
static cj_status write_picture(cj_func *f, const cj_val *in, const char *path, picture_fn draw, const char *op) {
    const compiled *c = compiled_for(f, in, path, "path", op);
    if (!c) return f ? f->ctx->err : CJ_ERR_ARG;
    return picture_write(f->ctx, draw, c, f->name, path, op) == 0 ? CJ_OK : f->ctx->err;
}

cj_status cj_jit_memory_svg(cj_func *f, const cj_val *in, const char *path) {
    return write_picture(f, in, path, picture_svg_text, "cj_jit_memory_svg");
}

cj_status cj_jit_program_dot(cj_func *f, const cj_val *in, const char *path) {
    return write_picture(f, in, path, picture_dot_text, "cj_jit_program_dot");
}

void cj_jit_stats_get(const cj_func *f, cj_jit_stats *out) {
    if (!func_check(NULL, (cj_func *)f, "cj_jit_stats_get", "jitted")) {
        if (out) memset(out, 0, sizeof *out);
        return;
    }
    if (!out) {
        core_error(f->ctx, CJ_ERR_ARG, "cj_jit_stats_get: out is NULL");
        return;
    }
    memset(out, 0, sizeof *out);
    if (f->ops == &jit_ops) *out = ((const jit_state *)f->state)->stats;
}

const char *cj_jit_last_miss(const cj_func *f) {
    if (!f || !func_check(NULL, (cj_func *)f, "cj_jit_last_miss", "jitted") || f->ops != &jit_ops) return "";
    return ((const jit_state *)f->state)->last_miss;
}

const char *cj_jit_last_donation(const cj_func *f) {
    if (!f || !func_check(NULL, (cj_func *)f, "cj_jit_last_donation", "jitted") || f->ops != &jit_ops) return "";
    return ((const jit_state *)f->state)->last_donation;
}

cj_status cj_jit_set_cache_size(cj_func *f, int size) {
    if (!func_check(NULL, f, "cj_jit_set_cache_size", "jitted")) return CJ_ERR_ARG;
    if (f->ops != &jit_ops || size < 0) {
        core_error(f->ctx, CJ_ERR_ARG, "cj_jit_set_cache_size(%s): %s", f->name,
                   f->ops != &jit_ops ? "not a jitted function (wrap it with cj_jit)"
                                      : "the size must be >= 0 (0: CJAX_JIT_CACHE_SIZE's)");
        return f->ctx->err;
    }
    jit_state *st = f->state;
    st->capacity = size ? size : rt_config_get()->jit_cache_size;
    evict_down_to(f, (uint64_t)st->capacity);
    return CJ_OK;
}

void cj_jit_clear(cj_func *f) {
    if (f && func_check(NULL, f, "cj_jit_clear", "jitted") && f->ops == &jit_ops) clear_entries(f);
}

void cj_clear_caches(cj_ctx *ctx) {
    if (!ctx) return;
    for (cj_func *f = ctx->funcs; f; f = f->next) cj_jit_clear(f);
}
