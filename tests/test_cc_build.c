/* test_cc_build.c — the cc backend's toolchain driver and disk cache
 * (src/backend/cc_build.c): compiling and calling, cache hits in this and in
 * another process, corrupt and truncated cache files, a missing, failing,
 * hanging or crashing compiler, dlopen failures, an unwritable cache
 * directory, allocation failures and concurrent builds; the trust model
 * (directories and entries refused for their owner, mode or type, symbolic
 * links, FIFOs, planted and forged entries, private modes whatever the
 * umask), what is published (truncated ELF output, missing symbols), the
 * size cap's LRU and concurrent eviction, orphaned temporaries, and
 * cancelled or orphaned compilers.
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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
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

/* Entries of dir whose name contains `part` ("" for all), the tidy's lock
 * file ".tidy.lock" left out. */
static int count_entries(const char *dir, const char *part) {
    DIR *d = opendir(dir);
    if (!d) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.' && strstr(e->d_name, part)) n++;
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

/* ---- the trust model (cc_build.h, docs/COMPILER.md) ---- */

static int is_root(void) { return geteuid() == 0; }

static int mode_of(const char *path) {
    struct stat st;
    return lstat(path, &st) == 0 ? (int)(st.st_mode & 07777) : -1;
}

static void set_mtime_ago(const char *path, long seconds) {
    struct timespec t[2];
    clock_gettime(CLOCK_REALTIME, &t[0]);
    t[0].tv_sec -= seconds;
    t[1] = t[0];
    utimensat(AT_FDCWD, path, t, AT_SYMLINK_NOFOLLOW);
}

static void key_bytes(const char *hex, uint8_t key[32]) {
    for (int i = 0; i < 32; i++) {
        unsigned v = 0;
        sscanf(hex + 2 * i, "%2x", &v);
        key[i] = (uint8_t)v;
    }
}

/* A forged entry: the compiled object of `source` (built in a directory of
 * its own) sealed for the key of `victim` at `path`, with mode `mode`. The
 * trailer holds no secret, so anyone can make one; what must refuse it is
 * the owner and mode check. Returns 1 when planted. */
static int plant_entry(fixture *f, const char *source, const cc_build_info *victim, const char *path,
                       int mode) {
    char dir[400];
    snprintf(dir, sizeof dir, "%s/forge", f->root);
    cc_build_options o = f->opt;
    o.cache_dir = dir;
    cc_build_info info;
    cc_module *m = cc_build_with(f->ctx, source, &o, &info);
    if (!m) return 0;
    cc_module_free(f->ctx, m);
    FILE *in = fopen(info.so_path, "rb");
    unsigned char *bytes = malloc(info.so_bytes + 80);
    int ok = in && bytes && fread(bytes, 1, info.so_bytes, in) == info.so_bytes;
    if (in) fclose(in);
    if (ok) {
        unsigned char *t = bytes + info.so_bytes;
        memcpy(t, "CJAXSO1\n", 8);
        for (int i = 0; i < 8; i++) t[8 + i] = (unsigned char)((uint64_t)info.so_bytes >> (8 * i));
        key_bytes(victim->key, t + 16);
        cc_sha256(bytes, info.so_bytes, t + 48);
        unlink(path);
        FILE *out = fopen(path, "wb");
        ok = out && fwrite(bytes, 1, info.so_bytes + 80, out) == info.so_bytes + 80;
        if (out) ok = fclose(out) == 0 && ok;
        ok = ok && chmod(path, (mode_t)mode) == 0;
    }
    free(bytes);
    return ok;
}

TEST(cc_build_trust_problem_judges_owner_mode_and_type) {
    struct stat st;
    memset(&st, 0, sizeof st);
    unsigned me = (unsigned)geteuid();
    st.st_uid = me;
    st.st_mode = S_IFDIR | 0700;
    CHECK(cc_cache_trust_problem(&st, me, 1) == NULL);
    st.st_mode = S_IFDIR | 0755; /* readable by others is fine: only writing plants code */
    CHECK(cc_cache_trust_problem(&st, me, 1) == NULL);
    st.st_mode = S_IFDIR | 0770;
    CHECK_STR_CONTAINS(cc_cache_trust_problem(&st, me, 1), "writable by group or others");
    st.st_mode = S_IFDIR | 01777; /* /tmp's mode: the sticky bit does not make it private */
    CHECK_STR_CONTAINS(cc_cache_trust_problem(&st, me, 1), "writable by group or others");
    st.st_mode = S_IFDIR | 0700;
    st.st_uid = me + 1;
    CHECK_STR_CONTAINS(cc_cache_trust_problem(&st, me, 1), "owned by another user");
    st.st_uid = me;
    st.st_mode = S_IFREG | 0600;
    CHECK_STR_CONTAINS(cc_cache_trust_problem(&st, me, 1), "not a directory");
    CHECK(cc_cache_trust_problem(&st, me, 0) == NULL);
    st.st_mode = S_IFIFO | 0600;
    CHECK_STR_CONTAINS(cc_cache_trust_problem(&st, me, 0), "not a regular file");
    st.st_mode = S_IFREG | 0602;
    CHECK_STR_CONTAINS(cc_cache_trust_problem(&st, me, 0), "writable by group or others");
}

/* A build with the cache directory at `mode` (and owned by `owner` when
 * root can arrange it): must not read the planted entry nor write there. */
static void check_dir_refused(fixture *f, int mode, int owner) {
    char src[160];
    snprintf(src, sizeof src, "/* refused %d %o %d */\nint add1(int x) { return x + 1; }\n", (int)getpid(), mode,
             owner);
    cc_build_info good;
    cc_module *m = cc_build_with(f->ctx, src, &f->opt, &good);
    CHECK_MSG(m, "%s", cj_error_message(f->ctx));
    cc_module_free(f->ctx, m);
    /* Whoever could write the directory plants code under the entry's name. */
    CHECK(plant_entry(f, "int add1(int x) { return x + 100; }\n", &good, good.so_path, 0600));
    CHECK(chmod(f->cache, (mode_t)mode) == 0);
    if (owner >= 0) CHECK(chown(f->cache, (uid_t)owner, (gid_t)owner) == 0);
    int entries = count_entries(f->cache, "");

    long refusals = cc_build_refusals(), compiles = cc_build_compiles();
    cc_build_info info;
    m = cc_build_with(f->ctx, src, &f->opt, &info);
    CHECK_MSG(m, "the program must still build: %s", cj_error_message(f->ctx));
    int y = 0;
    CHECK(call_add1(m, 1, &y));
    CHECK_MSG(y == 2, "the planted entry was loaded (add1(1) = %d)", y);
    CHECK_EQ_INT(info.refused_dir, 1);
    CHECK_EQ_INT(info.used_fallback_dir, 1);
    CHECK_EQ_INT(info.from_disk_cache, 0);
    CHECK(cc_build_compiles() > compiles);
    CHECK(cc_build_refusals() > refusals);
    CHECK(strncmp(info.so_path, f->cache, strlen(f->cache)) != 0);
    CHECK_EQ_INT(count_entries(f->cache, ""), entries); /* nothing written there */
    cc_module_free(f->ctx, m);
    chmod(f->cache, 0700);
    if (owner >= 0) CHECK(chown(f->cache, 0, 0) == 0);
}

CC_TEST(cc_build_cache_dir_writable_by_others_is_refused, 1) {
    static const int modes[] = {0777, 0770, 0702, 01777};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0] && !th_failed_now(); i++)
        check_dir_refused(f, modes[i], -1);
}

