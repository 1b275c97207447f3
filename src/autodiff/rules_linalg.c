/* rules_linalg.c — jvp and transpose rules of cholesky, triangular_solve
 * and lu (prim layer with the other rules, tools/layers.txt; the
 * primitives are in src/prim/linalg.c). The formulas are JAX's
 * (jax/_src/lax/linalg.py), written on the helpers of linalg_bind.h:
 *
 *   cholesky: L = chol(A), dL = L · Φ(L⁻¹ dA L⁻ᵀ), Φ keeping the lower
 *     triangle with the diagonal halved (Murray, arXiv:1602.07527). Like
 *     JAX's it takes dA as given: a tangent that is not symmetric is
 *     differentiated as if it were — unless symmetrize_input is set (the
 *     public cj_linalg_cholesky sets it), when the tangent is symmetrised
 *     first and the derivative is exact.
 *   triangular_solve is linear in b (its transpose solves with op(a)
 *     transposed) and nonlinear in a: with x = op(a)⁻¹ b (left side),
 *     dx = op(a)⁻¹ (db - op(da) x), da masked to the triangle the primitive
 *     reads (strictly, with unit_diagonal); on the right side
 *     dx = (db - x op(da)) op(a)⁻¹.
 *   lu: with P A = L U and X = P dA, L⁻¹ X U⁻¹ = L⁻¹dL + dU U⁻¹ splits
 *     into its strict lower part (L⁻¹dL) and its upper part (dU U⁻¹); a
 *     rectangular A has L and U completed to square m×m and n×n (JAX's
 *     padding); pivots and permutation have no tangent.
 *   linear_solve(lu, perm, a, b) is custom_linear_solve: linear in b (the
 *     transpose solves with aᵀ through the same factors), dx = solve(db -
 *     op(da)·x) in a, and nothing through the factors.
 *   qr (Townsend's derivation, as JAX's qr_jvp_rule): with C = Qᵀ dA R⁻¹
 *     and Ω = tril(C, -1) - tril(C, -1)ᵀ (skew), dQ = Q (Ω - C) + dA R⁻¹
 *     and dR = (C - Ω) R. Defined for m >= n with reduced factors (or a
 *     square complete one) only: elsewhere Q is not a smooth function of
 *     A, and the rule refuses, as JAX's does.
 *   eigh (JAX's eigh_jvp_rule): with C = Vᵀ dA V, dw = diag(C) and
 *     dV = V (F ∘ C), F_ij = 1/(w_j - w_i) off the diagonal, 0 on it. The
 *     tangent is taken as given (symmetric: the public cj_linalg_eigh
 *     symmetrises its input first). Near a repeated eigenvalue F blows up:
 *     dV is then meaningless (infinite or NaN), as in JAX; dw stays right.
 *   svd (JAX's svd_jvp_rule, reduced factors only): with dS = Uᵀ dA V,
 *     ds = diag(dS), F_ij = 1/(s_j² - s_i²) off the diagonal,
 *     dU = U (F ∘ (dS S + S dSᵀ)) and dV = V (F ∘ (S dS + dSᵀ S)), plus
 *     the parts outside the factors' span when the matrix is not square:
 *     (I - U Uᵀ) dA V S⁻¹ (m > n) or (I - V Vᵀ) dAᵀ U S⁻¹ (n > m). Repeated
 *     or zero singular values make dU, dV meaningless (as JAX's); ds is
 *     always right. full_matrices with compute_uv is refused, as JAX's. */
#include "../prim/linalg_bind.h"
#include "ad_rules.h"

/* ---- cholesky ----------------------------------------------------------- */

