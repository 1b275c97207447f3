/* cc_build.h — the C toolchain driver and on-disk cache of the `cc` backend
 * (backend layer).
 *
 * The cc backend's code generator produces one C translation unit per
 * program; this module turns that text into a loaded shared object and
 * nothing else: it runs the system compiler (fork + execve, no shell,
 * killed after a timeout or when cancelled), keeps the result in an
 * on-disk cache so a second process with the same program compiles nothing,
 * checks every cached file before loading it, and loads it with dlopen.
 *
 * Compiler: CJAX_CC (default "cc"; may carry arguments, "ccache gcc"), run
 * with CC_BUILD_DEFAULT_FLAGS followed by CJAX_CFLAGS, both split on white
 * space (no quoting). When the compiler rejects -march=native, the build is
 * retried once without it and the flag is dropped for that compiler for the
 * rest of the process.
 *
 * Cache: CJAX_CACHE_DIR, else $XDG_CACHE_HOME/cjax, else $HOME/.cache/cjax
 * (created with mkdir -p semantics; each directory cjax creates is made
 * 0700 whatever the umask). One file per program, `<key>.so`, where key =
 * SHA-256 of the source, the compiler command, the first line of
 * `<compiler> --version`, the flags, and (when the flags ask for
 * -march=native) this CPU's model and feature flags, so a cache shared by
 * different machines never loads code built for another CPU. The file is the
 * compiler's ELF output followed by an 80-byte trailer (magic, payload size,
 * key, SHA-256 of the payload): a truncated, overwritten or foreign file is
 * detected before dlopen, counted, and rebuilt (the new file replaces it).
 * Files are written under a unique temporary name in the cache directory
 * (`<key16>-<pid>-<n>.tmp.c|so`) and renamed into place, so concurrent
 * threads and processes never see half a file. When the cache directory
 * cannot be created or written, a per-process directory made with mkdtemp
 * under $TMPDIR (or /tmp) serves instead and is removed at exit.
 *
 * Trust (docs/COMPILER.md, "The disk cache and whom it trusts"): a cache
 * file is code this process will run, so only what this user alone could
 * have written is loaded.
 *   - The cache directory must be owned by the effective uid and not be
 *     writable by group or others (nor may a directory cjax created above
 *     it). Otherwise it is refused: one message on stderr per process,
 *     info->refused_dir, and the build goes to the private fallback
 *     directory; nothing is read from or written to the refused one.
 *   - An entry is opened with O_NOFOLLOW | O_NONBLOCK (a symbolic link or a
 *     FIFO neither redirects nor hangs a build) and checked on the open
 *     descriptor: a regular file, owned by the effective uid, not writable
 *     by group or others, its trailer intact for this key, its ELF headers,
 *     segments and sections inside the file. Then exactly that descriptor is
 *     loaded (dlopen of /proc/self/fd/N): no check-then-open-by-name gap. A
 *     refused entry is rebuilt (info->refused_entry) and replaced.
 *   - What the compiler wrote is checked the same way before it is renamed
 *     into the cache: made 0600, a complete ELF object, loaded, and every
 *     symbol in ctl->required found. Output that fails is never published
 *     (a truncated ELF would crash every later process in dlopen). A cached
 *     entry that loads but lacks a required symbol is removed.
 * The trailer detects damage, not forgery: it holds no secret. Whoever can
 * write as this user can run code as this user anyway; the checks above
 * make sure nobody else can.
 *
 * Size: after each new entry the directory is tidied under an flock (one
 * process at a time; the others skip): temporary files left by dead
 * processes (their pid gone and older than a minute, or any older than a
 * day) are removed, and when the entries exceed the cap (CJAX_CACHE_MAX_MB,
 * default 1024; 0 for none) the least recently used are removed until they
 * fill 90% of it. A hit touches its entry's mtime, the use time the LRU
 * orders by. Evicting a file another process has open or loaded is safe: it
 * keeps its descriptor or mapping, and the next lookup is a miss.
 *
 * Cancelling: ctl->cancel, when set, is polled while the compiler runs (and
 * while waiting for another thread's build of the same program); once it is
 * nonzero the compiler's process group is killed and the build fails at
 * once with CJ_ERR_UNSUPPORTED "cancelled". The compiler runs in its own
 * process group with PR_SET_PDEATHSIG (SIGKILL), so it dies with the thread
 * that started it, even when the whole process is killed.
 *
 * Errors (recorded in ctx; the functions return NULL):
 *   CJ_ERR_UNSUPPORTED  the toolchain cannot produce a loadable object: the
 *                       compiler is missing, fails (the message carries its
 *                       first diagnostics, the temporary file named
 *                       "source.c"), is killed or times out, writes no
 *                       output; or dlopen fails (the message carries
 *                       dlerror's text). The caller falls back to interp.
 *   CJ_ERR_IO           neither the cache directory nor a temporary
 *                       directory can be written.
 *   CJ_ERR_OOM          an allocation through the context failed.
 *   CJ_ERR_ARG          NULL source.
 * Like every cjax operation, a build on a context that already holds an
 * error returns NULL at once and records nothing.
 *
 * Threads: builds may run concurrently in several threads, each with its own
 * context (a context is never shared between threads). Threads that build
 * the same source (same key and cache directory) at once run the compiler
 * once: the first compiles, the others wait for it and load its file from
 * the cache; when the toolchain cannot build it, they all get its error. The
 * context is used for the module record's memory and the error only, so a
 * background compile thread should be given a context of its own, and the
 * module must be freed with that same context.
 * Nothing is ever written outside the cache directory (or the fallback
 * directory); temporary files are removed on every path this process
 * survives, and the tidy removes those of processes that did not. */
