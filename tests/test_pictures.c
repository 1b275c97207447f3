/* test_pictures.c — the memory timeline (SVG) and program graph (dot)
 * pictures of compiled programs: well-formed, naming every buffer of the
 * plan, with the figures the plan implies.
 *
 * The checkers here are independent of the writers: a small XML parser
 * (balanced tags, quoted attributes, escaped text, one root) and a small
 * dot reader (digraph header, balanced braces, brackets and quotes, every
 * edge's endpoints declared as nodes). The buffers to look for come from
 * the plan's text dump (cj_jit_dump "plan"), and the in-use peak is
 * recomputed from that text alone. */
#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "runtime/runtime.h"
#include "test_util.h"

/* ---- reading files ---- */
static char *slurp(const char *path) {
    FILE *fp = fopen(path, "rb");
    if (!fp) return NULL;
    fseek(fp, 0, SEEK_END);
    long n = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *s = malloc((size_t)n + 1);
    if (s && fread(s, 1, (size_t)n, fp) != (size_t)n) {
        free(s);
        s = NULL;
    }
    if (s) s[n] = 0;
    fclose(fp);
    return s;
}

static int file_exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* A growing text of everything a reader can see in a picture. */
typedef struct text_acc {
    char *s;
    size_t len, cap;
} text_acc;

static void acc_putc(text_acc *a, char ch) {
    if (a->len + 2 > a->cap) {
        a->cap = a->cap ? a->cap * 2 : 4096;
        a->s = realloc(a->s, a->cap);
    }
    a->s[a->len++] = ch;
    a->s[a->len] = 0;
}

/* ---- an independent XML checker ---- */
static int is_name_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':'; }
static int is_name_char(char c) { return is_name_start(c) || (c >= '0' && c <= '9') || c == '-' || c == '.'; }

/* An entity at s ("&amp;" ...): its length, 0 when malformed; *out the
 * character it stands for. */
