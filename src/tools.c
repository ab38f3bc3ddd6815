/* tools.c - the commands that need no FUSE: --dump and --verify. */
#include "gguffs/tools.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "gguffs/model.h"
#include "gguffs/render.h"
#include "gguffs/tree.h"
#include "gguffs/view.h"

/* Arguments after the command word: flags and exactly one model path. */
static int args(int argc, char **argv, const char *cmd, int *json, int *full, const char **path)
{
    *path = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], cmd))
            continue;
        if (json && !strcmp(argv[i], "--json"))
            *json = 1;
        else if (full && !strcmp(argv[i], "--full"))
            *full = 1;
        else if (argv[i][0] == '-' && argv[i][1]) {
            fprintf(stderr, "gguffs %s: unknown option %s\n", cmd, argv[i]);
            return -1;
        } else if (*path) {
            fprintf(stderr, "gguffs %s: one model file at a time\n", cmd);
            return -1;
        } else {
            *path = argv[i];
        }
    }
    if (!*path) {
        fprintf(stderr, "usage: gguffs %s%s MODEL.gguf\n", cmd, json ? " [--json] [--full]" : "");
        return -1;
    }
    return 0;
}

static int open_model(gg_model *m, const char *path)
{
    char err[GG_ERR_LEN];
    int rc = gg_model_open(m, path, NULL, err);
    if (rc != GG_EXIT_OK) {
        fprintf(stderr, "gguffs: %s\n", err);
        gg_model_close(m);
    }
    return rc;
}

#define SHORT_ARRAY 8 /* elements shown of a long array unless --full */

/* Value of KV i, arrays shortened to their first elements unless full. */
static void kv_value_text(const gg_file *f, const gg_kv *kv, int full, gg_buf *out)
{
    gg_buf txt = {0};
    gg_render_kv_text(f, kv, &txt);
    if (kv->type != GG_VT_ARR) {
        /* Strings: keep on one line by escaping like array elements. */
        for (size_t i = 0; i + 1 < txt.len || (i < txt.len && kv->type != GG_VT_STR); i++) {
            char c = txt.p[i];
            if (c == '\n' && kv->type != GG_VT_STR)
                break;
            if (c == '\\' || c == '\n' || c == '\r')
                gg_buf_puts(out, c == '\\' ? "\\\\" : c == '\n' ? "\\n" : "\\r");
            else
                gg_buf_put(out, &c, 1);
        }
    } else {
        gg_buf_printf(out, "[%" PRIu64 " x %s]", kv->arr_n, gg_vtype_name(kv->arr_type));
        size_t line = 0;
        uint64_t shown = 0;
        for (size_t i = 0; i < txt.len && (full || shown < SHORT_ARRAY); i++) {
            if (txt.p[i] != '\n')
                continue;
            gg_buf_puts(out, shown ? ", " : " ");
            gg_buf_put(out, txt.p + line, i - line);
            line = i + 1;
            shown++;
        }
        if (shown < kv->arr_n)
            gg_buf_printf(out, ", ... (%" PRIu64 " more)", kv->arr_n - shown);
    }
    gg_buf_free(&txt);
}

static void dims(const gg_tinfo *ti, int numpy, gg_buf *out)
{
    for (uint32_t d = 0; d < ti->n_dims; d++)
        gg_buf_printf(out, "%s%" PRIu64, d == 0 ? "" : numpy ? ", " : " x ",
                      ti->ne[numpy ? ti->n_dims - 1 - d : d]);
}

