/* conv.c — cj_conv_general_dilated, cj_conv and cj_padtype_to_pads (api
 * layer).
 *
 * The jax.lax part of a convolution: dimension-number strings into the
 * primitive's axis permutations (lax.conv_general_permutations: N/C, O/I,
 * N/C first, then the spatial axes in the order rhs_spec lists their
 * letters), padding names into (lo, hi) pairs (lax.padtype_to_pads over
 * the dilated kernel), defaults for the lists, and dtype promotion; the
 * strict conv_general_dilated primitive (src/prim/conv.c) does the rest. */
#include <string.h>

#include "../prim/conv.h"
#include "api.h"

static const char *OP = "conv_general_dilated";

int cj_padtype_to_pads(int n, const int64_t *in, const int64_t *window, const int64_t *strides, cj_padding type,
                       int64_t *pads) {
    if (n < 0 || (n > 0 && (!in || !window || !pads))) return -1;
    for (int k = 0; k < n; k++) {
        int64_t s = strides ? strides[k] : 1;
        if (s < 1 || in[k] < 0 || window[k] < 0) return -1;
        int64_t lo = 0, hi = 0;
        if (type == CJ_PAD_SAME || type == CJ_PAD_SAME_LOWER) {
            int64_t out = (in[k] + s - 1) / s;
            int64_t total = (out - 1) * s + window[k] - in[k];
            if (total < 0) total = 0;
            lo = type == CJ_PAD_SAME ? total / 2 : total - total / 2;
            hi = total - lo;
        } else if (type != CJ_PAD_VALID) {
            return -1;
        }
        pads[2 * k] = lo;
        pads[2 * k + 1] = hi;
    }
    return 0;
}

/* The permutation of one spec string: its `a` axis, its `b` axis, then
 * its spatial axes in the order rhs_spec names them. */
static int spec_perm(cj_ctx *ctx, const char *spec, const char *rhs_spec, char a, char b, int rank, prim_ivec *out,
                     const char *which) {
    if (!spec) { /* lax's default: already in order */
        out->n = rank;
        for (int i = 0; i < rank; i++) out->v[i] = i;
        return 0;
    }
    int len = (int)strlen(spec);
    if (len != rank)
        return core_error(ctx, CJ_ERR_ARG, "%s: %s \"%s\" has %d letters for operands of rank %d", OP, which, spec, len,
                          rank);
    const char *pa = strchr(spec, a), *pb = strchr(spec, b);
    for (int i = 0; i < len; i++)
        if (strchr(spec + i + 1, spec[i]))
            return core_error(ctx, CJ_ERR_ARG, "%s: %s \"%s\" repeats '%c'", OP, which, spec, spec[i]);
    if (!pa || !pb)
        return core_error(ctx, CJ_ERR_ARG, "%s: %s \"%s\" must name one '%c' and one '%c'", OP, which, spec, a, b);
    out->n = 0;
    out->v[out->n++] = pa - spec;
    out->v[out->n++] = pb - spec;
    for (const char *r = rhs_spec; *r; r++) {
        if (*r == 'O' || *r == 'I') continue;
        const char *at = strchr(spec, *r);
        if (!at || *at == a || *at == b)
            return core_error(ctx, CJ_ERR_ARG, "%s: spatial dimension '%c' of rhs_spec \"%s\" is not in %s \"%s\"", OP,
                              *r, rhs_spec, which, spec);
        out->v[out->n++] = at - spec;
    }
    if (out->n != rank)
        return core_error(ctx, CJ_ERR_ARG, "%s: %s \"%s\" and rhs_spec \"%s\" name different spatial dimensions", OP,
                          which, spec, rhs_spec);
    return 0;
}

static int copy_list(cj_ctx *ctx, const char *what, const int64_t *src, int n, int64_t dflt, prim_ivec *dst) {
    dst->n = n;
    for (int i = 0; i < n; i++) {
        dst->v[i] = src ? src[i] : dflt;
        if (dst->v[i] < 1) return core_error(ctx, CJ_ERR_ARG, "%s: %s must be positive, got %lld", OP, what,
                                             (long long)dst->v[i]);
    }
    return 0;
}

