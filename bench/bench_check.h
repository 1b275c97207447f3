/* bench_check.h — how `make bench` checks a main-table row's results
 * against the peers' (NumPy's, JAX's) before timing it.
 *
 * Whole results do not cross the pipe to peers.py (a row's output can be
 * 40 MB), so both sides reduce each output to the same record: its element
 * count n, the sum of |x| in f64, and S = min(n, CHECK_SAMPLES) values at
 * indices i*n/S (peers.py's summary() is the Python half). Two records
 * agree when, output by output, the largest difference of the samples
 * relative to the reference's largest sample, and the difference of the
 * |x| sums relative to the reference's, stay within the row's limit: a
 * wrong element anywhere moves the sum, a wrong layout moves the samples.
 * Header-only: CMake makes one program per .c file in bench/. */
#ifndef CJ_BENCH_CHECK_H
#define CJ_BENCH_CHECK_H
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include <cjax.h>

#define CHECK_SAMPLES 32 /* peers.py's SAMPLES */
#define CHECK_MAX (64 * (2 + CHECK_SAMPLES)) /* numbers in a record: 64 outputs at most */

/* The record of n_out values into rec (at most cap numbers); how many
 * numbers, or -1 when an output cannot be read (not f16/bf16/f32/f64, out
 * of memory; cjax's error, if any, is left set). */
static int check_record(const cj_val *outs, int n_out, double *rec, int cap) {
    int k = 0;
    for (int o = 0; o < n_out; o++) {
        int64_t n = cj_val_size(outs[o]);
        int s = n < CHECK_SAMPLES ? (int)n : CHECK_SAMPLES;
        cj_dtype dt = cj_val_dtype(outs[o]); /* every float dtype is read widened to f64 (exact) */
        if (n < 0 || (dt != CJ_F32 && dt != CJ_F64 && dt != CJ_F16 && dt != CJ_BF16) || k + 2 + s > cap)
            return -1;
        double *v = malloc(sizeof(double) * (size_t)(n ? n : 1));
        if (!v || cj_read_as(outs[o], CJ_F64, v, sizeof(double) * (size_t)n) != CJ_OK) {
            free(v);
            return -1;
        }
        double abs_sum = 0;
        for (int64_t i = 0; i < n; i++) abs_sum += fabs(v[i]);
        rec[k++] = (double)n, rec[k++] = abs_sum;
        for (int i = 0; i < s; i++) rec[k++] = v[(int64_t)i * n / s];
        free(v);
    }
    return k;
}

/* |a - b| relative to |b| (absolute when b is 0) */
static double check_rel(double a, double b) {
    double d = fabs(a - b);
    return fabs(b) > 0 ? d / fabs(b) : d;
}

/* The largest relative difference of got from ref over their outputs;
 * INFINITY when the two do not have the same outputs (counts, sizes),
 * NaN when a value is NaN. */
static double check_diff(const double *got, int n_got, const double *ref, int n_ref) {
    if (n_got != n_ref) return INFINITY;
    double worst = 0;
    int k = 0;
    while (k < n_ref) {
        if (k + 2 > n_ref || got[k] != ref[k]) return INFINITY;
        double n = ref[k];
        int s = n < CHECK_SAMPLES ? (int)n : CHECK_SAMPLES;
        if (k + 2 + s > n_ref) return INFINITY;
        double d = check_rel(got[k + 1], ref[k + 1]), scale = 0, far = 0;
        if (isnan(d)) return NAN;
        for (int i = 0; i < s; i++) {
            scale = fmax(scale, fabs(ref[k + 2 + i]));
            far = fmax(far, fabs(got[k + 2 + i] - ref[k + 2 + i]));
            if (isnan(got[k + 2 + i])) return NAN;
        }
        d = fmax(d, scale > 0 ? far / scale : far);
        if (isnan(d)) return NAN;
        worst = fmax(worst, d);
        k += 2 + s;
    }
    return worst;
}

#endif