static int entity(const char *s, char *out) {
    static const struct {
        const char *e;
        char c;
    } known[] = {{"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}};
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (!strncmp(s, known[i].e, strlen(known[i].e))) {
            *out = known[i].c;
            return (int)strlen(known[i].e);
        }
    if (s[1] == '#') {
        int i = 2, hex = s[2] == 'x';
        i += hex;
        int digits = 0;
        while ((hex ? isxdigit((unsigned char)s[i]) : isdigit((unsigned char)s[i]))) i++, digits++;
        if (digits && s[i] == ';') {
            *out = '?';
            return i + 1;
        }
    }
    return 0;
}

/* Checks s is one well-formed XML document with root element `root`;
 * collects its character data (unescaped) into text. 1, or 0 with why. */
static int xml_check(const char *s, const char *root, text_acc *text, char *why, size_t why_n) {
    char stack[64][32];
    int depth = 0, roots = 0;
    const char *p = s;
    if (!strncmp(p, "<?xml", 5)) {
        const char *e = strstr(p, "?>");
        if (!e) return snprintf(why, why_n, "unterminated XML declaration"), 0;
        p = e + 2;
    }
    while (*p) {
        if (*p != '<') {
            if (!depth && !isspace((unsigned char)*p)) return snprintf(why, why_n, "text outside the root at %ld", (long)(p - s)), 0;
            if (*p == '&') {
                char ch;
                int n = entity(p, &ch);
                if (!n) return snprintf(why, why_n, "bad entity at %ld: %.12s", (long)(p - s), p), 0;
                acc_putc(text, ch);
                p += n;
            } else {
                if (*p == '>') return snprintf(why, why_n, "unescaped '>' in text at %ld", (long)(p - s)), 0;
                acc_putc(text, *p++);
            }
            continue;
        }
        if (!strncmp(p, "<!--", 4)) {
            const char *e = strstr(p + 4, "-->");
            if (!e) return snprintf(why, why_n, "unterminated comment"), 0;
            p = e + 3;
            continue;
        }
        if (p[1] == '/') { /* end tag */
            p += 2;
            const char *n0 = p;
            while (is_name_char(*p)) p++;
            size_t n = (size_t)(p - n0);
            while (isspace((unsigned char)*p)) p++;
            if (*p != '>') return snprintf(why, why_n, "bad end tag at %ld", (long)(p - s)), 0;
            if (!depth || strlen(stack[depth - 1]) != n || strncmp(stack[depth - 1], n0, n))
                return snprintf(why, why_n, "end tag </%.*s> does not close <%s> at %ld", (int)n, n0,
                                depth ? stack[depth - 1] : "(nothing)", (long)(p - s)),
                       0;
            depth--;
            p++;
            acc_putc(text, '\n');
            continue;
        }
        /* start tag */
        p++;
        if (!is_name_start(*p)) return snprintf(why, why_n, "bad tag name at %ld", (long)(p - s)), 0;
        const char *n0 = p;
        while (is_name_char(*p)) p++;
        size_t n = (size_t)(p - n0);
        if (!depth && roots++) return snprintf(why, why_n, "a second root element at %ld", (long)(p - s)), 0;
        if (!depth && (strlen(root) != n || strncmp(root, n0, n)))
            return snprintf(why, why_n, "root is <%.*s>, not <%s>", (int)n, n0, root), 0;
        char attrs[64][32];
        int n_attrs = 0;
        for (;;) {
            int space = 0;
            while (isspace((unsigned char)*p)) p++, space = 1;
            if (*p == '>' || (p[0] == '/' && p[1] == '>')) break;
            if (!space || !is_name_start(*p)) return snprintf(why, why_n, "bad attribute at %ld", (long)(p - s)), 0;
            const char *a0 = p;
            while (is_name_char(*p)) p++;
            size_t an = (size_t)(p - a0);
            for (int i = 0; i < n_attrs; i++)
                if (strlen(attrs[i]) == an && !strncmp(attrs[i], a0, an))
                    return snprintf(why, why_n, "attribute %.*s twice at %ld", (int)an, a0, (long)(p - s)), 0;
            if (n_attrs < 64 && an < 32) snprintf(attrs[n_attrs++], 32, "%.*s", (int)an, a0);
            if (*p != '=' || (p[1] != '"' && p[1] != '\''))
                return snprintf(why, why_n, "unquoted attribute %.*s at %ld", (int)an, a0, (long)(p - s)), 0;
            char q = p[1];
            p += 2;
            while (*p && *p != q) {
                if (*p == '<') return snprintf(why, why_n, "'<' in an attribute at %ld", (long)(p - s)), 0;
                if (*p == '&') {
                    char ch;
                    int en = entity(p, &ch);
                    if (!en) return snprintf(why, why_n, "bad entity in an attribute at %ld", (long)(p - s)), 0;
                    p += en;
                } else {
                    p++;
                }
            }
            if (!*p) return snprintf(why, why_n, "unterminated attribute value"), 0;
            p++;
        }
        if (*p == '/') {
            p += 2;
        } else {
            if (depth == 64 || n >= 32) return snprintf(why, why_n, "nesting too deep"), 0;
            snprintf(stack[depth++], 32, "%.*s", (int)n, n0);
            p++;
        }
    }
    if (depth) return snprintf(why, why_n, "<%s> is never closed", stack[depth - 1]), 0;
    if (!roots) return snprintf(why, why_n, "no root element"), 0;
    return 1;
}

/* ---- an independent dot checker ---- */
typedef struct dot_tok {
    int kind; /* 'i' identifier or number, 's' string, '>' the edge arrow, or the punctuation itself */
    const char *at;
    size_t len;
} dot_tok;

static int dot_tokens(const char *s, dot_tok **out, int *n_out, text_acc *text, char *why, size_t why_n) {
    int n = 0, cap = 1024;
    dot_tok *t = malloc(sizeof *t * (size_t)cap);
    const char *p = s;
    while (*p) {
        if (isspace((unsigned char)*p)) {
            p++;
            continue;
        }
        if (n + 1 >= cap) t = realloc(t, sizeof *t * (size_t)(cap *= 2));
        if (*p == '"') {
            const char *a = ++p;
            while (*p && *p != '"') {
                if (*p == '\n') return free(t), snprintf(why, why_n, "a raw newline in a string"), 0;
                if (*p == '\\' && p[1]) {
                    acc_putc(text, p[1] == 'n' ? '\n' : p[1]);
                    p += 2;
                } else {
                    acc_putc(text, *p++);
                }
            }
            if (!*p) return free(t), snprintf(why, why_n, "an unterminated string"), 0;
            acc_putc(text, '\n');
            t[n++] = (dot_tok){'s', a, (size_t)(p - a)};
            p++;
        } else if (p[0] == '-' && p[1] == '>') {
            t[n++] = (dot_tok){'>', p, 2};
            p += 2;
        } else if (isalnum((unsigned char)*p) || *p == '_' || *p == '.' || *p == '-') {
            const char *a = p;
            while (isalnum((unsigned char)*p) || *p == '_' || *p == '.') p++;
            if (p == a) p++;
            t[n++] = (dot_tok){'i', a, (size_t)(p - a)};
        } else if (strchr("{}[];,=", *p)) {
            t[n++] = (dot_tok){*p, p, 1};
            p++;
        } else {
            return free(t), snprintf(why, why_n, "unexpected '%c' at %ld", *p, (long)(p - s)), 0;
        }
    }
    *out = t;
    *n_out = n;
    return 1;
}

static int tok_is(const dot_tok *t, const char *word) { return t->kind == 'i' && t->len == strlen(word) && !strncmp(t->at, word, t->len); }

/* Checks s is one digraph whose statements parse, whose braces and
 * brackets balance, and whose edges join declared nodes; counts the
 * clusters. 1, or 0 with why. */
static int dot_check(const char *s, text_acc *text, int *n_clusters, char *why, size_t why_n) {
    dot_tok *t;
    int n;
    if (!dot_tokens(s, &t, &n, text, why, why_n)) return 0;
    int ok = 0, depth = 0, i = 0;
    /* node names declared, and edge endpoints to look up afterwards */
    int n_nodes = 0, n_ends = 0;
    dot_tok *nodes = malloc(sizeof *nodes * (size_t)(n + 1)), *ends = malloc(sizeof *ends * (size_t)(n + 1));
    *n_clusters = 0;
    if (n < 3 || !tok_is(&t[0], "digraph")) {
        snprintf(why, why_n, "no digraph header");
        goto done;
    }
    i = 1;
    if (t[i].kind == 's' || t[i].kind == 'i') i++;
    if (t[i].kind != '{') {
        snprintf(why, why_n, "no '{' after the header");
        goto done;
    }
    depth = 1;
    i++;
    while (i < n && depth > 0) {
        dot_tok *a = &t[i];
        if (a->kind == ';') {
            i++;
        } else if (a->kind == '}') {
            depth--;
            i++;
        } else if (tok_is(a, "subgraph")) {
            if (i + 2 >= n || (t[i + 1].kind != 'i' && t[i + 1].kind != 's') || t[i + 2].kind != '{') {
                snprintf(why, why_n, "a malformed subgraph");
                goto done;
            }
            if (t[i + 1].len > 8 && !strncmp(t[i + 1].at, "cluster_", 8)) (*n_clusters)++;
            depth++;
            i += 3;
        } else if (a->kind == 'i' || a->kind == 's') {
            int is_attr_stmt = tok_is(a, "graph") || tok_is(a, "node") || tok_is(a, "edge");
            if (i + 1 < n && t[i + 1].kind == '=') { /* label="..." */
                if (i + 2 >= n || (t[i + 2].kind != 'i' && t[i + 2].kind != 's')) {
                    snprintf(why, why_n, "an assignment without a value");
                    goto done;
                }
                i += 3;
                continue;
            }
            int first = i, chain = 1;
            i++;
            while (i + 1 < n && t[i].kind == '>' && (t[i + 1].kind == 'i' || t[i + 1].kind == 's')) {
                chain++;
                i += 2;
            }
            if (chain > 1) {
                for (int j = first; j < i; j += 2) ends[n_ends++] = t[j];
            } else if (!is_attr_stmt) {
                nodes[n_nodes++] = t[first];
            }
            if (i < n && t[i].kind == '[') { /* attributes: a = b pairs */
                i++;
                while (i < n && t[i].kind != ']') {
                    if (t[i].kind == ',' || t[i].kind == ';') {
                        i++;
                        continue;
                    }
                    if (i + 2 >= n || (t[i].kind != 'i' && t[i].kind != 's') || t[i + 1].kind != '=' ||
                        (t[i + 2].kind != 'i' && t[i + 2].kind != 's')) {
                        snprintf(why, why_n, "a malformed attribute near '%.20s'", t[i].at);
                        goto done;
                    }
                    i += 3;
                }
                if (i >= n) {
                    snprintf(why, why_n, "an unclosed '['");
                    goto done;
                }
                i++;
            }
        } else {
            snprintf(why, why_n, "unexpected '%.*s' at a statement's start", (int)a->len, a->at);
            goto done;
        }
    }
    if (depth != 0 || i != n) {
        snprintf(why, why_n, depth ? "unbalanced braces" : "text after the closing brace");
        goto done;
    }
    for (int e = 0; e < n_ends; e++) {
        int found = 0;
        for (int d = 0; d < n_nodes && !found; d++)
            found = nodes[d].len == ends[e].len && !strncmp(nodes[d].at, ends[e].at, ends[e].len);
        if (!found) {
            snprintf(why, why_n, "edge endpoint %.*s is not declared", (int)ends[e].len, ends[e].at);
            goto done;
        }
    }
    ok = n_ends > 0 || n_nodes > 0;
    if (!ok) snprintf(why, why_n, "no nodes");
done:
    free(nodes);
    free(ends);
    free(t);
    return ok;
}

/* ---- the plan, from its text dump ---- */
typedef struct plan_buf {
    char name[160]; /* "c:f32[4,3]", as the dump spells it */
    char home[16];  /* argument, constant, temporary, output */
    size_t bytes, offset;
    char in_place_of[40];
    int first, last; /* live kernels; -1 when never read */
} plan_buf;

typedef struct plan_text {
    int n_kernels, n;
    plan_buf b[256];
} plan_text;

static int parse_plan(const char *fuse_plan, plan_text *p) {
    memset(p, 0, sizeof *p);
    const char *k = strstr(fuse_plan, "kernels (");
    const char *s = strstr(fuse_plan, "buffers (arena ");
    if (!k || !s || sscanf(k, "kernels (%d)", &p->n_kernels) != 1) return 0;
    s = strchr(s, '\n');
    while (s && s[1] == ' ' && s[2] == ' ' && p->n < 256) {
        const char *line = s + 1;
        s = strchr(line, '\n');
        plan_buf *b = &p->b[p->n++];
        b->first = b->last = -1;
        if (sscanf(line, "%159s %15s %zu bytes", b->name, b->home, &b->bytes) != 3) return 0;
        const char *end = s ? s : line + strlen(line), *at;
        if ((at = strstr(line, " @ ")) && at < end) sscanf(at, " @ %zu", &b->offset);
        if ((at = strstr(line, "(in place of ")) && at < end) sscanf(at, "(in place of %39[^)])", b->in_place_of);
        if ((at = strstr(line, "live kernels ")) && at < end) sscanf(at, "live kernels %d..%d", &b->first, &b->last);
    }
    return p->n > 0;
}

static const plan_buf *plan_find(const plan_text *p, const char *bare_name) {
    for (int i = 0; i < p->n; i++) {
        size_t n = strlen(bare_name);
        if (!strncmp(p->b[i].name, bare_name, n) && p->b[i].name[n] == ':') return &p->b[i];
    }
    return NULL;
}

/* Memory in use at each kernel step, from the plan's text: arguments and
 * constants throughout, outputs from the kernel writing them on,
 * temporaries over their live kernels (a block taken in place counted
 * once). Donations do not show in this text: programs with a donated
 * input are checked against closed forms instead. The peak's step is the
 * first step reaching it. */
static size_t plan_in_use_peak(const plan_text *p, int *peak_step) {
    int steps = p->n_kernels > 0 ? p->n_kernels : 1;
    size_t best = 0;
    *peak_step = 0;
    for (int k = 0; k < steps; k++) {
        size_t used = 0;
        for (int i = 0; i < p->n; i++) {
            const plan_buf *b = &p->b[i];
            if (!strcmp(b->home, "argument") || !strcmp(b->home, "constant")) used += b->bytes;
            else if (!strcmp(b->home, "output") && b->first <= k) used += b->bytes;
            else if (!strcmp(b->home, "temporary") && b->first <= k && k <= b->last) {
                used += b->bytes;
                const plan_buf *u = b->in_place_of[0] && b->first == k ? plan_find(p, b->in_place_of) : NULL;
                if (u) used -= u->bytes;
            }
        }
        if (used > best) {
            best = used;
            *peak_step = k;
        }
    }
    return best;
}

/* Is `name` in `hay` as a whole word (not the tail of a longer name)? */
static int names_word(const char *hay, const char *name) {
    for (const char *at = strstr(hay, name); at; at = strstr(at + 1, name)) {
        char before = at == hay ? ' ' : at[-1];
        if (!isalnum((unsigned char)before) && before != '_' && before != '.' && before != '-') return 1;
    }
    return 0;
}

static size_t svg_number(const char *svg, const char *id, const char *attr) {
    char key[64];
    snprintf(key, sizeof key, "id=\"%s\"", id);
    const char *at = strstr(svg, key);
    if (!at) return (size_t)-1;
    const char *tag_end = strchr(at, '>');
    snprintf(key, sizeof key, "%s=\"", attr);
    const char *v = strstr(at, key);
    if (!v || (tag_end && v > tag_end)) return (size_t)-1;
    return (size_t)strtoull(v + strlen(key), NULL, 10);
}

/* ---- one program, both pictures ---- */
typedef struct picture_case {
    const char *name;
    cj_func *jf;
    const cj_val *in;
    int expect_temporaries; /* -1: do not care */
} picture_case;

static char tmp_dir[64];

static void remove_scratch_dir(void) { rmdir(tmp_dir); /* empty by then: each test removes its files */ }

static const char *scratch_dir(void) {
    if (!tmp_dir[0]) {
        snprintf(tmp_dir, sizeof tmp_dir, "/tmp/cjax-pictures-XXXXXX");
        if (mkdtemp(tmp_dir)) atexit(remove_scratch_dir);
        else snprintf(tmp_dir, sizeof tmp_dir, "/tmp");
    }
    return tmp_dir;
}

/* Writes both pictures of jf for `in`, checks them, and returns the
 * SVG's in-use peak (or (size_t)-1 after a failed check). */
static size_t check_pictures(cj_ctx *ctx, const char *tag, cj_func *jf, const cj_val *in, plan_text *plan,
                             cj_memory_analysis *m) {
    char svg_path[256], dot_path[256], why[200];
    snprintf(svg_path, sizeof svg_path, "%s/%s.svg", scratch_dir(), tag);
    snprintf(dot_path, sizeof dot_path, "%s/%s.dot", scratch_dir(), tag);
    size_t result = (size_t)-1;
    char *dump = NULL, *svg = NULL, *dot = NULL;
    text_acc svg_text = {0}, dot_text = {0};
    if (cj_jit_memory_svg(jf, in, svg_path) != CJ_OK || cj_jit_program_dot(jf, in, dot_path) != CJ_OK) {
        th_fail(__FILE__, __LINE__, "%s: %s", tag, cj_error_message(ctx));
        goto done;
    }
    dump = cj_jit_dump(jf, in, "fuse,plan");
    if (!dump || !parse_plan(dump, plan) || cj_jit_memory_analysis(jf, in, m) != CJ_OK) {
        th_fail(__FILE__, __LINE__, "%s: no plan to compare with\n%s", tag, dump ? dump : cj_error_message(ctx));
        goto done;
    }
    svg = slurp(svg_path);
    dot = slurp(dot_path);
    if (!svg || !dot) {
        th_fail(__FILE__, __LINE__, "%s: a picture was not written", tag);
        goto done;
    }
    if (!xml_check(svg, "svg", &svg_text, why, sizeof why)) {
        th_fail(__FILE__, __LINE__, "%s: %s is not well-formed XML: %s", tag, svg_path, why);
        goto done;
    }
    int clusters = 0;
    if (!dot_check(dot, &dot_text, &clusters, why, sizeof why)) {
        th_fail(__FILE__, __LINE__, "%s: %s is not a well-formed digraph: %s", tag, dot_path, why);
        goto done;
    }
    if (clusters != plan->n_kernels) {
        th_fail(__FILE__, __LINE__, "%s: %d clusters for %d kernels", tag, clusters, plan->n_kernels);
        goto done;
    }
    /* every buffer of the plan is named in the text a reader sees */
    for (int i = 0; i < plan->n; i++) {
        if (!names_word(svg_text.s, plan->b[i].name) || !names_word(dot_text.s, plan->b[i].name)) {
            th_fail(__FILE__, __LINE__, "%s: buffer %s (%s) missing from the %s", tag, plan->b[i].name,
                    plan->b[i].home, names_word(svg_text.s, plan->b[i].name) ? "dot file" : "SVG");
            goto done;
        }
    }
    /* the reserved curve ends at the analysis's peak; the marked figure of
     * the analysis is the analysis's */
    if (svg_number(svg, "reserved", "data-peak-bytes") != m->peak_bytes ||
        svg_number(svg, "analysis-peak", "data-bytes") != m->peak_bytes) {
        th_fail(__FILE__, __LINE__, "%s: reserved peak %zu, analysis mark %zu, analysis %zu", tag,
                svg_number(svg, "reserved", "data-peak-bytes"), svg_number(svg, "analysis-peak", "data-bytes"),
                m->peak_bytes);
        goto done;
    }
    /* the title carries the totals */
    char totals[64];
    snprintf(totals, sizeof totals, "(%zu bytes)", m->peak_bytes);
    if (!strstr(svg_text.s, totals)) {
        th_fail(__FILE__, __LINE__, "%s: the title does not give the peak %s", tag, totals);
        goto done;
    }
    result = svg_number(svg, "peak-in-use", "data-bytes");
done:
    free(svg_text.s);
    free(dot_text.s);
    free(svg);
    free(dot);
    cj_string_free(ctx, dump);
    remove(svg_path);
    remove(dot_path);
    return result;
}

/* The in-use peak the SVG marks equals the one recomputed from the plan
 * text, at the same step. */
static int peak_matches_plan(const char *svg_tag, size_t svg_peak, int svg_step, const plan_text *plan) {
    int step;
    size_t want = plan_in_use_peak(plan, &step);
    if (svg_peak != want || svg_step != step) {
        th_fail(__FILE__, __LINE__, "%s: SVG peak %zu at step %d, plan says %zu at step %d", svg_tag, svg_peak,
                svg_step, want, step);
        return 0;
    }
    return 1;
}

static int svg_peak_step(cj_func *jf, const cj_val *in) {
    char path[256];
    snprintf(path, sizeof path, "%s/step.svg", scratch_dir());
    if (cj_jit_memory_svg(jf, in, path) != CJ_OK) return -1;
    char *s = slurp(path);
    size_t step = s ? svg_number(s, "peak-in-use", "data-step") : (size_t)-1;
    free(s);
    remove(path);
    return (int)step;
}

static const cj_jit_opts interp = {0, NULL, 0, NULL, CJ_BACKEND_INTERP};

/* ---- programs ---- */
static void f_chain(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    out[0] = cj_mul(cj_tanh(cj_add(cj_mul(in[0], cj_scalar(ctx, 2.0)), in[1])), in[1]);
}

/* An elementwise chain is one kernel with no temporaries: at its one
 * step the arguments and the output are all there is, so the in-use peak
 * is the analysis's peak exactly. */
TEST(pictures_elementwise_chain) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *jf = cj_jit(cj_func_new(ctx, "chain", f_chain, 2, 1, NULL), &interp);
    int64_t d[2] = {64, 32};
    float *v = malloc(sizeof(float) * 64 * 32);
    for (int i = 0; i < 64 * 32; i++) v[i] = (float)i * 0.001f;
    cj_val in[2] = {cj_array(ctx, CJ_F32, 2, d, v), cj_array(ctx, CJ_F32, 2, d, v)};
    free(v);
    plan_text plan;
    cj_memory_analysis m;
    size_t peak = check_pictures(ctx, "chain", jf, in, &plan, &m);
    CHECK(peak != (size_t)-1);
    CHECK_EQ_INT(plan.n_kernels, 1);
    CHECK_EQ_INT(m.temp_bytes, 0);
    CHECK_EQ_INT(peak, m.peak_bytes);
    size_t consts = 0; /* the scalar 2.0, unless folded away */
    for (int i = 0; i < plan.n; i++)
        if (!strcmp(plan.b[i].home, "constant")) consts += plan.b[i].bytes;
    CHECK_EQ_INT(peak, 3 * 64 * 32 * 4 + consts);
    CHECK(peak_matches_plan("chain", peak, svg_peak_step(jf, in), &plan));
    cj_ctx_free(ctx);
}

/* ---- an MLP's training step: dot, epilogues, the backward pass ---- */
static void f_mlp_loss(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    /* in: w1 [16,32], b1 [32], w2 [32,4], b2 [4], x [64,16], y [64,4] */
    cj_val h = cj_relu(cj_add(cj_matmul(in[4], in[0]), in[1]));
    cj_val p = cj_add(cj_matmul(h, in[2]), in[3]);
    out[0] = cj_mean(cj_square(cj_sub(p, in[5])), -1, NULL, 0);
}

static cj_val filled(cj_ctx *ctx, int rank, const int64_t *dims, uint64_t seed) {
    int64_t n = 1;
    for (int i = 0; i < rank; i++) n *= dims[i];
    float *v = malloc(sizeof(float) * (size_t)n);
    for (int64_t i = 0; i < n; i++) v[i] = (float)th_rand_uniform(&seed, -1, 1);
    cj_val r = cj_array(ctx, CJ_F32, rank, dims, v);
    free(v);
    return r;
}

static void mlp_inputs(cj_ctx *ctx, cj_val *in) {
    static const int64_t shapes[6][2] = {{16, 32}, {32, 0}, {32, 4}, {4, 0}, {64, 16}, {64, 4}};
    for (int i = 0; i < 6; i++) in[i] = filled(ctx, shapes[i][1] ? 2 : 1, shapes[i], 7 + (uint64_t)i);
}

/* The training step has temporaries, so the in-use curve stays at or
 * below the analysis's peak (which counts the whole arena at once, gaps
 * and alignment included); the reserved curve reaches it. */
TEST(pictures_mlp_training_step) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_grad_opts go = {4, (int[]){0, 1, 2, 3}, 0};
    cj_func *jf = cj_jit(cj_value_and_grad(cj_func_new(ctx, "mlp_loss", f_mlp_loss, 6, 1, NULL), &go), &interp);
    cj_val in[6];
    mlp_inputs(ctx, in);
    plan_text plan;
    cj_memory_analysis m;
    size_t peak = check_pictures(ctx, "mlp", jf, in, &plan, &m);
    CHECK(peak != (size_t)-1);
    CHECK_MSG(plan.n_kernels >= 3 && m.temp_bytes > 0, "%d kernels, %zu temporary bytes", plan.n_kernels,
              m.temp_bytes);
    CHECK(peak <= m.peak_bytes);
    CHECK(peak_matches_plan("mlp", peak, svg_peak_step(jf, in), &plan));
    /* the forward product is labelled with the operation that made it */
    char path[256];
    snprintf(path, sizeof path, "%s/mlp-label.svg", scratch_dir());
    CHECK(cj_jit_memory_svg(jf, in, path) == CJ_OK);
    char *svg = slurp(path);
    remove(path);
    CHECK(svg);
    int has_dot = strstr(svg, "= dot_general") != NULL;
    free(svg);
    CHECK(has_dot);
    cj_ctx_free(ctx);
}

