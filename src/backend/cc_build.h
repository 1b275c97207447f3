/* cc_build.h — the C toolchain driver and on-disk cache of the `cc` backend
 * (backend layer).
 *
 * The cc backend's code generator produces one C translation unit per
 * program; this module turns that text into a loaded shared object and
 * nothing else: it runs the system compiler (posix_spawn, no shell, killed
 * after a timeout), keeps the result in an on-disk cache so a second process
 * with the same program compiles nothing, checks every cached file before
 * loading it, and loads it with dlopen.
 *
 * Compiler: CJAX_CC (default "cc"; may carry arguments, "ccache gcc"), run
 * with CC_BUILD_DEFAULT_FLAGS followed by CJAX_CFLAGS, both split on white
 * space (no quoting). When the compiler rejects -march=native, the build is
 * retried once without it and the flag is dropped for that compiler for the
 * rest of the process.
 *
 * Cache: CJAX_CACHE_DIR, else $XDG_CACHE_HOME/cjax, else $HOME/.cache/cjax
 * (created with mkdir -p semantics, mode 0700). One file per program,
 * `<key>.so`, where key = SHA-256 of the source, the compiler command, the
 * first line of `<compiler> --version`, the flags, and (when the flags ask for
 * -march=native) this CPU's model and feature flags, so a cache shared by
 * different machines never loads code built for another CPU. The file is the
 * compiler's ELF output followed by an 80-byte trailer (magic, payload size,
 * key, SHA-256 of the payload): a truncated, overwritten or foreign file is
 * detected before dlopen, counted, and rebuilt (the new file replaces it;
 * the same for a file that checks but fails to load). Files are written under
 * a unique temporary name in the cache directory and renamed into place, so
 * concurrent threads and processes never see half a file (and no fsync is
 * needed: a file cut short by a crash fails its check). When the cache
 * directory cannot be created or written, a per-process directory made with
 * mkdtemp under $TMPDIR (or /tmp) serves instead and is removed at exit.
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
 * directory); temporary files are removed on every path. */
#ifndef CJ_BACKEND_CC_BUILD_H
#define CJ_BACKEND_CC_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "cjax.h"

/* Why each flag (shared MEASURED.md): -O3 -march=native vectorise with the
 * machine's widest units; -fno-trapping-math lets gcc vectorise float
 * compare-selects (3-4x on such loops); -fno-math-errno lets libm calls be
 * inlined or vectorised; -w because generated code is not for humans to fix. */
#define CC_BUILD_DEFAULT_FLAGS \
    "-O3 -march=native -fno-math-errno -fno-trapping-math -fPIC -shared -std=c11 -w"
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

typedef struct cc_build_info {
    double compile_ms;     /* compiler wall time; 0 when served from the disk cache */
    int from_disk_cache;   /* 1 when no compiler ran */
    int rebuilt_corrupt;   /* a cached file failed its check (or dlopen) and was replaced */
    int used_fallback_dir; /* the cache directory was unusable; a temp directory served */
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

/* Checks one cache file as a build does before dlopen, reading it and never
 * loading it (exposed for the input fuzzer, fuzz/fuzz_cache.c, and tests):
 * 1 when `path` is a regular file holding a payload sealed with this key and
 * an intact SHA-256 trailer (*payload, when not NULL: the payload's size),
 * 0 when it cannot be opened, -1 when it is corrupt (truncated, foreign,
 * sealed for another key, or altered). The trailer detects damage, not
 * forgery: whoever can write the cache directory (mode 0700, so the user)
 * can already run code as the user. */
int cc_cache_file_check(const char *path, const uint8_t key[32], size_t *payload);

/* SHA-256 of n bytes (the hash behind keys and checksums; exposed for tests). */
void cc_sha256(const void *data, size_t n, uint8_t out[32]);

#endif
