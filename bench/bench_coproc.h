/* bench_coproc.h — a peer kept running beside the bench, so that cjax and
 * the peer can be timed in alternating rounds (on a shared machine the
 * load drifts over seconds; figures taken minutes apart, as peers.py's
 * are, compare badly). bench_ctrl.h runs `python3 bench/peers_ctrl.py`
 * through it.
 *
 * The protocol is lines: the peer prints one flat JSON object per line
 * ("jax.<row>.wall_ms": 0.19, "jax.<row>.value": [1.0, ...], ...), first
 * when it is ready (versions and its results, for the checks), then one
 * per "round" line it reads; "quit" ends it. Lookups reuse bench_peers.h's
 * flat-key reader. A peer that is missing, fails or exits gives NULL
 * lines, never a crash (SIGPIPE is ignored while one runs).
 * Header-only: CMake makes one program per .c file in bench/. */
#ifndef CJ_BENCH_COPROC_H
#define CJ_BENCH_COPROC_H
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench_peers.h"

typedef struct coproc {
    pid_t pid; /* 0: none */
    FILE *to, *from;
    char *line; /* the last line read (getline's buffer) */
    size_t cap;
    struct sigaction old_pipe;
} coproc;

/* Starts `sh -c command` with pipes on its stdin and stdout (stderr left to
 * the terminal). 0, or -1 when it cannot be started. */
static int coproc_start(coproc *c, const char *command) {
    memset(c, 0, sizeof *c);
    int in[2], out[2];
    if (pipe(in) != 0) return -1;
    if (pipe(out) != 0) {
        close(in[0]), close(in[1]);
        return -1;
    }
    pid_t pid = fork();
    if (pid < 0) {
        close(in[0]), close(in[1]), close(out[0]), close(out[1]);
        return -1;
    }
    if (pid == 0) { /* only async-signal-safe calls until exec */
        dup2(in[0], 0), dup2(out[1], 1);
        close(in[0]), close(in[1]), close(out[0]), close(out[1]);
        execl("/bin/sh", "sh", "-c", command, (char *)NULL);
        _exit(127);
    }
    close(in[0]), close(out[1]);
    /* not inherited by what the bench starts later (cjax's C compiler) */
    fcntl(in[1], F_SETFD, FD_CLOEXEC), fcntl(out[0], F_SETFD, FD_CLOEXEC);
    c->pid = pid;
    c->to = fdopen(in[1], "w");
    c->from = fdopen(out[0], "r");
    struct sigaction ign;
    memset(&ign, 0, sizeof ign);
    ign.sa_handler = SIG_IGN;
    sigaction(SIGPIPE, &ign, &c->old_pipe);
    if (!c->to || !c->from) return -1;
    return 0;
}

/* The next line the peer prints (a JSON object), or NULL when it has
 * exited or printed something else. Valid until the next read. */
static const char *coproc_read(coproc *c) {
    if (!c->pid || !c->from) return NULL;
    ssize_t n = getline(&c->line, &c->cap, c->from);
    if (n <= 0 || c->line[0] != '{') return NULL;
    return c->line;
}

/* Sends one request line and reads the answer. */
static const char *coproc_ask(coproc *c, const char *request) {
    if (!c->pid || !c->to) return NULL;
    if (fprintf(c->to, "%s\n", request) < 0 || fflush(c->to) != 0) return NULL;
    return coproc_read(c);
}

/* Asks the peer to quit and waits for it. */
static void coproc_stop(coproc *c) {
    if (c->to) {
        fputs("quit\n", c->to);
        fclose(c->to);
    }
    if (c->from) fclose(c->from);
    if (c->pid > 0) {
        int st;
        waitpid(c->pid, &st, 0);
        sigaction(SIGPIPE, &c->old_pipe, NULL);
    }
    free(c->line);
    memset(c, 0, sizeof *c);
}

/* The numbers of "key": [a, b, ...] into out (at most cap); how many were
 * read, 0 when the key is absent. */
static int coproc_array(const char *json, const char *key, double *out, int cap) {
    const char *p = peers_find(json, key);
    if (!p || *p != '[') return 0;
    int n = 0;
    p++;
    while (n < cap) {
        char *end;
        double x = strtod(p, &end);
        if (end == p) break;
        out[n++] = x;
        p = end;
        while (*p == ' ' || *p == ',') p++;
    }
    return n;
}

#endif