static int cholesky_jvp(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                        const cj_val *tin, cj_val out, cj_val *tout) {
    (void)prim, (void)n_in, (void)in;
    *tout = ad_zero(ctx);
    if (ad_is_zero(tin[0])) return 0;
    cj_val l = out, da = tin[0];
    if (p->flag & 1) /* symmetrize_input: the tangent of (a + aᵀ)/2 */
        da = bind_binary(PRIM_MUL, bind_binary(PRIM_ADD, da, lb_mT(da)), ad_const_like(da, 0.5));
    cj_val tmp = lb_trsm(l, da, LB_LOWER | LB_TRANSPOSE);        /* dA L⁻ᵀ */
    cj_val inner = lb_trsm(l, tmp, LB_LEFT | LB_LOWER);          /* L⁻¹ dA L⁻ᵀ */
    cj_val phi = bind_binary(PRIM_MUL, inner, lb_band_const(inner, 1, 0.5, 0)); /* Φ: lower, diagonal halved */
    return ad_set(lb_matmul(l, phi, 0, 0), tout);
}

/* ---- triangular_solve ---------------------------------------------------- */

static int trsm_jvp(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in, const cj_val *tin,
                    cj_val out, cj_val *tout) {
    (void)prim, (void)n_in;
    *tout = ad_zero(ctx);
    if (ad_is_zero(tin[0]) && ad_is_zero(tin[1])) return 0;
    int f = p->flag, lower = (f & LB_LOWER) != 0, unit = (f & LB_UNIT) != 0, trans = (f & LB_TRANSPOSE) != 0;
    cj_val rhs = tin[1];
    if (!ad_is_zero(tin[0])) {
        int64_t k = unit ? (lower ? -1 : 1) : 0; /* the triangle the primitive reads */
        cj_val g = lower ? lb_tril(tin[0], k) : lb_triu(tin[0], k);
        cj_val t = (f & LB_LEFT) ? lb_matmul(g, out, trans, 0) : lb_matmul(out, g, 0, trans);
        rhs = ad_is_zero(rhs) ? bind_unary(PRIM_NEG, t) : bind_binary(PRIM_SUB, rhs, t);
        if (!rhs.slot) return -1;
    }
    return ad_set(lb_trsm(in[0], rhs, f), tout);
}

static int trsm_transpose(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                          const int *linear, const rt_aval *in_avals, cj_val ct, cj_val *ct_in) {
    (void)n_in, (void)in_avals;
    if (linear[0])
        return prim_error(ctx, CJ_ERR_INTERNAL, prim, "transpose: the solve is not linear in its matrix a");
    if (!linear[1]) return 0;
    return ad_set(lb_trsm(in[0], ct, p->flag ^ LB_TRANSPOSE), &ct_in[1]);
}

/* ---- lu ----------------------------------------------------------------- */

