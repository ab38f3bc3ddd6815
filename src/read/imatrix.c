/* imatrix.c - the weights of an imatrix GGUF (see imatrix.h). */
#include "gguffs/imatrix.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct entry {
    char *name;
    size_t len;
    float *w;
    uint64_t n;
} entry;

struct gg_imatrix {
    entry *e; /* sorted by name */
    size_t n;
};

static int by_name(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    size_t n = x->len < y->len ? x->len : y->len;
    int c = memcmp(x->name, y->name, n);
    return c ? c : (x->len > y->len) - (x->len < y->len);
}

static int ends_with(const gg_tensor *t, const char *suffix, size_t *stem)
{
    size_t k = strlen(suffix);
    if (t->name_len <= k || memcmp(t->name + t->name_len - k, suffix, k))
        return 0;
    *stem = t->name_len - k;
    return 1;
}

/* The tensor named stem + suffix, or NULL. */
static const gg_tensor *partner(const gg_model *m, const char *stem, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);
    for (uint64_t i = 0; i < m->nt; i++) {
        const gg_tensor *t = &m->t[i];
        if (t->name_len == n + k && !memcmp(t->name, stem, n) && !memcmp(t->name + n, suffix, k))
            return t;
    }
    return NULL;
}

/* A tensor's values, which must be F32. */
static float *values_of(const gg_model *m, const gg_tensor *t, gg_err *e)
{
    uint64_t n = t->info->nelems;
    if (!t->type || strcmp(t->type->name, "F32") || t->nbytes != n * 4) {
        gg_fail(e, GG_E_MALFORMED, "%s: tensor \"%.*s\": type %s, an imatrix holds F32", m->path,
                (int)(t->name_len > 200 ? 200 : t->name_len), t->name, t->type ? t->type->name : "unknown");
        return NULL;
    }
    float *v = malloc(n ? n * 4 : 1);
    if (!v) {
        gg_fail(e, GG_E_NOMEM, "out of memory for the imatrix");
        return NULL;
    }
    if (n && gg_source_read(gg_tensor_source(m, t), v, n * 4, t->abs_offset, e)) {
        free(v);
        return NULL;
    }
    for (uint64_t i = 0; i < n; i++) { /* (little-endian in the file) */
        const uint8_t *b = (const uint8_t *)&v[i];
        uint32_t u = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
        memcpy(&v[i], &u, 4);
    }
    return v;
}

/* The weights of one NAME: in_sum2 / round(counts) per expert, as
 * llama-quantize's load_imatrix makes them. */
static int add_entry(gg_imatrix *im, const gg_model *m, const gg_tensor *sums, size_t stem, gg_err *e)
{
    const gg_tensor *counts = partner(m, sums->name, stem, ".counts");
    if (!counts)
        return gg_fail(e, GG_E_MALFORMED, "%s: tensor \"%.*s\" has no %.*s.counts", m->path,
                       (int)(sums->name_len > 200 ? 200 : sums->name_len), sums->name,
                       (int)(stem > 200 ? 200 : stem), sums->name);
    uint64_t ns = sums->info->nelems, nc = counts->info->nelems;
    if (!nc || ns % nc)
        return gg_fail(e, GG_E_MALFORMED, "%s: %.*s: %" PRIu64 " sums for %" PRIu64 " counts", m->path,
                       (int)(stem > 200 ? 200 : stem), sums->name, ns, nc);
    float *w = values_of(m, sums, e);
    float *c = w ? values_of(m, counts, e) : NULL;
    if (!c) {
        free(w);
        return -1;
    }
    char *name = malloc(stem + 1);
    entry *p = name ? realloc(im->e, (im->n + 1) * sizeof *p) : NULL;
    if (!p) {
        free(w);
        free(c);
        free(name);
        return gg_fail(e, GG_E_NOMEM, "out of memory for the imatrix");
    }
    im->e = p;
    uint64_t ne0 = ns / nc;
    for (uint64_t j = 0; j < nc; j++) {
        float count = (float)lroundf(c[j]);
        for (uint64_t i = 0; i < ne0; i++)
            w[j * ne0 + i] = count > 0.0f ? w[j * ne0 + i] / count : 1.0f;
    }
    free(c);
    memcpy(name, sums->name, stem);
    name[stem] = 0;
    im->e[im->n++] = (entry){name, stem, w, ns};
    return 0;
}

gg_imatrix *gg_imatrix_load(const char *path, const gg_open_opts *o, gg_err *e)
{
    gg_model m;
    if (gg_model_open(&m, path, o, e)) {
        gg_model_close(&m);
        return NULL;
    }
    gg_imatrix *im = calloc(1, sizeof *im);
    int rc = im ? 0 : gg_fail(e, GG_E_NOMEM, "out of memory");
    size_t stem;
    for (uint64_t i = 0; i < m.nt && !rc; i++)
        if (ends_with(&m.t[i], ".in_sum2", &stem))
            rc = add_entry(im, &m, &m.t[i], stem, e);
    if (!rc && !im->n)
        rc = gg_fail(e, GG_E_MALFORMED, "%s: not an imatrix: no tensor NAME.in_sum2 with its NAME.counts", m.path);
    gg_model_close(&m);
    if (rc) {
        gg_imatrix_free(im);
        return NULL;
    }
    qsort(im->e, im->n, sizeof *im->e, by_name);
    return im;
}

void gg_imatrix_free(gg_imatrix *im)
{
    if (!im)
        return;
    for (size_t i = 0; i < im->n; i++) {
        free(im->e[i].name);
        free(im->e[i].w);
    }
    free(im->e);
    free(im);
}

const float *gg_imatrix_weights(const gg_imatrix *im, const char *name, size_t n, uint64_t *count)
{
    if (!im)
        return NULL;
    entry key = {(char *)name, n, NULL, 0};
    const entry *hit = bsearch(&key, im->e, im->n, sizeof *im->e, by_name);
    if (!hit)
        return NULL;
    *count = hit->n;
    return hit->w;
}

size_t gg_imatrix_size(const gg_imatrix *im) { return im ? im->n : 0; }