/* ---- buffer reuse: a later temporary takes a dead one's block ---- */
static void f_reuse(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    int64_t ax0 = 0;
    /* cumsums are kernels of their own reading stored operands (a column
     * sum would join the loop feeding it and store nothing) */
    cj_val t1 = cj_mul(in[0], in[0]);
    cj_val s1 = cj_cumsum(t1, 0, 0);
    cj_val t2 = cj_exp(cj_mul(in[0], cj_scalar(ctx, 1e-3))); /* may take t1's block once t1 is dead */
    cj_val s2 = cj_cumsum(cj_mul(t2, s1), 0, 0);
    out[0] = cj_sum(s2, 1, &ax0, 0);
}

TEST(pictures_buffer_reuse) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *jf = cj_jit(cj_func_new(ctx, "reuse", f_reuse, 1, 1, NULL), &interp);
    int64_t d[2] = {256, 64};
    cj_val x = filled(ctx, 2, d, 3);
    plan_text plan;
    cj_memory_analysis m;
    size_t peak = check_pictures(ctx, "reuse", jf, &x, &plan, &m);
    CHECK(peak != (size_t)-1);
    /* the program does reuse: two temporaries at one offset, one dead
     * before the other is written */
    int reused = 0;
    for (int i = 0; i < plan.n; i++)
        for (int j = 0; j < plan.n; j++) {
            const plan_buf *a = &plan.b[i], *b = &plan.b[j];
            if (i != j && !strcmp(a->home, "temporary") && !strcmp(b->home, "temporary") && a->offset == b->offset &&
                a->last < b->first)
                reused = 1;
        }
    CHECK_MSG(reused, "no block is reused in this plan");
    CHECK(peak < m.peak_bytes || m.temp_bytes == 0);
    CHECK(peak_matches_plan("reuse", peak, svg_peak_step(jf, &x), &plan));
    cj_ctx_free(ctx);
}

