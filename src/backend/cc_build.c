/* cc_build.c — C source text to a loaded shared object, through the system
 * compiler and an on-disk cache (backend layer; the contract is in
 * cc_build.h).
 *
 * A build: compute the key (SHA-256 over source, compiler identity, flags and,
 * for -march=native, the CPU); look for `<key>.so` in the cache directory
 * (then in this process's fallback directory) and verify its trailer before
 * dlopen; on a miss write the source to a unique temporary .c beside the
 * cache, run the compiler (fork + execve: own process group, PDEATHSIG,
 * output to a pipe, killed with its children at the timeout or when the
 * build is cancelled), check and seal its output, load it, and only then
 * rename it into place and tidy the directory (orphans, the size cap).
 * Everything loaded is loaded from a descriptor that was checked (trust
 * model in cc_build.h); the live-module list below makes that safe against
 * the dynamic loader's reuse of names.
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
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
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
    dev_t dev; /* the file it was loaded from */
    ino_t ino;
    cc_module *prev, *next; /* the live list (load_lock) */
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
static atomic_long n_compiles, n_corrupt, n_refused;
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
long cc_build_refusals(void) { return atomic_load(&n_refused); }

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
    int cancelled;         /* killed because the build was cancelled */
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

/* The program argv[0] names, searched on PATH when it has no '/', into
 * buf; 0, or an errno (ENOENT, EACCES). Done before fork: the child may
 * only make async-signal-safe calls. */
static int resolve_program(const char *name, char *buf, size_t size) {
    if (strchr(name, '/')) {
        if (snprintf(buf, size, "%s", name) >= (int)size) return ENAMETOOLONG;
        return access(buf, X_OK) == 0 ? 0 : errno;
    }
    const char *path = getenv("PATH");
    if (!path || !*path) path = "/usr/local/bin:/usr/bin:/bin";
    int err = ENOENT;
    for (const char *p = path;; p++) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        int n = len ? snprintf(buf, size, "%.*s/%s", (int)len, p, name) : snprintf(buf, size, "./%s", name);
        if (n > 0 && (size_t)n < size) {
            if (access(buf, X_OK) == 0) {
                struct stat st;
                if (stat(buf, &st) == 0 && S_ISREG(st.st_mode)) return 0;
            } else if (errno == EACCES) {
                err = EACCES;
            }
        }
        if (!end) break;
        p = end;
    }
    return err;
}

/* Starts argv with stdin from /dev/null and stdout+stderr on out_fd, in a
 * process group of its own (so a timeout or a cancel kills the driver's
 * children, cc1, as, ld, too) that dies with the thread that started it
 * (PR_SET_PDEATHSIG: a compiler outlives no process that was killed), with
 * umask 077, default SIGCHLD and SIGPIPE and an empty mask whatever the
 * host program did with them (a driver with SIGCHLD ignored cannot wait for
 * its own children). 0, or an errno. */
static int start_tool(char *const argv[], int out_fd, pid_t *pid) {
    char program[PATH_CAP];
    int rc = resolve_program(argv[0], program, sizeof program);
    if (rc) return rc;
    int devnull = open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (devnull < 0) return errno;
    int report[2]; /* the child's execve errno; closed by a successful exec */
    if (open_pipe(report) != 0) {
        rc = errno;
        close(devnull);
        return rc;
    }
    pid_t parent = getpid();
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old); /* no host handler runs in the child */
    pid_t child = fork();
    if (child == 0) {
        struct sigaction dfl;
        memset(&dfl, 0, sizeof dfl);
        dfl.sa_handler = SIG_DFL;
        sigaction(SIGCHLD, &dfl, NULL);
        sigaction(SIGPIPE, &dfl, NULL);
        setpgid(0, 0);
        /* Whatever the host's umask: 0777 would leave the compiler unable to
         * reopen its own temporary files, 0 would make them world-writable. */
        umask(077);
#ifdef __linux__
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) _exit(127); /* the parent died before prctl */
#endif
        if (dup2(devnull, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(out_fd, 2) < 0) _exit(127);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        execve(program, argv, environ);
        int err = errno;
        ssize_t w = write(report[1], &err, sizeof err);
        (void)w;
        _exit(127);
    }
    rc = child < 0 ? errno : 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    close(devnull);
    close(report[1]);
    if (child > 0) {
        setpgid(child, child); /* either side may win the race; both agree */
        int err = 0;
        ssize_t n;
        while ((n = read(report[0], &err, sizeof err)) < 0 && errno == EINTR) {
        }
        if (n == (ssize_t)sizeof err) { /* exec failed: reap it */
            int status;
            while (waitpid(child, &status, 0) < 0 && errno == EINTR) {
            }
            rc = err ? err : ENOEXEC;
        } else {
            *pid = child;
        }
    }
    close(report[0]);
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