static int lu_jvp(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in, const cj_val *tin,
                  int n_out, cj_val *primal, cj_val *tout) {
    (void)prim, (void)p, (void)n_in, (void)n_out;
    if (lb_lu(in[0], primal) != 0) return -1;
    for (int i = 0; i < 3; i++) tout[i] = ad_zero(ctx);
    if (ad_is_zero(tin[0])) return 0;
    const rt_aval *a = ad_aval(in[0]);
    if (!a) return -1;
    int r = a->rank;
    int64_t m = a->dims[r - 2], n = a->dims[r - 1], k = m < n ? m : n;
    /* X = P dA: dA's rows in the permutation's order */
    int64_t bdims[CJ_MAX_RANK];
    for (int d = 0; d < r - 1; d++) bdims[d] = d; /* perm [..., m] → [..., m, n], along the rows */
    cj_val idx = bind_broadcast_in_dim(primal[2], r, a->dims, bdims);
    cj_val x = bind_take_along(tin[0], idx, r - 2);
    cj_val lu = primal[0], zero = ad_const_like(primal[0], 0);
    /* L [..., m, m]: lu's strict lower part, its columns cropped or padded
     * to m, plus the identity; U [..., n, n]: lu's upper part, its rows
     * cropped or padded to n, plus ones on the diagonal below row k (as
     * JAX pads them) */
    int64_t lo[CJ_MAX_RANK] = {0}, hi[CJ_MAX_RANK] = {0};
    hi[r - 1] = m - n;
    cj_val l = bind_pad(lb_tril(lu, -1), zero, lo, hi, NULL);
    l = bind_binary(PRIM_ADD, l, lb_band_const(l, 0, 1, 0));
    hi[r - 1] = 0, hi[r - 2] = n - m;
    cj_val u = bind_pad(lb_triu(lu, 0), zero, lo, hi, NULL);
    if (n > k) {
        const rt_aval *ua = ad_aval(u);
        if (!ua) return -1;
        cj_val rows = bind_iota(ctx, CJ_I32, ua->rank, ua->dims, ua->rank - 2);
        cj_val tail = bind_binary(PRIM_GE, rows, bind_scalar(ctx, (double)k, CJ_I32, 0));
        u = bind_binary(PRIM_ADD, u, bind_where(tail, lb_band_const(u, 0, 1, 0), ad_zeros(ctx, ua)));
    }
    cj_val la = lb_trsm(l, x, LB_LEFT | LB_LOWER | LB_UNIT);
    cj_val lau = lb_trsm(u, la, 0); /* right side, upper */
    cj_val l_dot = lb_matmul(l, lb_tril(lau, -1), 0, 0);
    cj_val u_dot = lb_matmul(lb_triu(lau, 0), u, 0, 0);
    return ad_set(bind_binary(PRIM_ADD, l_dot, u_dot), &tout[0]);
}

/* ---- linear_solve (custom_linear_solve's rule) ------------------------ */

static int lsolve_jvp(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in, const cj_val *tin,
                      cj_val out, cj_val *tout) {
    (void)prim, (void)n_in;
    *tout = ad_zero(ctx);
    if (ad_is_zero(tin[2]) && ad_is_zero(tin[3])) return 0; /* the factors' tangents are ignored */
    int trans = (p->flag & LB_TRANSPOSE) != 0;
    cj_val rhs = tin[3];
    if (!ad_is_zero(tin[2])) {
        cj_val t = lb_matmul(tin[2], out, trans, 0); /* op(da) x */
        rhs = ad_is_zero(rhs) ? bind_unary(PRIM_NEG, t) : bind_binary(PRIM_SUB, rhs, t);
        if (!rhs.slot) return -1;
    }
    return ad_set(lb_linear_solve(in[0], in[1], in[2], rhs, trans), tout);
}

static int lsolve_transpose(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in,
                            const int *linear, const rt_aval *in_avals, cj_val ct, cj_val *ct_in) {
    (void)n_in, (void)in_avals;
    if (linear[0] || linear[1] || linear[2])
        return prim_error(ctx, CJ_ERR_INTERNAL, prim, "transpose: the solve is linear in b only");
    if (!linear[3]) return 0;
    return ad_set(lb_linear_solve(in[0], in[1], in[2], ct, !(p->flag & LB_TRANSPOSE)), &ct_in[3]);
}

/* ---- qr ----------------------------------------------------------------- */

static int qr_jvp(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in, const cj_val *tin,
                  int n_out, cj_val *primal, cj_val *tout) {
    (void)n_in, (void)n_out;
    const rt_aval *a = ad_aval(in[0]);
    if (!a) return -1;
    int64_t m = a->dims[a->rank - 2], n = a->dims[a->rank - 1];
    int full = (p->flag & LB_FULL_MATRICES) != 0;
    if (m < n || (full && m != n)) {
        char t[96];
        rt_aval_str(a, t, sizeof t);
        return prim_error(ctx, CJ_ERR_UNSUPPORTED, prim,
                          "jvp: the derivative is defined for m >= n with reduced factors (or square), got %s with "
                          "full_matrices=%s", t, full ? "True" : "False");
    }
    if (lb_qr(in[0], full, primal) != 0) return -1;
    tout[0] = tout[1] = ad_zero(ctx);
    if (ad_is_zero(tin[0])) return 0;
    cj_val q = primal[0], r = primal[1];
    cj_val dx_rinv = lb_trsm(r, tin[0], 0);                /* dA R⁻¹ (right side, upper) */
    cj_val c = lb_matmul(q, dx_rinv, 1, 0);                /* Qᵀ dA R⁻¹ */
    cj_val low = lb_tril(c, -1);
    cj_val omega = bind_binary(PRIM_SUB, low, lb_mT(low)); /* skew-symmetric */
    cj_val dq = bind_binary(PRIM_ADD, lb_matmul(q, bind_binary(PRIM_SUB, omega, c), 0, 0), dx_rinv);
    cj_val dr = lb_matmul(bind_binary(PRIM_SUB, c, omega), r, 0, 0);
    if (ad_set(dq, &tout[0]) != 0) return -1;
    return ad_set(dr, &tout[1]);
}