/* ---- a donated input: the output costs nothing new ---- */
static void f_axpy(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    out[0] = cj_add(cj_mul(in[0], cj_scalar(ctx, 3.0)), in[1]);
}

TEST(pictures_donated_input) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int donate = 0;
    cj_jit_opts o = {0, NULL, 1, &donate, CJ_BACKEND_INTERP};
    cj_func *jf = cj_jit(cj_func_new(ctx, "axpy", f_axpy, 2, 1, NULL), &o);
    cj_val in[2] = {tu_ramp(ctx, 1000, 0.5f, 0), tu_ramp(ctx, 1000, 0.25f, 1)};
    plan_text plan;
    cj_memory_analysis m;
    size_t peak = check_pictures(ctx, "donated", jf, in, &plan, &m);
    CHECK(peak != (size_t)-1);
    CHECK_EQ_INT(m.alias_bytes, 4000);
    /* the output lives in argument 0's buffer: in use and the analysis's
     * peak are both the two arguments (and the scalar constant, if the
     * plan keeps one) */
    size_t consts = 0;
    for (int i = 0; i < plan.n; i++)
        if (!strcmp(plan.b[i].home, "constant")) consts += plan.b[i].bytes;
    CHECK_EQ_INT(m.peak_bytes, 8000 + consts);
    CHECK_EQ_INT(peak, m.peak_bytes);
    /* both pictures say where the output went */
    char path[256];
    snprintf(path, sizeof path, "%s/donated.dot", scratch_dir());
    CHECK(cj_jit_program_dot(jf, in, path) == CJ_OK);
    char *dot = slurp(path);
    remove(path);
    CHECK(dot);
    int says = strstr(dot, "in argument 0's buffer") != NULL;
    free(dot);
    CHECK(says);
    cj_ctx_free(ctx);
}

