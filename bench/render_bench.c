/* render_bench - metadata array text throughput on one core: values/s of
 * the renderers (gg_render_kv_text, one value per line; the metadata.json
 * renderer) against the renderer they replaced (a snprintf/strtod precision
 * search and a printf per value, kept below as the baseline), measured in
 * the same run on the same arrays.
 *
 *   render_bench [--n N] [--rounds R]
 *
 * Arrays of N elements (default 150 000, a large vocabulary): f32 scores as
 * a tokenizer stores them (-1e4..0, all digits significant), f32 random bit
 * patterns, the same two as f64, and i32 token types. Figures are the best
 * of R rounds (default 5; the baseline 3 at most), each from an empty
 * buffer as a file is made; the last column counts lines where old and new
 * text differ (the old one's too-long forms). */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "gguffs/gguf.h"
#include "gguffs/render.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- the baseline: the float text and array loop gguffs had before ---- */

static int old_python_style(char *out, const char *e)
{
    const char *p = e;
    int neg = *p == '-';
    if (neg)
        p++;
    char digits[40];
    int nd = 0;
    for (; *p && *p != 'e'; p++)
        if (*p >= '0' && *p <= '9')
            digits[nd++] = *p;
    int exp10 = atoi(p + 1);
    while (nd > 1 && digits[nd - 1] == '0')
        nd--;
    char *o = out;
    if (neg)
        *o++ = '-';
    if (exp10 < -4 || exp10 >= 16) {
        *o++ = digits[0];
        if (nd > 1) {
            *o++ = '.';
            memcpy(o, digits + 1, (size_t)nd - 1);
            o += nd - 1;
        }
        o += sprintf(o, "e%c%02d", exp10 < 0 ? '-' : '+', abs(exp10));
    } else if (exp10 < 0) {
        o += sprintf(o, "0.");
        for (int i = 0; i < -exp10 - 1; i++)
            *o++ = '0';
        memcpy(o, digits, (size_t)nd);
        o += nd;
    } else {
        for (int i = 0; i <= exp10; i++)
            *o++ = i < nd ? digits[i] : '0';
        *o++ = '.';
        if (nd > exp10 + 1) {
            memcpy(o, digits + exp10 + 1, (size_t)(nd - exp10 - 1));
            o += nd - exp10 - 1;
        } else {
            *o++ = '0';
        }
    }
    *o = 0;
    return (int)(o - out);
}

static int old_special(char *out, double v)
{
    if (isnan(v))
        return sprintf(out, "nan");
    if (isinf(v))
        return sprintf(out, v < 0 ? "-inf" : "inf");
    return -1;
}

static int old_fmt_f32(char *out, float v)
{
    int n = old_special(out, v);
    if (n >= 0)
        return n;
    char tmp[48];
    uint32_t want;
    memcpy(&want, &v, 4);
    for (int prec = 1; prec <= 9; prec++) {
        snprintf(tmp, sizeof tmp, "%.*e", prec - 1, (double)v);
        float a = strtof(tmp, NULL), b = (float)strtod(tmp, NULL);
        uint32_t ua, ub;
        memcpy(&ua, &a, 4);
        memcpy(&ub, &b, 4);
        if (ua == want && ub == want)
            break;
    }
    return old_python_style(out, tmp);
}

static int old_fmt_f64(char *out, double v)
{
    int n = old_special(out, v);
    if (n >= 0)
        return n;
    char tmp[48];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*e", prec - 1, v);
        double a = strtod(tmp, NULL);
        if (memcmp(&a, &v, 8) == 0)
            break;
    }
    return old_python_style(out, tmp);
}

/* The old array loop of gg_render_kv_text: per element, read it, print it
 * through gg_buf_printf or the float text, then a newline. */
static void old_render_array(const gg_file *f, const gg_kv *kv, gg_buf *out)
{
    const uint8_t *p = f->hdr + kv->val + 4 + (f->version == 1 ? 4 : 8);
    size_t sz = gg_vtype_size(kv->arr_type);
    char num[48];
    for (uint64_t i = 0; i < kv->arr_n; i++, p += sz) {
        uint64_t v = 0;
        for (size_t b = 0; b < sz; b++)
            v |= (uint64_t)p[b] << (8 * b);
        switch (kv->arr_type) {
        case GG_VT_I32:
            gg_buf_printf(out, "%" PRId64, (int64_t)(int32_t)v);
            break;
        case GG_VT_F32: {
            float x;
            uint32_t u = (uint32_t)v;
            memcpy(&x, &u, 4);
            gg_buf_put(out, num, (size_t)old_fmt_f32(num, x));
            break;
        }
        case GG_VT_F64: {
            double x;
            memcpy(&x, &v, 8);
            gg_buf_put(out, num, (size_t)old_fmt_f64(num, x));
            break;
        }
        }
        gg_buf_put(out, "\n", 1);
    }
}

/* ---- test arrays, as one-KV GGUF files parsed by the real parser ---- */

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

typedef enum { SCORES, BITS, TYPES } kind;

