/* test_verbose.c — CJAX_VERBOSE=1 makes running without a C compiler
 * visible: the first jitted program that cannot use generated C says so
 * on stderr, once per process however many follow; without the variable
 * nothing is printed (cj_jit_program_info still says why, per program).
 * The process under test is this binary again, as a child whose stderr
 * goes to a file. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cjax.h"
#include "harness.h"

#define CHILD_ENV "CJAX_TEST_VERBOSE_CHILD"
#define MESSAGE "generated C is not used"

static void f_sin(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)ctx, (void)u;
    out[0] = cj_add(cj_sin(in[0]), in[0]);
}
static void f_exp(cj_ctx *ctx, const cj_val *in, cj_val *out, void *u) {
    (void)u;
    out[0] = cj_mul(cj_exp(in[0]), cj_scalar(ctx, 2.0));
}

/* Run only as the child: two programs on the cc backend, whose compiler
 * does not exist; both must still compute (on the interpreter). */
TEST(verbose_child_jits_two_programs) {
    if (!getenv(CHILD_ENV)) return;
    cj_ctx *ctx = cj_ctx_new(NULL);
    cj_val x = cj_linspace(ctx, 0.0, 1.0, 64, CJ_F32);
    cj_func *fs[2] = {cj_jit(cj_func_new(ctx, "f_sin", f_sin, 1, 1, NULL), NULL),
                      cj_jit(cj_func_new(ctx, "f_exp", f_exp, 1, 1, NULL), NULL)};
    for (int i = 0; i < 2; i++) {
        cj_val y;
        CHECK(cj_call(fs[i], &x, &y) == CJ_OK);
        cj_program_info info;
        CHECK(cj_jit_program_info(fs[i], &x, &info) == CJ_OK);
        CHECK(!info.native);
        CHECK_STR_CONTAINS(info.compile_error, "/nonexistent/cjax-cc");
        float v[64];
        CHECK(cj_read(y, v, sizeof v) == CJ_OK);
        CHECK(v[63] > (i == 0 ? 1.84f : 5.43f) && v[63] < (i == 0 ? 1.85f : 5.44f)); /* sin 1 + 1, 2e */
    }
    cj_ctx_free(ctx);
}

/* Runs the child with CJAX_VERBOSE=verbose; its stderr in *err (malloc'd).
 * Returns its exit status, -1 when it could not run. */
static int run_child(const char *verbose, char **err) {
    char self[4096], dir[] = "/tmp/cjax_verbose_XXXXXX", path[4200];
    ssize_t len = readlink("/proc/self/exe", self, sizeof self - 1);
    if (len <= 0 || !mkdtemp(dir)) return -1;
    self[len] = 0;
    snprintf(path, sizeof path, "%s/stderr", dir);
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd < 0 || dup2(fd, 2) < 0) _exit(126);
        char v[64], cache[4200];
        snprintf(v, sizeof v, "CJAX_VERBOSE=%s", verbose);
        snprintf(cache, sizeof cache, "CJAX_CACHE_DIR=%s", dir);
        char *envp[] = {v, cache, "CJAX_CC=/nonexistent/cjax-cc", "CJAX_BACKEND=cc", "CJAX_NUM_THREADS=1",
                        CHILD_ENV "=1", NULL};
        char *argv[] = {self, "verbose_child_jits_two_programs", NULL};
        execve(self, argv, envp);
        _exit(127);
    }
    int st = 0;
    if (pid < 0 || waitpid(pid, &st, 0) != pid) return -1;
    *err = NULL;
    FILE *fp = fopen(path, "rb");
    if (fp) {
        size_t cap = 1 << 16, n;
        *err = calloc(cap + 1, 1);
        n = *err ? fread(*err, 1, cap, fp) : 0;
        if (*err) (*err)[n] = 0;
        fclose(fp);
    }
    unlink(path);
    rmdir(dir);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int count(const char *s, const char *what) {
    int n = 0;
    for (const char *p = s; (p = strstr(p, what)); p += strlen(what)) n++;
    return n;
}

TEST(verbose_says_once_that_generated_c_is_not_used) {
    if (getenv(CHILD_ENV)) return;
    char *err = NULL;
    CHECK_EQ_INT(run_child("1", &err), 0);
    CHECK(err != NULL);
    if (!err) return;
    CHECK_MSG(count(err, MESSAGE) == 1, "stderr:\n%s", err);
    CHECK_STR_CONTAINS(err, "/nonexistent/cjax-cc"); /* the reason */
    CHECK_STR_CONTAINS(err, "interpreter");
    CHECK_STR_CONTAINS(err, "cjax: vector math runs its"); /* which instruction set, also once */
    CHECK_EQ_INT(count(err, "cjax: vector math runs its"), 1);
    free(err);
    err = NULL;
    CHECK_EQ_INT(run_child("0", &err), 0);
    CHECK(err != NULL);
    if (err) CHECK_MSG(count(err, MESSAGE) == 0 && count(err, "cjax:") == 0, "stderr:\n%s", err);
    free(err);
}
