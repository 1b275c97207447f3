/* cc_build.c — C source text to a loaded shared object, through the system
 * compiler and an on-disk cache (backend layer; the contract is in
 * cc_build.h).
 *
 * A build: compute the key (SHA-256 over source, compiler identity, flags and,
 * for -march=native, the CPU); look for `<key>.so` in the cache directory
 * (then in this process's fallback directory) and verify its trailer before
 * dlopen; on a miss write the source to a unique temporary .c beside the
 * cache, run the compiler with posix_spawn (own process group, output to a
 * pipe, killed with its children at the timeout), seal the output with a
 * trailer, rename it into place and dlopen it.
 *
 * Process-wide state is small and behind two mutexes: state_lock guards the
 * identity of each compiler seen (its `--version` line and whether it accepts
 * -march=native) and the fallback directory; flight_lock guards the table of
 * builds in flight, one per key and cache directory, so threads that ask for
 * the same program at once run the compiler once: the first looks in the
 * cache and compiles, the others wait for it and then find its file in the
 * cache (dlopen hands every thread the same loaded object). Builds of
 * different programs run unlocked and compile in parallel. Memory: the module
 * record and the compiler's argv come from the context; everything else lives
 * on the stack or in static tables. */
#define _GNU_SOURCE
#include "cc_build.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../core/core.h"

extern char **environ;

#define PATH_CAP 512      /* every path this module builds; sizeof info->so_path */
#define DIR_CAP 400       /* a cache directory leaves room for "/<key>-<pid>-<n>.tmp.so" */
#define DIAG_CAP 2048     /* the compiler output kept for messages */
#define COMMAND_CAP 256   /* CJAX_CC, tokenised on the stack for --version */
#define MAX_COMPILERS 32
#define TRAILER_SIZE 80
static const char trailer_magic[8] = {'C', 'J', 'A', 'X', 'S', 'O', '1', '\n'};

struct cc_module {
    void *handle;
    size_t so_bytes;
};

/* ------------------------------------------------------------------ */
/* SHA-256 (FIPS 180-4)                                                */

typedef struct sha256_state {
    uint32_t h[8];
    uint64_t bytes;
    uint8_t block[64];
    size_t used;
} sha256_state;