CC_TEST(cc_build_cache_dir_of_another_user_is_refused, 1) {
    if (!is_root()) { /* cannot make one; the judgement is pinned above on a stat */
        printf("    (not root: another user's directory cannot be made here)\n");
        return;
    }
    check_dir_refused(f, 0700, 65534);
}

CC_TEST(cc_build_parent_it_did_not_create_is_not_judged_the_cache_dir_is, 1) {
    /* root/cache is made by the build; when something else owns a directory
     * of that name by the time it is checked, it is someone else's. Here it
     * is made world-writable before the build, which then does not make
     * it: only the cache directory itself is judged then. */
    char parent[300];
    snprintf(parent, sizeof parent, "%s/cache", f->root);
    CHECK(mkdir(parent, 0777) == 0 && chmod(parent, 0777) == 0);
    cc_build_info info;
    cc_module *m = cc_build_with(f->ctx, add1_src, &f->opt, &info);
    CHECK_MSG(m, "%s", cj_error_message(f->ctx));
    CHECK_EQ_INT(info.refused_dir, 0); /* not made by cjax: the user's to choose */
    cc_module_free(f->ctx, m);
    /* A cache directory inside it that is world-writable is refused. */
    CHECK(chmod(f->cache, 0777) == 0);
    m = cc_build_with(f->ctx, add1_src, &f->opt, &info);
    CHECK_MSG(m, "%s", cj_error_message(f->ctx));
    CHECK_EQ_INT(info.refused_dir, 1);
    cc_module_free(f->ctx, m);
}

