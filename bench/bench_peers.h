/* bench_peers.h — the reader of the peers' answers in `make bench`:
 * bench/peers.py and bench/peers_ctrl.py (co-processes, bench_coproc.h)
 * answer each request with one flat JSON object on a line
 * ("numpy.sincos.wall_ms": 65.5, "jax.sincos.mem.temp": 0, "info.jax":
 * "0.10.2", ...): flat keys make a lookup one strstr, with no JSON parser
 * here. A NULL text (no peer, or it stopped) reads as every key absent.
 * Header-only: CMake makes one program per .c file in bench/. */
#ifndef CJ_BENCH_PEERS_H
#define CJ_BENCH_PEERS_H
#include <stdio.h>
#include <string.h>

/* Where the value of "key" starts, or NULL. */
static const char *peers_find(const char *json, const char *key) {
    if (!json) return NULL;
    char pat[200];
    snprintf(pat, sizeof pat, "\"%s\": ", key);
    const char *p = strstr(json, pat);
    return p ? p + strlen(pat) : NULL;
}

/* A number, by key parts joined with dots ("numpy", "sincos", "ms");
 * 0 when absent or not a number. */
static int peers_num(const char *json, const char *a, const char *b, const char *c, double *out) {
    char key[160];
    snprintf(key, sizeof key, "%s.%s.%s", a, b, c);
    const char *v = peers_find(json, key);
    if (!v) return 0;
    char *end;
    double x = strtod(v, &end);
    if (end == v) return 0;
    *out = x;
    return 1;
}

/* A string value (escapes kept as they are: these are version numbers and
 * settings), "" when absent. */
static const char *peers_str(const char *json, const char *key, char *buf, size_t size) {
    buf[0] = 0;
    const char *v = peers_find(json, key);
    if (!v || *v != '"') return buf;
    size_t n = 0;
    for (v++; *v && *v != '"' && n + 1 < size; v++) {
        if (*v == '\\' && v[1]) v++;
        buf[n++] = *v;
    }
    buf[n] = 0;
    return buf;
}

#endif
