/* test_cc_build.c — the cc backend's toolchain driver and disk cache
 * (src/backend/cc_build.c): compiling and calling, cache hits in this and in
 * another process, corrupt and truncated cache files, a missing, failing,
 * hanging or crashing compiler, dlopen failures, an unwritable cache
 * directory, allocation failures and concurrent builds.
 *
 * Every test gets its own temporary cache directory through
 * cc_build_options, so tests neither see each other's files nor touch the
 * user's cache. Fake compilers are small shell scripts written by the test.
 * Tests needing a real compiler pass with a note when none can be run. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "backend/cc_build.h"
#include "harness.h"
#include "test_util.h"

typedef int (*int_fn)(int);
typedef int (*void_int_fn)(void);

static const char add1_src[] = "int add1(int x) { return x + 1; }\n";

/* ---- temporary directories ---- */

static void remove_tree(const char *path, int depth) {
    struct stat st;
    if (lstat(path, &st) != 0) return;
    if (S_ISDIR(st.st_mode) && depth < 8) {
        DIR *d = opendir(path);
        if (d) {
            struct dirent *e;
            while ((e = readdir(d)) != NULL) {
                if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
                char sub[1024];
                snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
                remove_tree(sub, depth + 1);
            }
            closedir(d);
        }
        rmdir(path);
    } else {
        unlink(path);
    }
}

/* Entries of dir whose name contains `part` ("" for all). */
static int count_entries(const char *dir, const char *part) {
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") && strstr(e->d_name, part)) n++;
    closedir(d);
    return n;
}