CC_TEST(cc_build_files_and_dirs_are_private_whatever_the_umask, 1) {
    static const mode_t masks[] = {0, 0777};
    for (size_t i = 0; i < 2 && !th_failed_now(); i++) {
        remove_tree(f->cache, 0);
        char parent[300];
        snprintf(parent, sizeof parent, "%s/cache", f->root);
        rmdir(parent);
        mode_t old = umask(masks[i]);
        cc_build_info info;
        cc_module *m = cc_build_with(f->ctx, add1_src, &f->opt, &info);
        umask(old);
        CHECK_MSG(m, "umask %o: %s", (unsigned)masks[i], cj_error_message(f->ctx));
        cc_module_free(f->ctx, m);
        CHECK_MSG(mode_of(parent) == 0700, "umask %o: made %s %o", (unsigned)masks[i], parent, mode_of(parent));
        CHECK_MSG(mode_of(f->cache) == 0700, "umask %o: cache dir %o", (unsigned)masks[i], mode_of(f->cache));
        CHECK_MSG(mode_of(info.so_path) == 0600, "umask %o: entry %o", (unsigned)masks[i], mode_of(info.so_path));
    }
}

CC_TEST(cc_build_planted_entry_of_wrong_owner_or_mode_is_not_loaded, 1) {
    cc_build_info good;
    cc_module *m = cc_build_with(f->ctx, add1_src, &f->opt, &good);
    CHECK_MSG(m, "%s", cj_error_message(f->ctx));
    cc_module_free(f->ctx, m);
    const char *evil = "int add1(int x) { return x + 100; }\n";
    struct { int mode, owner, loads; } cases[] = {
        {0666, -1, 0}, {0620, -1, 0}, {0602, -1, 0}, {0600, 65534, 0},
        /* The control: a file of ours, 0600, with an intact trailer loads,
         * so what refuses the others is their owner or mode. */
        {0600, -1, 1}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0] && !th_failed_now(); i++) {
        if (cases[i].owner >= 0 && !is_root()) continue;
        CHECK(plant_entry(f, evil, &good, good.so_path, cases[i].mode));
        if (cases[i].owner >= 0) CHECK(chown(good.so_path, (uid_t)cases[i].owner, (gid_t)cases[i].owner) == 0);
        cc_build_info info;
        m = cc_build_with(f->ctx, add1_src, &f->opt, &info);
        CHECK_MSG(m, "%s", cj_error_message(f->ctx));
        int y = 0;
        CHECK(call_add1(m, 1, &y));
        CHECK_MSG(y == (cases[i].loads ? 101 : 2), "mode %o owner %d: add1(1) = %d", cases[i].mode,
                  cases[i].owner, y);
        CHECK_EQ_INT(info.from_disk_cache, cases[i].loads);
        CHECK_EQ_INT(info.refused_entry, !cases[i].loads);
        cc_module_free(f->ctx, m);
        if (!cases[i].loads) CHECK_EQ_INT(mode_of(good.so_path), 0600); /* replaced by a rebuild */
    }
}

CC_TEST(cc_build_symlink_entry_is_not_followed, 1) {
    cc_build_info good;
    cc_module *m = cc_build_with(f->ctx, add1_src, &f->opt, &good);
    CHECK_MSG(m, "%s", cj_error_message(f->ctx));
    cc_module_free(f->ctx, m);
    char target[400];
    snprintf(target, sizeof target, "%s/elsewhere.so", f->root);
    CHECK(plant_entry(f, "int add1(int x) { return x + 100; }\n", &good, target, 0600));
    CHECK(unlink(good.so_path) == 0 && symlink(target, good.so_path) == 0);
    cc_build_info info;
    m = cc_build_with(f->ctx, add1_src, &f->opt, &info);
    CHECK_MSG(m, "%s", cj_error_message(f->ctx));
    int y = 0;
    CHECK(call_add1(m, 1, &y) && y == 2);
    CHECK_EQ_INT(info.refused_entry, 1);
    CHECK_EQ_INT(info.from_disk_cache, 0);
    cc_module_free(f->ctx, m);
    struct stat st;
    CHECK(lstat(good.so_path, &st) == 0 && S_ISREG(st.st_mode)); /* the rebuild replaced the link */
    CHECK_EQ_INT(file_size(target), (long)good.so_bytes + 80);  /* and left its target alone */
}

/* Runs `body` in a child process that is killed after `seconds`; 1 when it
 * exited 0 in time. */