/* ---- control flow: a scan is one kernel of the outer program ---- */
static void scan_body(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_add(in[0], in[1]); /* carry */
    out[1] = cj_mul(in[0], in[1]); /* y */
}

static void f_scan(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx;
    cj_val c0 = cj_tanh(in[0]);
    cj_scan((cj_func *)u, 1, &c0, 1, &in[1], NULL, &out[0], &out[1]);
    out[1] = cj_exp(out[1]);
}

TEST(pictures_control_flow_scan) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *body = cj_func_new(ctx, "body", scan_body, 2, 2, NULL);
    cj_func *jf = cj_jit(cj_func_new(ctx, "scanned", f_scan, 2, 2, body), &interp);
    int64_t d[2] = {8, 16};
    cj_val in[2] = {filled(ctx, 1, d + 1, 1), filled(ctx, 2, d, 2)};
    plan_text plan;
    cj_memory_analysis m;
    size_t peak = check_pictures(ctx, "scan", jf, in, &plan, &m);
    CHECK(peak != (size_t)-1);
    CHECK(peak <= m.peak_bytes);
    CHECK(peak_matches_plan("scan", peak, svg_peak_step(jf, in), &plan));
    cj_ctx_free(ctx);
}

/* ---- a program with no kernels: its output is its argument ---- */
static void f_identity(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = in[0];
}