static int cancelled(const atomic_int *cancel) { return cancel && atomic_load(cancel); }

/* Runs argv (searched on PATH) with stdin from /dev/null and stdout+stderr
 * captured, waiting at most timeout_ms, or until *cancel becomes nonzero;
 * then kills its process group. */
static void run_tool(char *const argv[], int timeout_ms, const atomic_int *cancel, tool_run *r) {
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
        int stop = cancelled(cancel);
        if (left <= 0 || stop) {
            kill(-pid, SIGKILL);
            kill(pid, SIGKILL);
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
            }
            if (stop) r->cancelled = 1;
            else r->timed_out = 1;
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
static int compiler_lookup(const char *command, int timeout_ms, const atomic_int *cancel,
                           compiler_rec *out, char *why, size_t why_size) {
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
    run_tool(argv, timeout_ms, cancel, &r);
    if (r.cancelled) {
        snprintf(why, why_size, "the build was cancelled");
        return -1;
    }
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
    if (compiler_lookup(command, CC_BUILD_TIMEOUT_MS, NULL, &rec, buf, size) != 0) return -1;
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

const char *cc_cache_trust_problem(const struct stat *st, unsigned euid, int is_dir) {
    if (!st) return "no status";
    if (is_dir ? !S_ISDIR(st->st_mode) : !S_ISREG(st->st_mode))
        return is_dir ? "not a directory" : "not a regular file";
    if ((unsigned)st->st_uid != euid) return "owned by another user";
    if (st->st_mode & (S_IWGRP | S_IWOTH)) return "writable by group or others";
    return NULL;
}

/* mkdir -p, each directory it makes 0700 whatever the umask, and checked
 * like the cache directory itself (a directory that appeared under its name
 * meanwhile is someone else's). 0 when `path` is (now) a directory, -1 with
 * errno when it cannot be made, -2 with the reason in why when a directory
 * it made is not to be trusted. */
static int mkdir_p(const char *path, char *why, size_t why_size) {
    char buf[PATH_CAP];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    uid_t euid = geteuid();
    for (char *p = buf + 1;; p++) {
        if (*p && *p != '/') continue;
        char c = *p;
        *p = 0;
        if (mkdir(buf, 0700) == 0) {
            struct stat st;
            const char *problem = chmod(buf, 0700) != 0 || lstat(buf, &st) != 0
                                      ? strerror(errno)
                                      : cc_cache_trust_problem(&st, (unsigned)euid, 1);
            if (problem) {
                snprintf(why, why_size, "'%s' (made for it) is %s", buf, problem);
                return -2;
            }
        } else if (errno != EEXIST) {
            return -1;
        }
        *p = c;
        if (!c) break;
    }
    struct stat st;
    if (stat(buf, &st) != 0) return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

/* Makes the cache directory `dir` when missing and judges it on an open
 * descriptor. 0 usable, -1 unusable (errno), -2 refused (why). */
static int prepare_dir(const char *dir, char *why, size_t why_size) {
    if (strlen(dir) >= DIR_CAP) {
        errno = ENAMETOOLONG;
        return -1;
    }
    int rc = mkdir_p(dir, why, why_size);
    if (rc != 0) return rc;
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return -1;
    struct stat st;
    const char *problem = fstat(fd, &st) != 0 ? strerror(errno)
                                              : cc_cache_trust_problem(&st, (unsigned)geteuid(), 1);
    close(fd);
    if (problem) {
        snprintf(why, why_size, "it is %s", problem);
        return -2;
    }
    return 0;
}

/* The one message of a refused cache directory (once per process: the
 * program still runs, from a private directory). */
static void warn_refused_dir(const char *dir, const char *why) {
    static atomic_int warned;
    atomic_fetch_add(&n_refused, 1);
    if (atomic_exchange(&warned, 1)) return;
    fprintf(stderr,
            "cjax: not using the disk cache directory '%s': %s, so another user could plant code "
            "in it; generated code is built in a private temporary directory instead (make the "
            "directory yours and not writable by group or others, or set CJAX_CACHE_DIR)\n",
            dir, why);
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

typedef enum cache_state { CACHE_MISSING, CACHE_VALID, CACHE_CORRUPT, CACHE_REFUSED } cache_state;

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

/* Opens a cache entry without following a symbolic link or blocking on a
 * FIFO, and judges it on the descriptor: CACHE_MISSING (nothing there, or a
 * file we may not open: not ours to judge, build beside it), CACHE_REFUSED
 * (a link, or not a regular file of ours writable by us alone), or
 * CACHE_VALID with *fd open and *st its status. */
static cache_state open_entry(const char *path, int *fd, struct stat *st) {
    *fd = open(path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (*fd < 0) return errno == ELOOP || errno == ENXIO ? CACHE_REFUSED : CACHE_MISSING;
    if (fstat(*fd, st) != 0 || cc_cache_trust_problem(st, (unsigned)geteuid(), 0)) {
        close(*fd);
        *fd = -1;
        return CACHE_REFUSED;
    }
    return CACHE_VALID;
}

/* Is the open entry a complete cache file for `key`? *payload receives the
 * size of the shared object inside it. */
static cache_state trailer_check(int fd, const struct stat *st, const uint8_t key[32], size_t *payload) {
    uint8_t t[TRAILER_SIZE], digest[32];
    if (st->st_size > TRAILER_SIZE && pread(fd, t, sizeof t, st->st_size - TRAILER_SIZE) == TRAILER_SIZE &&
        memcmp(t, trailer_magic, 8) == 0 && get_u64(t + 8) == (uint64_t)st->st_size - TRAILER_SIZE &&
        memcmp(t + 16, key, 32) == 0 && hash_fd(fd, get_u64(t + 8), digest) == 0 &&
        memcmp(t + 48, digest, 32) == 0) {
        *payload = (size_t)get_u64(t + 8);
        return CACHE_VALID;
    }
    return CACHE_CORRUPT;
}

int cc_cache_file_check(const char *path, const uint8_t key[32], size_t *payload) {
    size_t size = 0;
    cache_state state = CACHE_MISSING;
    if (path && key) {
        int fd;
        struct stat st;
        state = open_entry(path, &fd, &st);
        if (state == CACHE_VALID) {
            state = trailer_check(fd, &st, key, &size);
            close(fd);
        }
    }
    if (payload) *payload = state == CACHE_VALID ? size : 0;
    return state == CACHE_VALID ? 1 : state == CACHE_MISSING ? 0 : -1;
}

/* ---- the ELF object inside ---- */

#if UINTPTR_MAX > 0xffffffffu
typedef Elf64_Ehdr elf_ehdr;
typedef Elf64_Phdr elf_phdr;
typedef Elf64_Shdr elf_shdr;
#define ELF_HOST_CLASS ELFCLASS64
#else
typedef Elf32_Ehdr elf_ehdr;
typedef Elf32_Phdr elf_phdr;
typedef Elf32_Shdr elf_shdr;
#define ELF_HOST_CLASS ELFCLASS32
#endif
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define ELF_HOST_DATA ELFDATA2MSB
#else
#define ELF_HOST_DATA ELFDATA2LSB
#endif

static int inside(uint64_t off, uint64_t len, uint64_t size) { return off <= size && len <= size - off; }

static int read_at(int fd, void *buf, size_t n, uint64_t off) {
    for (size_t done = 0; done < n;) {
        ssize_t got = pread(fd, (char *)buf + done, n - done, (off_t)(off + done));
        if (got < 0 && errno == EINTR) continue;
        if (got <= 0) return -1;
        done += (size_t)got;
    }
    return 0;
}

/* A file cut short still starts with a valid header; what dlopen would map
 * beyond its end is what kills a process with SIGBUS. So every range the
 * headers name must lie inside the first `size` bytes. */
const char *cc_elf_check(int fd, uint64_t size) {
    elf_ehdr h;
    if (size < sizeof h || read_at(fd, &h, sizeof h, 0) != 0) return "shorter than an ELF header";
    if (memcmp(h.e_ident, ELFMAG, SELFMAG) != 0) return "not an ELF file";
    if (h.e_ident[EI_CLASS] != ELF_HOST_CLASS || h.e_ident[EI_DATA] != ELF_HOST_DATA ||
        h.e_version != EV_CURRENT || h.e_ehsize != sizeof h)
        return "an ELF file for another kind of machine";
    if (h.e_type != ET_DYN) return "not a shared object";
    if (h.e_phentsize != sizeof(elf_phdr) || h.e_phnum == 0 || h.e_phnum == 0xffff)
        return "malformed program headers";
    if (!inside(h.e_phoff, (uint64_t)h.e_phnum * sizeof(elf_phdr), size))
        return "truncated: its program headers lie past the end";
    int loads = 0;
    for (int i = 0; i < h.e_phnum; i++) {
        elf_phdr ph;
        if (read_at(fd, &ph, sizeof ph, h.e_phoff + (uint64_t)i * sizeof ph) != 0) return "unreadable";
        if (!inside(ph.p_offset, ph.p_filesz, size)) return "truncated: a segment lies past the end";
        if (ph.p_type == PT_LOAD) {
            if (ph.p_filesz > ph.p_memsz) return "malformed: a segment larger on file than in memory";
            loads++;
        }
    }
    if (!loads) return "malformed: nothing to load";
    if (h.e_shoff == 0 && h.e_shnum == 0) return NULL; /* no section headers: nothing more named */
    if (h.e_shentsize != sizeof(elf_shdr)) return "malformed section headers";
    uint64_t n = h.e_shnum;
    elf_shdr sh;
    if (!inside(h.e_shoff, sizeof sh, size)) return "truncated: its section headers lie past the end";
    if (n == 0) { /* more than 0xff00 sections: the count is in section 0 */
        if (read_at(fd, &sh, sizeof sh, h.e_shoff) != 0) return "unreadable";
        n = sh.sh_size;
    }
    if (n > 1u << 20 || !inside(h.e_shoff, n * sizeof sh, size))
        return "truncated: its section headers lie past the end";
    for (uint64_t i = 0; i < n; i++) {
        if (read_at(fd, &sh, sizeof sh, h.e_shoff + i * sizeof sh) != 0) return "unreadable";
        if (sh.sh_type != SHT_NOBITS && sh.sh_type != SHT_NULL && !inside(sh.sh_offset, sh.sh_size, size))
            return "truncated: a section lies past the end";
    }
    return NULL;
}

/* ---- loading exactly the checked file ---- */

/* Every module loaded, with the file it came from. A file is loaded through
 * the name /proc/self/fd/N of its checked descriptor, so no one can swap
 * the file between the check and the load. But the dynamic loader hands
 * back an object already loaded under the same name without opening
 * anything, and N is reused once the descriptor is closed (and the loader
 * adds each such name to an object it finds loaded by inode). So when the
 * object returned is a live module of another file, the name is spelled
 * another way (/proc/self/fd/../fd/N, ...) until the loader opens it. */
static pthread_mutex_t load_lock = PTHREAD_MUTEX_INITIALIZER;
static cc_module *live_modules;

static int load_fd(cc_module *m, int fd, const struct stat *st, const char *path, char *why,
                   size_t why_size) {
    pthread_mutex_lock(&load_lock);
    void *h = NULL;
#ifdef __linux__
    (void)path;
    for (int spelling = 0; spelling < 32 && !h; spelling++) {
        char name[PATH_CAP];
        int n = snprintf(name, sizeof name, "/proc/self/fd");
        for (int i = 0; i < spelling; i++) n += snprintf(name + n, sizeof name - (size_t)n, "/../fd");
        snprintf(name + n, sizeof name - (size_t)n, "/%d", fd);
        h = dlopen(name, RTLD_NOW | RTLD_LOCAL);
        if (!h) break;
        for (cc_module *l = live_modules; l; l = l->next)
            if (l->handle == h && (l->dev != st->st_dev || l->ino != st->st_ino)) {
                dlclose(h); /* another file's object: try the next spelling */
                h = NULL;
                break;
            }
    }
#else
    /* No descriptor names: the file is loaded by name after its check. */
    h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
#endif
    if (!h) {
        const char *e = dlerror();
        snprintf(why, why_size, "%s", e ? e : "the loader kept answering with another file");
        pthread_mutex_unlock(&load_lock);
        return -1;
    }
    m->handle = h;
    m->dev = st->st_dev;
    m->ino = st->st_ino;
    m->prev = NULL;
    m->next = live_modules;
    if (live_modules) live_modules->prev = m;
    live_modules = m;
    pthread_mutex_unlock(&load_lock);
    return 0;
}

static void unload(cc_module *m) {
    if (!m->handle) return;
    pthread_mutex_lock(&load_lock);
    if (m->prev) m->prev->next = m->next;
    else live_modules = m->next;
    if (m->next) m->next->prev = m->prev;
    dlclose(m->handle);
    m->handle = NULL;
    pthread_mutex_unlock(&load_lock);
}

/* The first symbol of `required` ("a\0b\0\0") the module lacks, or NULL. */
static const char *missing_symbol(cc_module *m, const char *required) {
    for (const char *r = required; r && *r; r += strlen(r) + 1)
        if (!dlsym(m->handle, r)) return r;
    return NULL;
}

/* Appends the trailer to the compiler's output, open on fd with status st.
 * 0, or -1 with errno. */
static int seal(int fd, const struct stat *st, const uint8_t key[32]) {
    uint8_t t[TRAILER_SIZE];
    if (hash_fd(fd, (uint64_t)st->st_size, t + 48) != 0) {
        errno = EIO;
        return -1;
    }
    memcpy(t, trailer_magic, 8);
    put_u64(t + 8, (uint64_t)st->st_size);
    memcpy(t + 16, key, 32);
    ssize_t n = pwrite(fd, t, sizeof t, st->st_size);
    if (n != TRAILER_SIZE) {
        if (n >= 0) errno = EIO;
        return -1;
    }
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
    const atomic_int *cancel;
    const char *required;
    int64_t max_bytes; /* the cap on the cache directory's entries; 0: none */
} build;

static int report_cancelled(build *b) {
    return core_error(b->ctx, CJ_ERR_UNSUPPORTED, "cc backend: the build was cancelled");
}

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
    int stop = 0;
    while (!same->done && !(stop = cancelled(b->cancel))) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 50 * 1000 * 1000;
        if (until.tv_nsec >= 1000000000L) until.tv_sec++, until.tv_nsec -= 1000000000L;
        pthread_cond_timedwait(&flight_landed, &flight_lock, &until);
    }
    if (stop) {
        same->waiters--; /* the builder frees the slot when it lands */
        pthread_mutex_unlock(&flight_lock);
        return report_cancelled(b);
    }
    int shared = same->status == CJ_ERR_UNSUPPORTED && same->message[0];
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
    /* A cancelled build says nothing about the program: the waiters build
     * it themselves (an empty message is never shared). */
    int share = !ok && !cancelled(b->cancel);
    snprintf(f->message, sizeof f->message, "%s", share ? cj_error_message(b->ctx) : "");
    if (f->waiters == 0) f->used = 0;
    pthread_cond_broadcast(&flight_landed);
    pthread_mutex_unlock(&flight_lock);
    b->flight = NULL;
}

/* Removes `path` when it still names the file of status st (another
 * process may have renamed a good file there meanwhile). */
static void remove_if_same(const char *path, const struct stat *st) {
    struct stat now;
    if (lstat(path, &now) == 0 && now.st_dev == st->st_dev && now.st_ino == st->st_ino) unlink(path);
}

/* Loads the entry for b's key in `dir`, checked on its descriptor (trust,
 * trailer, ELF) and loaded from it. 1 loaded, 0 not (absent; or refused,
 * corrupt or unloadable: counted, and rebuilt by the caller, whose rename
 * replaces it). */
static int try_cached(build *b, const char *dir, cc_module *m) {
    char path[PATH_CAP], why[512];
    if (snprintf(path, sizeof path, "%s/%s.so", dir, b->hex) >= (int)sizeof path) return 0;
    int fd;
    struct stat st;
    cache_state state = open_entry(path, &fd, &st);
    if (state == CACHE_MISSING) return 0;
    if (state == CACHE_REFUSED) {
        atomic_fetch_add(&n_refused, 1);
        b->info->refused_entry = 1;
        return 0;
    }
    size_t payload = 0;
    if (trailer_check(fd, &st, b->key, &payload) == CACHE_VALID && !cc_elf_check(fd, payload) &&
        load_fd(m, fd, &st, path, why, sizeof why) == 0) {
        if (!missing_symbol(m, b->required)) {
            futimens(fd, NULL); /* its use time, which the size cap's LRU orders by */
            close(fd);
            m->so_bytes = payload;
            snprintf(b->info->so_path, sizeof b->info->so_path, "%s", path);
            return 1;
        }
        /* It loads but lacks its kernels: remove it rather than keep
         * opening it. */
        unload(m);
        remove_if_same(path, &st);
    }
    close(fd);
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
    unsigned long seq = atomic_fetch_add(&temp_seq, 1);
    long pid = (long)getpid();
    snprintf(b->c_path, sizeof b->c_path, "%s/%.16s-%ld-%lu.tmp.c", dir, b->hex, pid, seq);
    snprintf(b->tmp_so, sizeof b->tmp_so, "%s/%.16s-%ld-%lu.tmp.so", dir, b->hex, pid, seq);
    snprintf(b->so_path, sizeof b->so_path, "%s/%s.so", dir, b->hex);
    int fd = open(b->c_path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) return -1;
    fchmod(fd, 0600); /* the compiler must read it whatever the umask */
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
    run_tool(argv, b->timeout_ms, b->cancel, r);
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
    if (r->cancelled) {
        report_cancelled(b);
        return;
    }
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

/* Checks what the compiler wrote (a regular file of ours, made 0600, a
 * complete ELF object), seals it, loads it from that descriptor and finds
 * its required symbols, and only then renames it into the cache: nothing
 * that would not load whole is ever published. 0, or -1 with the error
 * recorded (the caller removes the temporary file). */
static int publish_and_load(build *b, cc_module *m) {
    int fd = open(b->tmp_so, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0 && errno == EACCES && chmod(b->tmp_so, 0600) == 0) /* a umask of 0777 */
        fd = open(b->tmp_so, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return core_error(b->ctx, CJ_ERR_UNSUPPORTED,
                              "cc backend: the C compiler '%s' exited successfully but wrote no "
                              "shared object",
                              b->command);
        return core_error(b->ctx, CJ_ERR_UNSUPPORTED, "cc backend: cannot open the compiler's output '%s': %s",
                          b->tmp_so, strerror(errno));
    }
    struct stat st;
    char why[512];
    int rc = -1, mine = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid() &&
                        fchmod(fd, 0600) == 0;
    const char *incomplete = mine && st.st_size > 0 ? cc_elf_check(fd, (uint64_t)st.st_size) : NULL;
    if (mine) b->info->so_bytes = (size_t)st.st_size;
    if (!mine) {
        core_error(b->ctx, CJ_ERR_UNSUPPORTED,
                   "cc backend: the compiler's output '%s' is not a regular file of this user", b->tmp_so);
    } else if (st.st_size == 0) {
        core_error(b->ctx, CJ_ERR_UNSUPPORTED,
                   "cc backend: the C compiler '%s' exited successfully but wrote no shared object",
                   b->command);
    } else if (incomplete) {
        core_error(b->ctx, CJ_ERR_UNSUPPORTED,
                   "cc backend: the C compiler '%s' exited successfully but its output is not a complete "
                   "shared object (%s); nothing was cached",
                   b->command, incomplete);
    } else if (seal(fd, &st, b->key) != 0) {
        core_error(b->ctx, CJ_ERR_IO, "cc backend: cannot seal '%s': %s", b->tmp_so, strerror(errno));
    } else if (load_fd(m, fd, &st, b->tmp_so, why, sizeof why) != 0) {
        core_error(b->ctx, CJ_ERR_UNSUPPORTED, "cc backend: dlopen failed: %s", why);
    } else if (missing_symbol(m, b->required)) {
        core_error(b->ctx, CJ_ERR_UNSUPPORTED,
                   "cc backend: the compiled object lacks '%s'; nothing was cached", missing_symbol(m, b->required));
        unload(m);
    } else if (rename(b->tmp_so, b->so_path) != 0) {
        core_error(b->ctx, CJ_ERR_IO, "cc backend: cannot rename '%s' to '%s': %s", b->tmp_so, b->so_path,
                   strerror(errno));
        unload(m);
    } else {
        snprintf(b->info->so_path, sizeof b->info->so_path, "%s", b->so_path);
        m->so_bytes = b->info->so_bytes;
        rc = 0;
    }
    close(fd);
    return rc;
}

/* ---- keeping the directory tidy: orphans and the size cap ---- */

#define ORPHAN_DEAD_AGE_S 60       /* a dead process's temporary file */
#define ORPHAN_ANY_AGE_S (24 * 3600) /* any temporary file: no build lasts a day */

typedef struct entry_rec {
    char name[72];
    int64_t bytes;
    struct timespec used;
} entry_rec;

static int is_hex(const char *p, size_t n) { return strspn(p, "0123456789abcdef") >= n; }

/* "<64 hex>.so": a cache entry. */
static int is_entry_name(const char *n) { return strlen(n) == 67 && is_hex(n, 64) && !strcmp(n + 64, ".so"); }

/* "<16 hex>-<pid>-<n>.tmp.c" or ".tmp.so": a build's temporary file; its pid. */
static int temp_pid(const char *n, long *pid) {
    if (strlen(n) < 22 || !is_hex(n, 16) || n[16] != '-') return 0;
    char *end;
    *pid = strtol(n + 17, &end, 10);
    if (end == n + 17 || *end != '-' || *pid <= 0) return 0;
    const char *dot = strchr(end, '.');
    return dot && (!strcmp(dot, ".tmp.c") || !strcmp(dot, ".tmp.so"));
}

static int older_used(const void *x, const void *y) {
    const entry_rec *a = x, *b = y;
    if (a->used.tv_sec != b->used.tv_sec) return a->used.tv_sec < b->used.tv_sec ? -1 : 1;
    if (a->used.tv_nsec != b->used.tv_nsec) return a->used.tv_nsec < b->used.tv_nsec ? -1 : 1;
    return strcmp(a->name, b->name);
}

/* After a new entry in `dir`: removes the temporary files of processes that
 * are gone, then, over the cap, the least recently used entries (never
 * `keep`) until they fill 90% of it. One process at a time, under an flock
 * on "<dir>/.tidy.lock"; a process that finds it held skips (the holder is
 * doing the same work). Removing what another process removed first, or a
 * file it has open, is harmless. Memory for the listing comes from the
 * build's context; without it the cap waits for the next tidy. */
static void tidy(build *b, const char *dir, const char *keep) {
    char path[PATH_CAP + 16];
    snprintf(path, sizeof path, "%s/.tidy.lock", dir);
    int lock = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600);
    if (lock < 0) return;
    if (flock(lock, LOCK_EX | LOCK_NB) != 0) {
        close(lock);
        return;
    }
    DIR *d = opendir(dir);
    if (!d) {
        close(lock);
        return;
    }
    entry_rec *list = NULL;
    size_t n = 0, cap = 0;
    int64_t total = 0;
    int listing = b->max_bytes > 0;
    time_t now = time(NULL);
    long self = (long)getpid();
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        struct stat st;
        if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode)) continue;
        long pid;
        if (temp_pid(e->d_name, &pid)) {
            double age = difftime(now, st.st_mtime);
            int dead = pid != self && kill((pid_t)pid, 0) != 0 && errno == ESRCH;
            if ((dead && age > ORPHAN_DEAD_AGE_S) || age > ORPHAN_ANY_AGE_S) {
                if (unlinkat(dirfd(d), e->d_name, 0) == 0) b->info->orphans_removed++;
            }
            continue;
        }
        if (!listing || !is_entry_name(e->d_name)) continue;
        if (n == cap) {
            size_t grown = cap ? cap * 2 : 256;
            entry_rec *bigger = rt_alloc(b->ctx->mem, grown * sizeof *bigger);
            if (!bigger) {
                listing = 0; /* no memory: no eviction this time */
                continue;
            }
            if (list) {
                memcpy(bigger, list, n * sizeof *list);
                rt_free(b->ctx->mem, list, cap * sizeof *list);
            }
            list = bigger;
            cap = grown;
        }
        entry_rec *r = &list[n++];
        snprintf(r->name, sizeof r->name, "%s", e->d_name);
        r->bytes = (int64_t)st.st_size;
        r->used = st.st_mtim;
        total += r->bytes;
    }
    if (listing && total > b->max_bytes) {
        qsort(list, n, sizeof *list, older_used);
        int64_t goal = b->max_bytes / 10 * 9;
        for (size_t i = 0; i < n && total > goal; i++) {
            if (!strncmp(list[i].name, keep, 64)) continue;
            if (unlinkat(dirfd(d), list[i].name, 0) == 0 || errno == ENOENT) {
                total -= list[i].bytes;
                b->info->evicted++;
            }
        }
    }
    if (list) rt_free(b->ctx->mem, list, cap * sizeof *list);
    closedir(d);
    close(lock); /* releases the flock */
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
 * cache directory when it can be trusted and written, else in this
 * process's fallback directory (looked in first: an earlier build may have
 * left it there). A refused directory is neither read nor written. 1 loaded
 * from disk, 0 staged, -1 error recorded. */
