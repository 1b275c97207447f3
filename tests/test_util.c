/* test_util.c — see test_util.h. */
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static void *tu_alloc_fn(void *user, size_t size, size_t align) {
    tu_alloc *s = user;
    s->count++;
    if (s->fail_at && s->count == s->fail_at) {
        s->failed = 1;
        return NULL;
    }
    void *p = NULL;
    if (align < sizeof(void *)) align = sizeof(void *);
    if (posix_memalign(&p, align, size ? size : 1) != 0) return NULL;
    s->live++;
    s->live_bytes += (long long)size;
    return p;
}

static void tu_free_fn(void *user, void *p, size_t size) {
    tu_alloc *s = user;
    if (!p) return;
    s->live--;
    s->live_bytes -= (long long)size;
    free(p);
}

cj_allocator tu_allocator(tu_alloc *state) {
    cj_allocator a = {tu_alloc_fn, tu_free_fn, state};
    return a;
}

cj_val tu_f32(cj_ctx *ctx, int rank, const int64_t *dims, const float *values) {
    return cj_array(ctx, CJ_F32, rank, dims, values);
}

cj_val tu_ramp(cj_ctx *ctx, int64_t n, float scale, float offset) {
    float *v = malloc(sizeof(float) * (size_t)(n ? n : 1));
    for (int64_t i = 0; i < n; i++) v[i] = (float)i * scale + offset;
    cj_val r = cj_array(ctx, CJ_F32, 1, &n, v);
    free(v);
    return r;
}

uint64_t tu_allocs_per_call(cj_ctx *ctx, cj_func *jf, const cj_val *in) {
    cj_val out[8];
    for (int i = 0; i < 2; i++) {
        cj_scope_begin(ctx);
        cj_call(jf, in, out);
        cj_scope_end(ctx, 0, NULL);
    }
    cj_mem_stats a, b;
    cj_mem_stats_get(ctx, &a);
    cj_scope_begin(ctx);
    cj_call(jf, in, out);
    cj_scope_end(ctx, 0, NULL);
    cj_mem_stats_get(ctx, &b);
    return b.n_allocs - a.n_allocs;
}

int tu_same_bits(cj_val a, cj_val b) {
    int64_t da[CJ_MAX_RANK], db[CJ_MAX_RANK];
    int ra = cj_val_shape(a, da), rb = cj_val_shape(b, db);
    if (cj_val_dtype(a) != cj_val_dtype(b) || ra != rb || ra < 0 || memcmp(da, db, sizeof(int64_t) * (size_t)ra))
        return 0;
    size_t n = (size_t)cj_val_size(a) * cj_dtype_size(cj_val_dtype(a));
    if (n == 0) return 1;
    char *x = malloc(n), *y = malloc(n);
    int same = x && y && cj_read(a, x, n) == CJ_OK && cj_read(b, y, n) == CJ_OK && !memcmp(x, y, n);
    free(x), free(y);
    return same;
}

void tu_fill_rule_table(void) { cj_ctx_free(cj_ctx_new(NULL)); }

double *tu_read_f64(cj_val v) {
    int64_t n = cj_val_size(v);
    double *b = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    if (!b) return NULL;
    if (cj_is_error(v) || cj_read_as(v, CJ_F64, b, sizeof(double) * (size_t)n) != CJ_OK) {
        free(b);
        return NULL;
    }
    return b;
}

cj_val tu_load_linalg(cj_ctx *ctx, const char *case_name, const char *what) {
    char path[512];
    snprintf(path, sizeof path, "%s/linalg/%s_%s.npy", CJAX_TEST_DATA_DIR, case_name, what);
    return cj_load_npy(ctx, path);
}

int64_t tu_ordered_bits(const void *p, cj_dtype dt) {
    if (dt == CJ_F32) {
        int32_t b;
        memcpy(&b, p, 4);
        return b < 0 ? (int64_t)INT32_MIN - b : b;
    }
    if (dt == CJ_F16 || dt == CJ_BF16) {
        int16_t b;
        memcpy(&b, p, 2);
        return b < 0 ? (int64_t)INT16_MIN - b : b;
    }
    int64_t b;
    memcpy(&b, p, 8);
    return b < 0 ? INT64_MIN - b : b;
}

int tu_match_ulp(cj_val got, cj_val want, int64_t max_ulp, char *why, size_t size, int64_t *worst_out) {
    char gt[96], wt[96];
    cj_val_type_str(got, gt, sizeof gt);
    cj_val_type_str(want, wt, sizeof wt);
    if (strcmp(gt, wt) != 0) {
        snprintf(why, size, "type %.60s, JAX's %.60s", gt, wt);
        return 0;
    }
    cj_dtype dt = cj_val_dtype(got);
    size_t es = cj_dtype_size(dt), n = (size_t)cj_val_size(got);
    char *a = malloc(es * n + 8), *b = malloc(es * n + 8);
    int ok = a && b && cj_read(got, a, es * n) == CJ_OK && cj_read(want, b, es * n) == CJ_OK;
    int64_t bad = 0, worst = 0;
    for (size_t i = 0; ok && i < n; i++) {
        if (memcmp(a + i * es, b + i * es, es) == 0) continue;
        int64_t u = (dt == CJ_F32 || dt == CJ_F64 || dt == CJ_F16 || dt == CJ_BF16) ? llabs(tu_ordered_bits(a + i * es, dt) - tu_ordered_bits(b + i * es, dt)) : INT64_MAX;
        if (u > worst) worst = u;
        bad++;
    }
    free(a), free(b);
    if (!ok) {
        snprintf(why, size, "could not read the arrays");
        return 0;
    }
    if (worst_out && worst > *worst_out) *worst_out = worst;
    snprintf(why, size, "%lld of %zu differ, max %lld ulp (limit %lld)", (long long)bad, n, (long long)worst,
             (long long)max_ulp);
    return worst <= max_ulp;
}

int tu_run_child(const char *self, const char *test, const char *env_name, const char *env_value, int threads) {
    pid_t pid = fork();
    if (pid == 0) {
        char t[32], o[512];
        snprintf(t, sizeof t, "CJAX_NUM_THREADS=%d", threads);
        snprintf(o, sizeof o, "%s=%s", env_name, env_value);
        char *envp[] = {t, o, "CJAX_VERIFY=1", NULL};
        char *argv[] = {(char *)self, (char *)test, NULL};
        execve(self, argv, envp);
        _exit(127);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid) return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}