/* ---- eigh --------------------------------------------------------------- */

static int eigh_jvp(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in, const cj_val *tin,
                    int n_out, cj_val *primal, cj_val *tout) {
    (void)prim, (void)p, (void)n_in, (void)n_out;
    if (lb_eigh(in[0], primal) != 0) return -1;
    tout[0] = tout[1] = ad_zero(ctx);
    if (ad_is_zero(tin[0])) return 0;
    cj_val v = primal[0], w = primal[1];
    const rt_aval *a = ad_aval(in[0]);
    if (!a) return -1;
    int r = a->rank;
    int64_t rows[CJ_MAX_RANK], cols[CJ_MAX_RANK];
    for (int d = 0; d < r - 1; d++) rows[d] = cols[d] = d;
    rows[r - 2] = r - 2; /* w_i along the rows */
    cols[r - 2] = r - 1; /* w_j along the columns */
    cj_val wi = bind_broadcast_in_dim(w, r, a->dims, rows), wj = bind_broadcast_in_dim(w, r, a->dims, cols);
    cj_val eye = lb_band_const(v, 0, 1, 0);
    cj_val fmat = bind_binary(PRIM_SUB, bind_binary(PRIM_DIV, ad_const_like(v, 1),
                                                    bind_binary(PRIM_ADD, eye, bind_binary(PRIM_SUB, wj, wi))),
                              eye);
    cj_val c = lb_matmul(lb_matmul(v, tin[0], 1, 0), v, 0, 0); /* Vᵀ dA V */
    cj_val dv = lb_matmul(v, bind_binary(PRIM_MUL, fmat, c), 0, 0);
    int64_t last = r - 1;
    cj_val dw = bind_reduce(PRIM_REDUCE_SUM, bind_binary(PRIM_MUL, c, eye), 1, &last);
    if (ad_set(dv, &tout[0]) != 0) return -1;
    return ad_set(dw, &tout[1]);
}

/* ---- svd ---------------------------------------------------------------- */

/* s [..., k] broadcast over [..., rows, cols]: along the columns (s_j) or
 * along the rows (s_i). */
static cj_val bcast_s(cj_val s, const rt_aval *a, int64_t rows, int64_t cols, int along_cols) {
    int r = a->rank;
    int64_t dims[CJ_MAX_RANK], bd[CJ_MAX_RANK];
    for (int d = 0; d < r - 2; d++) dims[d] = a->dims[d], bd[d] = d;
    dims[r - 2] = rows, dims[r - 1] = cols;
    bd[r - 2] = along_cols ? r - 1 : r - 2;
    return bind_broadcast_in_dim(s, r, dims, bd);
}

