/* npz.c — NumPy's .npz files: several named arrays in one zip archive
 * (api layer).
 *
 * numpy.savez writes each array as a .npy member "<name>.npy" of a zip
 * archive, stored; savez_compressed deflates them. cj_save_npz writes the
 * same (npy.c's header, zip.c's container), cj_load_npz reads the archive
 * into memory through the context's allocator, checks its whole directory
 * (zip.c), then reads each member as a .npy from memory (npy.c's reader on
 * an in-memory stream), so a member is held by the arrays it makes and,
 * while it loads, once more when deflated. Errors are "cj_load_npz: 'file'
 * [member 'x.npy']: what is wrong". */
#include <errno.h>
#include <stdarg.h>
#include <string.h>
#include <unistd.h>

#include "api.h"
#include "zip.h"

int npz_force_zip64;

int cj_npz_deflate_available(void) { return zip_have_deflate(); }

static const char *bad_save_name(const char *s) {
    if (!s[0]) return "is empty";
    if (strchr(s, '/') || strchr(s, '\\')) return "holds a path separator";
    if (strstr(s, "..")) return "holds '..'";
    if (strlen(s) >= CJ_NPZ_NAME_MAX) return "is too long (CJ_NPZ_NAME_MAX)";
    return NULL;
}

/* Status with the error recorded in ctx (when there is one) or the
 * thread's record. */