static int in_child_within(int seconds, int (*body)(fixture *), fixture *f, int *status) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) return 0;
    if (pid == 0) {
        alarm((unsigned)seconds);
        _exit(body(f) ? 0 : 1);
    }
    *status = 0;
    while (waitpid(pid, status, 0) < 0 && errno == EINTR) {
    }
    return WIFEXITED(*status) && WEXITSTATUS(*status) == 0;
}

static int build_add1_in_child(fixture *f) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cc_build_info info;
    cc_module *m = cc_build_with(ctx, add1_src, &f->opt, &info);
    int y = 0, ok = m && call_add1(m, 2, &y) && y == 3 && info.refused_entry == 1;
    cc_module_free(ctx, m);
    cj_ctx_free(ctx);
    return ok;
}

CC_TEST(cc_build_fifo_entry_does_not_hang, 1) {
    cc_build_info good;
    cc_module *m = cc_build_with(f->ctx, add1_src, &f->opt, &good);
    CHECK_MSG(m, "%s", cj_error_message(f->ctx));
    cc_module_free(f->ctx, m);
    CHECK(unlink(good.so_path) == 0 && mkfifo(good.so_path, 0600) == 0);
    int status;
    CHECK_MSG(in_child_within(30, build_add1_in_child, f, &status),
              "a build with a FIFO at its entry did not finish (status %d%s)", status,
              WIFSIGNALED(status) && WTERMSIG(status) == SIGALRM ? ": hung" : "");
    struct stat st;
    CHECK(lstat(good.so_path, &st) == 0 && S_ISREG(st.st_mode));
}

/* A compiler that runs cc, then cuts its output to `keep` (an sh
 * arithmetic expression over $size) and exits 0. */
static int write_truncating_cc(fixture *f, const char *name, const char *keep, char *out, size_t size) {
    char body[1024];
    snprintf(body, sizeof body,
             "case \"$1\" in --version) echo %s 1.0; exit 0;; esac\n"
             "out=; prev=\n"
             "for a in \"$@\"; do [ \"$prev\" = -o ] && out=$a; prev=$a; done\n"
             "cc \"$@\" || exit 1\n"
             "size=$(wc -c < \"$out\")\n"
             "head -c $((%s)) \"$out\" > \"$out.cut\" && cat \"$out.cut\" > \"$out\" && rm -f \"$out.cut\"\n"
             "exit 0\n",
             name, keep);
    return write_script(f, name, body, out, size);
}

static int load_cached_add1(fixture *f) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    cc_module *m = cc_build_with(ctx, add1_src, &f->opt, NULL);
    int y = 0, ok = m && call_add1(m, 5, &y) && y == 6;
    cc_module_free(ctx, m);
    cj_ctx_free(ctx);
    return ok;
}

CC_TEST(cc_build_truncated_elf_from_the_compiler_is_not_published, 1) {
    static const char *const keeps[] = {"size / 2", "size - 1", "64", "size - 200"};
    for (size_t i = 0; i < sizeof keeps / sizeof keeps[0] && !th_failed_now(); i++) {
        char cc[400], name[32];
        snprintf(name, sizeof name, "cutting-cc-%zu", i);
        CHECK(write_truncating_cc(f, name, keeps[i], cc, sizeof cc));
        f->opt.compiler = cc;
        CHECK(cc_build_with(f->ctx, add1_src, &f->opt, NULL) == NULL);
        CHECK_EQ_INT(cj_error(f->ctx), CJ_ERR_UNSUPPORTED);
        CHECK_STR_CONTAINS(cj_error_message(f->ctx), "not a complete shared object");
        CHECK_STR_CONTAINS(cj_error_message(f->ctx), "truncated");
        CHECK_EQ_INT(count_entries(f->cache, ""), 0); /* nothing published, no temporaries */
        cj_error_clear(f->ctx);
        /* A later process (the same compiler, cut again) is not killed by
         * what the first left behind. */
        int status;
        CHECK_MSG(!in_child_within(60, load_cached_add1, f, &status) && WIFEXITED(status),
                  "keep %s: a later process died (status %d)", keeps[i], status);
    }
    /* And with an honest compiler the program builds and caches. */
    f->opt.compiler = NULL;
    cc_module *m = cc_build_with(f->ctx, add1_src, &f->opt, NULL);
    CHECK_MSG(m, "%s", cj_error_message(f->ctx));
    cc_module_free(f->ctx, m);
    CHECK_EQ_INT(count_entries(f->cache, ".so"), 1);
}