static int svd_jvp(cj_ctx *ctx, prim_id prim, const prim_params *p, int n_in, const cj_val *in, const cj_val *tin,
                   int n_out, cj_val *primal, cj_val *tout) {
    (void)n_in;
    int uv = (p->flag & LB_COMPUTE_UV) != 0;
    if (uv && (p->flag & LB_FULL_MATRICES))
        return prim_error(ctx, CJ_ERR_UNSUPPORTED, prim, "jvp: not defined for full_matrices=True (as JAX's)");
    const rt_aval *a = ad_aval(in[0]);
    if (!a) return -1;
    cj_val f[3];
    if (lb_svd(in[0], 0, 1, f) != 0) return -1;
    for (int i = 0; i < n_out; i++) primal[i] = f[i], tout[i] = ad_zero(ctx);
    if (ad_is_zero(tin[0])) return 0;
    int r = a->rank;
    int64_t m = a->dims[r - 2], n = a->dims[r - 1], k = m < n ? m : n, last = r - 1;
    cj_val s = f[0], u = f[1], v = lb_mT(f[2]), da = tin[0];
    cj_val ds_mat = lb_matmul(lb_matmul(u, da, 1, 0), v, 0, 0); /* Uᵀ dA V */
    cj_val eye = lb_band_const(ds_mat, 0, 1, 0);
    cj_val ds = bind_reduce(PRIM_REDUCE_SUM, bind_binary(PRIM_MUL, ds_mat, eye), 1, &last);
    if (ad_set(ds, &tout[0]) != 0) return -1;
    if (!uv) return 0;
    cj_val sj = bcast_s(s, a, k, k, 1), si = bcast_s(s, a, k, k, 0);
    cj_val diffs = bind_binary(PRIM_MUL, bind_binary(PRIM_ADD, sj, si), bind_binary(PRIM_SUB, sj, si));
    cj_val fm = bind_binary(PRIM_SUB, bind_binary(PRIM_DIV, ad_const_like(eye, 1), bind_binary(PRIM_ADD, diffs, eye)), eye);
    cj_val dss = bind_binary(PRIM_MUL, sj, ds_mat), sds = bind_binary(PRIM_MUL, si, ds_mat);
    cj_val du = lb_matmul(u, bind_binary(PRIM_MUL, fm, bind_binary(PRIM_ADD, dss, lb_mT(dss))), 0, 0);
    cj_val dv = lb_matmul(v, bind_binary(PRIM_MUL, fm, bind_binary(PRIM_ADD, sds, lb_mT(sds))), 0, 0);
    if (m > n) {
        cj_val dav = lb_matmul(da, v, 0, 0);
        cj_val rest = bind_binary(PRIM_SUB, dav, lb_matmul(u, lb_matmul(u, dav, 1, 0), 0, 0));
        du = bind_binary(PRIM_ADD, du, bind_binary(PRIM_DIV, rest, bcast_s(s, a, m, k, 1)));
    } else if (n > m) {
        cj_val dau = lb_matmul(da, u, 1, 0);
        cj_val rest = bind_binary(PRIM_SUB, dau, lb_matmul(v, lb_matmul(v, dau, 1, 0), 0, 0));
        dv = bind_binary(PRIM_ADD, dv, bind_binary(PRIM_DIV, rest, bcast_s(s, a, n, k, 1)));
    }
    if (ad_set(du, &tout[1]) != 0) return -1;
    return ad_set(lb_mT(dv), &tout[2]);
}

void ad_register_linalg(void) {
    prim_rules[PRIM_SVD].jvp_multi = svd_jvp;
    prim_rules[PRIM_EIGH].jvp_multi = eigh_jvp;
    prim_rules[PRIM_QR].jvp_multi = qr_jvp;
    prim_rules[PRIM_LINEAR_SOLVE].jvp = lsolve_jvp;
    prim_rules[PRIM_LINEAR_SOLVE].transpose = lsolve_transpose;
    prim_rules[PRIM_CHOLESKY].jvp = cholesky_jvp;
    prim_rules[PRIM_TRIANGULAR_SOLVE].jvp = trsm_jvp;
    prim_rules[PRIM_TRIANGULAR_SOLVE].transpose = trsm_transpose;
    prim_rules[PRIM_LU].jvp_multi = lu_jvp;
}