static void dump_text(const gg_model *m, int full)
{
    const gg_file *f = m->f;
    printf("%s: GGUF version %" PRIu32 ", %" PRIu64 " key/value pairs, %" PRIu64
           " tensors, alignment %" PRIu32 ", data at %" PRIu64 ", %" PRIu64 " bytes\n",
           m->path, f->version, f->n_kv, f->n_tensors, f->alignment, f->data_offset, m->size);
    printf("\n# metadata\n");
    for (uint64_t i = 0; i < f->n_kv; i++) {
        const gg_kv *kv = &f->kv[i];
        gg_buf line = {0};
        gg_buf_printf(&line, "%5" PRIu64 " %-5s ", i, gg_vtype_name(kv->type));
        gg_buf_put(&line, gg_str_ptr(f, kv->key), kv->key.len);
        gg_buf_puts(&line, " = ");
        kv_value_text(f, kv, full, &line);
        if (line.p)
            fwrite(line.p, 1, line.len, stdout);
        putchar('\n');
        gg_buf_free(&line);
    }
    printf("\n# tensors\n%5s %-10s %-22s %14s %12s %7s  %s\n", "#", "type", "shape (numpy)", "offset",
           "bytes", "bpw", "name");
    uint64_t total = 0;
    for (uint64_t i = 0; i < m->nt; i++) {
        const gg_tensor *t = &m->t[i];
        gg_buf sh = {0};
        gg_buf_puts(&sh, "(");
        dims(t->info, 1, &sh);
        gg_buf_puts(&sh, ")");
        char bpw[16] = "-";
        if (t->info->nelems)
            snprintf(bpw, sizeof bpw, "%.3f", t->nbytes * 8.0 / (double)t->info->nelems);
        char ty[32];
        if (t->type)
            snprintf(ty, sizeof ty, "%s", t->type->name);
        else
            snprintf(ty, sizeof ty, "?%" PRIu32, t->info->type_id);
        printf("%5" PRIu64 " %-10s %-22s %14" PRIu64 " %12" PRIu64 " %7s  %.*s%s%s\n", i, ty,
               sh.p ? sh.p : "", t->abs_offset, t->nbytes, bpw, (int)t->name_len, t->name,
               t->why ? "  # " : "", t->why ? t->why : "");
        total += t->nbytes;
        gg_buf_free(&sh);
    }
    printf("\n%" PRIu64 " tensors, %" PRIu64 " bytes of tensor data\n", m->nt, total);
}

static void dump_json(const gg_model *m, int full)
{
    const gg_file *f = m->f;
    gg_buf out = {0};
    gg_buf_printf(&out, "{\n  \"file\": ");
    gg_json_string(&out, m->path, strlen(m->path));
    gg_buf_printf(&out, ",\n  \"version\": %" PRIu32 ",\n  \"alignment\": %" PRIu32
                  ",\n  \"data_offset\": %" PRIu64 ",\n  \"n_kv\": %" PRIu64 ",\n  \"n_tensors\": %" PRIu64
                  ",\n  \"metadata\": ", f->version, f->alignment, f->data_offset, f->n_kv, f->n_tensors);
    if (full) {
        gg_render_metadata_json(f, &out);
    } else {
        /* Short form: arrays give their type and count and the first few
         * elements as text lines. */
        gg_buf_puts(&out, "{");
        for (uint64_t i = 0; i < f->n_kv; i++) {
            const gg_kv *kv = &f->kv[i];
            gg_buf_puts(&out, i ? ",\n    " : "\n    ");
            gg_json_string(&out, gg_str_ptr(f, kv->key), kv->key.len);
            gg_buf_printf(&out, ": {\"type\": \"%s\", ", gg_vtype_name(kv->type));
            gg_buf v = {0};
            kv_value_text(f, kv, 0, &v);
            if (kv->type == GG_VT_ARR)
                gg_buf_printf(&out, "\"arr_type\": \"%s\", \"n\": %" PRIu64 ", \"preview\": ",
                              gg_vtype_name(kv->arr_type), kv->arr_n);
            else
                gg_buf_puts(&out, "\"value\": ");
            gg_json_string(&out, v.p ? v.p : "", v.len);
            gg_buf_puts(&out, "}");
            gg_buf_free(&v);
        }
        gg_buf_puts(&out, "\n  }\n");
    }
    gg_buf_puts(&out, "  ,\"tensors\": [");
    for (uint64_t i = 0; i < m->nt; i++) {
        gg_buf_puts(&out, i ? ",\n" : "\n");
        gg_tensor_info_json(m, &m->t[i], &out);
    }
    gg_buf_puts(&out, "]\n}\n");
    if (out.p)
        fwrite(out.p, 1, out.len, stdout);
    gg_buf_free(&out);
}