static long file_size(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* ---- fixture: a private cache directory and a counting context ---- */

typedef struct fixture {
    char root[256];      /* removed afterwards */
    char cache[300];     /* root/cache/dir: created by the build (mkdir -p) */
    cc_build_options opt;
    tu_alloc alloc;
    cj_ctx *ctx;
} fixture;

static int compiler_available(void) {
    static int known = -1;
    if (known < 0) {
        char why[512];
        known = cc_compiler_identity(NULL, why, sizeof why) == 0;
        if (!known) printf("    (no C compiler, compiling tests pass vacuously: %s)\n", why);
    }
    return known;
}

static int fx_open(fixture *f) {
    memset(f, 0, sizeof *f);
    snprintf(f->root, sizeof f->root, "/tmp/cjax-ccb-test-XXXXXX");
    if (!mkdtemp(f->root)) {
        th_fail(__FILE__, __LINE__, "mkdtemp: %s", strerror(errno));
        return 0;
    }
    snprintf(f->cache, sizeof f->cache, "%s/cache/dir", f->root);
    f->opt.cache_dir = f->cache;
    cj_allocator a = tu_allocator(&f->alloc);
    f->ctx = cj_ctx_new(&a);
    return f->ctx != NULL;
}

static void fx_close(fixture *f) {
    cj_ctx_free(f->ctx);
    if (f->alloc.live != 0 && !th_failed_now())
        th_fail(__FILE__, __LINE__, "%lld blocks leaked", f->alloc.live);
    remove_tree(f->root, 0);
}

/* A test body runs with a fixture that is cleaned up however it ends. */
#define CC_TEST(name, needs_cc)                                         \
    static void name##_body(fixture *f);                                \
    TEST(name) {                                                        \
        if ((needs_cc) && !compiler_available()) return;                \
        fixture f;                                                      \
        if (!fx_open(&f)) return;                                       \
        name##_body(&f);                                                \
        fx_close(&f);                                                   \
    }                                                                   \
    static void name##_body(fixture *f)

/* An executable shell script in the fixture's root; its path into out. */
static int write_script(fixture *f, const char *name, const char *body, char *out, size_t size) {
    snprintf(out, size, "%s/%s", f->root, name);
    FILE *fp = fopen(out, "w");
    if (!fp) return 0;
    fprintf(fp, "#!/bin/sh\n%s", body);
    fclose(fp);
    return chmod(out, 0755) == 0;
}

static int call_add1(cc_module *m, int x, int *y) {
    int_fn fn = (int_fn)cc_symbol(m, "add1");
    if (!fn) return 0;
    *y = fn(x);
    return 1;
}

/* ---- tests ---- */

TEST(cc_build_sha256_matches_fips_vectors) {
    static const struct { const char *msg, *hex; } v[] = {
        {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
        {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
        {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
         "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
        {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqr"
         "lmnopqrsmnopqrstnopqrstu",
         "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
    };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
        uint8_t d[32];
        char hex[65];
        cc_sha256(v[i].msg, strlen(v[i].msg), d);
        for (int j = 0; j < 32; j++) snprintf(hex + 2 * j, 3, "%02x", d[j]);
        CHECK_MSG(!strcmp(hex, v[i].hex), "sha256(\"%s\") = %s, want %s", v[i].msg, hex, v[i].hex);
    }
    /* One million 'a' (FIPS 180-2 appendix B.3): many blocks. */
    size_t n = 1000000;
    char *a = malloc(n);
    CHECK(a);
    memset(a, 'a', n);
    uint8_t d[32];
    cc_sha256(a, n, d);
    free(a);
    static const uint8_t want[32] = {0xcd, 0xc7, 0x6e, 0x5c, 0x99, 0x14, 0xfb, 0x92,
                                     0x81, 0xa1, 0xc7, 0xe2, 0x84, 0xd7, 0x3e, 0x67,
                                     0xf1, 0x80, 0x9a, 0x48, 0xa4, 0x97, 0x20, 0x0e,
                                     0x04, 0x6d, 0x39, 0xcc, 0xc7, 0x11, 0x2c, 0xd0};
    CHECK(!memcmp(d, want, 32));
}

TEST(cc_build_compiler_identity_is_the_version_line) {
    char buf[256];
    if (compiler_available()) {
        CHECK(cc_compiler_identity(NULL, buf, sizeof buf) == 0);
        CHECK(buf[0] != 0 && !strchr(buf, '\n'));
    }
    CHECK(cc_compiler_identity("/nonexistent/cjax-cc", buf, sizeof buf) == -1);
    CHECK_STR_CONTAINS(buf, "/nonexistent/cjax-cc");
}

CC_TEST(cc_build_compiles_and_calls_a_function, 1) {
    long before = cc_build_compiles();
    cc_build_info info;
    cc_module *m = cc_build_with(f->ctx, add1_src, &f->opt, &info);
    CHECK_MSG(m, "%s", cj_error_message(f->ctx));
    long compiles = cc_build_compiles() - before;
    /* 2 only when this compiler rejects -march=native (retried without). */
    CHECK(compiles >= 1 && compiles <= 2);
    CHECK_EQ_INT(info.from_disk_cache, 0);
    CHECK_EQ_INT(info.used_fallback_dir, 0);
    CHECK(info.compile_ms > 0);
    static const int xs[] = {-5, 0, 41, INT_MAX - 1};
    for (size_t i = 0; i < sizeof xs / sizeof xs[0]; i++) {
        int y = 0;
        CHECK(call_add1(m, xs[i], &y));
        CHECK_EQ_INT(y, xs[i] + 1);
    }
    CHECK(cc_symbol(m, "no_such_function") == NULL);
    CHECK_EQ_INT(strlen(info.key), 64);
    CHECK(strspn(info.key, "0123456789abcdef") == 64);
    CHECK(strncmp(info.so_path, f->cache, strlen(f->cache)) == 0);
    CHECK_STR_CONTAINS(info.so_path, info.key);
    /* The object plus the 80-byte trailer, and nothing else left behind. */
    CHECK(info.so_bytes > 0);
    CHECK_EQ_INT(file_size(info.so_path), (long)info.so_bytes + 80);
    CHECK_EQ_INT(count_entries(f->cache, ""), 1);
    cc_module_free(f->ctx, m);
}

CC_TEST(cc_build_second_build_hits_the_disk_cache, 1) {
    cc_build_info first, second;
    cc_module *m = cc_build_with(f->ctx, add1_src, &f->opt, &first);
    CHECK_MSG(m, "%s", cj_error_message(f->ctx));
    cc_module_free(f->ctx, m);

    long before = cc_build_compiles();
    m = cc_build_with(f->ctx, add1_src, &f->opt, &second);
    CHECK_MSG(m, "%s", cj_error_message(f->ctx));
    CHECK_EQ_INT(cc_build_compiles() - before, 0);
    CHECK_EQ_INT(second.from_disk_cache, 1);
    CHECK(second.compile_ms == 0);
    CHECK(!strcmp(first.key, second.key) && !strcmp(first.so_path, second.so_path));
    CHECK_EQ_INT(second.so_bytes, first.so_bytes);
    int y = 0;
    CHECK(call_add1(m, 9, &y) && y == 10);
    cc_module_free(f->ctx, m);

    /* Another process with the same program compiles nothing. */
    fflush(stdout);
    pid_t pid = fork();
    CHECK(pid >= 0);
    if (pid == 0) {
        cj_ctx *ctx = cj_ctx_new(NULL);
        cc_build_info info;
        long c0 = cc_build_compiles();
        cc_module *cm = cc_build_with(ctx, add1_src, &f->opt, &info);
        int r = 0, ok = cm && info.from_disk_cache && cc_build_compiles() == c0 &&
                        call_add1(cm, 1, &r) && r == 2;
        cc_module_free(ctx, cm);
        cj_ctx_free(ctx);
        _exit(ok ? 0 : 1);
    }
    int status = 0;
    CHECK(waitpid(pid, &status, 0) == pid);
    CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0,
              "the child process did not load from the disk cache (status %d)", status);
}

/* Builds add1, damages its cache file with `damage`, and checks the next
 * build notices, rebuilds and works, and the one after hits the cache. */
static void check_damage_is_repaired(fixture *f, int (*damage)(fixture *, const char *, long)) {
    cc_build_info info;
    cc_module *m = cc_build_with(f->ctx, add1_src, &f->opt, &info);
    CHECK_MSG(m, "%s", cj_error_message(f->ctx));
    cc_module_free(f->ctx, m);
    CHECK(damage(f, info.so_path, file_size(info.so_path)));

    long compiles = cc_build_compiles(), corrupt = cc_build_corrupt_detected();
    m = cc_build_with(f->ctx, add1_src, &f->opt, &info);
    CHECK_MSG(m, "%s", cj_error_message(f->ctx));
    CHECK_EQ_INT(info.from_disk_cache, 0);
    CHECK_EQ_INT(info.rebuilt_corrupt, 1);
    CHECK_EQ_INT(cc_build_corrupt_detected() - corrupt, 1);
    CHECK(cc_build_compiles() - compiles >= 1);
    int y = 0;
    CHECK(call_add1(m, 6, &y) && y == 7);
    cc_module_free(f->ctx, m);

    m = cc_build_with(f->ctx, add1_src, &f->opt, &info);
    CHECK_MSG(m, "%s", cj_error_message(f->ctx));
    CHECK_EQ_INT(info.from_disk_cache, 1);
    CHECK_EQ_INT(info.rebuilt_corrupt, 0);
    cc_module_free(f->ctx, m);
}

static int truncate_half(fixture *f, const char *path, long size) {
    (void)f;
    return truncate(path, size / 2) == 0;
}
static int truncate_one_byte(fixture *f, const char *path, long size) {
    (void)f;
    return truncate(path, size - 1) == 0;
}
static int truncate_to_empty(fixture *f, const char *path, long size) {
    (void)f;
    (void)size;
    return truncate(path, 0) == 0;
}

CC_TEST(cc_build_truncated_cache_file_is_rebuilt, 1) {
    check_damage_is_repaired(f, truncate_half);
    if (th_failed_now()) return;
    check_damage_is_repaired(f, truncate_one_byte);
    if (th_failed_now()) return;
    check_damage_is_repaired(f, truncate_to_empty);
}

/* Rewrites the file in place through a new inode (a loaded copy keeps its
 * pages): `flip` >= 0 flips that one byte, else everything becomes junk. */
static int rewrite(const char *path, long size, long flip) {
    unsigned char *bytes = malloc((size_t)size);
    FILE *fp = fopen(path, "rb");
    if (!bytes || !fp || fread(bytes, 1, (size_t)size, fp) != (size_t)size) {
        if (fp) fclose(fp);
        free(bytes);
        return 0;
    }
    fclose(fp);
    if (flip >= 0)
        bytes[flip] ^= 0x40;
    else
        for (long i = 0; i < size; i++) bytes[i] = (unsigned char)(i * 131 + 7);
    unlink(path);
    fp = fopen(path, "wb");
    int ok = fp && fwrite(bytes, 1, (size_t)size, fp) == (size_t)size;
    if (fp) ok = fclose(fp) == 0 && ok;
    free(bytes);
    return ok;
}
static int fill_with_junk(fixture *f, const char *path, long size) {
    (void)f;
    return rewrite(path, size, -1);
}
static int flip_a_code_byte(fixture *f, const char *path, long size) {
    (void)f;
    return rewrite(path, size, size / 3); /* inside the ELF, trailer intact */
}
/* A valid cache file of another program under this program's name. */
static int swap_in_another_program(fixture *f, const char *path, long size) {
    (void)size;
    cc_build_info other;
    cc_module *m = cc_build_with(f->ctx, "int add1(int x) { return x + 2; }\n", &f->opt, &other);
    if (!m) return 0;
    cc_module_free(f->ctx, m);
    return rename(other.so_path, path) == 0;
}

CC_TEST(cc_build_corrupt_cache_file_is_rebuilt, 1) {
    check_damage_is_repaired(f, fill_with_junk);
    if (th_failed_now()) return;
    check_damage_is_repaired(f, flip_a_code_byte);
    if (th_failed_now()) return;
    check_damage_is_repaired(f, swap_in_another_program);
}

CC_TEST(cc_build_missing_compiler_is_a_clean_error, 0) {
    f->opt.compiler = "/nonexistent/cjax-cc";
    cc_build_info info;
    CHECK(cc_build_with(f->ctx, add1_src, &f->opt, &info) == NULL);
    CHECK_EQ_INT(cj_error(f->ctx), CJ_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(cj_error_message(f->ctx), "'/nonexistent/cjax-cc'");
    CHECK_STR_CONTAINS(cj_error_message(f->ctx), "CJAX_CC");
    CHECK_EQ_INT(count_entries(f->cache, ""), 0);
    /* Sticky: a later build on the same context does nothing. */
    CHECK(cc_build_with(f->ctx, add1_src, NULL, NULL) == NULL);
    CHECK_STR_CONTAINS(cj_error_message(f->ctx), "'/nonexistent/cjax-cc'");
}

CC_TEST(cc_build_syntax_error_carries_the_diagnostics, 1) {
    cc_module *m = cc_build_with(f->ctx, "int add1(int x) { return x + 1 }\n", &f->opt, NULL);
    CHECK(m == NULL);
    CHECK_EQ_INT(cj_error(f->ctx), CJ_ERR_UNSUPPORTED);
    const char *msg = cj_error_message(f->ctx);
    CHECK_STR_CONTAINS(msg, "exit status");
    CHECK_STR_CONTAINS(msg, "source.c:1:"); /* the temporary path, renamed */
    CHECK_STR_CONTAINS(msg, "expected");    /* gcc and clang both say it */
    CHECK_EQ_INT(count_entries(f->cache, ""), 0);
}

CC_TEST(cc_build_null_source_is_an_argument_error, 0) {
    CHECK(cc_build_with(f->ctx, NULL, &f->opt, NULL) == NULL);
    CHECK_EQ_INT(cj_error(f->ctx), CJ_ERR_ARG);
    cc_module_free(f->ctx, NULL);
    CHECK(cc_symbol(NULL, "add1") == NULL);
}

CC_TEST(cc_build_unwritable_cache_dir_falls_back, 1) {
    /* A directory under a regular file cannot be made, even by root. */
    char blocker[300], cache[320];
    snprintf(blocker, sizeof blocker, "%s/plainfile", f->root);
    FILE *fp = fopen(blocker, "w");
    CHECK(fp);
    fclose(fp);
    snprintf(cache, sizeof cache, "%s/sub", blocker);
    f->opt.cache_dir = cache;
    /* Unique to this process: the fallback directory outlives the fixture. */
    char src[128];
    snprintf(src, sizeof src, "/* fallback %ld */\nint add1(int x) { return x + 1; }\n",
             (long)getpid());

    cc_build_info info;
    cc_module *m = cc_build_with(f->ctx, src, &f->opt, &info);
    CHECK_MSG(m, "%s", cj_error_message(f->ctx));
    CHECK_EQ_INT(info.used_fallback_dir, 1);
    CHECK_EQ_INT(info.from_disk_cache, 0);
    CHECK(strncmp(info.so_path, blocker, strlen(blocker)) != 0);
    int y = 0;
    CHECK(call_add1(m, 1, &y) && y == 2);
    cc_module_free(f->ctx, m);

    m = cc_build_with(f->ctx, src, &f->opt, &info);
    CHECK_MSG(m, "%s", cj_error_message(f->ctx));
    CHECK_EQ_INT(info.used_fallback_dir, 1);
    CHECK_EQ_INT(info.from_disk_cache, 1);
    cc_module_free(f->ctx, m);
}

CC_TEST(cc_build_dlopen_failure_carries_dlerror, 1) {
    static const char src[] = "extern int cj_symbol_nobody_defines(int);\n"
                              "int add1(int x) { return cj_symbol_nobody_defines(x); }\n";
    CHECK(cc_build_with(f->ctx, src, &f->opt, NULL) == NULL);
    CHECK_EQ_INT(cj_error(f->ctx), CJ_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(cj_error_message(f->ctx), "dlopen");
    CHECK_STR_CONTAINS(cj_error_message(f->ctx), "cj_symbol_nobody_defines");
    /* An object that will not load is not kept. */
    CHECK_EQ_INT(count_entries(f->cache, ""), 0);
}

CC_TEST(cc_build_hanging_compiler_is_killed, 0) {
    char cc[400];
    CHECK(write_script(f, "sleepy-cc",
                       "case \"$1\" in --version) echo sleepy-cc 1.0; exit 0;; esac\nsleep 30\n",
                       cc, sizeof cc));
    f->opt.compiler = cc;
    f->opt.timeout_ms = 300;
    CHECK(cc_build_with(f->ctx, add1_src, &f->opt, NULL) == NULL);
    CHECK_EQ_INT(cj_error(f->ctx), CJ_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(cj_error_message(f->ctx), "sleepy-cc");
    CHECK_STR_CONTAINS(cj_error_message(f->ctx), "did not finish within 0.3 s and was killed");
    CHECK_EQ_INT(count_entries(f->cache, ""), 0);
}

CC_TEST(cc_build_crashing_compiler_is_reported, 0) {
    char cc[400];
    CHECK(write_script(f, "crashing-cc",
                       "case \"$1\" in --version) echo crashing-cc 1.0; exit 0;; esac\n"
                       "echo about to crash >&2\nkill -KILL $$\n",
                       cc, sizeof cc));
    f->opt.compiler = cc;
    CHECK(cc_build_with(f->ctx, add1_src, &f->opt, NULL) == NULL);
    CHECK_EQ_INT(cj_error(f->ctx), CJ_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(cj_error_message(f->ctx), "killed by signal 9");
    CHECK_STR_CONTAINS(cj_error_message(f->ctx), "about to crash");
    CHECK_EQ_INT(count_entries(f->cache, ""), 0);
}

CC_TEST(cc_build_compiler_writing_nothing_is_reported, 0) {
    char cc[400];
    CHECK(write_script(f, "lazy-cc", "echo lazy-cc 1.0\nexit 0\n", cc, sizeof cc));
    f->opt.compiler = cc;
    CHECK(cc_build_with(f->ctx, add1_src, &f->opt, NULL) == NULL);
    CHECK_EQ_INT(cj_error(f->ctx), CJ_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(cj_error_message(f->ctx), "wrote no shared object");
    CHECK_EQ_INT(count_entries(f->cache, ""), 0);
}

CC_TEST(cc_build_march_native_rejection_is_retried_without, 1) {
    char cc[400];
    CHECK(write_script(f, "no-native-cc",
                       "for a in \"$@\"; do\n"
                       "  if [ \"$a\" = -march=native ]; then\n"
                       "    echo \"no-native-cc: unsupported -march=native\" >&2; exit 1\n"
                       "  fi\n"
                       "done\n"
                       "exec cc \"$@\"\n",
                       cc, sizeof cc));
    f->opt.compiler = cc;
    long before = cc_build_compiles();
    cc_module *m = cc_build_with(f->ctx, add1_src, &f->opt, NULL);
    CHECK_MSG(m, "%s", cj_error_message(f->ctx));
    CHECK_EQ_INT(cc_build_compiles() - before, 2);
    int y = 0;
    CHECK(call_add1(m, 3, &y) && y == 4);
    cc_module_free(f->ctx, m);
    /* Remembered for this compiler: the next program compiles once. */
    before = cc_build_compiles();
    m = cc_build_with(f->ctx, "int add1(int x) { return 1 + x; }\n", &f->opt, NULL);
    CHECK_MSG(m, "%s", cj_error_message(f->ctx));
    CHECK_EQ_INT(cc_build_compiles() - before, 1);
    cc_module_free(f->ctx, m);
}

CC_TEST(cc_build_flags_are_passed_and_keyed, 1) {
    static const char src[] = "int bias(void) { return BIAS; }\n";
    static const struct { const char *flags; int want, cached; } runs[] = {
        {"-DBIAS=5", 5, 0}, {"  -DBIAS=7  -DUNUSED ", 7, 0}, {"-DBIAS=5", 5, 1}};
    char keys[3][65];
    for (int i = 0; i < 3; i++) {
        f->opt.cflags = runs[i].flags;
        cc_build_info info;
        cc_module *m = cc_build_with(f->ctx, src, &f->opt, &info);
        CHECK_MSG(m, "%s", cj_error_message(f->ctx));
        void_int_fn fn = (void_int_fn)cc_symbol(m, "bias");
        CHECK(fn);
        CHECK_EQ_INT(fn(), runs[i].want);
        CHECK_EQ_INT(info.from_disk_cache, runs[i].cached);
        memcpy(keys[i], info.key, 65);
        cc_module_free(f->ctx, m);
    }
    CHECK(strcmp(keys[0], keys[1]) != 0);
    CHECK(strcmp(keys[0], keys[2]) == 0);
}

CC_TEST(cc_build_allocation_failure_is_clean, 1) {
    /* Fail allocation 1, 2, 3, ... of a context doing one build until a run
     * where nothing failed: each ends in success or a clean CJ_ERR_OOM. */
    int covered = 0;
    for (long long n = 1; n < 2000 && !covered; n++) {
        tu_alloc st = {0};
        st.fail_at = n;
        cj_allocator a = tu_allocator(&st);
        cj_ctx *ctx = cj_ctx_new(&a);
        if (ctx) {
            cc_module *m = cc_build_with(ctx, add1_src, &f->opt, NULL);
            cj_status s = cj_error(ctx);
            int ok = m ? s == CJ_OK : s == CJ_ERR_OOM;
            int y = 0;
            if (m) ok = ok && call_add1(m, 4, &y) && y == 5;
            char msg[256];
            snprintf(msg, sizeof msg, "%s", cj_error_message(ctx));
            cc_module_free(ctx, m);
            cj_ctx_free(ctx);
            CHECK_MSG(ok, "allocation %lld failing: %s", n, msg);
            if (!st.failed) {
                CHECK(m != NULL);
                covered = 1;
            }
        }
        CHECK_MSG(st.live == 0, "allocation %lld failing leaked %lld blocks", n, st.live);
    }
    CHECK(covered);
}

typedef struct builder {
    pthread_barrier_t *start;
    const cc_build_options *opt;
    int ok;
    char msg[256];
} builder;

static void *build_in_thread(void *arg) {
    builder *b = arg;
    cj_ctx *ctx = cj_ctx_new(NULL);
    pthread_barrier_wait(b->start);
    cc_module *m = cc_build_with(ctx, add1_src, b->opt, NULL);
    int y = 0;
    b->ok = m && call_add1(m, 20, &y) && y == 21;
    snprintf(b->msg, sizeof b->msg, "%s", cj_error_message(ctx));
    cc_module_free(ctx, m);
    cj_ctx_free(ctx);
    return NULL;
}

CC_TEST(cc_build_concurrent_builds_of_one_source_all_succeed, 1) {
    enum { N = 4 };
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, N);
    builder b[N];
    pthread_t t[N];
    for (int i = 0; i < N; i++) {
        memset(&b[i], 0, sizeof b[i]);
        b[i].start = &start;
        b[i].opt = &f->opt;
        pthread_create(&t[i], NULL, build_in_thread, &b[i]);
    }
    for (int i = 0; i < N; i++) pthread_join(t[i], NULL);
    pthread_barrier_destroy(&start);
    for (int i = 0; i < N; i++) CHECK_MSG(b[i].ok, "thread %d: %s", i, b[i].msg);
    /* One cache file, no temporaries left. */
    CHECK_EQ_INT(count_entries(f->cache, ""), 1);
    CHECK_EQ_INT(count_entries(f->cache, ".tmp."), 0);
}
