/* hlo_comparator.h — a sort comparator region read as an order (import
 * layer; hlo_comparator.c, used by hlo_ops.c). */
#ifndef CJ_IMPORT_HLO_COMPARATOR_H
#define CJ_IMPORT_HLO_COMPARATOR_H

#include "import/hlo.h"

/* When the comparator b of a sort of m operands (block arguments x_0, y_0,
 * x_1, y_1, ...) computes "x before y" in the ascending lexicographic order
 * of the first k operands, sets *num_keys = k and returns 0; -1 when it
 * computes anything else, or reads ops this analysis does not follow, or
 * m > 6, or memory (from mem) runs out. */
int hlo_comparator_keys(rt_mem *mem, const hlo_block *b, int m, int *num_keys);

#endif
