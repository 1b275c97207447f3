/* sort_kernels.h — the row kernels under the sort and top_k primitives
 * (prim layer, family SORT; src/prim/sort.c binds them to arrays).
 *
 * Every element is first mapped to an unsigned key whose integer order is
 * the order the primitive sorts by, so one comparison of integers serves
 * every dtype:
 *   sort   (lax.sort's comparator): -0.0 and 0.0 are one key and every NaN
 *          is one key above +inf, so a stable sort keeps zeros and NaNs in
 *          their original order;
 *   top_k  (XLA's TopK): the IEEE total order, -NaN < -inf < ... < -0.0 <
 *          0.0 < ... < inf < NaN, ties broken by the lower index.
 * A row is n elements `stride` elements apart; sorting a row gives its
 * permutation perm (out[j] = in[perm[j]]), stable. */
#ifndef CJ_SORT_KERNELS_H
#define CJ_SORT_KERNELS_H
#include "../runtime/runtime.h"

/* 32 when every key of dt fits in 32 bits (bool, the integers up to 32
 * bits, f16, bf16, f32), else 64 (i64, u64, f64). f16 and bf16 keys are
 * their 16 bits ordered as f32's are; narrower integers are widened. */
int sort_key_bits(cj_dtype dt);

/* The ordered keys of one row of dt (total: top_k's order, else sort's). */
void sort_row_keys(cj_dtype dt, bool total, const void *base, int64_t stride, int64_t n, uint64_t *keys);

/* A stable ascending sort of one row of dt (at most 32-bit keys: bool,
 * i32, f32): the packed words key << 32 | index in sorted order, in
 * scratch (2n uint64_t); the low 32 bits of word j are perm[j]. */
const uint64_t *sort_row_packed(cj_dtype dt, bool total, const void *base, int64_t stride, int64_t n,
                                uint64_t *scratch);

/* A row of one operand of dt (bool, i32, f32) sorted by lax.sort's order
 * straight into out as its own keys (scratch: 2n uint32_t); false, with
 * nothing written, when the keys are not one to one on this row (-0.0, a
 * NaN other than 0x7FC00000) or dt is wider: then use sort_row_packed. */
bool sort_row_keys_only(cj_dtype dt, const void *in, void *out, int64_t stride, int64_t n, uint32_t *scratch);

/* Is the key map one to one on this row of dt (bool, i32; f32 without
 * -0.0 or a NaN other than 0x7FC00000)? Then equal keys are equal bits,
 * and a sorted row can be written back from its keys. */
bool sort_row_one_to_one(cj_dtype dt, const void *base, int64_t stride, int64_t n);
/* out[j * stride] = the element whose key is the high half of packed[j]
 * (for a row that is one to one): the sorted key operand written
 * sequentially instead of gathered. */
void sort_row_unkey_packed(cj_dtype dt, const uint64_t *packed, int64_t n, void *out, int64_t stride);

/* perm of a stable lexicographic sort by n_keys key rows (keys[k][j]):
 * scratch holds n uint32_t. */
void sort_row_lex(const uint64_t *const *keys, int n_keys, int64_t n, uint32_t *scratch, uint32_t *perm);

/* The first k entries of the perm of a stable ascending sort of one row
 * of keys of `bits` bits (top_k passes its keys complemented, so that
 * largest comes first and ties go to the lower index): scratch holds 2n
 * uint64_t. */
void sort_row_first_k(const uint64_t *keys, int bits, int64_t n, int64_t k, uint64_t *scratch, uint32_t *first);

/* out[j * stride] = in[perm[j] * stride] for elements of `size` bytes. */
void sort_row_permute(size_t size, const void *in, void *out, int64_t stride, int64_t n, const uint32_t *perm);
/* The same with perm[j] the low 32 bits of packed[j]. */
void sort_row_permute_packed(size_t size, const void *in, void *out, int64_t stride, int64_t n,
                             const uint64_t *packed);

#endif