CC_TEST(cc_build_sealed_truncated_entry_is_rebuilt_not_loaded, 1) {
    /* A truncated object sealed with a valid trailer (a disk that lost the
     * end of a file before the trailer was written cannot do this; a planted
     * or hand-copied one can): checked before dlopen, never loaded. */
    cc_build_info good;
    cc_module *m = cc_build_with(f->ctx, add1_src, &f->opt, &good);
    CHECK_MSG(m, "%s", cj_error_message(f->ctx));
    cc_module_free(f->ctx, m);
    FILE *in = fopen(good.so_path, "rb");
    CHECK(in);
    size_t half = good.so_bytes / 2;
    unsigned char *bytes = malloc(half + 80);
    CHECK(bytes && fread(bytes, 1, half, in) == half);
    fclose(in);
    memcpy(bytes + half, "CJAXSO1\n", 8);
    for (int i = 0; i < 8; i++) bytes[half + 8 + i] = (unsigned char)((uint64_t)half >> (8 * i));
    key_bytes(good.key, bytes + half + 16);
    cc_sha256(bytes, half, bytes + half + 48);
    unlink(good.so_path);
    FILE *out = fopen(good.so_path, "wb");
    CHECK(out && fwrite(bytes, 1, half + 80, out) == half + 80);
    fclose(out);
    free(bytes);
    chmod(good.so_path, 0600);
    uint8_t key[32];
    key_bytes(good.key, key);
    CHECK_EQ_INT(cc_cache_file_check(good.so_path, key, NULL), 1); /* the trailer is intact */
    long corrupt = cc_build_corrupt_detected();
    cc_build_info info;
    m = cc_build_with(f->ctx, add1_src, &f->opt, &info);
    CHECK_MSG(m, "%s", cj_error_message(f->ctx));
    CHECK_EQ_INT(info.rebuilt_corrupt, 1);
    CHECK_EQ_INT(cc_build_corrupt_detected() - corrupt, 1);
    int y = 0;
    CHECK(call_add1(m, 1, &y) && y == 2);
    cc_module_free(f->ctx, m);
}

CC_TEST(cc_build_entry_missing_its_kernels_is_removed, 1) {
    cc_build_control need_two = {0, "add1\0sub1\0", NULL}, need_one = {0, "add1\0", NULL};
    /* Output lacking a required symbol is never published. */
    CHECK(cc_build_ctl(f->ctx, add1_src, &f->opt, &need_two, NULL) == NULL);
    CHECK_EQ_INT(cj_error(f->ctx), CJ_ERR_UNSUPPORTED);
    CHECK_STR_CONTAINS(cj_error_message(f->ctx), "lacks 'sub1'");
    CHECK_EQ_INT(count_entries(f->cache, ""), 0);
    cj_error_clear(f->ctx);
    /* A cached entry that loads but lacks one is removed, not kept. */
    cc_module *m = cc_build_ctl(f->ctx, add1_src, &f->opt, &need_one, NULL);
    CHECK_MSG(m, "%s", cj_error_message(f->ctx));
    cc_module_free(f->ctx, m);
    CHECK_EQ_INT(count_entries(f->cache, ".so"), 1);
    long corrupt = cc_build_corrupt_detected();
    cc_build_info info;
    CHECK(cc_build_ctl(f->ctx, add1_src, &f->opt, &need_two, &info) == NULL);
    CHECK_STR_CONTAINS(cj_error_message(f->ctx), "lacks 'sub1'");
    CHECK_EQ_INT(info.rebuilt_corrupt, 1);
    CHECK_EQ_INT(cc_build_corrupt_detected() - corrupt, 1);
    CHECK_EQ_INT(count_entries(f->cache, ""), 0);
}

/* ---- bounded: the size cap and orphans ---- */

static void numbered_source(char *buf, size_t size, int i) {
    snprintf(buf, size, "int add1(int x) { return x + %d; }\n", i + 1);
}