TEST(pictures_program_without_kernels) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *jf = cj_jit(cj_func_new(ctx, "identity", f_identity, 1, 1, NULL), &interp);
    cj_val x = tu_ramp(ctx, 100, 1, 0);
    plan_text plan;
    cj_memory_analysis m;
    size_t peak = check_pictures(ctx, "identity", jf, &x, &plan, &m);
    CHECK(peak != (size_t)-1);
    CHECK_EQ_INT(plan.n_kernels, 0);
    CHECK_EQ_INT(peak, 400);
    CHECK_EQ_INT(m.peak_bytes, 400);
    cj_ctx_free(ctx);
}

/* ---- errors ---- */
TEST(pictures_unwritable_path_is_an_io_error) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *jf = cj_jit(cj_func_new(ctx, "chain", f_chain, 2, 1, NULL), &interp);
    cj_val in[2] = {tu_ramp(ctx, 10, 1, 0), tu_ramp(ctx, 10, 1, 0)};
    const char *bad = "/nonexistent-cjax-dir/timeline.svg";
    CHECK(cj_jit_memory_svg(jf, in, bad) == CJ_ERR_IO);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_jit_memory_svg");
    CHECK_STR_CONTAINS(cj_error_message(ctx), bad);
    cj_error_clear(ctx);
    /* a directory is not a file either */
    CHECK(cj_jit_program_dot(jf, in, scratch_dir()) == CJ_ERR_IO);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_jit_program_dot");
    CHECK_STR_CONTAINS(cj_error_message(ctx), scratch_dir());
    cj_error_clear(ctx);
    CHECK(cj_jit_memory_svg(jf, in, NULL) == CJ_ERR_ARG);
    cj_error_clear(ctx);
    /* only jitted functions have a compiled program */
    CHECK(cj_jit_program_dot(cj_func_new(ctx, "plain", f_chain, 2, 1, NULL), in, "/tmp/x.dot") == CJ_ERR_ARG);
    CHECK_STR_CONTAINS(cj_error_message(ctx), "cj_jit_program_dot");
    cj_error_clear(ctx);
    /* and the context works on */
    char path[256];
    snprintf(path, sizeof path, "%s/after.svg", scratch_dir());
    CHECK(cj_jit_memory_svg(jf, in, path) == CJ_OK);
    CHECK(file_exists(path));
    remove(path);
    cj_ctx_free(ctx);
}

