/* bench_peers.h — NumPy's and JAX's figures for `make bench`, from
 * bench/peers.py run once as a child process before cjax is timed (so the
 * two never share the cores).
 *
 * peers.py prints one flat JSON object ("numpy.sincos.ms": 65.5,
 * "jax.sincos.mem.temp": 0, "info.jax": "0.4.30", ...): flat keys make a
 * lookup one strstr, with no JSON parser here. Without python3, or with
 * neither peer installed, the text is NULL or holds only "info." keys and
 * every peer figure reads as missing. Header-only: CMake makes one program
 * per .c file in bench/. */
#ifndef CJ_BENCH_PEERS_H
#define CJ_BENCH_PEERS_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The whole of `python3 bench/peers.py` (stderr left to the terminal, so a
 * failing peer says why); NULL when nothing came back. Release with free. */
static char *peers_run(void) {
    FILE *pp = popen("command -v python3 >/dev/null 2>&1 && exec python3 bench/peers.py </dev/null", "r");
    if (!pp) return NULL;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        if (n + 1 == cap) {
            char *grown = realloc(buf, cap * 2);
            if (!grown) break;
            buf = grown, cap *= 2;
        }
        size_t got = fread(buf + n, 1, cap - 1 - n, pp);
        if (got == 0) break;
        n += got;
    }
    pclose(pp);
    if (buf) buf[n] = 0;
    if (!buf || n == 0 || buf[0] != '{') {
        free(buf);
        return NULL;
    }
    return buf;
}

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