__attribute__((format(printf, 3, 4))) static cj_status save_error(cj_ctx *ctx, cj_status st, const char *fmt, ...) {
    char m[1400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(m, sizeof m, fmt, ap);
    va_end(ap);
    core_error(ctx, st, "%s", m);
    return ctx ? ctx->err : st;
}

cj_status cj_save_npz(const char *path, int n, const char *const *names, const cj_val *vals, int flags) {
    cj_ctx *ctx = n > 0 && vals ? vals[0].ctx : NULL;
    if (n < 0) return save_error(NULL, CJ_ERR_ARG, "cj_save_npz: n is %d", n);
    if (n > 0 && !vals) return save_error(NULL, CJ_ERR_ARG, "cj_save_npz: vals is NULL for %d arrays", n);
    if (n > 0 && !ctx) return save_error(NULL, CJ_ERR_ARG, "cj_save_npz: array 0: %s", API_NO_VALUE_CTX);
    if (ctx && ctx->err) return ctx->err;
    if (!path) return save_error(ctx, CJ_ERR_ARG, "cj_save_npz: path is NULL");
    if (flags & ~CJ_NPZ_DEFLATE) return save_error(ctx, CJ_ERR_ARG, "cj_save_npz: unknown flags 0x%x", flags);
    int deflate = flags & CJ_NPZ_DEFLATE;
    if (deflate && !zip_have_deflate())
        return save_error(ctx, CJ_ERR_UNSUPPORTED, "cj_save_npz: '%s': CJ_NPZ_DEFLATE needs zlib, which this cjax was built without", path);
    /* every argument checked before the file is touched */
    for (int i = 0; i < n; i++) {
        if (vals[i].ctx != ctx)
            return save_error(ctx, CJ_ERR_ARG, "cj_save_npz: array %d belongs to another context than array 0", i);
        core_value *cv = core_get(vals[i], "cj_save_npz");
        if (!cv) return ctx->err;
        if (cv->kind != VALUE_ARRAY)
            return save_error(ctx, CJ_ERR_CONCRETIZATION, "cj_save_npz: array %d is a traced value (it has no contents while tracing)", i);
        if (names) {
            if (!names[i]) return save_error(ctx, CJ_ERR_ARG, "cj_save_npz: names[%d] is NULL", i);
            const char *why = bad_save_name(names[i]);
            if (why) return save_error(ctx, CJ_ERR_ARG, "cj_save_npz: name %d '%.300s' %s", i, names[i], why);
            for (int j = 0; j < i; j++)
                if (!strcmp(names[i], names[j]))
                    return save_error(ctx, CJ_ERR_ARG, "cj_save_npz: the name '%s' is given twice (%d and %d)", names[i], j, i);
        }
    }
    /* n == 0: an empty archive; no context, so the C library's allocator */
    rt_mem *tmp = ctx ? NULL : rt_mem_new(NULL);
    rt_mem *use = ctx ? ctx->mem : tmp;
    if (!use) return save_error(NULL, CJ_ERR_OOM, "cj_save_npz: out of memory");
    FILE *f = fopen(path, "wb");
    if (!f) {
        rt_mem_delete(tmp);
        return save_error(ctx, CJ_ERR_IO, "cj_save_npz: cannot open '%s' for writing: %s", path, strerror(errno));
    }
    zip_writer w;
    memset(&w, 0, sizeof w);
    w.f = f;
    w.mem = use;
    w.force_zip64 = npz_force_zip64;
    cj_status st = CJ_OK;
    char why[300] = "", member[CJ_NPZ_NAME_MAX + 8] = "";
    int rc = 0;
    for (int i = 0; i < n && !rc; i++) {
        rt_array *a = core_peek(vals[i])->arr;
        if (names) snprintf(member, sizeof member, "%s.npy", names[i]);
        else snprintf(member, sizeof member, "arr_%d.npy", i);
        unsigned char head[640];
        size_t hlen = npy_header_write(a, head);
        rc = zip_write_member(&w, member, head, hlen, a->data, rt_aval_nbytes(&a->aval), deflate, &st, why, sizeof why);
    }
    if (!rc) {
        member[0] = 0;
        rc = zip_finish(&w, &st, why, sizeof why);
    } else {
        zip_writer_drop(&w);
    }
    int closed = fclose(f) == 0;
    if (!rc && !closed) {
        rc = -1;
        st = CJ_ERR_IO;
        snprintf(why, sizeof why, "closing failed: %s", strerror(errno));
    }
    rt_mem_delete(tmp);
    if (rc) {
        remove(path);
        if (st == CJ_ERR_IO && !strstr(why, "closing")) snprintf(why, sizeof why, "writing failed: %s", strerror(errno));
        if (member[0]) return save_error(ctx, st, "cj_save_npz: '%s' member '%s': %s", path, member, why);
        return save_error(ctx, st, "cj_save_npz: '%s': %s", path, why);
    }
    return CJ_OK;
}

/* ---- reading ---- */
typedef struct npz_file {
    uint8_t *bytes;
    size_t size, cap;
    zip_archive z;
} npz_file;

static void npz_close(cj_ctx *ctx, npz_file *F) {
    zip_close(ctx->mem, &F->z);
    if (F->bytes) rt_data_free(ctx->mem, F->bytes, F->cap);
    F->bytes = NULL;
}

/* Reads path whole and checks its directory; 0 or -1 recorded. */
static int npz_open(cj_ctx *ctx, const char *op, const char *path, npz_file *F) {
    memset(F, 0, sizeof *F);
    FILE *f = fopen(path, "rb");
    if (!f) return core_error(ctx, CJ_ERR_IO, "%s: cannot open '%s': %s", op, path, strerror(errno));
    long end = -1;
    if (fseek(f, 0, SEEK_END) == 0) end = ftell(f);
    if (end < 0 || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        return core_error(ctx, CJ_ERR_IO, "%s: '%s' cannot be read as a file (no size)", op, path);
    }
    F->size = (size_t)end;
    F->bytes = rt_data_alloc(ctx->mem, F->size ? F->size : 1, &F->cap);
    if (!F->bytes) {
        fclose(f);
        return core_error(ctx, CJ_ERR_OOM, "%s: out of memory reading '%s' (%zu bytes)", op, path, F->size);
    }
    size_t got = F->size ? fread(F->bytes, 1, F->size, f) : 0;
    fclose(f);
    if (got != F->size) {
        npz_close(ctx, F);
        return core_error(ctx, CJ_ERR_IO, "%s: reading '%s' failed (%zu of %zu bytes)", op, path, got, F->size);
    }
    cj_status st;
    char why[400];
    if (zip_open(ctx->mem, F->bytes, F->size, &F->z, &st, why, sizeof why) != 0) {
        npz_close(ctx, F);
        return core_error(ctx, st, "%s: '%s': %s", op, path, why);
    }
    for (int i = 0; i < F->z.n; i++) {
        const zip_member *m = &F->z.m[i];
        if (m->name_len < 4 || strcmp(m->name + m->name_len - 4, ".npy") != 0 || m->name_len - 4 >= CJ_NPZ_NAME_MAX) {
            core_error(ctx, CJ_ERR_FORMAT, "%s: '%s': member '%.300s' is %s", op, path, m->name,
                       m->name_len - 4 >= CJ_NPZ_NAME_MAX && m->name_len >= 4 ? "named too long (CJ_NPZ_NAME_MAX)"
                                                                           : "not a .npy (its name does not end in .npy)");
            npz_close(ctx, F);
            return -1;
        }
    }
    return 0;
}

/* Member i as an array; an error value recorded on failure. */
static cj_val npz_member(cj_ctx *ctx, const char *op, const char *path, npz_file *F, int i) {
    const uint8_t *data;
    size_t owned;
    cj_status st;
    char why[400], where[1400];
    const zip_member *m = &F->z.m[i];
    snprintf(where, sizeof where, "%s: '%s' member '%s'", op, path, m->name);
    if (zip_extract(ctx->mem, &F->z, i, &data, &owned, &st, why, sizeof why) != 0) {
        core_error(ctx, st, "%s: %s", where, why);
        return api_err(ctx);
    }
    cj_val v;
    FILE *s = m->usize ? fmemopen((void *)data, (size_t)m->usize, "rb") : NULL;
    if (!m->usize) {
        core_error(ctx, CJ_ERR_FORMAT, "%s: empty (not a .npy)", where);
        v = api_err(ctx);
    } else if (!s) {
        core_error(ctx, CJ_ERR_OOM, "%s: cannot open the member as a stream: %s", where, strerror(errno));
        v = api_err(ctx);
    } else {
        v = npy_read_stream(ctx, s, where);
        fclose(s);
    }
    if (owned) rt_data_free(ctx->mem, (void *)data, owned);
    return v;
}

int cj_load_npz(cj_ctx *ctx, const char *path, cj_npz_entry *entries, int cap) {
    if (!ctx) {
        api_no_ctx("cj_load_npz", "ctx is NULL");
        return -1;
    }
    if (core_enter(ctx, "cj_load_npz") != 0) return -1;
    int count = -1;
    npz_file F;
    if (ctx->err) {
    } else if (!path) {
        core_error(ctx, CJ_ERR_ARG, "cj_load_npz: path is NULL");
    } else if (cap < 0 || (cap > 0 && !entries)) {
        core_error(ctx, CJ_ERR_ARG, "cj_load_npz: entries is %s for cap %d", entries ? "given" : "NULL", cap);
    } else if (npz_open(ctx, "cj_load_npz", path, &F) == 0) {
        int n = F.z.n, k = 0;
        for (; k < n && k < cap; k++) {
            cj_val v = npz_member(ctx, "cj_load_npz", path, &F, k);
            if (cj_is_error(v)) break;
            memcpy(entries[k].name, F.z.m[k].name, F.z.m[k].name_len - 4);
            entries[k].name[F.z.m[k].name_len - 4] = 0;
            entries[k].val = v;
        }
        if (ctx->err) { /* nothing half-loaded survives */
            for (int j = 0; j < k; j++) {
                cj_val_free(entries[j].val);
                entries[j].val = api_err(ctx);
            }
        } else {
            count = n;
        }
        npz_close(ctx, &F);
    }
    core_leave(ctx);
    return count;
}

cj_val cj_load_npz_member(cj_ctx *ctx, const char *path, const char *name) {
    if (!ctx) return api_no_ctx("cj_load_npz_member", "ctx is NULL");
    if (core_enter(ctx, "cj_load_npz_member") != 0) return api_err(ctx);
    cj_val v = api_err(ctx);
    npz_file F;
    if (ctx->err) {
    } else if (!path || !name) {
        core_error(ctx, CJ_ERR_ARG, "cj_load_npz_member: %s is NULL", path ? "name" : "path");
    } else if (npz_open(ctx, "cj_load_npz_member", path, &F) == 0) {
        size_t nl = strlen(name);
        int found = -1;
        for (int i = 0; i < F.z.n && found < 0; i++)
            if (F.z.m[i].name_len == nl + 4 && !memcmp(F.z.m[i].name, name, nl)) found = i;
        if (found < 0) core_error(ctx, CJ_ERR_ARG, "cj_load_npz_member: '%s' has no member '%.300s.npy'", path, name);
        else v = npz_member(ctx, "cj_load_npz_member", path, &F, found);
        npz_close(ctx, &F);
    }
    core_leave(ctx);
    return v;
}