/* Allocation N failing, for N = 1, 2, ... until nothing fails: tracing,
 * compiling and drawing each end with CJ_OK or a clean CJ_ERR_OOM, leave
 * no file behind when they fail, and leak nothing. */
TEST(pictures_allocation_failure_is_clean) {
    for (int which = 0; which < 2; which++) {
        char path[256];
        snprintf(path, sizeof path, "%s/oom.%s", scratch_dir(), which ? "dot" : "svg");
        /* a counting run: how many allocations compiling takes, and how
         * many drawing adds (the loop below must fail each of those) */
        long long compile_allocs, draw_allocs;
        {
            tu_alloc st = {0};
            cj_allocator al = tu_allocator(&st);
            cj_ctx *ctx = cj_ctx_new(&al);
            int64_t d[2] = {256, 64};
            cj_func *jf = cj_jit(cj_func_new(ctx, "reuse", f_reuse, 1, 1, NULL), &interp);
            cj_val x = filled(ctx, 2, d, 3);
            cj_memory_analysis m;
            CHECK(cj_jit_memory_analysis(jf, &x, &m) == CJ_OK);
            compile_allocs = st.count;
            CHECK((which ? cj_jit_program_dot(jf, &x, path) : cj_jit_memory_svg(jf, &x, path)) == CJ_OK);
            draw_allocs = st.count - compile_allocs;
            cj_ctx_free(ctx);
            CHECK(draw_allocs > 0);
        }
        int covered = 0;
        long long n = 1;
        for (; n < 20000 && !covered; n++) {
            tu_alloc st = {0};
            st.fail_at = n;
            cj_allocator al = tu_allocator(&st);
            cj_ctx *ctx = cj_ctx_new(&al);
            remove(path);
            if (ctx) {
                int64_t d[2] = {256, 64};
                cj_func *jf = cj_jit(cj_func_new(ctx, "reuse", f_reuse, 1, 1, NULL), &interp);
                cj_val x = filled(ctx, 2, d, 3);
                cj_status s = which ? cj_jit_program_dot(jf, &x, path) : cj_jit_memory_svg(jf, &x, path);
                if (s == CJ_OK) {
                    CHECK(file_exists(path));
                    if (!st.failed) covered = 1;
                } else {
                    /* a failure before the jitted function exists reaches
                     * the call as a NULL function: the context says why */
                    CHECK_MSG(cj_error(ctx) == CJ_ERR_OOM, "allocation %lld: %s (%s)", n, cj_error_message(ctx),
                              cj_status_name(s));
                    CHECK_MSG(!file_exists(path), "allocation %lld failing left %s behind", n, path);
                }
                cj_ctx_free(ctx);
            }
            CHECK_MSG(st.live == 0, "allocation %lld failing leaked %lld blocks", n, st.live);
        }
        CHECK(covered);
        CHECK_MSG(n > compile_allocs + draw_allocs, "stopped at %lld of %lld + %lld allocations", n, compile_allocs,
                  draw_allocs);
        remove(path);
    }
}