CC_TEST(cc_build_cap_evicts_the_least_recently_used, 1) {
    enum { N = 4 };
    char src[N + 1][96], path[N + 1][512];
    long bytes = 0;
    cc_build_control nocap = {-1, NULL, NULL};
    for (int i = 0; i <= N; i++) numbered_source(src[i], sizeof src[i], i);
    for (int i = 0; i < N; i++) {
        cc_build_info info;
        cc_module *m = cc_build_ctl(f->ctx, src[i], &f->opt, &nocap, &info);
        CHECK_MSG(m, "%s", cj_error_message(f->ctx));
        cc_module_free(f->ctx, m);
        snprintf(path[i], sizeof path[i], "%s", info.so_path);
        if (file_size(path[i]) > bytes) bytes = file_size(path[i]);
        set_mtime_ago(path[i], 1000 - 100 * i); /* 0 oldest ... 3 newest */
    }
    /* Using entry 0 makes it the most recent. */
    cc_build_info info;
    cc_module *m = cc_build_ctl(f->ctx, src[0], &f->opt, &nocap, &info);
    CHECK_MSG(m && info.from_disk_cache, "%s", cj_error_message(f->ctx));
    cc_module_free(f->ctx, m);
    /* A fifth entry over a cap of 3.4 entries: down to 90% of it, so three
     * stay — the new one and the two used last (0 and 3). */
    cc_build_control cap = {bytes * 34 / 10, NULL, NULL};
    m = cc_build_ctl(f->ctx, src[N], &f->opt, &cap, &info);
    CHECK_MSG(m, "%s", cj_error_message(f->ctx));
    int y = 0;
    CHECK(call_add1(m, 1, &y) && y == N + 2);
    cc_module_free(f->ctx, m);
    CHECK_EQ_INT(info.evicted, 2);
    CHECK_MSG(file_size(path[0]) > 0, "the entry used last was evicted");
    CHECK(file_size(path[1]) < 0 && file_size(path[2]) < 0);
    CHECK(file_size(path[3]) > 0 && file_size(info.so_path) > 0);
    CHECK_EQ_INT(count_entries(f->cache, ".so"), 3);
}

static long many_cap; /* about three entries */

static int build_many_in_child(fixture *f) {
    cj_ctx *ctx = cj_ctx_new(NULL);
    int ok = 1;
    for (int i = 0; i < 6 && ok; i++) {
        char src[96];
        numbered_source(src, sizeof src, (int)(getpid() % 1000) * 10 + i);
        cc_build_control cap = {many_cap, NULL, NULL};
        cc_module *m = cc_build_ctl(ctx, src, &f->opt, &cap, NULL);
        int y = 0;
        ok = m && call_add1(m, 0, &y) && y == (int)(getpid() % 1000) * 10 + i + 1;
        cc_module_free(ctx, m);
    }
    cj_ctx_free(ctx);
    return ok;
}

CC_TEST(cc_build_processes_evicting_at_once_all_succeed, 1) {
    enum { P = 4 };
    pid_t pids[P];
    cc_build_info one;
    cc_module *m = cc_build_with(f->ctx, add1_src, &f->opt, &one);
    CHECK_MSG(m, "%s", cj_error_message(f->ctx));
    cc_module_free(f->ctx, m);
    many_cap = file_size(one.so_path) * 3;
    fflush(stdout);
    for (int i = 0; i < P; i++) {
        pids[i] = fork();
        CHECK(pids[i] >= 0);
        if (pids[i] == 0) {
            alarm(120);
            _exit(build_many_in_child(f) ? 0 : 1);
        }
    }
    for (int i = 0; i < P; i++) {
        int status = 0;
        CHECK(waitpid(pids[i], &status, 0) == pids[i]);
        CHECK_MSG(WIFEXITED(status) && WEXITSTATUS(status) == 0, "process %d failed (status %d)", i, status);
    }
    /* What is left is whole: each entry checks, no temporaries. */
    CHECK_EQ_INT(count_entries(f->cache, ".tmp."), 0);
    CHECK(count_entries(f->cache, ".so") >= 1 && count_entries(f->cache, ".so") < P * 6);
}

CC_TEST(cc_build_orphaned_temporaries_are_cleaned, 1) {
    cc_module *m = cc_build_with(f->ctx, add1_src, &f->opt, NULL);
    CHECK_MSG(m, "%s", cj_error_message(f->ctx));
    cc_module_free(f->ctx, m);
    pid_t dead = fork(); /* a pid that is gone */
    if (dead == 0) _exit(0);
    CHECK(dead > 0 && waitpid(dead, NULL, 0) == dead);
    struct { long pid, age; int removed; } files[] = {
        {dead, 120, 1},        /* its process is gone, a minute old: an orphan */
        {dead, 0, 0},          /* just made: the pid may be another machine's */
        {1, 120, 0},           /* a live process's build */
        {1, 2 * 86400, 1},     /* no build lasts a day */
        {getpid(), 120, 0}};   /* this process's own */
    char names[5][512];
    for (int i = 0; i < 5; i++) {
        snprintf(names[i], sizeof names[i], "%s/0123456789abcdef-%ld-%d.tmp.%s", f->cache, files[i].pid, 900 + i,
                 i % 2 ? "c" : "so");
        FILE *fp = fopen(names[i], "w");
        CHECK(fp);
        fputs("partial", fp);
        fclose(fp);
        set_mtime_ago(names[i], files[i].age);
    }
    cc_build_info info;
    m = cc_build_with(f->ctx, "int add1(int x) { return x + 1; } /* another */\n", &f->opt, &info);
    CHECK_MSG(m, "%s", cj_error_message(f->ctx));
    cc_module_free(f->ctx, m);
    CHECK_EQ_INT(info.orphans_removed, 2);
    for (int i = 0; i < 5; i++)
        CHECK_MSG((file_size(names[i]) < 0) == files[i].removed, "%s: %s", names[i],
                  files[i].removed ? "kept" : "removed");
}

