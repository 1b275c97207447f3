/* bench_json.h — the two JSON helpers the bench/results JSON files need: a string
 * with the escapes JSON requires, and a number that prints as null when it
 * is missing (NaN). Header-only: CMake makes one program per .c file in bench/. */
#ifndef CJ_BENCH_JSON_H
#define CJ_BENCH_JSON_H
#include <math.h>
#include <stdio.h>

static void json_str(FILE *f, const char *s) {
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

/* `"key": value` with a leading comma unless first. */
static void json_key(FILE *f, const char *key, int first) {
    fputs(first ? "" : ", ", f);
    json_str(f, key);
    fputs(": ", f);
}

static void json_num(FILE *f, const char *key, double v, int first) {
    json_key(f, key, first);
    if (isfinite(v))
        fprintf(f, "%.10g", v);
    else
        fputs("null", f);
}

static void json_text(FILE *f, const char *key, const char *v, int first) {
    json_key(f, key, first);
    json_str(f, v);
}

#endif