/* ---- CJAX_DUMP=svg,dot ---- */
/* The knobs are read once per process, so this sets the parsed values
 * directly (and puts them back). */
TEST(pictures_cjax_dump_writes_both_files) {
    char dir[64];
    snprintf(dir, sizeof dir, "/tmp/cjax-dump-XXXXXX");
    CHECK(mkdtemp(dir));
    rt_config *cfg = (rt_config *)rt_config_get();
    const char *saved_dump = cfg->dump;
    const char *saved_dir = cfg->dump_dir;
    cfg->dump = "fusion-not-a-stage,svg,dot";
    cfg->dump_dir = dir;
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_func *jf = cj_jit(cj_func_new(ctx, "chain(x, y)", f_chain, 2, 1, NULL), &interp);
    cj_val in[2] = {tu_ramp(ctx, 10, 1, 0), tu_ramp(ctx, 10, 1, 0)}, y;
    cj_status s = cj_call(jf, in, &y);
    cfg->dump = saved_dump;
    cfg->dump_dir = saved_dir;
    CHECK(s == CJ_OK);
    /* one .svg and one .dot, named after the function, both well-formed */
    int n_svg = 0, n_dot = 0, good = 1;
    DIR *dd = opendir(dir);
    CHECK(dd);
    struct dirent *de;
    char why[200] = "";
    while ((de = readdir(dd))) {
        if (de->d_name[0] == '.') continue;
        char path[512];
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        char *text = slurp(path);
        text_acc acc = {0};
        int clusters;
        size_t len = strlen(de->d_name);
        int named = !strncmp(de->d_name, "cjax-jit_chain_x_y-", 19);
        if (len > 4 && !strcmp(de->d_name + len - 4, ".svg")) {
            n_svg++;
            good &= named && text && xml_check(text, "svg", &acc, why, sizeof why);
        } else if (len > 4 && !strcmp(de->d_name + len - 4, ".dot")) {
            n_dot++;
            good &= named && text && dot_check(text, &acc, &clusters, why, sizeof why);
        } else {
            good = 0;
        }
        if (!good && !why[0]) snprintf(why, sizeof why, "unexpected file %s", de->d_name);
        free(acc.s);
        free(text);
        remove(path);
    }
    closedir(dd);
    rmdir(dir);
    CHECK_MSG(good, "%s", why);
    CHECK_EQ_INT(n_svg, 1);
    CHECK_EQ_INT(n_dot, 1);
    cj_ctx_free(ctx);
}

/* ---- the checkers catch what they should ---- */
TEST(pictures_checkers_reject_malformed_text) {
    char why[200];
    text_acc a = {0};
    int clusters;
    CHECK(xml_check("<svg a=\"1\"><g><text>x &amp; y</text></g></svg>", "svg", &a, why, sizeof why));
    CHECK(!xml_check("<svg><g></svg>", "svg", &a, why, sizeof why));
    CHECK(!xml_check("<svg a=1></svg>", "svg", &a, why, sizeof why));
    CHECK(!xml_check("<svg><text>a & b</text></svg>", "svg", &a, why, sizeof why));
    CHECK(!xml_check("<svg a=\"<\"></svg>", "svg", &a, why, sizeof why));
    CHECK(!xml_check("<svg></svg><svg></svg>", "svg", &a, why, sizeof why));
    CHECK(dot_check("digraph \"g\" {\n a [label=\"x\"];\n b;\n a -> b [label=\"q\\\"\"];\n}\n", &a, &clusters, why,
                    sizeof why));
    CHECK(!dot_check("digraph g {\n a;\n a -> c;\n}\n", &a, &clusters, why, sizeof why));
    CHECK(!dot_check("digraph g {\n a [label=\"x];\n}\n", &a, &clusters, why, sizeof why));
    CHECK(!dot_check("digraph g {\n subgraph cluster_0 { a; }\n", &a, &clusters, why, sizeof why));
    CHECK(!dot_check("graph g { a; }\n", &a, &clusters, why, sizeof why));
    free(a.s);
}
