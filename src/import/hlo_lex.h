/* hlo_lex.h — the MLIR text lexer of the StableHLO importer (import layer).
 *
 * Splits text into tokens with their line and column; hlo_parse.c reads
 * them. Every token is a view into the text: nothing is allocated. */
#ifndef CJ_IMPORT_HLO_LEX_H
#define CJ_IMPORT_HLO_LEX_H

#include <stddef.h>

enum {
    TK_EOF, TK_ERR, TK_PCT, /* %name, %name#3 */ TK_AT, /* @name, @"name" */ TK_CARET, /* ^bb0 */
    TK_HASH, /* #name */ TK_BANG, /* !name */ TK_STR, TK_NUM, TK_ID, TK_ARROW, TK_PUNCT
};
typedef struct hlo_tok {
    int kind;
    const char *p;
    size_t n;
    int line, col;
} hlo_tok;
typedef struct hlo_lexer {
    const char *s, *end;
    int line, col;
} hlo_lexer;

void hlo_lex_init(hlo_lexer *lx, const char *s, size_t n, int line, int col);
hlo_tok hlo_lex_next(hlo_lexer *lx);
int hlo_tok_is(const hlo_tok *t, const char *text);

#endif
