/* hlo_lex.c — MLIR text into tokens (import layer; read by hlo_parse.c).
 *
 * Identifiers take MLIR's characters (letters, digits, _ . $ -), so
 * "stablehlo.add" and "tensor" are one token each; a shape such as
 * 2x3xf32 is read by the parser from the raw text, not from tokens.
 * Comments (// to the end of the line) are skipped. A byte the grammar
 * has no use for is a TK_ERR token, which the parser reports with its
 * line and column. */
#include "import/hlo_lex.h"

#include <string.h>

void hlo_lex_init(hlo_lexer *lx, const char *s, size_t n, int line, int col) {
    lx->s = s;
    lx->end = s + n;
    lx->line = line;
    lx->col = col;
}

static void adv(hlo_lexer *lx) {
    if (*lx->s == '\n') lx->line++, lx->col = 1;
    else lx->col++;
    lx->s++;
}

static int idch(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' ||
           c == '$' || c == '-';
}
static int idstart(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }

hlo_tok hlo_lex_next(hlo_lexer *lx) {
    for (;;) {
        while (lx->s < lx->end && (*lx->s == ' ' || *lx->s == '\t' || *lx->s == '\n' || *lx->s == '\r')) adv(lx);
        if (lx->s + 1 < lx->end && lx->s[0] == '/' && lx->s[1] == '/') {
            while (lx->s < lx->end && *lx->s != '\n') adv(lx);
            continue;
        }
        break;
    }
    hlo_tok t = {TK_EOF, lx->s, 0, lx->line, lx->col};
    if (lx->s >= lx->end) return t;
    char c = *lx->s;
    if (c == '"') {
        adv(lx);
        while (lx->s < lx->end && *lx->s != '"') {
            if (*lx->s == '\\' && lx->s + 1 < lx->end) adv(lx);
            adv(lx);
        }
        if (lx->s >= lx->end) return t.kind = TK_ERR, t.n = 1, t;
        adv(lx);
        t.kind = TK_STR;
    } else if (c == '%' || c == '@' || c == '^' || c == '#' || c == '!') {
        adv(lx);
        if (c == '@' && lx->s < lx->end && *lx->s == '"') {
            hlo_tok s = hlo_lex_next(lx);
            if (s.kind != TK_STR) return s;
        } else {
            while (lx->s < lx->end && (idch(*lx->s) || (c == '%' && *lx->s == '#'))) adv(lx);
        }
        if (lx->s - t.p == 1) return t.kind = TK_ERR, t.n = 1, t;
        t.kind = c == '%' ? TK_PCT : c == '@' ? TK_AT : c == '^' ? TK_CARET : c == '#' ? TK_HASH : TK_BANG;
    } else if ((c >= '0' && c <= '9') || ((c == '-' || c == '+') && lx->s + 1 < lx->end && lx->s[1] >= '0' &&
                                             lx->s[1] <= '9')) {
        adv(lx);
        if (c == '0' && lx->s < lx->end && (*lx->s == 'x' || *lx->s == 'X')) {
            adv(lx);
            while (lx->s < lx->end && ((*lx->s >= '0' && *lx->s <= '9') || (*lx->s >= 'a' && *lx->s <= 'f') ||
                                       (*lx->s >= 'A' && *lx->s <= 'F')))
                adv(lx);
        } else {
            while (lx->s < lx->end && ((*lx->s >= '0' && *lx->s <= '9') || *lx->s == '.' || *lx->s == 'e' ||
                                       *lx->s == 'E' ||
                                       ((*lx->s == '-' || *lx->s == '+') && (lx->s[-1] == 'e' || lx->s[-1] == 'E'))))
                adv(lx);
        }
        t.kind = TK_NUM;
    } else if (idstart(c)) {
        while (lx->s < lx->end && idch(*lx->s)) {
            /* "->" after an identifier is the arrow, not part of it */
            if (*lx->s == '-' && lx->s + 1 < lx->end && lx->s[1] == '>') break;
            adv(lx);
        }
        t.kind = TK_ID;
    } else if (c == '-' && lx->s + 1 < lx->end && lx->s[1] == '>') {
        adv(lx), adv(lx);
        t.kind = TK_ARROW;
    } else if (strchr("(){}[]<>,:=*?+-x|", c)) {
        adv(lx);
        t.kind = TK_PUNCT;
    } else {
        adv(lx);
        t.kind = TK_ERR;
    }
    t.n = (size_t)(lx->s - t.p);
    return t;
}

int hlo_tok_is(const hlo_tok *t, const char *text) {
    size_t n = strlen(text);
    return t->n == n && memcmp(t->p, text, n) == 0;
}