int gg_tool_dump(int argc, char **argv)
{
    int json = 0, full = 0;
    const char *path;
    if (args(argc, argv, "--dump", &json, &full, &path))
        return GG_EXIT_USAGE;
    gg_model m;
    int rc = open_model(&m, path);
    if (rc != GG_EXIT_OK)
        return rc;
    if (json)
        dump_json(&m, full);
    else
        dump_text(&m, full);
    gg_model_close(&m);
    return GG_EXIT_OK;
}

static void progress(uint64_t done, uint64_t total, double t0)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double dt = ts.tv_sec + ts.tv_nsec * 1e-9 - t0;
    int width = 40, fill = total ? (int)(width * (double)done / (double)total) : width;
    fprintf(stderr, "\r[%.*s%*s] %5.1f%%  %.0f MB/s ", fill, "########################################",
            width - fill, "", total ? 100.0 * (double)done / (double)total : 100.0,
            dt > 0 ? done * 4.0 / dt / 1e6 : 0.0);
}

int gg_tool_verify(int argc, char **argv)
{
    const char *path;
    if (args(argc, argv, "--verify", NULL, NULL, &path))
        return GG_EXIT_USAGE;
    gg_model m;
    int rc = open_model(&m, path);
    if (rc != GG_EXIT_OK)
        return rc;
    gg_reader_opts ro;
    gg_reader_default_opts(&ro);
    gg_reader *r = gg_reader_new(&ro);
    if (!r) {
        gg_model_close(&m);
        return GG_EXIT_INTERNAL;
    }
    int tty = isatty(2);
    uint64_t total = 0, done = 0;
    for (uint64_t i = 0; i < m.nt; i++)
        total += m.t[i].info->nelems;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    double t0 = ts.tv_sec + ts.tv_nsec * 1e-9;
    const uint64_t chunk = 1u << 20;
    float *buf = malloc(chunk * sizeof(float));
    uint64_t bad_tensors = 0;
    printf("tensor\ttype\tstatus\tnan\tinf\n");
    for (uint64_t i = 0; i < m.nt && buf; i++) {
        const gg_tensor *t = &m.t[i];
        uint64_t nan = 0, inf = 0;
        const char *err = t->why ? t->why : !t->type ? "type unknown" : NULL;
        if (!err) {
            uint64_t g = gg_layout_granule(&t->layout), n = t->layout.nelems;
            uint64_t step = chunk / g * g;
            float *b = buf;
            if (step == 0) {
                step = g;
                b = malloc(g * sizeof(float));
                if (!b)
                    err = "out of memory";
            }
            for (uint64_t e = 0; b && e < n && !err; e += step) {
                uint64_t e1 = e + step < n ? e + step : n;
                if (gg_decode_elems(r, &m, t, e, e1, b) != 0) {
                    err = "read error";
                    break;
                }
                for (uint64_t k = 0; k < e1 - e; k++) {
                    nan += isnan(b[k]) != 0;
                    inf += isinf(b[k]) != 0;
                }
                if (tty)
                    progress(done + e1, total, t0);
            }
            if (b != buf)
                free(b);
        }
        done += t->info->nelems;
        int ok = !err && !nan && !inf;
        bad_tensors += !ok;
        if (tty)
            fprintf(stderr, "\r%*s\r", 70, "");
        printf("%.*s\t%s\t%s\t%" PRIu64 "\t%" PRIu64 "\n", (int)t->name_len, t->name,
               t->type ? t->type->name : "unknown", err ? err : ok ? "ok" : "non-finite", nan, inf);
    }
    if (tty)
        fprintf(stderr, "\r%*s\r", 70, "");
    fprintf(stderr, "gguffs --verify: %" PRIu64 " tensors, %" PRIu64 " with problems\n", m.nt, bad_tensors);
    free(buf);
    gg_reader_free(r);
    gg_model_close(&m);
    return bad_tensors ? GG_EXIT_VERIFY : GG_EXIT_OK;
}