static int find_or_stage(build *b, const char *primary, const char *source, cc_module *m) {
    char fallback[PATH_CAP], why[PATH_CAP + 64];
    int primary_err = ENOENT;
    if (primary[0]) {
        int rc = prepare_dir(primary, why, sizeof why);
        if (rc == 0) {
            if (try_cached(b, primary, m)) return 1;
            if (stage_source(b, primary, source) == 0) return 0;
            primary_err = errno;
        } else if (rc == -2) {
            b->info->refused_dir = 1;
            warn_refused_dir(primary, why);
            primary_err = EPERM;
        } else {
            primary_err = errno;
        }
    }
    b->info->used_fallback_dir = 1;
    if (get_fallback_dir(0, fallback, sizeof fallback) == 0 && try_cached(b, fallback, m)) return 1;
    if (get_fallback_dir(1, fallback, sizeof fallback) == 0 &&
        stage_source(b, fallback, source) == 0)
        return 0;
    return report_unwritable(b, primary, primary_err, errno);
}

cc_module *cc_build_ctl(cj_ctx *ctx, const char *source, const cc_build_options *opt,
                        const cc_build_control *ctl, cc_build_info *info_out) {
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
    b.cancel = ctl ? ctl->cancel : NULL;
    b.required = ctl ? ctl->required : NULL;
    b.max_bytes = ctl && ctl->max_bytes ? (ctl->max_bytes > 0 ? ctl->max_bytes : 0) : cfg->cache_max_bytes;
    if (cancelled(b.cancel)) {
        core_error(ctx, CJ_ERR_UNSUPPORTED, "cc backend: the build was cancelled");
        return NULL;
    }

    /* The record first: an allocation failure costs no compiler run. */
    cc_module *m = rt_calloc(ctx->mem, sizeof *m);
    if (!m) {
        core_oom(ctx, "cc_build");
        return NULL;
    }
    char why[512];
    if (compiler_lookup(b.command, b.timeout_ms, b.cancel, &b.rec, why, sizeof why) != 0) {
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
    if (found == 0 && rc == 0) { /* a new entry: after the waiters are let go */
        char dir[PATH_CAP];
        snprintf(dir, sizeof dir, "%s", b.so_path);
        char *slash = strrchr(dir, '/');
        if (slash) *slash = 0;
        tidy(&b, dir, b.hex);
    }
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

cc_module *cc_build_with(cj_ctx *ctx, const char *source, const cc_build_options *opt,
                         cc_build_info *info) {
    return cc_build_ctl(ctx, source, opt, NULL, info);
}

cc_module *cc_build(cj_ctx *ctx, const char *source, cc_build_info *info) {
    return cc_build_ctl(ctx, source, NULL, NULL, info);
}

void *cc_symbol(cc_module *m, const char *name) {
    if (!m || !m->handle || !name) return NULL;
    return dlsym(m->handle, name);
}

void cc_module_free(cj_ctx *ctx, cc_module *m) {
    if (!m) return;
    unload(m);
    if (ctx) rt_free(ctx->mem, m, sizeof *m);
}
