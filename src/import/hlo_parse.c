/* hlo_parse.c — MLIR text into the importer's tree (import layer).
 *
 * Reads a module of func.func ops whose bodies hold StableHLO / chlo ops,
 * written in MLIR's generic op form ("stablehlo.add"(%a, %b) : (...) ->
 * ...) or in the pretty form of JAX's Lowered.as_text() (hlo_pretty.c
 * reads the pretty spellings of the ops; this file the module, functions,
 * regions, attributes and types both forms share). The grammar is MLIR's:
 * an op's results, name, operands, properties <{...}>, regions ({ ^bb(..):
 * ops }), attributes {...} and its function type; locations loc(...) and
 * #loc aliases are read and dropped. Hostile text is bounded: nesting
 * deeper than HLO_MAX_DEPTH, a name used before it is defined, a tensor
 * of an unknown rank, or any token out of place is an error naming the
 * line and column; the arena is freed on every path. */
#include "import/hlo_parse_impl.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the arena ---- */
struct hlo_arena_block {
    hlo_arena_block *next;
    size_t size, used;
    _Alignas(16) unsigned char data[];
};

void *hp_alloc(hp *P, size_t n) {
    n = (n + 15) & ~(size_t)15;
    hlo_arena_block *b = P->m->blocks;
    if (!b || b->size - b->used < n) {
        size_t sz = n > 65536 ? n : 65536;
        b = rt_alloc(P->m->mem, sizeof *b + sz);
        if (!b) {
            hp_fail(P, P->cur.line, P->cur.col, "out of memory reading the module");
            return NULL;
        }
        b->next = P->m->blocks, b->size = sz, b->used = 0;
        P->m->blocks = b;
        P->m->bytes += sizeof *b + sz;
    }
    void *p = b->data + b->used;
    b->used += n;
    memset(p, 0, n);
    return p;
}

void hlo_module_free(hlo_module *m) {
    if (!m) return;
    rt_mem *mem = m->mem;
    for (hlo_arena_block *b = m->blocks, *n; b; b = n) {
        n = b->next;
        rt_free(mem, b, sizeof *b + b->size);
    }
    rt_free(mem, m, sizeof *m);
}

int hp_fail(hp *P, int line, int col, const char *fmt, ...) {
    if (P->failed) return -1;
    P->failed = 1;
    int k = snprintf(P->err, P->err_size, "line %d, column %d: ", line, col);
    if (k < 0) k = 0;
    if ((size_t)k < P->err_size) {
        char msg[512];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        /* inside an op, the message names it (unless it does already) */
        if (P->op_name && !strstr(msg, P->op_name))
            snprintf(P->err + k, P->err_size - (size_t)k, "%s: %s", P->op_name, msg);
        else
            snprintf(P->err + k, P->err_size - (size_t)k, "%s", msg);
    }
    return -1;
}

/* ---- tokens ---- */
void hp_next(hp *P) {
    P->cur = hlo_lex_next(&P->lx);
    if (P->cur.kind == TK_ERR) hp_fail(P, P->cur.line, P->cur.col, "unexpected character '%c'", *P->cur.p);
}
int hp_is(hp *P, const char *s) { return !P->failed && hlo_tok_is(&P->cur, s); }
int hp_accept(hp *P, const char *s) {
    if (!hp_is(P, s)) return 0;
    hp_next(P);
    return 1;
}
int hp_expect(hp *P, const char *s, const char *where) {
    if (P->failed) return -1;
    if (hp_accept(P, s)) return 0;
    return hp_fail(P, P->cur.line, P->cur.col, "expected '%s' %s, found '%.*s'", s, where,
                   P->cur.kind == TK_EOF ? 3 : (int)(P->cur.n > 40 ? 40 : P->cur.n),
                   P->cur.kind == TK_EOF ? "end" : P->cur.p);
}
const char *hp_strdup(hp *P, const char *s, size_t n) {
    char *d = hp_alloc(P, n + 1);
    if (d) memcpy(d, s, n), d[n] = 0;
    return d;
}

/* ---- names ---- */
static uint32_t hash_name(const char *s, size_t n) {
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < n; i++) h = (h ^ (unsigned char)s[i]) * 16777619u;
    return h;
}

int hp_define(hp *P, const hlo_tok *t, int count) {
    if (P->n_names == P->cap_names) {
        int cap = P->cap_names ? P->cap_names * 2 : 256;
        hp_name *nn = rt_alloc(P->m->mem, (size_t)cap * sizeof *nn);
        if (!nn) return hp_fail(P, t->line, t->col, "out of memory reading the module");
        if (P->names) hlo_copy(nn, P->names, (size_t)P->n_names * sizeof *nn),
                      rt_free(P->m->mem, P->names, (size_t)P->cap_names * sizeof *nn);
        P->names = nn, P->cap_names = cap;
    }
    if (P->next_id > (1 << 24) - count) return hp_fail(P, t->line, t->col, "too many values");
    hp_name *e = &P->names[P->n_names++];
    e->p = t->p, e->n = t->n, e->h = hash_name(t->p, t->n), e->id = P->next_id, e->count = count;
    P->next_id += count;
    return e->id;
}