#ifndef CJ_BACKEND_CC_BUILD_H
#define CJ_BACKEND_CC_BUILD_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "cjax.h"

struct stat;

/* Why each flag (shared MEASURED.md): -O3 -march=native vectorise with the
 * machine's widest units; -fno-trapping-math lets gcc vectorise float
 * compare-selects (3-4x on such loops); -fno-math-errno lets libm calls be
 * inlined or vectorised; -fno-strict-aliasing because the planner reuses
 * one arena block for values of different dtypes, so a kernel may store a
 * float where it later loads an int, and under strict aliasing gcc's SLP
 * vectoriser moved such a load past the store (a 5-element normal draw came
 * out 1 ulp off, test random_samplers_under_jit_match_jax, only on the cc
 * backend); -w because generated code is not for humans to fix. */
#define CC_BUILD_DEFAULT_FLAGS \
    "-O3 -march=native -fno-math-errno -fno-trapping-math -fno-strict-aliasing -fPIC -shared -std=c11 -w"
#define CC_BUILD_TIMEOUT_MS 60000

typedef struct cc_module cc_module; /* a loaded shared object */

/* Per-call overrides; every NULL / 0 field means the configured default.
 * Tests use these to get a private cache directory, a fake compiler or a
 * short timeout without touching the process's configuration. */
typedef struct cc_build_options {
    const char *compiler;  /* NULL: CJAX_CC, default "cc" */
    const char *cflags;    /* NULL: CJAX_CFLAGS; appended to the defaults */
    const char *cache_dir; /* NULL: CJAX_CACHE_DIR, $XDG_CACHE_HOME/cjax, ~/.cache/cjax */
    int timeout_ms;        /* 0: CC_BUILD_TIMEOUT_MS */
} cc_build_options;

/* What one build asks beyond the options (all zero / NULL: nothing). */
typedef struct cc_build_control {
    int64_t max_bytes; /* the disk cache's cap; 0: CJAX_CACHE_MAX_MB; < 0: no cap */
    /* Symbols the object must export, as "name\0name\0\0" (NULL: none):
     * output lacking one is not published, a cached entry lacking one is
     * removed; the build fails with CJ_ERR_UNSUPPORTED naming it. */
    const char *required;
    const atomic_int *cancel; /* nonzero: stop (kill the compiler) and fail */
} cc_build_control;