/* ---- cancelled and orphaned compilers ---- */

typedef struct cancel_job {
    fixture *f;
    atomic_int cancel;
    cc_module *m;
    double ms;
    char msg[256];
} cancel_job;

static double now_ms_test(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void *cancel_build(void *arg) {
    cancel_job *j = arg;
    cj_ctx *ctx = cj_ctx_new(NULL);
    cc_build_control ctl = {0, NULL, &j->cancel};
    double t0 = now_ms_test();
    j->m = cc_build_ctl(ctx, add1_src, &j->f->opt, &ctl, NULL);
    j->ms = now_ms_test() - t0;
    snprintf(j->msg, sizeof j->msg, "%s", cj_error_message(ctx));
    cc_module_free(ctx, j->m);
    cj_ctx_free(ctx);
    return NULL;
}

/* Reads the pid a fake compiler wrote, waiting up to 10 s. */
static long wait_for_pid(const char *file) {
    for (int i = 0; i < 1000; i++) {
        FILE *fp = fopen(file, "r");
        long pid = 0;
        if (fp) {
            int n = fscanf(fp, "%ld", &pid);
            fclose(fp);
            if (n == 1 && pid > 0) return pid;
        }
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return -1;
}

/* Gone or a zombie (killed, not yet reaped by whoever adopted it). */
static int process_dead(long pid) {
    char path[64], stat_line[256];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *fp = fopen(path, "r");
    if (!fp) return kill((pid_t)pid, 0) != 0;
    int dead = 0;
    if (fgets(stat_line, sizeof stat_line, fp)) {
        char *close_paren = strrchr(stat_line, ')');
        dead = close_paren && (close_paren[2] == 'Z' || close_paren[2] == 'X');
    }
    fclose(fp);
    return dead;
}

static int wait_dead(long pid, int ms) {
    for (int i = 0; i < ms / 10; i++) {
        if (process_dead(pid)) return 1;
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    return process_dead(pid);
}

/* A compiler that records its pid and then sleeps for half a minute as
 * that same process (exec), the way a slow cc1 would. */
static int write_sleepy_cc(fixture *f, char *cc, size_t size, char *pidfile, size_t pidsize) {
    snprintf(pidfile, pidsize, "%s/compiler.pid", f->root);
    char body[600];
    snprintf(body, sizeof body,
             "case \"$1\" in --version) echo slow-cc 1.0; exit 0;; esac\necho $$ > %s\nexec sleep 30\n", pidfile);
    return write_script(f, "slow-cc", body, cc, size);
}

CC_TEST(cc_build_cancel_kills_the_compiler_at_once, 0) {
    char cc[400], pidfile[400];
    CHECK(write_sleepy_cc(f, cc, sizeof cc, pidfile, sizeof pidfile));
    f->opt.compiler = cc;
    cancel_job j;
    memset(&j, 0, sizeof j);
    j.f = f;
    pthread_t t;
    CHECK(pthread_create(&t, NULL, cancel_build, &j) == 0);
    long pid = wait_for_pid(pidfile);
    CHECK(pid > 0);
    atomic_store(&j.cancel, 1);
    double t0 = now_ms_test();
    pthread_join(t, NULL);
    double waited = now_ms_test() - t0;
    CHECK(j.m == NULL);
    CHECK_STR_CONTAINS(j.msg, "cancelled");
    CHECK_MSG(waited < 2000, "the cancelled build took %.0f ms to return", waited);
    CHECK(wait_dead(pid, 2000));
    CHECK_EQ_INT(count_entries(f->cache, ""), 0); /* its temporaries removed */
}

static int start_and_die(fixture *f) {
    /* The build blocks in the slow compiler; the parent kills this process. */
    cj_ctx *ctx = cj_ctx_new(NULL);
    cc_build_with(ctx, add1_src, &f->opt, NULL);
    return 0;
}

CC_TEST(cc_build_compiler_dies_with_its_process, 0) {
    char cc[400], pidfile[400];
    CHECK(write_sleepy_cc(f, cc, sizeof cc, pidfile, sizeof pidfile));
    f->opt.compiler = cc;
    fflush(stdout);
    pid_t child = fork();
    CHECK(child >= 0);
    if (child == 0) {
        alarm(60);
        _exit(start_and_die(f));
    }
    long pid = wait_for_pid(pidfile);
    CHECK(pid > 0);
    kill(child, SIGKILL);
    waitpid(child, NULL, 0);
    CHECK_MSG(wait_dead(pid, 3000), "the compiler (pid %ld) outlived the process that ran it", pid);
    if (pid > 0 && !process_dead(pid)) kill((pid_t)pid, SIGKILL);
}

CC_TEST(cc_build_live_modules_loaded_through_one_descriptor_number_stay_distinct, 1) {
    /* Each module is loaded through /proc/self/fd/N of its checked file and
     * the descriptor closed, so the next load gets the same N: the loader
     * must not hand back the first object for the second file. Entries from
     * the cache and fresh builds both. */
    enum { N = 6 };
    cc_module *m[N];
    for (int round = 0; round < 2; round++) {
        for (int i = 0; i < N; i++) {
            char src[96];
            numbered_source(src, sizeof src, i);
            cc_build_info info;
            m[i] = cc_build_with(f->ctx, src, &f->opt, &info);
            CHECK_MSG(m[i], "%s", cj_error_message(f->ctx));
            CHECK_EQ_INT(info.from_disk_cache, round);
        }
        for (int i = 0; i < N; i++) {
            int y = 0;
            CHECK(call_add1(m[i], 10, &y));
            CHECK_MSG(y == 11 + i, "round %d: module %d computes add1(10) = %d, want %d", round, i, y, 11 + i);
        }
        /* Free every other one, then load them again among the live ones. */
        for (int i = 0; i < N; i += 2) cc_module_free(f->ctx, m[i]);
        for (int i = 0; i < N; i += 2) {
            char src[96];
            numbered_source(src, sizeof src, i);
            m[i] = cc_build_with(f->ctx, src, &f->opt, NULL);
            CHECK_MSG(m[i], "%s", cj_error_message(f->ctx));
        }
        for (int i = 0; i < N; i++) {
            int y = 0;
            CHECK(call_add1(m[i], 10, &y) && y == 11 + i);
            cc_module_free(f->ctx, m[i]);
        }
    }
}

CC_TEST(cc_build_elf_check_refuses_every_truncation_of_a_real_object, 1) {
    /* The object the compiler wrote passes whole; cut anywhere short of its
     * end it is refused (the section headers come last, and before them
     * every byte belongs to a header, a segment or a section), as is one
     * whose headers point past the end. */
    cc_build_info info;
    cc_module *m = cc_build_with(f->ctx, add1_src, &f->opt, &info);
    CHECK_MSG(m, "%s", cj_error_message(f->ctx));
    cc_module_free(f->ctx, m);
    int fd = open(info.so_path, O_RDONLY);
    CHECK(fd >= 0);
    uint64_t size = info.so_bytes;
    CHECK(cc_elf_check(fd, size) == NULL);
    int refused = 0;
    for (uint64_t cut = 0; cut < size; cut++) refused += cc_elf_check(fd, cut) != NULL;
    CHECK_EQ_INT(refused, (long)size);
    close(fd);
    /* Headers pointing past the end: e_phoff (offset 32) and e_shoff (40)
     * of an ELF64 header. */
    if (sizeof(void *) != 8) return;
    FILE *in = fopen(info.so_path, "rb");
    unsigned char *bytes = malloc(size);
    CHECK(in && bytes && fread(bytes, 1, size, in) == size);
    fclose(in);
    char path[400];
    snprintf(path, sizeof path, "%s/bent.so", f->root);
    static const int fields[] = {32, 40};
    for (int i = 0; i < 2; i++) {
        unsigned char copy[8];
        memcpy(copy, bytes + fields[i], 8);
        for (int b = 0; b < 8; b++) bytes[fields[i] + b] = (unsigned char)((size - 8) >> (8 * b));
        FILE *out = fopen(path, "wb");
        CHECK(out && fwrite(bytes, 1, size, out) == size);
        fclose(out);
        memcpy(bytes + fields[i], copy, 8);
        fd = open(path, O_RDONLY);
        CHECK(fd >= 0);
        const char *why = cc_elf_check(fd, size);
        CHECK_MSG(why != NULL, "header field at %d pointing past the end was accepted", fields[i]);
        close(fd);
    }
    free(bytes);
}