int hp_lookup(hp *P, const hlo_tok *t) {
    size_t n = t->n;
    const char *hash = memchr(t->p, '#', n);
    long idx = 0;
    if (hash) {
        n = (size_t)(hash - t->p);
        char *end;
        errno = 0;
        idx = strtol(hash + 1, &end, 10);
        if (end == hash + 1 || end != t->p + t->n || errno || idx < 0)
            return hp_fail(P, t->line, t->col, "bad result number in '%.*s'", (int)t->n, t->p);
    }
    uint32_t h = hash_name(t->p, n);
    for (int i = P->n_names - 1; i >= P->scope_floor; i--) {
        hp_name *e = &P->names[i];
        if (e->h == h && e->n == n && memcmp(e->p, t->p, n) == 0) {
            if (idx >= e->count)
                return hp_fail(P, t->line, t->col, "'%.*s' names result %ld of %d", (int)t->n, t->p, idx, e->count);
            return e->id + (int)idx;
        }
    }
    return hp_fail(P, t->line, t->col, "'%.*s' is used before it is defined", (int)(t->n > 40 ? 40 : t->n), t->p);
}

/* ---- types ---- */
static int elem_type(const char *p, size_t n, hlo_type *t) {
    static const struct {
        const char *s;
        cj_dtype dt;
    } map[] = {{"i1", CJ_BOOL}, {"i8", CJ_I8},   {"i16", CJ_I16},  {"i32", CJ_I32},   {"i64", CJ_I64},
               {"ui8", CJ_U8},  {"ui16", CJ_U16}, {"ui32", CJ_U32}, {"ui64", CJ_U64}, {"f16", CJ_F16},
               {"bf16", CJ_BF16}, {"f32", CJ_F32}, {"f64", CJ_F64}, {"si32", CJ_I32}, {"si64", CJ_I64}};
    for (size_t i = 0; i < sizeof map / sizeof map[0]; i++)
        if (strlen(map[i].s) == n && memcmp(map[i].s, p, n) == 0) {
            t->dt = map[i].dt, t->known_dt = 1;
            return 1;
        }
    return 0;
}

/* Skips balanced <...> from the lexer's position (just after a '<' the
 * caller has read): '>' of an arrow "->" does not close, strings are
 * skipped whole. Returns the text inside, without the closing '>'. */
int hp_skip_angle(hp *P, const char **start, size_t *len) {
    hlo_lexer *lx = &P->lx;
    int depth = 1, line = lx->line, col = lx->col;
    *start = lx->s;
    while (lx->s < lx->end) {
        char c = *lx->s;
        if (c == '"') {
            hlo_tok s = hlo_lex_next(lx);
            if (s.kind != TK_STR) break;
            continue;
        }
        if (c == '<') depth++;
        else if (c == '>' && !(lx->s > *start && lx->s[-1] == '-')) {
            if (--depth == 0) {
                *len = (size_t)(lx->s - *start);
                lx->s++, lx->col++;
                return 0;
            }
        }
        if (c == '\n') lx->line++, lx->col = 1;
        else lx->col++;
        lx->s++;
    }
    return hp_fail(P, line, col, "unterminated '<'");
}

/* tensor<2x3xf32> from the raw text after "tensor" (the lexer sits on '<'). */
static int tensor_type(hp *P, hlo_type *t) {
    int line = P->cur.line, col = P->cur.col;
    hlo_lexer *lx = &P->lx;
    if (lx->s >= lx->end || *lx->s != '<') return hp_fail(P, line, col, "expected '<' after tensor");
    lx->s++, lx->col++;
    const char *body;
    size_t n;
    if (hp_skip_angle(P, &body, &n)) return -1;
    /* an encoding (tensor<4xf32, #enc>) is not read */
    const char *comma = memchr(body, ',', n);
    if (comma) return hp_fail(P, line, col, "tensor types with an encoding are not supported");
    t->kind = HT_TENSOR;
    t->rank = 0;
    const char *s = body, *e = body + n;
    while (s < e && *s == ' ') s++;
    for (;;) {
        const char *q = s;
        while (q < e && *q >= '0' && *q <= '9') q++;
        if (q > s && q < e && *q == 'x') {
            if (t->rank == CJ_MAX_RANK) return hp_fail(P, line, col, "tensor of rank above %d", CJ_MAX_RANK);
            int64_t d = 0;
            for (const char *r = s; r < q; r++) {
                if (d > (INT64_C(1) << 40)) return hp_fail(P, line, col, "tensor dimension too large");
                d = d * 10 + (*r - '0');
            }
            t->dims[t->rank++] = d;
            s = q + 1;
            continue;
        }
        if (s < e && (*s == '?' || *s == '*')) return hp_fail(P, line, col, "dynamic shapes (tensor<%.*s>) are not supported", (int)n, body);
        break;
    }
    const char *te = e;
    while (te > s && te[-1] == ' ') te--;
    if (!elem_type(s, (size_t)(te - s), t)) t->known_dt = 0;
    t->dt = t->known_dt ? t->dt : CJ_F32;
    P->elem_name = s, P->elem_len = (size_t)(te - s);
    hp_next(P);
    return 0;
}

int hp_type(hp *P, hlo_type *t) {
    memset(t, 0, sizeof *t);
    if (P->failed) return -1;
    if (hp_is(P, "tensor")) return tensor_type(P, t);
    t->kind = HT_OTHER;
    if (P->cur.kind == TK_BANG) {
        hp_next(P);
        if (P->lx.s < P->lx.end && hp_is(P, "<")) {
            const char *b;
            size_t n;
            if (hp_skip_angle(P, &b, &n)) return -1;
            hp_next(P);
        }
        return 0;
    }
    if (P->cur.kind == TK_ID) {
        if (hp_is(P, "tuple") || hp_is(P, "complex") || hp_is(P, "vector") || hp_is(P, "memref")) {
            if (P->lx.s >= P->lx.end || *P->lx.s != '<') return hp_fail(P, P->cur.line, P->cur.col, "expected '<'");
            P->lx.s++, P->lx.col++;
            const char *b;
            size_t n;
            if (hp_skip_angle(P, &b, &n)) return -1;
            hp_next(P);
            return 0;
        }
        if (elem_type(P->cur.p, P->cur.n, t)) t->kind = HT_OTHER; /* a scalar type as in "1 : i32" */
        hp_next(P);
        return 0;
    }
    return hp_fail(P, P->cur.line, P->cur.col, "expected a type, found '%.*s'", (int)(P->cur.n > 40 ? 40 : P->cur.n),
                   P->cur.p);
}

