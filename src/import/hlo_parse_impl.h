/* hlo_parse_impl.h — what hlo_parse.c and hlo_pretty.c share (import
 * layer): the parser's state and its helpers. Not used elsewhere. */
#ifndef CJ_IMPORT_HLO_PARSE_IMPL_H
#define CJ_IMPORT_HLO_PARSE_IMPL_H

#include "import/hlo.h"
#include "import/hlo_lex.h"

#define HLO_MAX_DEPTH 48

typedef struct hp_name {
    const char *p;
    size_t n;
    uint32_t h;
    int id, count;
} hp_name;

typedef struct hp {
    hlo_module *m;
    hlo_lexer lx;
    hlo_tok cur;
    int failed;
    char *err;
    size_t err_size;
    hp_name *names;
    int n_names, cap_names;
    int scope_floor; /* names below belong to an enclosing func.func */
    int next_id;
    int cap_funcs;
    const char *elem_name; /* the last tensor type's element type, as written */
    size_t elem_len;
    hlo_type *fn_ins, *fn_outs; /* the last function type read */
    int fn_nin, fn_nout;
    const char *op_name; /* the op being read: hp_fail's messages name it */
} hp;

void *hp_alloc(hp *P, size_t n);
int hp_fail(hp *P, int line, int col, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
void hp_next(hp *P);
int hp_is(hp *P, const char *s);
int hp_accept(hp *P, const char *s);
int hp_expect(hp *P, const char *s, const char *where);
const char *hp_strdup(hp *P, const char *s, size_t n);
/* The text of a "string" or @symbol (@"quoted" too) token without its
 * quotes and @, as a new attribute of `kind` placed at the current token;
 * NULL when out of memory (P has failed). */
hlo_attr *hp_text_attr(hp *P, hlo_tok t, int kind);
int hp_define(hp *P, const hlo_tok *t, int count);
int hp_lookup(hp *P, const hlo_tok *t);
int hp_type(hp *P, hlo_type *t);
int hp_type_list(hp *P, hlo_type **out, int *n);
int hp_skip_angle(hp *P, const char **start, size_t *len);
int hp_skip_loc(hp *P);
hlo_attr *hp_attr(hp *P);
hlo_attr *hp_attr_depth(hp *P, int depth);
int hp_add_attrs(hp *P, hlo_op *op, const hlo_attr *d);
int hp_region(hp *P, hlo_block *blk, int depth);
int hp_block_ops(hp *P, hlo_block *blk, int depth);
int hp_operand_list(hp *P, hlo_op *op, const char *close);
hlo_op *hp_op(hp *P, int depth);
/* An op in the pretty form (its name is the current token): hlo_pretty.c. */
int hp_pretty_op(hp *P, hlo_op *op, int depth);
/* hlo_pretty.c's helpers for hlo_pretty_struct.c: the op's trailing
 * ": t" / ": (ts) -> ts", an attribute added to an op, "[1, 2]" as an
 * array<i64> (its text appended to text when used is given), an opaque
 * attribute holding text. */
int hp_trailing_types(hp *P, hlo_op *op);
int hp_add_attr(hp *P, hlo_op *op, const char *name, hlo_attr *v);
hlo_attr *hp_int_list(hp *P, char *text, size_t size, size_t *used);
hlo_attr *hp_opaque_text(hp *P, const char *text);
/* The pretty ops of hlo_pretty_struct.c (slice, while, convolution,
 * custom_call, composite, rng_bit_generator ...), base the name after
 * "stablehlo.": 0 read, -1 failed, 1 not one of them. */
int hp_pretty_struct(hp *P, hlo_op *op, const char *base, int depth);
/* reduce's "across dimensions = [..] : types reducer(..) (..) { }" after
 * its n operand pairs (the op's 2n operands are set). */
int hp_reduce_reducer(hp *P, hlo_op *op, int n, int depth);

#endif