typedef struct cc_build_info {
    double compile_ms;     /* compiler wall time; 0 when served from the disk cache */
    int from_disk_cache;   /* 1 when no compiler ran */
    int rebuilt_corrupt;   /* a cached file failed its check (or dlopen) and was replaced */
    int used_fallback_dir; /* the cache directory was unusable; a temp directory served */
    int refused_dir;       /* ... because it failed the trust check (owner, permissions) */
    int refused_entry;     /* the entry was not loaded: not a regular file of ours, 0600 */
    int evicted;           /* entries this build's tidy removed for the size cap */
    int orphans_removed;   /* temporary files of dead processes this build's tidy removed */
    size_t so_bytes;       /* size of the compiler's shared object (generated code bytes) */
    char key[65];          /* hex SHA-256 of source + compiler identity + flags */
    char so_path[512];     /* the loaded file */
} cc_build_info;

/* Compiles `source` (a complete C translation unit) into a shared object, or
 * finds it in the disk cache, and dlopens it (RTLD_NOW | RTLD_LOCAL: an
 * undefined symbol is an error here, not a crash later). `info` may be NULL;
 * when given it is filled as far as the build got, failures included.
 * Returns a module owned by the caller (free with cc_module_free and the same
 * ctx), or NULL with the error recorded in ctx (see above). */
cc_module *cc_build(cj_ctx *ctx, const char *source, cc_build_info *info);
cc_module *cc_build_with(cj_ctx *ctx, const char *source, const cc_build_options *opt,
                         cc_build_info *info);
/* The same, with a build control (NULL: none). */
cc_module *cc_build_ctl(cj_ctx *ctx, const char *source, const cc_build_options *opt,
                        const cc_build_control *ctl, cc_build_info *info);

/* The address of an exported symbol of the module; NULL if absent. Valid
 * until cc_module_free. */
void *cc_symbol(cc_module *m, const char *name);
/* dlcloses and frees. NULL is a no-op. */
void cc_module_free(cj_ctx *ctx, cc_module *m);

/* The compiler's identity as it enters the cache key: the first line of
 * `<compiler> --version` (NULL compiler: the configured one), cached per
 * process. Returns 0 with the identity in buf, or -1 with the reason (the
 * compiler cannot be run, or hangs) in buf. */
int cc_compiler_identity(const char *compiler, char *buf, size_t size);

/* Process-wide counters, for tests and statistics: compiler runs that
 * compiled a translation unit (a -march=native retry counts as a second run;
 * `--version` queries are not counted), and cached files found corrupt. */
long cc_build_compiles(void);
long cc_build_corrupt_detected(void);
/* Cache directories and entries refused by the trust check, process-wide. */
long cc_build_refusals(void);

/* Why a cache directory (is_dir) or entry with this status may not be
 * trusted by a process of effective uid `euid`, or NULL when it may: of the
 * wrong type, owned by another uid, or writable by group or others (exposed
 * so tests can judge ownership they cannot create). */
const char *cc_cache_trust_problem(const struct stat *st, unsigned euid, int is_dir);

/* Whether the first `size` bytes of fd are a complete ELF shared object for
 * this machine: header, program headers, every loaded segment, section
 * headers and sections all lie inside them. NULL, or why not (a static
 * string). Exposed for the input fuzzer and tests. */
const char *cc_elf_check(int fd, uint64_t size);

/* Checks one cache file as a build does before dlopen, reading it and never
 * loading it (exposed for the input fuzzer, fuzz/fuzz_cache.c, and tests):
 * 1 when `path` is a regular file holding a payload sealed with this key and
 * an intact SHA-256 trailer (*payload, when not NULL: the payload's size),
 * 0 when it does not exist, -1 when it is refused (not a regular file
 * owned by this user and writable by no one else; a symbolic link) or
 * corrupt (truncated, foreign, sealed for another key, or altered). */
int cc_cache_file_check(const char *path, const uint8_t key[32], size_t *payload);

/* SHA-256 of n bytes (the hash behind keys and checksums; exposed for tests). */
void cc_sha256(const void *data, size_t n, uint8_t out[32]);

#endif