static void put_le(uint8_t **p, uint64_t v, int n)
{
    for (int i = 0; i < n; i++)
        *(*p)++ = (uint8_t)(v >> (8 * i));
}

static void make_file(gg_file *f, uint32_t et, kind k, uint64_t n)
{
    size_t sz = gg_vtype_size(et);
    size_t cap = 64 + n * sz + 64;
    uint8_t *buf = calloc(1, cap), *p = buf;
    memcpy(p, "GGUF", 4);
    p += 4;
    put_le(&p, 3, 4);                      /* version */
    put_le(&p, 0, 8);                      /* tensors */
    put_le(&p, 1, 8);                      /* kvs */
    put_le(&p, 1, 8);
    *p++ = 'a';                            /* key "a" */
    put_le(&p, GG_VT_ARR, 4);
    put_le(&p, et, 4);
    put_le(&p, n, 8);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t r = next();
        if (k == TYPES) {
            put_le(&p, 1 + r % 6, 4);
        } else if (k == BITS) {
            put_le(&p, r, (int)sz);
        } else if (et == GG_VT_F32) {
            float s = -(float)((r >> 11) * 0x1p-53 * 1e4);
            uint32_t u;
            memcpy(&u, &s, 4);
            put_le(&p, u, 4);
        } else {
            double s = -((r >> 11) * 0x1p-53 * 1e4);
            uint64_t u;
            memcpy(&u, &s, 8);
            put_le(&p, u, 8);
        }
    }
    gg_err err;
    if (gg_parse("bench.gguf", buf, (uint64_t)(p - buf), (uint64_t)(p - buf), f, NULL, &err) != 0) {
        fprintf(stderr, "%s\n", err.msg);
        exit(1);
    }
    free(buf);
}

typedef void (*render_fn)(const gg_file *f, gg_buf *out);
static void new_text(const gg_file *f, gg_buf *out) { gg_render_kv_text(f, &f->kv[0], out); }
static void new_json(const gg_file *f, gg_buf *out) { gg_render_metadata_json(f, out); }
static void old_text(const gg_file *f, gg_buf *out) { old_render_array(f, &f->kv[0], out); }

/* Best values/s of R rounds; *text gets the last round's output. */
static double measure(render_fn fn, const gg_file *f, int rounds, gg_buf *text)
{
    double best = 0;
    for (int r = 0; r < rounds; r++) {
        gg_buf out = {0};
        double t0 = now();
        fn(f, &out);
        double dt = now() - t0;
        if (out.oom) {
            fprintf(stderr, "out of memory\n");
            exit(1);
        }
        double vps = (double)f->kv[0].arr_n / dt;
        if (vps > best)
            best = vps;
        gg_buf_free(text);
        *text = out;
    }
    return best;
}

/* Lines that differ between two renderings (the old one's longer forms). */
static uint64_t differing_lines(const gg_buf *a, const gg_buf *b)
{
    uint64_t d = 0;
    const char *p = a->p, *q = b->p, *pe = a->p + a->len, *qe = b->p + b->len;
    while (p < pe && q < qe) {
        const char *pn = memchr(p, '\n', (size_t)(pe - p)), *qn = memchr(q, '\n', (size_t)(qe - q));
        if (!pn || !qn)
            break;
        d += (pn - p != qn - q) || memcmp(p, q, (size_t)(pn - p)) != 0;
        p = pn + 1;
        q = qn + 1;
    }
    return d;
}

int main(int argc, char **argv)
{
    uint64_t n = 150000;
    int rounds = 5;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--n"))
            n = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--rounds"))
            rounds = atoi(argv[i + 1]);
    }
    static const struct {
        const char *name;
        uint32_t et;
        kind k;
    } cases[] = {
        {"f32 scores -1e4..0", GG_VT_F32, SCORES}, {"f32 random bits", GG_VT_F32, BITS},
        {"f64 scores -1e4..0", GG_VT_F64, SCORES}, {"f64 random bits", GG_VT_F64, BITS},
        {"i32 token types", GG_VT_I32, TYPES},
    };
    printf("%" PRIu64 " values per array, one core, best of %d; M values/s\n", n, rounds);
    printf("%-20s %10s %10s %10s %9s %9s %12s\n", "array", "old text", "new text", "new json", "text x",
           "json x", "lines differ");
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        gg_file f;
        make_file(&f, cases[c].et, cases[c].k, n);
        gg_buf o = {0}, t = {0}, j = {0};
        double old = measure(old_text, &f, rounds < 3 ? rounds : 3, &o); /* slow: 3 at most */
        double nt = measure(new_text, &f, rounds, &t);
        double nj = measure(new_json, &f, rounds, &j);
        printf("%-20s %10.2f %10.2f %10.2f %8.1fx %8.1fx %12" PRIu64 "\n", cases[c].name, old / 1e6, nt / 1e6,
               nj / 1e6, nt / old, nj / old, differing_lines(&o, &t));
        gg_buf_free(&o);
        gg_buf_free(&t);
        gg_buf_free(&j);
        gg_file_free(&f);
    }
    return 0;
}
