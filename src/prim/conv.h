/* conv.h — where conv_general_dilated keeps its parameters in the flat
 * prim_params (prim layer; the primitive in conv.c, its jvp and transpose
 * in src/autodiff/rules_conv.c).
 *
 *   lhs_contract  lhs_spec: lhs's batch axis, feature axis, spatial axes
 *   rhs_contract  rhs_spec: rhs's out-feature axis, in-feature axis, spatial axes
 *   lhs_batch     out_spec: the result's batch, feature and spatial axes
 *   step          window_strides (one per spatial dimension)
 *   lo, hi        padding before and after (negative crops)
 *   axes          lhs_dilation
 *   shape         rhs_dilation
 *   count         feature_group_count
 *   flag          batch_group_count
 *   dtype         preferred_element_type (must be the operands' dtype)
 * As lax's ConvDimensionNumbers, spatial axis i of each spec pairs with
 * spatial axis i of the others and with entry i of the per-dimension lists. */
#ifndef CJ_PRIM_CONV_H
#define CJ_PRIM_CONV_H
#include "prim.h"

#define CONV_LHS_SPEC(p) ((p)->lhs_contract)
#define CONV_RHS_SPEC(p) ((p)->rhs_contract)
#define CONV_OUT_SPEC(p) ((p)->lhs_batch)
#define CONV_STRIDES(p) ((p)->step)
#define CONV_LHS_DIL(p) ((p)->axes)
#define CONV_RHS_DIL(p) ((p)->shape)
#define CONV_GROUPS(p) ((p)->count)
#define CONV_BATCH_GROUPS(p) ((p)->flag)

/* A dilated size: 0 for 0, else 1 + dil·(d - 1). */
static inline int64_t conv_dilate(int64_t d, int64_t dil) { return d == 0 ? 0 : 1 + dil * (d - 1); }


#include "../core/core.h"
/* lax's reshape helpers the vmap and transpose rules fold axes with:
 * conv_axis_into moves axis src of x into axis dst (numbered with src
 * removed), src the major part of the merged axis; conv_axis_out_of
 * splits axis src into (size1, rest), size1 major. */
cj_val conv_axis_into(cj_val x, int64_t src, int64_t dst);
cj_val conv_axis_out_of(cj_val x, int64_t src, int64_t size1);

#endif