/* (t, t) or a single type; into a list in the arena. */
int hp_type_list(hp *P, hlo_type **out, int *n) {
    *out = NULL, *n = 0;
    hlo_type tmp[64];
    int k = 0;
    if (hp_accept(P, "(")) {
        if (!hp_accept(P, ")")) {
            do {
                if (k == 64) return hp_fail(P, P->cur.line, P->cur.col, "more than 64 types in a list");
                if (hp_type(P, &tmp[k++])) return -1;
                if (hp_is(P, "{")) { /* result attributes in a pretty signature */
                    hlo_attr *a = hp_attr(P);
                    if (!a) return -1;
                }
            } while (hp_accept(P, ","));
            if (hp_expect(P, ")", "closing a type list")) return -1;
        }
    } else {
        if (hp_type(P, &tmp[k++])) return -1;
    }
    if (k) {
        *out = hp_alloc(P, (size_t)k * sizeof **out);
        if (!*out) return -1;
        hlo_copy(*out, tmp, (size_t)k * sizeof **out);
    }
    *n = k;
    return 0;
}

/* ---- attributes ---- */
static hlo_attr *new_attr(hp *P, int kind) {
    hlo_attr *a = hp_alloc(P, sizeof *a);
    if (a) a->kind = kind, a->line = P->cur.line, a->col = P->cur.col;
    return a;
}

hlo_attr *hp_text_attr(hp *P, hlo_tok t, int kind) {
    size_t at = t.kind == TK_AT, q = !at || t.p[1] == '"';
    size_t n = t.n - at - 2 * q;
    hlo_attr *a = new_attr(P, kind);
    if (!a) return NULL;
    a->s = hp_strdup(P, t.p + at + q, n), a->slen = n;
    return a->s ? a : NULL;
}

static int grow(hp *P, void **buf, int *cap, int n, size_t elem) {
    if (n < *cap) return 0;
    int nc = *cap ? *cap * 2 : 16;
    void *nb = hp_alloc(P, (size_t)nc * elem);
    if (!nb) return -1;
    if (*buf) hlo_copy(nb, *buf, (size_t)n * elem);
    *buf = nb, *cap = nc;
    return 0;
}

