/* hlo.h — the StableHLO importer's parsed module (import layer, the top).
 *
 * hlo_parse.c reads MLIR text (the generic op form, and the pretty form
 * JAX's Lowered.as_text() prints) into this tree; hlo_import.c binds cjax
 * operations for each op when the imported function runs. Everything lives
 * in one arena drawn from the context's allocator and is freed at once.
 * Values are numbered per func.func: every SSA name (block arguments and
 * op results, regions included) gets an id, and an op's results are
 * consecutive ids from first_result. */
#ifndef CJ_IMPORT_HLO_H
#define CJ_IMPORT_HLO_H

#include <stddef.h>
#include <stdint.h>

#include "cjax.h"
#include "runtime/runtime.h"
#include <string.h>

enum { HT_TENSOR, HT_OTHER };
typedef struct hlo_type {
    int kind;     /* HT_TENSOR, or HT_OTHER (token, index, tuple ...: not importable) */
    int known_dt; /* the element type is one cjax has */
    cj_dtype dt;
    int rank;
    int64_t dims[CJ_MAX_RANK];
} hlo_type;

enum { HA_INT, HA_FLOAT, HA_BOOL, HA_STR, HA_UNIT, HA_LIST, HA_DICT, HA_DENSE, HA_ARRAY, HA_OPAQUE, HA_SYM, HA_TYPE, HA_WORD };
typedef struct hlo_attr hlo_attr;
typedef struct hlo_named {
    const char *name;
    hlo_attr *val;
} hlo_named;
/* One element of a dense<...> literal: its integer or float value, or the
 * bits of a 0x... literal (a float's bit pattern). */
typedef struct hlo_elem {
    double f;
    uint64_t bits;
    int is_hex, is_float;
} hlo_elem;
struct hlo_attr {
    int kind;
    int64_t i;      /* HA_INT, HA_BOOL */
    double f;       /* HA_FLOAT */
    const char *s;  /* HA_STR (unescaped), HA_OPAQUE (the text between < >, with its #name in name), HA_SYM, HA_WORD */
    size_t slen;
    const char *name; /* HA_OPAQUE: "stablehlo.dot", "stablehlo<comparison_direction" ... */
    int line, col;
    int n;             /* HA_LIST items, HA_DICT entries, HA_ARRAY / HA_DENSE elements */
    hlo_attr **items;  /* HA_LIST */
    hlo_named *entries; /* HA_DICT */
    int64_t *ints;     /* HA_ARRAY (array<i64: ...>) */
    hlo_elem *elems;   /* HA_DENSE (row-major; n 1 with splat) */
    const uint8_t *raw; /* HA_DENSE from a "0x..." string: little-endian bytes */
    size_t raw_len;
    int splat;
    int has_type;
    hlo_type type; /* the ": type" after the value, HA_TYPE's type */
};

typedef struct hlo_op hlo_op;
typedef struct hlo_block {
    int n_args;
    int *arg_ids;
    hlo_type *arg_types;
    int n_ops;
    hlo_op **ops;
} hlo_block;

struct hlo_op {
    const char *name; /* "stablehlo.add", "func.call", ... */
    int line, col;
    int n_operands;
    int *operands; /* value ids */
    int n_results;
    int first_result;
    hlo_type *res_types;
    hlo_type *opd_types;
    int n_attrs;
    hlo_named *attrs; /* properties and attributes together */
    int n_regions;
    hlo_block *regions;
    int n_values; /* func.func: the ids its body uses */
};

typedef struct hlo_func {
    const char *name;
    int n_args, n_results;
    hlo_type *arg_types, *res_types;
    hlo_block body;
    int n_values; /* ids used in this function */
    int line, col;
} hlo_func;

typedef struct hlo_arena_block hlo_arena_block;
typedef struct hlo_module {
    rt_mem *mem;
    hlo_arena_block *blocks;
    int n_funcs;
    hlo_func *funcs;
    size_t bytes; /* arena bytes drawn */
} hlo_module;

/* Parses MLIR text; NULL with "line L, column C: ..." in err (err_size
 * bytes) when the text is not a module this parser reads, or when memory
 * runs out (the message says so). */
hlo_module *hlo_parse(rt_mem *mem, const char *text, size_t len, char *err, size_t err_size);
void hlo_module_free(hlo_module *m);

/* Look-ups the importer shares. */
const hlo_attr *hlo_op_attr(const hlo_op *op, const char *name);
const hlo_func *hlo_find_func(const hlo_module *m, const char *name, size_t len);
/* Parses the key = value text inside an opaque attribute (#stablehlo.dot<...>,
 * #stablehlo.gather<...>): the integer list under key into out (at most
 * max entries); returns the count, 0 when absent, -1 when malformed. */
int hlo_opaque_ints(const hlo_attr *a, const char *key, int64_t *out, int max);
/* The word of an enum attribute (#stablehlo<comparison_direction GT> → "GT"). */
int hlo_opaque_word(const hlo_attr *a, char *out, size_t size);

/* memcpy of n bytes that allows n == 0 with a null pointer (an empty
 * attribute or operand list has no storage; memcpy's arguments must not be
 * null even then). */
static inline void hlo_copy(void *dst, const void *src, size_t n) {
    if (n) memcpy(dst, src, n);
}

#endif