static const uint32_t sha256_k[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t rotr32(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

static void sha256_compress(uint32_t h[8], const uint8_t *p) {
    uint32_t w[64];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 |
               (uint32_t)p[4 * i + 3];
    for (int i = 16; i < 64; i++) {
        uint32_t s0 = rotr32(w[i - 15], 7) ^ rotr32(w[i - 15], 18) ^ (w[i - 15] >> 3);
        uint32_t s1 = rotr32(w[i - 2], 17) ^ rotr32(w[i - 2], 19) ^ (w[i - 2] >> 10);
        w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
    for (int i = 0; i < 64; i++) {
        uint32_t t1 = k + (rotr32(e, 6) ^ rotr32(e, 11) ^ rotr32(e, 25)) + ((e & f) ^ (~e & g)) +
                      sha256_k[i] + w[i];
        uint32_t t2 = (rotr32(a, 2) ^ rotr32(a, 13) ^ rotr32(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
        k = g;
        g = f;
        f = e;
        e = d + t1;
        d = c;
        c = b;
        b = a;
        a = t1 + t2;
    }
    h[0] += a;
    h[1] += b;
    h[2] += c;
    h[3] += d;
    h[4] += e;
    h[5] += f;
    h[6] += g;
    h[7] += k;
}

static void sha256_init(sha256_state *s) {
    static const uint32_t h0[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                   0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
    memcpy(s->h, h0, sizeof h0);
    s->bytes = 0;
    s->used = 0;
}

static void sha256_update(sha256_state *s, const void *data, size_t n) {
    const uint8_t *p = data;
    s->bytes += n;
    if (s->used) {
        size_t take = 64 - s->used < n ? 64 - s->used : n;
        memcpy(s->block + s->used, p, take);
        s->used += take;
        p += take;
        n -= take;
        if (s->used < 64) return;
        sha256_compress(s->h, s->block);
        s->used = 0;
    }
    for (; n >= 64; p += 64, n -= 64) sha256_compress(s->h, p);
    memcpy(s->block, p, n);
    s->used = n;
}

static void sha256_final(sha256_state *s, uint8_t out[32]) {
    uint64_t bits = s->bytes * 8;
    uint8_t pad[72] = {0x80};
    size_t pad_len = (s->used < 56 ? 56 : 120) - s->used;
    for (int i = 0; i < 8; i++) pad[pad_len + (size_t)i] = (uint8_t)(bits >> (56 - 8 * i));
    sha256_update(s, pad, pad_len + 8);
    for (int i = 0; i < 8; i++)
        for (int j = 0; j < 4; j++) out[4 * i + j] = (uint8_t)(s->h[i] >> (24 - 8 * j));
}

void cc_sha256(const void *data, size_t n, uint8_t out[32]) {
    sha256_state s;
    sha256_init(&s);
    sha256_update(&s, data, n);
    sha256_final(&s, out);
}

/* Length-prefixed, so field boundaries cannot shift between keys. */
static void sha256_field(sha256_state *s, const char *text) {
    uint64_t n = strlen(text);
    uint8_t len[8];
    for (int i = 0; i < 8; i++) len[i] = (uint8_t)(n >> (8 * i));
    sha256_update(s, len, sizeof len);
    sha256_update(s, text, (size_t)n);
}

static void hex32(const uint8_t in[32], char out[65]) {
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        out[2 * i] = digits[in[i] >> 4];
        out[2 * i + 1] = digits[in[i] & 15];
    }
    out[64] = 0;
}

/* ------------------------------------------------------------------ */
/* process-wide state                                                  */

typedef struct compiler_rec {
    char command[COMMAND_CAP];
    char identity[200];
    int march_native; /* -1 not yet known, 0 rejected, 1 accepted */
} compiler_rec;

static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;
static compiler_rec compilers[MAX_COMPILERS];
static int n_compilers;
static char fallback_dir[PATH_CAP];
static pid_t fallback_owner;
static atomic_long n_compiles, n_corrupt;
static atomic_ulong temp_seq;

/* Builds in flight: one slot per (key, cache directory) being looked up or
 * compiled. Waiters count themselves in, so the slot outlives its build
 * until the last waiter has read the outcome. A full table only costs the
 * dedup: the build then runs on its own. */
#define MAX_FLIGHTS 32
typedef struct flight {
    int used, done, waiters;
    uint8_t key[32];
    char dir[PATH_CAP];
    cj_status status;         /* the builder's outcome, once done */
    char message[DIAG_CAP + 512];
} flight;
static pthread_mutex_t flight_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t flight_landed = PTHREAD_COND_INITIALIZER;
static flight flights[MAX_FLIGHTS];

long cc_build_compiles(void) { return atomic_load(&n_compiles); }
long cc_build_corrupt_detected(void) { return atomic_load(&n_corrupt); }

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void sleep_us(long us) {
    struct timespec ts = {0, us * 1000};
    nanosleep(&ts, NULL);
}

/* ------------------------------------------------------------------ */
/* running a tool                                                      */

typedef struct tool_run {
    int spawn_err; /* errno: the program could not be started */
    int timed_out;
    int exited, exit_code; /* normal exit */
    int signal;            /* killed by this signal */
    size_t out_len;
    char out[DIAG_CAP]; /* the first bytes of its stdout + stderr */
} tool_run;

static int open_pipe(int fds[2]) {
#ifdef __linux__
    return pipe2(fds, O_CLOEXEC);
#else
    if (pipe(fds) != 0) return -1;
    fcntl(fds[0], F_SETFD, FD_CLOEXEC);
    fcntl(fds[1], F_SETFD, FD_CLOEXEC);
    return 0;
#endif
}

/* Reads what is available on the pipe, keeping the first DIAG_CAP-1 bytes.
 * Returns 0 at end of file, 1 otherwise. */
static int drain_some(int fd, tool_run *r) {
    char chunk[1024];
    ssize_t n = read(fd, chunk, sizeof chunk);
    if (n == 0) return 0;
    if (n < 0) return errno == EINTR || errno == EAGAIN ? 1 : 0;
    size_t room = sizeof r->out - 1 - r->out_len;
    size_t take = (size_t)n < room ? (size_t)n : room;
    memcpy(r->out + r->out_len, chunk, take);
    r->out_len += take;
    r->out[r->out_len] = 0;
    return 1;
}

static int start_tool(char *const argv[], int out_fd, pid_t *pid) {
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t at;
    int rc = posix_spawn_file_actions_init(&fa);
    if (rc) return rc;
    rc = posix_spawnattr_init(&at);
    if (rc) {
        posix_spawn_file_actions_destroy(&fa);
        return rc;
    }
    /* Own process group, so a timeout kills the driver's children (cc1, as,
     * ld) too; default SIGCHLD and SIGPIPE and an empty mask whatever the
     * host program did with them (a driver with SIGCHLD ignored cannot wait
     * for its own children). */
    sigset_t none, defaults;
    sigemptyset(&none);
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGCHLD);
    sigaddset(&defaults, SIGPIPE);
    if (!rc) rc = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    if (!rc) rc = posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
    if (!rc) rc = posix_spawn_file_actions_adddup2(&fa, out_fd, 2);
    if (!rc) rc = posix_spawnattr_setpgroup(&at, 0);
    if (!rc) rc = posix_spawnattr_setsigmask(&at, &none);
    if (!rc) rc = posix_spawnattr_setsigdefault(&at, &defaults);
    if (!rc)
        rc = posix_spawnattr_setflags(&at, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK |
                                               POSIX_SPAWN_SETSIGDEF);
    if (!rc) rc = posix_spawnp(pid, argv[0], &fa, &at, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&at);
    return rc;
}

static void record_status(tool_run *r, int status) {
    if (WIFEXITED(status)) {
        r->exited = 1;
        r->exit_code = WEXITSTATUS(status);
    } else if (WIFSIGNALED(status)) {
        r->signal = WTERMSIG(status);
    }
}

/* Runs argv (searched on PATH) with stdin from /dev/null and stdout+stderr
 * captured, waiting at most timeout_ms; then kills its process group. */
static void run_tool(char *const argv[], int timeout_ms, tool_run *r) {
    memset(r, 0, sizeof *r);
    int fds[2];
    if (open_pipe(fds) != 0) {
        r->spawn_err = errno;
        return;
    }
    pid_t pid;
    int rc = start_tool(argv, fds[1], &pid);
    close(fds[1]);
    if (rc) {
        close(fds[0]);
        r->spawn_err = rc;
        return;
    }
    /* Wake on output or end of file (the driver exiting closes the pipe) and
     * check for exit at least every 50 ms: a helper daemon that inherited the
     * pipe (sccache) must not hold us until the timeout. */
    double deadline = now_ms() + timeout_ms;
    int pipe_open = 1, status = 0;
    for (;;) {
        pid_t w = waitpid(pid, &status, WNOHANG);
        if (w == pid) {
            record_status(r, status);
            break;
        }
        if (w < 0 && errno != EINTR) {
            /* ECHILD: the host ignores SIGCHLD, so the child was reaped for
             * us and its status is lost; the output checks that follow
             * decide. */
            r->exited = 1;
            break;
        }
        double left = deadline - now_ms();
        if (left <= 0) {
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
            }
            r->timed_out = 1;
            break;
        }
        if (pipe_open) {
            struct pollfd p = {fds[0], POLLIN, 0};
            if (poll(&p, 1, left < 50 ? (int)left + 1 : 50) > 0) pipe_open = drain_some(fds[0], r);
        } else {
            sleep_us(250);
        }
    }
    /* What the exited tool left in the pipe (bounded: a grandchild could
     * keep writing). */
    for (int i = 0; pipe_open && i < 64; i++) {
        struct pollfd p = {fds[0], POLLIN, 0};
        if (poll(&p, 1, 0) <= 0) break;
        pipe_open = drain_some(fds[0], r);
    }
    close(fds[0]);
}

/* Splits `text` into `argv` in place on white space; returns the count
 * (at most cap), -1 when there are more. */
static int split_words(char *text, char **argv, int cap) {
    int n = 0;
    for (char *p = text; *p;) {
        while (*p == ' ' || *p == '\t' || *p == '\n') *p++ = 0;
        if (!*p) break;
        if (n == cap) return -1;
        argv[n++] = p;
        while (*p && *p != ' ' && *p != '\t' && *p != '\n') p++;
    }
    return n;
}

/* ------------------------------------------------------------------ */
/* compiler identity                                                   */

static compiler_rec *find_compiler(const char *command) {
    for (int i = 0; i < n_compilers; i++)
        if (strcmp(compilers[i].command, command) == 0) return &compilers[i];
    return NULL;
}

/* Fills *out with the compiler's record, running `--version` the first time
 * a command is seen. 0, or -1 with the reason in why. */
static int compiler_lookup(const char *command, int timeout_ms, compiler_rec *out, char *why,
                           size_t why_size) {
    if (strlen(command) >= COMMAND_CAP) {
        snprintf(why, why_size, "the C compiler command '%.60s...' is too long", command);
        return -1;
    }
    pthread_mutex_lock(&state_lock);
    compiler_rec *known = find_compiler(command);
    if (known) *out = *known;
    pthread_mutex_unlock(&state_lock);
    if (known) return 0;

    char words[COMMAND_CAP];
    char *argv[34];
    snprintf(words, sizeof words, "%s", command);
    int n = split_words(words, argv, 32);
    if (n <= 0) {
        snprintf(why, why_size, "the C compiler command '%s' is empty or has too many words",
                 command);
        return -1;
    }
    argv[n] = "--version";
    argv[n + 1] = NULL;
    tool_run r;
    run_tool(argv, timeout_ms, &r);
    if (r.spawn_err) {
        snprintf(why, why_size, "cannot run the C compiler '%s': %s (set CJAX_CC to a C compiler)",
                 command, strerror(r.spawn_err));
        return -1;
    }
    if (r.timed_out) {
        snprintf(why, why_size, "the C compiler '%s' did not answer --version within %d ms",
                 command, timeout_ms);
        return -1;
    }
    memset(out, 0, sizeof *out);
    snprintf(out->command, sizeof out->command, "%s", command);
    out->march_native = -1;
    size_t line = strcspn(r.out, "\r\n");
    if (r.exited && r.exit_code == 0 && line > 0)
        snprintf(out->identity, sizeof out->identity, "%.*s", (int)line, r.out);
    else /* Not every compiler knows --version; the command still keys. */
        snprintf(out->identity, sizeof out->identity, "(no --version)");

    pthread_mutex_lock(&state_lock);
    known = find_compiler(command);
    if (known)
        *out = *known;
    else if (n_compilers < MAX_COMPILERS)
        compilers[n_compilers++] = *out;
    pthread_mutex_unlock(&state_lock);
    return 0;
}

static void compiler_set_march(const char *command, int accepted) {
    pthread_mutex_lock(&state_lock);
    compiler_rec *rec = find_compiler(command);
    if (rec) rec->march_native = accepted;
    pthread_mutex_unlock(&state_lock);
}

int cc_compiler_identity(const char *compiler, char *buf, size_t size) {
    if (!buf || !size) return -1;
    compiler_rec rec;
    const char *command = compiler ? compiler : rt_config_get()->cc;
    if (compiler_lookup(command, CC_BUILD_TIMEOUT_MS, &rec, buf, size) != 0) return -1;
    snprintf(buf, size, "%s", rec.identity);
    return 0;
}

/* ------------------------------------------------------------------ */
/* the CPU, for keys of -march=native builds                           */

static uint8_t cpu_digest[32];
static pthread_once_t cpu_once = PTHREAD_ONCE_INIT;

/* The stable lines of the first processor block of /proc/cpuinfo (model,
 * feature flags; not the clock, which changes), plus the machine name. */
static void cpu_digest_init(void) {
    static const char *const keys[] = {"vendor_id", "cpu family", "model", "model name",
                                       "stepping", "flags", "Features", "CPU implementer",
                                       "CPU architecture", "CPU variant", "CPU part", "isa"};
    sha256_state s;
    sha256_init(&s);
    struct utsname u;
    if (uname(&u) == 0) sha256_field(&s, u.machine);
    char buf[8192];
    size_t len = 0;
    int fd = open("/proc/cpuinfo", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        ssize_t n;
        while (len < sizeof buf - 1 && (n = read(fd, buf + len, sizeof buf - 1 - len)) > 0)
            len += (size_t)n;
        close(fd);
    }
    buf[len] = 0;
    for (char *line = buf; *line && *line != '\n';) {
        char *end = strchr(line, '\n');
        if (!end) break; /* a line cut by the buffer: leave it out */
        *end = 0;
        char *colon = strchr(line, ':');
        if (colon) {
            size_t klen = (size_t)(colon - line);
            while (klen && (line[klen - 1] == ' ' || line[klen - 1] == '\t')) klen--;
            for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
                if (strlen(keys[i]) == klen && strncmp(line, keys[i], klen) == 0)
                    sha256_field(&s, line);
        }
        line = end + 1;
    }
    sha256_final(&s, cpu_digest);
}

/* ------------------------------------------------------------------ */
/* directories                                                         */

/* mkdir -p; 0 when `path` is (now) a directory, else -1 with errno. */
static int mkdir_p(const char *path) {
    char buf[PATH_CAP];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(buf, 0700) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    if (mkdir(buf, 0700) != 0 && errno != EEXIST) return -1;
    struct stat st;
    if (stat(buf, &st) != 0) return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

/* The configured cache directory into buf; "" when none can be named (no
 * CJAX_CACHE_DIR, XDG_CACHE_HOME or HOME). */
static void configured_cache_dir(const cc_build_options *opt, char *buf, size_t size) {
    const char *dir = opt && opt->cache_dir ? opt->cache_dir : rt_config_get()->cache_dir;
    const char *xdg = getenv("XDG_CACHE_HOME"), *home = getenv("HOME");
    int n;
    if (dir && *dir)
        n = snprintf(buf, size, "%s", dir);
    else if (xdg && *xdg)
        n = snprintf(buf, size, "%s/cjax", xdg);
    else if (home && *home)
        n = snprintf(buf, size, "%s/.cache/cjax", home);
    else
        n = snprintf(buf, size, "%s", "");
    if (n < 0 || (size_t)n >= size) buf[0] = 0;
    /* "dir/" and "dir" are the same place. */
    for (size_t len = strlen(buf); len > 1 && buf[len - 1] == '/'; len--) buf[len - 1] = 0;
}

static void remove_fallback_dir(void) {
    /* Only the process that made it: a forked child exits through here too. */
    if (!fallback_dir[0] || getpid() != fallback_owner) return;
    DIR *d = opendir(fallback_dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
            char path[PATH_CAP + 256];
            snprintf(path, sizeof path, "%s/%s", fallback_dir, e->d_name);
            unlink(path);
        }
        closedir(d);
    }
    rmdir(fallback_dir);
}

/* This process's fallback directory into buf, made on first use when
 * `create`. 0, or -1 with errno. */
static int get_fallback_dir(int create, char *buf, size_t size) {
    int rc = 0;
    pthread_mutex_lock(&state_lock);
    if (!fallback_dir[0] && create) {
        const char *tmp = getenv("TMPDIR");
        char templ[PATH_CAP];
        int n = snprintf(templ, sizeof templ, "%s/cjax-cc-XXXXXX", tmp && *tmp ? tmp : "/tmp");
        if (n < 0 || n >= DIR_CAP) {
            errno = ENAMETOOLONG;
            rc = -1;
        } else if (!mkdtemp(templ)) {
            rc = -1;
        } else {
            int first = fallback_owner == 0;
            snprintf(fallback_dir, sizeof fallback_dir, "%s", templ);
            fallback_owner = getpid();
            if (first) atexit(remove_fallback_dir);
        }
    }
    if (!fallback_dir[0] && rc == 0) {
        errno = ENOENT;
        rc = -1;
    }
    if (rc == 0) snprintf(buf, size, "%s", fallback_dir);
    pthread_mutex_unlock(&state_lock);
    return rc;
}

/* ------------------------------------------------------------------ */
/* cache files: the compiler's output + an 80-byte trailer             */

typedef enum cache_state { CACHE_MISSING, CACHE_VALID, CACHE_CORRUPT } cache_state;

static void put_u64(uint8_t *p, uint64_t v) {
    for (int i = 0; i < 8; i++) p[i] = (uint8_t)(v >> (8 * i));
}

static uint64_t get_u64(const uint8_t *p) {
    uint64_t v = 0;
    for (int i = 0; i < 8; i++) v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* SHA-256 of the first n bytes of fd; 0 or -1 (short or failed read). */
static int hash_fd(int fd, uint64_t n, uint8_t out[32]) {
    sha256_state s;
    sha256_init(&s);
    uint8_t chunk[8192];
    for (uint64_t off = 0; off < n;) {
        size_t want = n - off < sizeof chunk ? (size_t)(n - off) : sizeof chunk;
        ssize_t got = pread(fd, chunk, want, (off_t)off);
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return -1;
        sha256_update(&s, chunk, (size_t)got);
        off += (uint64_t)got;
    }
    sha256_final(&s, out);
    return 0;
}

/* Is `path` a complete cache file for `key`? *payload receives the size of
 * the shared object inside it. */
static cache_state cache_check(const char *path, const uint8_t key[32], size_t *payload) {
    /* A file we cannot open is not ours to judge: build beside it. */
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return CACHE_MISSING;
    cache_state state = CACHE_CORRUPT;
    struct stat st;
    uint8_t t[TRAILER_SIZE], digest[32];
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > TRAILER_SIZE &&
        pread(fd, t, sizeof t, st.st_size - TRAILER_SIZE) == TRAILER_SIZE &&
        memcmp(t, trailer_magic, 8) == 0 &&
        get_u64(t + 8) == (uint64_t)st.st_size - TRAILER_SIZE && memcmp(t + 16, key, 32) == 0 &&
        hash_fd(fd, get_u64(t + 8), digest) == 0 && memcmp(t + 48, digest, 32) == 0) {
        state = CACHE_VALID;
        *payload = (size_t)get_u64(t + 8);
    }
    close(fd);
    return state;
}

int cc_cache_file_check(const char *path, const uint8_t key[32], size_t *payload) {
    size_t size = 0;
    cache_state state = path && key ? cache_check(path, key, &size) : CACHE_MISSING;
    if (payload) *payload = state == CACHE_VALID ? size : 0;
    return state == CACHE_VALID ? 1 : state == CACHE_MISSING ? 0 : -1;
}

/* Appends the trailer to the compiler's output. 0, or -1 with errno
 * (ENOENT: the compiler wrote nothing). *inode identifies the file. */
static int seal(const char *tmp_so, const uint8_t key[32], size_t *payload, ino_t *inode) {
    int fd = open(tmp_so, O_RDWR | O_CLOEXEC);
    if (fd < 0) return -1;
    struct stat st;
    uint8_t t[TRAILER_SIZE];
    int err = 0;
    if (fstat(fd, &st) != 0) {
        err = errno;
    } else if (st.st_size <= 0) {
        err = ENOENT;
    } else if (hash_fd(fd, (uint64_t)st.st_size, t + 48) != 0) {
        err = EIO;
    } else {
        memcpy(t, trailer_magic, 8);
        put_u64(t + 8, (uint64_t)st.st_size);
        memcpy(t + 16, key, 32);
        ssize_t n = pwrite(fd, t, sizeof t, st.st_size);
        if (n != TRAILER_SIZE) err = n < 0 ? errno : EIO;
    }
    if (close(fd) != 0 && !err) err = errno;
    if (err) {
        errno = err;
        return -1;
    }
    *payload = (size_t)st.st_size;
    *inode = st.st_ino;
    return 0;
}

/* ------------------------------------------------------------------ */
/* one build                                                           */

typedef struct build {
    cj_ctx *ctx;
    const cc_build_options *opt;
    const char *command, *cflags;
    int timeout_ms;
    compiler_rec rec;
    uint8_t key[32];
    char hex[65];
    char c_path[PATH_CAP], tmp_so[PATH_CAP], so_path[PATH_CAP];
    cc_build_info *info;
    flight *flight; /* this build's slot in the in-flight table, if any */
} build;

static void compute_key(build *b, const char *source) {
    sha256_state s;
    sha256_init(&s);
    sha256_field(&s, "cjax cc_build 1");
    sha256_field(&s, b->command);
    sha256_field(&s, b->rec.identity);
    sha256_field(&s, CC_BUILD_DEFAULT_FLAGS);
    sha256_field(&s, b->cflags);
    if (strstr(CC_BUILD_DEFAULT_FLAGS, "native") || strstr(b->cflags, "native")) {
        pthread_once(&cpu_once, cpu_digest_init);
        sha256_update(&s, cpu_digest, sizeof cpu_digest);
    }
    sha256_field(&s, source);
    sha256_final(&s, b->key);
    hex32(b->key, b->hex);
}

/* ------------------------------------------------------------------ */
/* one build per program at a time                                     */

/* Joins the build of b's key in cache directory `dir`. When none is in
 * flight, this build takes a slot (flight_land must follow) and 0 is
 * returned. When one is, this waits until it lands and returns 0 without a
 * slot (its file is in the cache now, or it failed for a reason of its own:
 * look and build as usual), or -1 with its error recorded in b->ctx when the
 * toolchain could not build the program (doing it again would fail the same
 * way, after as long). */
static int flight_join(build *b, const char *dir) {
    b->flight = NULL;
    pthread_mutex_lock(&flight_lock);
    flight *same = NULL, *unused = NULL;
    for (int i = 0; i < MAX_FLIGHTS; i++) {
        flight *f = &flights[i];
        if (!f->used) {
            if (!unused) unused = f;
        } else if (!f->done && memcmp(f->key, b->key, 32) == 0 && strcmp(f->dir, dir) == 0) {
            same = f;
        }
    }
    if (!same) {
        if (unused) {
            unused->used = 1;
            unused->done = 0;
            unused->waiters = 0;
            memcpy(unused->key, b->key, 32);
            snprintf(unused->dir, sizeof unused->dir, "%s", dir);
            unused->status = CJ_OK;
            unused->message[0] = 0;
            b->flight = unused;
        }
        pthread_mutex_unlock(&flight_lock);
        return 0;
    }
    same->waiters++;
    while (!same->done) pthread_cond_wait(&flight_landed, &flight_lock);
    int shared = same->status == CJ_ERR_UNSUPPORTED;
    char message[sizeof same->message];
    if (shared) snprintf(message, sizeof message, "%s", same->message);
    if (--same->waiters == 0) same->used = 0;
    pthread_mutex_unlock(&flight_lock);
    if (!shared) return 0;
    core_error(b->ctx, CJ_ERR_UNSUPPORTED, "%s", message);
    return -1;
}

/* Records the outcome of b's build in its slot and wakes the waiters. */
static void flight_land(build *b, int ok) {
    flight *f = b->flight;
    if (!f) return;
    pthread_mutex_lock(&flight_lock);
    f->done = 1;
    f->status = ok ? CJ_OK : cj_error(b->ctx);
    snprintf(f->message, sizeof f->message, "%s", ok ? "" : cj_error_message(b->ctx));
    if (f->waiters == 0) f->used = 0;
    pthread_cond_broadcast(&flight_landed);
    pthread_mutex_unlock(&flight_lock);
    b->flight = NULL;
}

/* Loads a checked cache file in `dir`. 1 loaded, 0 absent (a corrupt or
 * unloadable file is counted and left for the rebuild to replace). */
static int try_cached(build *b, const char *dir, cc_module *m) {
    char path[PATH_CAP];
    if (snprintf(path, sizeof path, "%s/%s.so", dir, b->hex) >= (int)sizeof path) return 0;
    size_t payload = 0;
    cache_state state = cache_check(path, b->key, &payload);
    if (state == CACHE_MISSING) return 0;
    if (state == CACHE_VALID) {
        m->handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
        if (m->handle) {
            m->so_bytes = payload;
            snprintf(b->info->so_path, sizeof b->info->so_path, "%s", path);
            return 1;
        }
    }
    /* A file that fails its check, or checks but will not load, is rebuilt;
     * the new file's rename replaces it. (Unlinking it here could remove a
     * good file another process renamed into place meanwhile.) */
    atomic_fetch_add(&n_corrupt, 1);
    b->info->rebuilt_corrupt = 1;
    return 0;
}

/* Writes the source to a fresh temporary file in `dir` and names the
 * compiler's output beside it. 0, or -1 with errno (the dir is unusable). */
static int stage_source(build *b, const char *dir, const char *source) {
    if (strlen(dir) >= DIR_CAP) {
        errno = ENAMETOOLONG;
        return -1;
    }
    if (mkdir_p(dir) != 0) return -1;
    unsigned long seq = atomic_fetch_add(&temp_seq, 1);
    long pid = (long)getpid();
    snprintf(b->c_path, sizeof b->c_path, "%s/%.16s-%ld-%lu.tmp.c", dir, b->hex, pid, seq);
    snprintf(b->tmp_so, sizeof b->tmp_so, "%s/%.16s-%ld-%lu.tmp.so", dir, b->hex, pid, seq);
    snprintf(b->so_path, sizeof b->so_path, "%s/%s.so", dir, b->hex);
    int fd = open(b->c_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) return -1;
    size_t len = strlen(source), done = 0;
    while (done < len) {
        ssize_t n = write(fd, source + done, len - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            int saved = n < 0 ? errno : ENOSPC;
            close(fd);
            unlink(b->c_path);
            errno = saved;
            return -1;
        }
        done += (size_t)n;
    }
    if (close(fd) != 0) {
        int saved = errno;
        unlink(b->c_path);
        errno = saved;
        return -1;
    }
    return 0;
}

/* Runs the compiler once. 0 when it exited with status 0; -1 otherwise
 * (details in *r), or -2 when the argv could not be allocated. */
static int compile_once(build *b, int use_march, tool_run *r) {
    const char *defaults = CC_BUILD_DEFAULT_FLAGS;
    size_t len_cmd = strlen(b->command), len_def = strlen(defaults), len_user = strlen(b->cflags);
    size_t text_size = len_cmd + len_def + len_user + 3;
    /* Words are at most one per two characters, plus "-o", output, input. */
    int max_words = (int)(text_size / 2) + 4;
    size_t argv_size = sizeof(char *) * ((size_t)max_words + 4);
    char *text = rt_alloc(b->ctx->mem, text_size);
    char **argv = rt_alloc(b->ctx->mem, argv_size);
    if (!text || !argv) {
        if (text) rt_free(b->ctx->mem, text, text_size);
        if (argv) rt_free(b->ctx->mem, argv, argv_size);
        return -2;
    }
    char *cmd = text, *def = text + len_cmd + 1, *user = def + len_def + 1;
    memcpy(cmd, b->command, len_cmd + 1);
    memcpy(def, defaults, len_def + 1);
    memcpy(user, b->cflags, len_user + 1);
    int n = split_words(cmd, argv, max_words);
    int n_def = split_words(def, argv + n, max_words - n);
    if (!use_march) {
        int kept = 0;
        for (int i = 0; i < n_def; i++)
            if (strcmp(argv[n + i], "-march=native") != 0) argv[n + kept++] = argv[n + i];
        n_def = kept;
    }
    n += n_def;
    n += split_words(user, argv + n, max_words - n);
    argv[n++] = "-o";
    argv[n++] = b->tmp_so;
    argv[n++] = b->c_path;
    argv[n] = NULL;
    run_tool(argv, b->timeout_ms, r);
    if (!r->spawn_err) atomic_fetch_add(&n_compiles, 1);
    rt_free(b->ctx->mem, text, text_size);
    rt_free(b->ctx->mem, argv, argv_size);
    return !r->spawn_err && !r->timed_out && r->exited && r->exit_code == 0 ? 0 : -1;
}

/* The compiler's output for a message: the temporary file's path becomes
 * "source.c", trailing white space goes. */
static void tidy_diagnostics(const tool_run *r, const char *c_path, char *out, size_t size) {
    size_t o = 0, plen = strlen(c_path);
    for (const char *p = r->out; *p && o + 1 < size;) {
        if (plen && strncmp(p, c_path, plen) == 0) {
            int n = snprintf(out + o, size - o, "source.c");
            o += n > 0 && (size_t)n < size - o ? (size_t)n : 0;
            p += plen;
        } else {
            out[o++] = *p++;
        }
    }
    while (o && (out[o - 1] == '\n' || out[o - 1] == ' ' || out[o - 1] == '\r')) o--;
    out[o] = 0;
}

static void report_compile_failure(build *b, const tool_run *r) {
    char diag[DIAG_CAP];
    tidy_diagnostics(r, b->c_path, diag, sizeof diag);
    const char *cc = b->command;
    if (r->spawn_err)
        core_error(b->ctx, CJ_ERR_UNSUPPORTED,
                   "cc backend: cannot run the C compiler '%s': %s (set CJAX_CC to a C compiler)",
                   cc, strerror(r->spawn_err));
    else if (r->timed_out)
        core_error(b->ctx, CJ_ERR_UNSUPPORTED,
                   "cc backend: the C compiler '%s' did not finish within %.1f s and was killed%s%s",
                   cc, b->timeout_ms / 1000.0, diag[0] ? ":\n" : "", diag);
    else if (r->signal)
        core_error(b->ctx, CJ_ERR_UNSUPPORTED,
                   "cc backend: the C compiler '%s' was killed by signal %d (%s)%s%s", cc,
                   r->signal, strsignal(r->signal), diag[0] ? ":\n" : "", diag);
    else
        core_error(b->ctx, CJ_ERR_UNSUPPORTED,
                   "cc backend: the C compiler '%s' failed (exit status %d)%s%s", cc, r->exit_code,
                   diag[0] ? ":\n" : "", diag);
}

/* Compiles b->c_path into b->tmp_so, trying without -march=native once when
 * this compiler has not been seen to accept it. 0, or -1 with the error
 * recorded. */
static int compile(build *b) {
    tool_run r;
    int march = b->rec.march_native;
    double t0 = now_ms();
    int rc = compile_once(b, march != 0, &r);
    if (rc == -1 && march == -1 && r.exited && r.exit_code != 0) {
        /* Either the source is bad (the retry fails the same way) or the
         * compiler rejects -march=native (the retry works: drop it). */
        rc = compile_once(b, 0, &r);
        if (rc == 0) compiler_set_march(b->command, 0);
    } else if (rc == 0 && march == -1) {
        compiler_set_march(b->command, 1);
    }
    b->info->compile_ms = now_ms() - t0;
    if (rc == -2) return core_oom(b->ctx, "cc_build");
    if (rc != 0) {
        report_compile_failure(b, &r);
        return -1;
    }
    return 0;
}

/* Seals the compiler's output, renames it into the cache and loads it. */
static int publish_and_load(build *b, cc_module *m) {
    size_t payload = 0;
    ino_t inode = 0;
    if (seal(b->tmp_so, b->key, &payload, &inode) != 0) {
        if (errno == ENOENT)
            return core_error(b->ctx, CJ_ERR_UNSUPPORTED,
                              "cc backend: the C compiler '%s' exited successfully but wrote no "
                              "shared object",
                              b->command);
        return core_error(b->ctx, CJ_ERR_IO, "cc backend: cannot seal '%s': %s", b->tmp_so,
                          strerror(errno));
    }
    if (rename(b->tmp_so, b->so_path) != 0)
        return core_error(b->ctx, CJ_ERR_IO, "cc backend: cannot rename '%s' to '%s': %s",
                          b->tmp_so, b->so_path, strerror(errno));
    snprintf(b->info->so_path, sizeof b->info->so_path, "%s", b->so_path);
    b->info->so_bytes = payload;
    m->handle = dlopen(b->so_path, RTLD_NOW | RTLD_LOCAL);
    if (!m->handle) {
        const char *why = dlerror(); /* names the file */
        core_error(b->ctx, CJ_ERR_UNSUPPORTED, "cc backend: dlopen failed: %s",
                   why ? why : b->so_path);
        /* Never leave an object that will not load, but remove only our
         * own: another build may have renamed its copy over it. */
        struct stat st;
        if (stat(b->so_path, &st) == 0 && st.st_ino == inode) unlink(b->so_path);
        b->info->so_path[0] = 0;
        return -1;
    }
    m->so_bytes = payload;
    return 0;
}

static int report_unwritable(build *b, const char *primary, int primary_err, int fallback_err) {
    const char *tmp = getenv("TMPDIR");
    return core_error(b->ctx, CJ_ERR_IO,
                      "cc backend: cannot write the cache directory '%s' (%s) nor a temporary "
                      "directory under '%s' (%s)",
                      primary[0] ? primary : "(none: set CJAX_CACHE_DIR or HOME)",
                      strerror(primary_err), tmp && *tmp ? tmp : "/tmp", strerror(fallback_err));
}

/* Finds the object in the cache or stages its source for compiling: in the
 * cache directory when it can be written, else in this process's fallback
 * directory (looked in first: an earlier build may have left it there).
 * 1 loaded from disk, 0 staged, -1 error recorded. */
static int find_or_stage(build *b, const char *primary, const char *source, cc_module *m) {
    char fallback[PATH_CAP];
    if (primary[0] && try_cached(b, primary, m)) return 1;
    int primary_err = ENOENT;
    if (primary[0]) {
        if (stage_source(b, primary, source) == 0) return 0;
        primary_err = errno;
    }
    b->info->used_fallback_dir = 1;
    if (get_fallback_dir(0, fallback, sizeof fallback) == 0 && try_cached(b, fallback, m)) return 1;
    if (get_fallback_dir(1, fallback, sizeof fallback) == 0 &&
        stage_source(b, fallback, source) == 0)
        return 0;
    return report_unwritable(b, primary, primary_err, errno);
}

cc_module *cc_build_with(cj_ctx *ctx, const char *source, const cc_build_options *opt,
                         cc_build_info *info_out) {
    cc_build_info scratch;
    build b;
    memset(&b, 0, sizeof b);
    b.info = info_out ? info_out : &scratch;
    memset(b.info, 0, sizeof *b.info);
    if (!ctx || ctx->err) return NULL;
    if (!source) {
        core_error(ctx, CJ_ERR_ARG, "cc_build: source is NULL");
        return NULL;
    }
    const rt_config *cfg = rt_config_get();
    b.ctx = ctx;
    b.opt = opt;
    b.command = opt && opt->compiler ? opt->compiler : cfg->cc;
    b.cflags = opt && opt->cflags ? opt->cflags : cfg->cflags;
    b.timeout_ms = opt && opt->timeout_ms > 0 ? opt->timeout_ms : CC_BUILD_TIMEOUT_MS;

    /* The record first: an allocation failure costs no compiler run. */
    cc_module *m = rt_calloc(ctx->mem, sizeof *m);
    if (!m) {
        core_oom(ctx, "cc_build");
        return NULL;
    }
    char why[512];
    if (compiler_lookup(b.command, b.timeout_ms, &b.rec, why, sizeof why) != 0) {
        core_error(ctx, CJ_ERR_UNSUPPORTED, "cc backend: %s", why);
        goto fail;
    }
    compute_key(&b, source);
    memcpy(b.info->key, b.hex, sizeof b.hex);

    char primary[PATH_CAP];
    configured_cache_dir(opt, primary, sizeof primary);
    if (flight_join(&b, primary) != 0) goto fail;
    int found = find_or_stage(&b, primary, source, m);
    int rc = found < 0 ? -1 : 0;
    if (found == 0) {
        rc = compile(&b);
        if (rc == 0) rc = publish_and_load(&b, m);
        unlink(b.c_path);
        unlink(b.tmp_so); /* gone already after a successful rename */
    }
    flight_land(&b, rc == 0);
    if (rc == 0) {
        if (found == 1) {
            b.info->from_disk_cache = 1;
            b.info->so_bytes = m->so_bytes;
        }
        return m;
    }
fail:
    rt_free(ctx->mem, m, sizeof *m);
    return NULL;
}

cc_module *cc_build(cj_ctx *ctx, const char *source, cc_build_info *info) {
    return cc_build_with(ctx, source, NULL, info);
}

void *cc_symbol(cc_module *m, const char *name) {
    if (!m || !m->handle || !name) return NULL;
    return dlsym(m->handle, name);
}

void cc_module_free(cj_ctx *ctx, cc_module *m) {
    if (!m) return;
    if (m->handle) dlclose(m->handle);
    if (ctx) rt_free(ctx->mem, m, sizeof *m);
}