static int hexval(char c) {
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

static int number(hp *P, hlo_elem *e) {
    const hlo_tok *t = &P->cur;
    char buf[80];
    if (t->n >= sizeof buf) return hp_fail(P, t->line, t->col, "number too long");
    memcpy(buf, t->p, t->n), buf[t->n] = 0;
    memset(e, 0, sizeof *e);
    if (t->n > 2 && buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X')) {
        if (t->n > 18) return hp_fail(P, t->line, t->col, "hex literal wider than 64 bits");
        e->is_hex = 1;
        e->bits = strtoull(buf, NULL, 16);
        e->f = (double)e->bits;
    } else if (strpbrk(buf, ".eE")) {
        char *end;
        e->f = strtod(buf, &end);
        if (*end) return hp_fail(P, t->line, t->col, "bad number '%s'", buf);
        e->is_float = 1;
    } else {
        char *end;
        errno = 0;
        if (buf[0] == '-') {
            long long v = strtoll(buf, &end, 10);
            e->bits = (uint64_t)v, e->f = (double)v;
        } else {
            unsigned long long v = strtoull(buf, &end, 10);
            e->bits = v, e->f = (double)v;
        }
        if (*end || errno) return hp_fail(P, t->line, t->col, "bad integer '%s'", buf);
    }
    hp_next(P);
    return 0;
}

static int dense_elems(hp *P, hlo_attr *a, int depth, int *cap) {
    if (depth > HLO_MAX_DEPTH) return hp_fail(P, P->cur.line, P->cur.col, "dense literal nested too deeply");
    if (hp_accept(P, "[")) {
        if (hp_accept(P, "]")) return 0;
        do {
            if (dense_elems(P, a, depth + 1, cap)) return -1;
        } while (hp_accept(P, ","));
        return hp_expect(P, "]", "in a dense literal");
    }
    if (grow(P, (void **)&a->elems, cap, a->n, sizeof *a->elems)) return -1;
    hlo_elem *e = &a->elems[a->n];
    if (P->cur.kind == TK_NUM) {
        if (number(P, e)) return -1;
    } else if (hp_is(P, "true") || hp_is(P, "false")) {
        memset(e, 0, sizeof *e);
        e->bits = hp_is(P, "true"), e->f = (double)e->bits;
        hp_next(P);
    } else if (hp_is(P, "(")) {
        return hp_fail(P, P->cur.line, P->cur.col, "complex constants are not supported");
    } else if (hp_is(P, "inf") || hp_is(P, "nan")) {
        memset(e, 0, sizeof *e);
        e->is_float = 1, e->f = hp_is(P, "inf") ? INFINITY : NAN;
        hp_next(P);
    } else {
        return hp_fail(P, P->cur.line, P->cur.col, "expected a number in a dense literal, found '%.*s'",
                       (int)(P->cur.n > 40 ? 40 : P->cur.n), P->cur.p);
    }
    a->n++;
    return 0;
}

static hlo_attr *dense(hp *P) {
    hlo_attr *a = new_attr(P, HA_DENSE);
    if (!a) return NULL;
    hp_next(P); /* dense */
    if (hp_expect(P, "<", "after dense")) return NULL;
    if (hp_accept(P, ">")) return a; /* dense<> : no elements */
    if (P->cur.kind == TK_STR) {
        const char *s = P->cur.p + 1;
        size_t n = P->cur.n - 2;
        if (n < 2 || s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || (n % 2))
            return hp_fail(P, P->cur.line, P->cur.col, "a dense string must be hex bytes \"0x...\""), NULL;
        size_t nb = (n - 2) / 2;
        uint8_t *raw = hp_alloc(P, nb ? nb : 1);
        if (!raw) return NULL;
        for (size_t i = 0; i < nb; i++) {
            int h = hexval(s[2 + 2 * i]), l = hexval(s[3 + 2 * i]);
            if (h < 0 || l < 0) return hp_fail(P, P->cur.line, P->cur.col, "bad hex digit in a dense string"), NULL;
            raw[i] = (uint8_t)(h * 16 + l);
        }
        a->raw = raw, a->raw_len = nb;
        hp_next(P);
    } else {
        int cap = 0;
        a->splat = !hp_is(P, "[");
        if (dense_elems(P, a, 0, &cap)) return NULL;
    }
    if (hp_expect(P, ">", "closing dense<")) return NULL;
    return a;
}

hlo_attr *hp_attr_depth(hp *P, int depth);

static hlo_attr *dict(hp *P, int depth) {
    hlo_attr *a = new_attr(P, HA_DICT);
    if (!a) return NULL;
    int cap = 0;
    hp_next(P); /* { */
    if (hp_accept(P, "}")) return a;
    do {
        if (P->cur.kind != TK_ID && P->cur.kind != TK_STR)
            return hp_fail(P, P->cur.line, P->cur.col, "expected an attribute name"), NULL;
        const char *name = P->cur.kind == TK_STR ? hp_strdup(P, P->cur.p + 1, P->cur.n - 2)
                                                 : hp_strdup(P, P->cur.p, P->cur.n);
        int line = P->cur.line, col = P->cur.col;
        if (!name) return NULL;
        hp_next(P);
        hlo_attr *v;
        if (hp_accept(P, "=")) {
            v = hp_attr_depth(P, depth + 1);
        } else {
            v = new_attr(P, HA_UNIT);
            if (v) v->line = line, v->col = col;
        }
        if (!v) return NULL;
        if (grow(P, (void **)&a->entries, &cap, a->n, sizeof *a->entries)) return NULL;
        a->entries[a->n].name = name, a->entries[a->n].val = v;
        a->n++;
    } while (hp_accept(P, ","));
    if (hp_expect(P, "}", "closing an attribute dictionary")) return NULL;
    return a;
}

static hlo_attr *list(hp *P, int depth) {
    hlo_attr *a = new_attr(P, HA_LIST);
    if (!a) return NULL;
    int cap = 0;
    hp_next(P); /* [ */
    if (hp_accept(P, "]")) return a;
    do {
        hlo_attr *v = hp_attr_depth(P, depth + 1);
        if (!v) return NULL;
        if (grow(P, (void **)&a->items, &cap, a->n, sizeof *a->items)) return NULL;
        a->items[a->n++] = v;
    } while (hp_accept(P, ","));
    if (hp_expect(P, "]", "closing an attribute list")) return NULL;
    return a;
}

/* array<i64: 1, 2> */
static hlo_attr *dense_array(hp *P) {
    hlo_attr *a = new_attr(P, HA_ARRAY);
    if (!a) return NULL;
    hp_next(P);
    if (hp_expect(P, "<", "after array")) return NULL;
    if (P->cur.kind != TK_ID) return hp_fail(P, P->cur.line, P->cur.col, "expected an element type"), NULL;
    int is_bool = hp_is(P, "i1");
    hp_next(P);
    int cap = 0;
    if (hp_accept(P, ":")) {
        do {
            if (grow(P, (void **)&a->ints, &cap, a->n, sizeof *a->ints)) return NULL;
            if (is_bool && (hp_is(P, "true") || hp_is(P, "false"))) {
                a->ints[a->n++] = hp_is(P, "true");
                hp_next(P);
                continue;
            }
            if (P->cur.kind != TK_NUM) return hp_fail(P, P->cur.line, P->cur.col, "expected an integer in array<>"), NULL;
            hlo_elem e;
            if (number(P, &e)) return NULL;
            a->ints[a->n++] = (int64_t)e.bits;
        } while (hp_accept(P, ","));
    }
    if (hp_expect(P, ">", "closing array<")) return NULL;
    return a;
}

static int skip_parens(hp *P) {
    int line = P->cur.line, col = P->cur.col, depth = 0;
    do {
        if (P->cur.kind == TK_EOF) return hp_fail(P, line, col, "unterminated '('");
        if (hp_is(P, "(")) depth++;
        else if (hp_is(P, ")")) depth--;
        hp_next(P);
        if (P->failed) return -1;
    } while (depth > 0);
    return 0;
}

/* loc(...) after an op, an argument or a type: dropped. */
int hp_skip_loc(hp *P) {
    while (hp_is(P, "loc")) {
        hp_next(P);
        if (!hp_is(P, "(")) return hp_fail(P, P->cur.line, P->cur.col, "expected '(' after loc");
        if (skip_parens(P)) return -1;
    }
    return 0;
}

hlo_attr *hp_attr_depth(hp *P, int depth) {
    if (P->failed) return NULL;
    if (depth > HLO_MAX_DEPTH) return hp_fail(P, P->cur.line, P->cur.col, "attributes nested too deeply"), NULL;
    hlo_attr *a = NULL;
    hlo_tok t = P->cur;
    if (t.kind == TK_NUM) {
        hlo_elem e;
        a = new_attr(P, HA_INT);
        if (!a || number(P, &e)) return NULL;
        if (e.is_float) a->kind = HA_FLOAT, a->f = e.f;
        else a->i = (int64_t)e.bits, a->f = e.f;
    } else if (t.kind == TK_STR) {
        if (!(a = hp_text_attr(P, t, HA_STR))) return NULL;
        hp_next(P);
    } else if (t.kind == TK_AT) {
        if (!(a = hp_text_attr(P, t, HA_SYM))) return NULL;
        hp_next(P);
    } else if (hp_is(P, "true") || hp_is(P, "false")) {
        a = new_attr(P, HA_BOOL);
        if (!a) return NULL;
        a->i = hp_is(P, "true");
        hp_next(P);
    } else if (hp_is(P, "unit")) {
        a = new_attr(P, HA_UNIT);
        hp_next(P);
    } else if (hp_is(P, "[")) {
        a = list(P, depth);
    } else if (hp_is(P, "{")) {
        a = dict(P, depth);
    } else if (hp_is(P, "dense")) {
        a = dense(P);
    } else if (hp_is(P, "array")) {
        a = dense_array(P);
    } else if (hp_is(P, "dense_resource") || hp_is(P, "sparse")) {
        return hp_fail(P, t.line, t.col, "%.*s<...> constants are not supported", (int)t.n, t.p), NULL;
    } else if (hp_is(P, "loc")) {
        a = new_attr(P, HA_UNIT);
        if (hp_skip_loc(P)) return NULL;
    } else if (t.kind == TK_HASH) {
        a = new_attr(P, HA_OPAQUE);
        if (!a) return NULL;
        a->name = hp_strdup(P, t.p + 1, t.n - 1);
        if (!a->name) return NULL;
        if (P->lx.s < P->lx.end && *P->lx.s == '<') {
            P->lx.s++, P->lx.col++;
            const char *b;
            size_t n;
            if (hp_skip_angle(P, &b, &n)) return NULL;
            a->s = hp_strdup(P, b, n), a->slen = n; /* the text may go once imported */
            if (!a->s) return NULL;
        } else {
            a->kind = HA_WORD; /* an alias such as #loc3: read, not resolved */
            a->s = a->name, a->slen = t.n - 1;
        }
        hp_next(P);
    } else if (hp_is(P, "(") || hp_is(P, "tensor") || t.kind == TK_BANG || hp_is(P, "tuple")) {
        /* a type as a value: function_type = (ins) -> outs, or tensor<...> */
        a = new_attr(P, HA_LIST);
        if (!a) return NULL;
        hlo_type *ins, *outs;
        int ni, no;
        if (hp_type_list(P, &ins, &ni)) return NULL;
        if (P->cur.kind == TK_ARROW) {
            hp_next(P);
            if (hp_type_list(P, &outs, &no)) return NULL;
            a->kind = HA_TYPE;
            a->n = ni;
            a->elems = NULL;
            P->fn_ins = ins, P->fn_nin = ni, P->fn_outs = outs, P->fn_nout = no;
            hlo_attr *io = a;
            io->items = hp_alloc(P, 2 * sizeof *io->items);
            if (!io->items) return NULL;
            for (int s = 0; s < 2; s++) {
                hlo_attr *l = new_attr(P, HA_TYPE);
                if (!l) return NULL;
                int cnt = s ? no : ni;
                hlo_type *ty = s ? outs : ins;
                l->n = cnt;
                l->items = hp_alloc(P, (size_t)(cnt ? cnt : 1) * sizeof *l->items);
                if (!l->items) return NULL;
                for (int k = 0; k < cnt; k++) {
                    hlo_attr *ta = new_attr(P, HA_TYPE);
                    if (!ta) return NULL;
                    ta->has_type = 1, ta->type = ty[k];
                    l->items[k] = ta;
                }
                io->items[s] = l;
            }
            io->n = 2;
        } else {
            a->kind = HA_TYPE;
            if (ni == 1) a->has_type = 1, a->type = ins[0];
        }
        return a;
    } else if (t.kind == TK_ID) {
        /* a bare word: an enum value (DEFAULT) or a scalar type (i32) */
        a = new_attr(P, HA_WORD);
        if (!a) return NULL;
        a->s = hp_strdup(P, t.p, t.n), a->slen = t.n;
        if (!a->s) return NULL;
        hp_next(P);
    } else {
        return hp_fail(P, t.line, t.col, "expected an attribute value, found '%.*s'", (int)(t.n > 40 ? 40 : t.n),
                       t.kind == TK_EOF ? "end" : t.p),
               NULL;
    }
    if (!a || P->failed) return NULL;
    if (hp_is(P, ":") && a->kind != HA_DICT && a->kind != HA_LIST) {
        hp_next(P);
        if (hp_type(P, &a->type)) return NULL;
        a->has_type = 1;
    }
    return a;
}

hlo_attr *hp_attr(hp *P) { return hp_attr_depth(P, 0); }

/* ---- ops and regions ---- */
int hp_add_attrs(hp *P, hlo_op *op, const hlo_attr *d) {
    if (!d || d->kind != HA_DICT) return 0;
    hlo_named *all = hp_alloc(P, (size_t)(op->n_attrs + d->n + 1) * sizeof *all);
    if (!all) return -1;
    if (op->n_attrs) hlo_copy(all, op->attrs, (size_t)op->n_attrs * sizeof *all);
    hlo_copy(all + op->n_attrs, d->entries, (size_t)d->n * sizeof *all);
    op->attrs = all;
    op->n_attrs += d->n;
    return 0;
}

static int is_isolated(const char *name) {
    return strcmp(name, "func.func") == 0 || strcmp(name, "builtin.module") == 0;
}

/* { [^bb0(%a: t, ...):] ops } into blk. */
int hp_region(hp *P, hlo_block *blk, int depth) {
    memset(blk, 0, sizeof *blk);
    if (hp_expect(P, "{", "opening a region")) return -1;
    int mark = P->n_names;
    if (P->cur.kind == TK_CARET) {
        hp_next(P);
        if (hp_accept(P, "(")) {
            int cap = 0, tcap = 0;
            if (!hp_accept(P, ")")) {
                do {
                    if (P->cur.kind != TK_PCT)
                        return hp_fail(P, P->cur.line, P->cur.col, "expected a block argument");
                    hlo_tok nt = P->cur;
                    hp_next(P);
                    if (hp_expect(P, ":", "after a block argument")) return -1;
                    if (grow(P, (void **)&blk->arg_ids, &cap, blk->n_args, sizeof *blk->arg_ids) ||
                        grow(P, (void **)&blk->arg_types, &tcap, blk->n_args, sizeof *blk->arg_types))
                        return -1;
                    if (hp_type(P, &blk->arg_types[blk->n_args])) return -1;
                    int id = hp_define(P, &nt, 1);
                    if (id < 0) return -1;
                    blk->arg_ids[blk->n_args++] = id;
                    if (hp_skip_loc(P)) return -1;
                } while (hp_accept(P, ","));
                if (hp_expect(P, ")", "closing block arguments")) return -1;
            }
        }
        if (hp_expect(P, ":", "after a block label")) return -1;
    }
    if (hp_block_ops(P, blk, depth)) return -1;
    if (P->cur.kind == TK_CARET) return hp_fail(P, P->cur.line, P->cur.col, "regions of several blocks are not supported");
    if (hp_expect(P, "}", "closing a region")) return -1;
    P->n_names = mark; /* names defined inside go out of scope */
    return 0;
}

int hp_block_ops(hp *P, hlo_block *blk, int depth) {
    int cap = 0;
    while (!P->failed && !hp_is(P, "}") && P->cur.kind != TK_EOF && P->cur.kind != TK_CARET) {
        hlo_op *op = hp_op(P, depth);
        if (!op) return -1;
        if (grow(P, (void **)&blk->ops, &cap, blk->n_ops, sizeof *blk->ops)) return -1;
        blk->ops[blk->n_ops++] = op;
    }
    return P->failed ? -1 : 0;
}

/* %a, %b:2 = ... : the result names, defined once the op is read. */
typedef struct res_names {
    int n;
    hlo_tok toks[64];
    int counts[64];
} res_names;

static int define_results(hp *P, hlo_op *op, const res_names *r) {
    int total = 0;
    for (int i = 0; i < r->n; i++) total += r->counts[i];
    if (r->n && total != op->n_results)
        return hp_fail(P, op->line, op->col, "%s: %d result names for %d results", op->name, total, op->n_results);
    for (int i = 0; i < r->n; i++) {
        int id = hp_define(P, &r->toks[i], r->counts[i]);
        if (id < 0) return -1;
        if (i == 0) op->first_result = id;
    }
    if (!r->n && op->n_results) op->first_result = P->next_id, P->next_id += op->n_results;
    return 0;
}

int hp_operand_list(hp *P, hlo_op *op, const char *close) {
    int ops[1024], n = 0;
    if (!hp_is(P, close)) {
        do {
            if (P->cur.kind != TK_PCT) return hp_fail(P, P->cur.line, P->cur.col, "expected an operand");
            if (n == 1024) return hp_fail(P, P->cur.line, P->cur.col, "more than 1024 operands");
            int id = hp_lookup(P, &P->cur);
            if (id < 0) return -1;
            ops[n++] = id;
            hp_next(P);
        } while (hp_accept(P, ","));
    }
    op->operands = hp_alloc(P, (size_t)(n ? n : 1) * sizeof *op->operands);
    if (!op->operands) return -1;
    hlo_copy(op->operands, ops, (size_t)n * sizeof *ops);
    op->n_operands = n;
    return 0;
}

static hlo_op *generic_op(hp *P, hlo_op *op, const res_names *r, int depth) {
    hp_next(P); /* the quoted name */
    if (hp_expect(P, "(", "before the operands")) return NULL;
    if (hp_operand_list(P, op, ")") || hp_expect(P, ")", "after the operands")) return NULL;
    if (hp_is(P, "[")) return hp_fail(P, P->cur.line, P->cur.col, "%s: successor blocks are not supported", op->name), NULL;
    if (hp_accept(P, "<")) {
        if (!hp_is(P, "{")) return hp_fail(P, P->cur.line, P->cur.col, "expected '{' for properties"), NULL;
        hlo_attr *props = hp_attr_depth(P, depth + 1);
        if (!props || hp_add_attrs(P, op, props) || hp_expect(P, ">", "closing properties")) return NULL;
    }
    int isolated = is_isolated(op->name);
    int saved_floor = P->scope_floor, saved_next = P->next_id, saved_names = P->n_names;
    if (hp_accept(P, "(")) {
        hlo_block tmp[16];
        int k = 0;
        if (isolated) P->scope_floor = P->n_names, P->next_id = 0;
        do {
            if (k == 16) return hp_fail(P, P->cur.line, P->cur.col, "%s: more than 16 regions", op->name), NULL;
            if (hp_region(P, &tmp[k++], depth + 1)) return NULL;
        } while (hp_accept(P, ","));
        if (hp_expect(P, ")", "closing the regions")) return NULL;
        if (isolated) op->n_values = P->next_id, P->scope_floor = saved_floor, P->next_id = saved_next,
                      P->n_names = saved_names;
        op->regions = hp_alloc(P, (size_t)k * sizeof *op->regions);
        if (!op->regions) return NULL;
        hlo_copy(op->regions, tmp, (size_t)k * sizeof *tmp);
        op->n_regions = k;
    }
    if (hp_is(P, "{")) {
        hlo_attr *d = hp_attr_depth(P, depth + 1);
        if (!d || hp_add_attrs(P, op, d)) return NULL;
    }
    if (hp_expect(P, ":", "before the op's type")) return NULL;
    int nin;
    if (hp_type_list(P, &op->opd_types, &nin)) return NULL;
    if (P->cur.kind != TK_ARROW) return hp_fail(P, P->cur.line, P->cur.col, "expected '->' in the op's type"), NULL;
    hp_next(P);
    if (hp_type_list(P, &op->res_types, &op->n_results)) return NULL;
    if (nin != op->n_operands)
        return hp_fail(P, op->line, op->col, "%s: %d operand types for %d operands", op->name, nin, op->n_operands), NULL;
    if (hp_skip_loc(P) || define_results(P, op, r)) return NULL;
    return op;
}

hlo_op *hp_op(hp *P, int depth) {
    if (depth > HLO_MAX_DEPTH) return hp_fail(P, P->cur.line, P->cur.col, "regions nested too deeply"), NULL;
    hlo_op *op = hp_alloc(P, sizeof *op);
    if (!op) return NULL;
    res_names r;
    r.n = 0;
    op->line = P->cur.line, op->col = P->cur.col;
    if (P->cur.kind == TK_PCT) {
        do {
            if (P->cur.kind != TK_PCT) return hp_fail(P, P->cur.line, P->cur.col, "expected a result name"), NULL;
            if (r.n == 64) return hp_fail(P, P->cur.line, P->cur.col, "more than 64 result groups"), NULL;
            r.toks[r.n] = P->cur;
            r.counts[r.n] = 1;
            hp_next(P);
            if (hp_accept(P, ":")) {
                if (P->cur.kind != TK_NUM) return hp_fail(P, P->cur.line, P->cur.col, "expected a result count"), NULL;
                long c = strtol(P->cur.p, NULL, 10);
                if (c < 1 || c > 1024) return hp_fail(P, P->cur.line, P->cur.col, "bad result count"), NULL;
                r.counts[r.n] = (int)c;
                hp_next(P);
            }
            r.n++;
        } while (hp_accept(P, ","));
        if (hp_expect(P, "=", "after the result names")) return NULL;
        op->line = P->cur.line, op->col = P->cur.col;
    }
    if (P->cur.kind == TK_STR) {
        op->name = hp_strdup(P, P->cur.p + 1, P->cur.n - 2);
        if (!op->name) return NULL;
        const char *saved = P->op_name;
        P->op_name = op->name;
        hlo_op *done = generic_op(P, op, &r, depth);
        P->op_name = saved;
        return done;
    }
    if (P->cur.kind == TK_ID) {
        const char *saved = P->op_name;
        int rc = hp_pretty_op(P, op, depth); /* names the op it reads in P->op_name */
        P->op_name = saved;
        if (rc || define_results(P, op, &r)) return NULL;
        return op;
    }
    return hp_fail(P, P->cur.line, P->cur.col, "expected an operation, found '%.*s'",
                   (int)(P->cur.n > 40 ? 40 : P->cur.n), P->cur.kind == TK_EOF ? "end" : P->cur.p),
           NULL;
}

/* ---- the module ---- */
static const hlo_attr *find_attr(const hlo_op *op, const char *name) {
    for (int i = 0; i < op->n_attrs; i++)
        if (strcmp(op->attrs[i].name, name) == 0) return op->attrs[i].val;
    return NULL;
}
const hlo_attr *hlo_op_attr(const hlo_op *op, const char *name) { return find_attr(op, name); }

static int collect_funcs(hp *P, const hlo_block *b, int depth) {
    for (int i = 0; i < b->n_ops; i++) {
        const hlo_op *op = b->ops[i];
        if (strcmp(op->name, "builtin.module") == 0 && op->n_regions == 1 && depth < 4) {
            if (collect_funcs(P, &op->regions[0], depth + 1)) return -1;
            continue;
        }
        if (strcmp(op->name, "func.func") != 0)
            return hp_fail(P, op->line, op->col, "'%s' at module level (expected func.func)", op->name);
        const hlo_attr *name = find_attr(op, "sym_name"), *ft = find_attr(op, "function_type");
        if (!name || name->kind != HA_STR) return hp_fail(P, op->line, op->col, "func.func without a sym_name");
        if (op->n_regions != 1) return hp_fail(P, op->line, op->col, "func.func @%s without a body", name->s);
        if (!ft || ft->kind != HA_TYPE || ft->n != 2)
            return hp_fail(P, op->line, op->col, "func.func @%s without a function_type", name->s);
        if (P->m->n_funcs == P->cap_funcs) {
            if (grow(P, (void **)&P->m->funcs, &P->cap_funcs, P->m->n_funcs, sizeof *P->m->funcs)) return -1;
        }
        hlo_func *f = &P->m->funcs[P->m->n_funcs++];
        memset(f, 0, sizeof *f);
        f->name = name->s;
        f->line = op->line, f->col = op->col;
        f->body = op->regions[0];
        f->n_values = op->n_values;
        f->n_args = f->body.n_args;
        f->arg_types = f->body.arg_types;
        const hlo_attr *outs = ft->items[1], *ins = ft->items[0];
        if (ins->n != f->n_args)
            return hp_fail(P, op->line, op->col, "func.func @%s: %d arguments for a type of %d", f->name, f->n_args, ins->n);
        f->n_results = outs->n;
        f->res_types = hp_alloc(P, (size_t)(outs->n ? outs->n : 1) * sizeof *f->res_types);
        if (!f->res_types) return -1;
        for (int k = 0; k < outs->n; k++) f->res_types[k] = outs->items[k]->type;
    }
    return 0;
}

hlo_module *hlo_parse(rt_mem *mem, const char *text, size_t len, char *err, size_t err_size) {
    if (err_size) err[0] = 0;
    hlo_module *m = rt_calloc(mem, sizeof *m);
    if (!m) {
        snprintf(err, err_size, "out of memory reading the module");
        return NULL;
    }
    m->mem = mem;
    hp P;
    memset(&P, 0, sizeof P);
    P.m = m, P.err = err, P.err_size = err_size;
    hlo_lex_init(&P.lx, text, len, 1, 1);
    hp_next(&P);
    hlo_block top;
    memset(&top, 0, sizeof top);
    int cap = 0;
    while (!P.failed && P.cur.kind != TK_EOF) {
        if (P.cur.kind == TK_HASH) { /* #loc1 = loc(...): an alias, dropped */
            hp_next(&P);
            if (hp_expect(&P, "=", "after an attribute alias")) break;
            if (!hp_attr(&P)) break;
            continue;
        }
        hlo_op *op = hp_op(&P, 0);
        if (!op) break;
        if (grow(&P, (void **)&top.ops, &cap, top.n_ops, sizeof *top.ops)) break;
        top.ops[top.n_ops++] = op;
    }
    if (!P.failed) collect_funcs(&P, &top, 0);
    if (!P.failed && m->n_funcs == 0) hp_fail(&P, 1, 1, "no func.func in the module");
    if (P.names) rt_free(mem, P.names, (size_t)P.cap_names * sizeof *P.names);
    if (P.failed) {
        hlo_module_free(m);
        return NULL;
    }
    return m;
}

const hlo_func *hlo_find_func(const hlo_module *m, const char *name, size_t len) {
    for (int i = 0; i < m->n_funcs; i++)
        if (strlen(m->funcs[i].name) == len && memcmp(m->funcs[i].name, name, len) == 0) return &m->funcs[i];
    return NULL;
}

/* ---- opaque attributes' contents ---- */
int hlo_opaque_ints(const hlo_attr *a, const char *key, int64_t *out, int max) {
    if (!a || a->kind != HA_OPAQUE || !a->s) return 0;
    hlo_lexer lx;
    hlo_lex_init(&lx, a->s, a->slen, a->line, a->col);
    size_t kl = strlen(key);
    for (hlo_tok t = hlo_lex_next(&lx); t.kind != TK_EOF && t.kind != TK_ERR; t = hlo_lex_next(&lx)) {
        if (t.kind != TK_ID || t.n != kl || memcmp(t.p, key, kl) != 0) continue;
        hlo_tok eq = hlo_lex_next(&lx);
        if (!hlo_tok_is(&eq, "=")) return -1;
        hlo_tok b = hlo_lex_next(&lx);
        if (b.kind == TK_NUM && max > 0) { /* a scalar: index_vector_dim = 1 */
            out[0] = strtoll(b.p, NULL, 10);
            return 1;
        }
        if (!hlo_tok_is(&b, "[")) return -1;
        int n = 0;
        for (t = hlo_lex_next(&lx); !hlo_tok_is(&t, "]"); t = hlo_lex_next(&lx)) {
            if (hlo_tok_is(&t, ",")) continue;
            if (t.kind != TK_NUM || n == max) return -1;
            out[n++] = strtoll(t.p, NULL, 10);
        }
        return n;
    }
    return 0;
}

int hlo_opaque_word(const hlo_attr *a, char *out, size_t size) {
    if (!a || a->kind != HA_OPAQUE || !a->s) return -1;
    const char *s = a->s, *e = a->s + a->slen;
    /* "comparison_direction GT" (the #stablehlo<...> form) or "GT" */
    const char *sp = memchr(s, ' ', a->slen);
    if (sp) s = sp + 1;
    while (s < e && *s == ' ') s++;
    while (e > s && e[-1] == ' ') e--;
    if ((size_t)(e - s) >= size) return -1;
    hlo_copy(out, s, (size_t)(e - s));
    out[e - s] = 0;
    return 0;
}