cj_val cj_conv_general_dilated(cj_val lhs, cj_val rhs, const cj_conv_opts *opts) {
    cj_val in[2] = {lhs, rhs};
    cj_ctx *ctx = api_ctx_of(2, in);
    if (!ctx) return api_no_ctx("cj_conv_general_dilated", API_NO_OPERAND_CTX);
    if (ctx->err) return api_err(ctx);
    cj_conv_opts o;
    memset(&o, 0, sizeof o);
    if (opts) o = *opts;
    const rt_aval *la = api_aval(lhs, OP), *ra = api_aval(rhs, OP);
    if (!la || !ra) return api_err(ctx);
    char lt[96], rt[96];
    rt_aval_str(la, lt, sizeof lt);
    rt_aval_str(ra, rt, sizeof rt);
    if (la->rank < 2 || la->rank != ra->rank) {
        core_error(ctx, CJ_ERR_SHAPE, "%s: lhs %s and rhs %s must have the same rank, at least 2", OP, lt, rt);
        return api_err(ctx);
    }
    int rank = la->rank, nsp = rank - 2;
    int given = !!o.lhs_spec + !!o.rhs_spec + !!o.out_spec;
    if (given != 0 && given != 3) {
        core_error(ctx, CJ_ERR_ARG, "%s: give all three of lhs_spec, rhs_spec and out_spec, or none", OP);
        return api_err(ctx);
    }
    const char *rspec = o.rhs_spec ? o.rhs_spec : "";
    prim_params p = prim_params_zero();
    if (spec_perm(ctx, o.lhs_spec, rspec, 'N', 'C', rank, &CONV_LHS_SPEC(&p), "lhs_spec") != 0 ||
        spec_perm(ctx, o.rhs_spec, rspec, 'O', 'I', rank, &CONV_RHS_SPEC(&p), "rhs_spec") != 0 ||
        spec_perm(ctx, o.out_spec, rspec, 'N', 'C', rank, &CONV_OUT_SPEC(&p), "out_spec") != 0 ||
        copy_list(ctx, "window_strides", o.window_strides, nsp, 1, &CONV_STRIDES(&p)) != 0 ||
        copy_list(ctx, "lhs_dilation", o.lhs_dilation, nsp, 1, &CONV_LHS_DIL(&p)) != 0 ||
        copy_list(ctx, "rhs_dilation", o.rhs_dilation, nsp, 1, &CONV_RHS_DIL(&p)) != 0)
        return api_err(ctx);
    p.lo.n = p.hi.n = nsp;
    if (o.padding) {
        for (int k = 0; k < nsp; k++) p.lo.v[k] = o.padding[2 * k], p.hi.v[k] = o.padding[2 * k + 1];
    } else {
        int64_t sizes[CJ_MAX_RANK], win[CJ_MAX_RANK], pads[2 * CJ_MAX_RANK];
        for (int k = 0; k < nsp; k++) {
            sizes[k] = la->dims[CONV_LHS_SPEC(&p).v[2 + k]];
            win[k] = conv_dilate(ra->dims[CONV_RHS_SPEC(&p).v[2 + k]], CONV_RHS_DIL(&p).v[k]);
        }
        if (cj_padtype_to_pads(nsp, sizes, win, CONV_STRIDES(&p).v, o.pad_type, pads) != 0) {
            core_error(ctx, CJ_ERR_ARG, "%s: unknown padding type %d", OP, (int)o.pad_type);
            return api_err(ctx);
        }
        for (int k = 0; k < nsp; k++) p.lo.v[k] = pads[2 * k], p.hi.v[k] = pads[2 * k + 1];
    }
    int64_t G = o.feature_group_count ? o.feature_group_count : 1, B = o.batch_group_count ? o.batch_group_count : 1;
    if (B > (1 << 30)) {
        core_error(ctx, CJ_ERR_ARG, "%s: batch_group_count %lld is too large", OP, (long long)B);
        return api_err(ctx);
    }
    CONV_GROUPS(&p) = G;
    CONV_BATCH_GROUPS(&p) = (int)B;
    rt_aval both[2] = {*la, *ra};
    int weak;
    api_result_type(2, both, &p.dtype, &weak);
    lhs = api_convert(lhs, p.dtype, weak);
    rhs = api_convert(rhs, p.dtype, weak);
    if (o.preferred_element_type != CJ_BOOL) p.dtype = o.preferred_element_type; /* abstract_eval checks it */
    return core_bind(ctx, PRIM_CONV_GENERAL_DILATED, &p, 2, (cj_val[]){lhs, rhs});
}

cj_val cj_conv(cj_val lhs, cj_val rhs, const int64_t *window_strides, cj_padding padding) {
    cj_conv_opts o;
    memset(&o, 0, sizeof o);
    o.window_strides = window_strides;
    o.pad_type = padding;
    return cj_conv_general_dilated(lhs, rhs, &o);
}
