/* compare.c - a model against a reference (see compare.h): the pairs,
 * the folding of their decoded values, the table of the texts, and diff. */
#include "gguffs/compare.h"

#include <inttypes.h>
#include <math.h>
#include <omp.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/tlbuf.h"
#include "gguffs/decode.h"
#include "gguffs/scope.h"
#include "gguffs/summary.h"

#define NONE UINT64_MAX

typedef struct pair {
    uint64_t a, r;   /* tensor indices (NONE: not in that model) */
    gg_cmp_kind kind;
    const float *w;  /* compared pairs the imatrix weighs: its weights (ne0 x ne2) */
} pair;

enum { S_NONE, S_BUSY, S_DONE };

struct gg_cmp {
    pair *p;         /* the pairs compared, then the noted ones */
    size_t n, np;    /* all rows; the compared ones */
    size_t *pair_of; /* a's tensor -> compared pair */
    uint64_t na;
    int weighted;    /* made with an imatrix */
    gg_cmp_stats *stats;
    pthread_mutex_t mu; /* the states; cv: a pair's computing ended */
    pthread_cond_t cv;
    unsigned char *state;
    gg_cmp_sums *sums;
};

/* ---- pairing ---- */

typedef struct named {
    const char *name;
    uint64_t len, i;
} named;

static int by_name(const void *x, const void *y)
{
    const named *a = x, *b = y;
    int c = memcmp(a->name, b->name, a->len < b->len ? a->len : b->len);
    if (c)
        return c;
    if (a->len != b->len)
        return a->len < b->len ? -1 : 1;
    return a->i < b->i ? -1 : a->i > b->i;
}

/* Dims without trailing 1s (GGUF writers differ there). */
static uint32_t real_dims(const gg_tinfo *t)
{
    uint32_t n = t->n_dims;
    while (n > 1 && t->ne[n - 1] == 1)
        n--;
    return n;
}

static int same_shape(const gg_tinfo *x, const gg_tinfo *y)
{
    uint32_t n = real_dims(x);
    if (n != real_dims(y))
        return 0;
    for (uint32_t d = 0; d < n; d++)
        if (x->ne[d] != y->ne[d])
            return 0;
    return 1;
}

/* The imatrix weights of a pair, if it has them in the size
 * llama-quantize takes (a weight per column of each matrix of the tensor). */
static const float *weights_of(const gg_imatrix *im, const gg_tensor *t)
{
    uint64_t n;
    const float *w = gg_imatrix_weights(im, t->name, t->name_len, &n);
    const gg_tinfo *ti = t->info;
    uint64_t ne2 = ti->n_dims > 2 ? ti->ne[2] : 1;
    return w && n == ti->ne[0] * ne2 ? w : NULL;
}

/* The first of ref's tensors (rn: by name) named as t that no earlier one
 * of a took (NONE: none left). */
static uint64_t first_unused(const named *rn, uint64_t nref, const unsigned char *used, const gg_tensor *t)
{
    named key = {t->name, t->name_len, 0};
    size_t lo = 0, hi = nref;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (by_name(&rn[mid], &key) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    while (lo < nref && rn[lo].len == t->name_len && !memcmp(rn[lo].name, t->name, t->name_len) && used[rn[lo].i])
        lo++;
    int found = lo < nref && rn[lo].len == t->name_len && !memcmp(rn[lo].name, t->name, t->name_len);
    return found ? rn[lo].i : NONE;
}

/* Tensor i of a and r of ref (NONE: it has none): compared, or why not. */
static pair pair_of_tensors(const gg_model *a, const gg_model *ref, const gg_imatrix *im, uint64_t i, uint64_t r)
{
    const gg_tensor *t = &a->t[i];
    pair p = {i, r, GG_CMP_ONLY_HERE, NULL};
    if (r != NONE) {
        const gg_tensor *u = &ref->t[r];
        p.kind = !same_shape(t->info, u->info)                          ? GG_CMP_SHAPES
                 : !gg_tensor_decodable(t) || !gg_tensor_decodable(u) ? GG_CMP_UNDECODABLE
                                                                        : GG_CMP_COMPARED;
    }
    if (p.kind == GG_CMP_COMPARED)
        p.w = im ? weights_of(im, t) : NULL;
    return p;
}

/* c->p: the compared pairs in a's order, then the others of a, then those
 * only in ref; rn, used and noted are scratch of ref->nt, ref->nt and a->nt. */
static void pair_up(gg_cmp *c, const gg_model *a, const gg_model *ref, const gg_imatrix *im, named *rn,
                    unsigned char *used, pair *noted)
{
    for (uint64_t i = 0; i < ref->nt; i++)
        rn[i] = (named){ref->t[i].name, ref->t[i].name_len, i};
    qsort(rn, ref->nt, sizeof *rn, by_name);
    /* Each of a's tensors takes the first unused one of its name in ref. */
    size_t nnoted = 0;
    for (uint64_t i = 0; i < a->nt; i++) {
        uint64_t r = first_unused(rn, ref->nt, used, &a->t[i]);
        if (r != NONE)
            used[r] = 1;
        pair p = pair_of_tensors(a, ref, im, i, r);
        c->pair_of[i] = SIZE_MAX;
        if (p.kind == GG_CMP_COMPARED) {
            c->pair_of[i] = c->np;
            c->p[c->np++] = p;
        } else {
            noted[nnoted++] = p;
        }
    }
    /* The noted ones of a in a's order, then ref's own. */
    memcpy(c->p + c->np, noted, nnoted * sizeof *noted);
    c->n = c->np + nnoted;
    for (uint64_t i = 0; i < ref->nt; i++)
        if (!used[i])
            c->p[c->n++] = (pair){NONE, i, GG_CMP_ONLY_REF, NULL};
}

gg_cmp *gg_cmp_new(const gg_model *a, const gg_model *ref, const gg_imatrix *im, gg_cmp_stats *stats, gg_err *e)
{
    gg_cmp *c = calloc(1, sizeof *c);
    named *rn = malloc((ref->nt ? ref->nt : 1) * sizeof *rn);
    unsigned char *used = calloc(ref->nt ? ref->nt : 1, 1);
    pair *noted = malloc((a->nt ? a->nt : 1) * sizeof *noted);
    if (c) {
        c->p = malloc((a->nt + ref->nt + 1) * sizeof *c->p);
        c->pair_of = malloc((a->nt ? a->nt : 1) * sizeof *c->pair_of);
    }
    if (!c || !rn || !used || !noted || !c->p || !c->pair_of) {
        free(rn);
        free(used);
        free(noted);
        gg_cmp_free(c);
        gg_fail(e, GG_E_NOMEM, "out of memory");
        return NULL;
    }
    c->na = a->nt;
    c->weighted = im != NULL;
    c->stats = stats;
    pair_up(c, a, ref, im, rn, used, noted);
    free(rn);
    free(used);
    free(noted);
    c->state = calloc(c->np ? c->np : 1, 1);
    c->sums = calloc(c->np ? c->np : 1, sizeof *c->sums);
    if (!c->state || !c->sums) {
        gg_cmp_free(c);
        gg_fail(e, GG_E_NOMEM, "out of memory");
        return NULL;
    }
    pthread_mutex_init(&c->mu, NULL);
    pthread_cond_init(&c->cv, NULL);
    return c;
}

void gg_cmp_free(gg_cmp *c)
{
    if (!c)
        return;
    if (c->state) {
        pthread_mutex_destroy(&c->mu);
        pthread_cond_destroy(&c->cv);
    }
    free(c->p);
    free(c->pair_of);
    free(c->state);
    free(c->sums);
    free(c);
}

size_t gg_cmp_pairs(const gg_cmp *c) { return c->np; }
uint64_t gg_cmp_tensor(const gg_cmp *c, size_t k) { return c->p[k].a; }
uint64_t gg_cmp_ref_tensor(const gg_cmp *c, size_t k) { return c->p[k].r; }
size_t gg_cmp_pair_of(const gg_cmp *c, uint64_t i) { return i < c->na ? c->pair_of[i] : SIZE_MAX; }

/* ---- folding ---- */

/* Element j of a chunk goes to lane j % 8; a lane adds in element order.
 * The vector loop and the scalar one do the same operations on each lane,
 * so where the chunk's pieces start does not change a bit of the sums. */
typedef float v8f __attribute__((vector_size(32)));
typedef double v8d __attribute__((vector_size(64)));
typedef int64_t v8l __attribute__((vector_size(64)));

typedef struct lanes {
    v8d d2, r2, a2, ar, mx, wd2, wr2;
} lanes;

static inline __attribute__((always_inline)) void fold_one(lanes *L, unsigned l, float a, float r, const float *w)
{
    double x = a, y = r, d = x - y, dd = d * d, yy = y * y;
    L->d2[l] += dd;
    L->r2[l] += yy;
    L->a2[l] += x * x;
    L->ar[l] += x * y;
    double ad = fabs(d);
    if (ad > L->mx[l])
        L->mx[l] = ad;
    if (w) {
        L->wd2[l] += (double)*w * dd;
        L->wr2[l] += (double)*w * yy;
    }
}

/* n elements at lane0 (their position in the chunk); w: weights or NULL. */
static inline __attribute__((always_inline)) void fold_body(lanes *L, const float *a, const float *r,
                                                            const float *w, size_t n, size_t lane0)
{
    size_t i = 0;
    for (; i < n && ((lane0 + i) & 7); i++)
        fold_one(L, (unsigned)((lane0 + i) & 7), a[i], r[i], w ? w + i : NULL);
    const v8l abs_mask = {INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX, INT64_MAX};
    for (; i + 8 <= n; i += 8) {
        v8f fa, fr;
        memcpy(&fa, a + i, sizeof fa);
        memcpy(&fr, r + i, sizeof fr);
        v8d x = __builtin_convertvector(fa, v8d), y = __builtin_convertvector(fr, v8d);
        v8d d = x - y, dd = d * d, yy = y * y;
        L->d2 += dd;
        L->r2 += yy;
        L->a2 += x * x;
        L->ar += x * y;
        v8d ad = (v8d)((v8l)d & abs_mask);
        v8l gt = ad > L->mx;
        L->mx = (v8d)((gt & (v8l)ad) | (~gt & (v8l)L->mx));
        if (w) {
            v8f fw;
            memcpy(&fw, w + i, sizeof fw);
            v8d vw = __builtin_convertvector(fw, v8d);
            L->wd2 += vw * dd;
            L->wr2 += vw * yy;
        }
    }
    for (; i < n; i++)
        fold_one(L, (unsigned)((lane0 + i) & 7), a[i], r[i], w ? w + i : NULL);
}

/* The fold once more for each x86 SIMD target: the same operations on
 * the same lanes in wider registers (and no fused multiply-add:
 * -ffp-contract=off), so every path gives the same bits. */
typedef void fold_fn(lanes *L, const float *a, const float *r, const float *w, size_t n, size_t lane0);

static void fold_portable(lanes *L, const float *a, const float *r, const float *w, size_t n, size_t lane0)
{
    fold_body(L, a, r, w, n, lane0);
}

#if defined(__x86_64__)
__attribute__((target("avx2"))) static void fold_avx2(lanes *L, const float *a, const float *r, const float *w,
                                                      size_t n, size_t lane0)
{
    fold_body(L, a, r, w, n, lane0);
}

__attribute__((target("avx512f"))) static void fold_avx512(lanes *L, const float *a, const float *r,
                                                           const float *w, size_t n, size_t lane0)
{
    fold_body(L, a, r, w, n, lane0);
}
#endif

/* The decoders' path (-o simd=) picks the fold's too. */
static fold_fn *fold_for(gg_isa isa)
{
#if defined(__x86_64__)
    if (isa == GG_ISA_AVX512)
        return fold_avx512;
    if (isa == GG_ISA_AVX2)
        return fold_avx2;
#endif
    (void)isa;
    return fold_portable;
}

static double lane_sum(const v8d *p)
{
    const v8d v = *p;
    return ((v[0] + v[1]) + (v[2] + v[3])) + ((v[4] + v[5]) + (v[6] + v[7]));
}

static double lane_max(const v8d *p)
{
    const v8d v = *p;
    double m = v[0];
    for (int l = 1; l < 8; l++)
        m = v[l] > m ? v[l] : m;
    return m;
}

/* The weights of elements [e0, e0 + n) of a tensor of dims ne: column
 * i0 of matrix i2 weighs w[i2 * ne0 + i0]. */
static void expand_weights(const float *w, const gg_tinfo *ti, uint64_t e0, size_t n, float *out)
{
    uint64_t ne0 = ti->ne[0], ne1 = ti->n_dims > 1 ? ti->ne[1] : 1, ne2 = ti->n_dims > 2 ? ti->ne[2] : 1;
    uint64_t col = e0 % ne0, row = e0 / ne0;
    for (size_t j = 0; j < n;) {
        const float *wm = w + (row / ne1 % ne2) * ne0;
        size_t take = ne0 - col < n - j ? (size_t)(ne0 - col) : n - j;
        memcpy(out + j, wm + col, take * sizeof *out);
        j += take;
        col = 0;
        row++;
    }
}

/* A view of [e0, e0 + n) elements of tensor i of side s, described in ref. */
static int read_elems(const gg_cmp_side *s, uint64_t i, uint64_t e0, size_t n, float *buf, gg_ref *ref, gg_err *e)
{
    const gg_tensor *t = &s->m->t[i];
    ssize_t got = gg_read_view(s->r, s->m, t, s->uid + (uint32_t)i, GG_VIEW_F32, (char *)buf, n * 4, e0 * 4, NULL,
                               ref, e);
    if (got == (ssize_t)(n * 4))
        return 0;
    if (got >= 0) {
        gg_ref_release(s->r, ref);
        gg_fail(e, GG_E_IO, "%s: tensor \"%.*s\": f32 shorter than its %" PRIu64 " elements", s->m->path,
                (int)(t->name_len > 200 ? 200 : t->name_len), t->name, t->info->nelems);
    }
    return -1;
}

/* Fold chunk k of pair p into *out. */
static int fold_chunk(const gg_cmp *c, const pair *p, uint64_t k, const gg_cmp_side *a, const gg_cmp_side *r,
                      float *ba, float *br, float *bw, gg_cmp_sums *out, gg_err *e)
{
    const gg_tinfo *ti = a->m->t[p->a].info;
    uint64_t e0 = k * GG_CMP_CHUNK, n = ti->nelems;
    size_t len = (size_t)(n - e0 < GG_CMP_CHUNK ? n - e0 : GG_CMP_CHUNK);
    gg_ref ra, rr;
    if (read_elems(a, p->a, e0, len, ba, &ra, e))
        return -1;
    if (read_elems(r, p->r, e0, len, br, &rr, e)) {
        gg_ref_release(a->r, &ra);
        return -1;
    }
    if (p->w)
        expand_weights(p->w, ti, e0, len, bw);
    lanes L;
    memset(&L, 0, sizeof L);
    fold_fn *fold = fold_for(gg_isa_active());
    /* The two views' pieces (pages) end at different places: fold the
     * stretches where both go on. */
    int ia = 0, ir = 0;
    size_t oa = 0, or_ = 0, pos = 0;
    while (pos < len) {
        size_t na = (ra.iov[ia].iov_len - oa) / 4, nr = (rr.iov[ir].iov_len - or_) / 4, m = na < nr ? na : nr;
        fold(&L, (const float *)((const char *)ra.iov[ia].iov_base + oa),
             (const float *)((const char *)rr.iov[ir].iov_base + or_), p->w ? bw + pos : NULL, m, pos);
        pos += m;
        oa += m * 4;
        or_ += m * 4;
        if (oa == ra.iov[ia].iov_len)
            ia++, oa = 0;
        if (or_ == rr.iov[ir].iov_len)
            ir++, or_ = 0;
    }
    /* Read once: let the pages go first (they do not flush the cache). */
    ra.stream = rr.stream = c;
    gg_ref_release(a->r, &ra);
    gg_ref_release(r->r, &rr);
    *out = (gg_cmp_sums){len,          lane_sum(&L.d2), lane_sum(&L.r2), lane_sum(&L.a2), lane_sum(&L.ar),
                         lane_max(&L.mx), lane_sum(&L.wd2), lane_sum(&L.wr2)};
    return 0;
}

/* Where a chunk's values are read when they are not in the cache (an F32
 * tensor, a small read), and its weights: kept by each thread. */
static gg_tlbuf chunk_a = GG_TLBUF_INIT, chunk_r = GG_TLBUF_INIT, chunk_w = GG_TLBUF_INIT;

/* Every chunk of pair p, on the decode threads, added up in chunk order. */
static int fold_pair(gg_cmp *c, const pair *p, const gg_cmp_side *a, const gg_cmp_side *r, gg_cmp_sums *s,
                     gg_err *e)
{
    uint64_t n = a->m->t[p->a].info->nelems, nch = (n + GG_CMP_CHUNK - 1) / GG_CMP_CHUNK;
    gg_cmp_sums *part = calloc(nch ? nch : 1, sizeof *part);
    if (!part)
        return gg_fail(e, GG_E_NOMEM, "out of memory");
    int nth = gg_reader_threads(a->r);
    if ((uint64_t)nth > nch)
        nth = nch ? (int)nch : 1;
    int failed = 0;
    gg_err first = {GG_OK, ""};
    gg_scope *scope = gg_scope_get(); /* the caller's deadline holds in every thread */
#pragma omp parallel num_threads(nth) if (nth > 1)
    {
        gg_scope *own = gg_scope_get();
        gg_scope_set(scope);
        float *ba = gg_tlbuf_get(&chunk_a, GG_CMP_CHUNK * 4), *br = gg_tlbuf_get(&chunk_r, GG_CMP_CHUNK * 4);
        float *bw = p->w ? gg_tlbuf_get(&chunk_w, GG_CMP_CHUNK * 4) : NULL;
#pragma omp for schedule(dynamic, 1)
        for (uint64_t k = 0; k < nch; k++) {
            gg_err fe;
            int rc;
#pragma omp atomic read
            rc = failed;
            if (rc)
                continue;
            if (!ba || !br || (p->w && !bw))
                rc = gg_fail(&fe, GG_E_NOMEM, "out of memory");
            else if (!(rc = gg_scope_check(&fe, a->m->path))) /* (nobody waits: the pair is left undone) */
                rc = fold_chunk(c, p, k, a, r, ba, br, bw, &part[k], &fe);
            if (rc) {
#pragma omp critical(gg_cmp_error)
                if (!failed++)
                    first = fe;
                continue;
            }
            if (c->stats) {
                uint64_t done = atomic_fetch_add(&c->stats->elements, part[k].n) + part[k].n;
                if (c->stats->tick && omp_get_thread_num() == 0)
                    c->stats->tick(c->stats->tick_arg, done);
            }
        }
        gg_scope_set(own);
    }
    if (failed) {
        free(part);
        if (e)
            *e = first;
        return -1;
    }
    memset(s, 0, sizeof *s);
    for (uint64_t k = 0; k < nch; k++) {
        s->n += part[k].n;
        s->d2 += part[k].d2;
        s->r2 += part[k].r2;
        s->a2 += part[k].a2;
        s->ar += part[k].ar;
        s->max_abs = part[k].max_abs > s->max_abs ? part[k].max_abs : s->max_abs;
        s->wd2 += part[k].wd2;
        s->wr2 += part[k].wr2;
    }
    if (isnan(s->d2)) /* (the lanes' maximum passes over nan) */
        s->max_abs = NAN;
    free(part);
    return 0;
}

int gg_cmp_compute(gg_cmp *c, size_t k, const gg_cmp_side *a, const gg_cmp_side *r, gg_err *e)
{
    pthread_mutex_lock(&c->mu);
    int waited = 0;
    while (c->state[k] == S_BUSY) {
        if (!waited++ && c->stats)
            atomic_fetch_add(&c->stats->waits, 1);
        pthread_cond_wait(&c->cv, &c->mu);
    }
    if (c->state[k] == S_DONE) {
        pthread_mutex_unlock(&c->mu);
        return 0;
    }
    c->state[k] = S_BUSY;
    pthread_mutex_unlock(&c->mu);
    gg_cmp_sums s;
    int rc = fold_pair(c, &c->p[k], a, r, &s, e);
    pthread_mutex_lock(&c->mu);
    if (rc == 0) {
        c->sums[k] = s;
        if (c->stats)
            atomic_fetch_add(&c->stats->tensors, 1);
    }
    c->state[k] = rc == 0 ? S_DONE : S_NONE;
    pthread_cond_broadcast(&c->cv);
    pthread_mutex_unlock(&c->mu);
    return rc;
}

int gg_cmp_compute_all(gg_cmp *c, const gg_cmp_side *a, const gg_cmp_side *r, gg_err *e)
{
    for (size_t k = 0; k < c->np; k++)
        if (gg_cmp_compute(c, k, a, r, e))
            return -1;
    return 0;
}

/* ---- the table ---- */

static int64_t layer_of(const gg_tensor *t)
{
    const char *s = t->name;
    size_t n = t->name_len, i = 4;
    if (n < 6 || memcmp(s, "blk.", 4) || s[4] < '0' || s[4] > '9' || (s[4] == '0' && s[5] != '.'))
        return -1;
    int64_t v = 0;
    for (; i < n && s[i] >= '0' && s[i] <= '9' && i < 14; i++)
        v = v * 10 + (s[i] - '0');
    return i < n - 1 && s[i] == '.' ? v : -1;
}

static void shape_text(gg_buf *b, const gg_tinfo *ti)
{
    gg_buf_puts(b, "(");
    for (uint32_t d = 0; d < ti->n_dims; d++)
        gg_buf_printf(b, "%s%" PRIu64, d ? ", " : "", ti->ne[ti->n_dims - 1 - d]);
    gg_buf_puts(b, ti->n_dims == 1 ? ",)" : ")");
}

static const char *type_name(const gg_tensor *t) { return t->type ? t->type->name : "unknown"; }

/* Why a row is not compared, for its note column. */
static char *note_of(const pair *p, const gg_model *a, const gg_model *r)
{
    gg_buf b = {0};
    const gg_tensor *ta = p->a != NONE ? &a->t[p->a] : NULL, *tr = p->r != NONE ? &r->t[p->r] : NULL;
    switch (p->kind) {
    case GG_CMP_ONLY_HERE:
        gg_buf_puts(&b, "only in this model");
        break;
    case GG_CMP_ONLY_REF:
        gg_buf_puts(&b, "only in the reference");
        break;
    case GG_CMP_SHAPES:
        gg_buf_puts(&b, "different shapes: ");
        shape_text(&b, ta->info);
        gg_buf_puts(&b, " and ");
        shape_text(&b, tr->info);
        break;
    default: {
        const gg_tensor *t = gg_tensor_decodable(ta) ? tr : ta;
        gg_buf_printf(&b, "cannot be decoded in %s: %s", t == ta ? "this model" : "the reference",
                      t->err ? t->err->msg : "type unknown");
        break;
    }
    }
    if (b.oom) {
        gg_buf_free(&b);
        return NULL;
    }
    return b.p;
}

int gg_cmp_table_make(gg_cmp *c, const gg_model *a, const gg_model *r, int figures, gg_cmp_table *t,
                      gg_err *e)
{
    memset(t, 0, sizeof *t);
    gg_cmp_row *rows = calloc(c->n ? c->n : 1, sizeof *rows);
    if (!rows)
        return gg_fail(e, GG_E_NOMEM, "out of memory");
    t->rows = rows;
    t->n = c->n;
    int oom = 0;
    for (size_t k = 0; k < c->n; k++) {
        const pair *p = &c->p[k];
        const gg_tensor *ta = p->a != NONE ? &a->t[p->a] : NULL, *tr = p->r != NONE ? &r->t[p->r] : NULL;
        const gg_tensor *t0 = ta ? ta : tr;
        gg_cmp_row *w = &rows[k];
        w->name = t0->name;
        w->name_len = t0->name_len;
        w->type = ta ? type_name(ta) : "";
        w->ref_type = tr ? type_name(tr) : "";
        w->elements = t0->info->nelems;
        w->layer = layer_of(t0);
        w->kind = p->kind;
        w->weighted = p->w != NULL;
        if (p->kind == GG_CMP_COMPARED) {
            /* (another thread may be storing another pair's sums: read under the lock) */
            pthread_mutex_lock(&c->mu);
            w->sums = figures && c->state[k] == S_DONE ? &c->sums[k] : NULL;
            pthread_mutex_unlock(&c->mu);
        } else {
            oom |= !(w->note = note_of(p, a, r));
        }
    }
    gg_summary sa, sr;
    gg_model_summary(a, &sa);
    gg_model_summary(r, &sr);
    t->weighted = c->weighted;
    t->model = a->path;
    t->ref = r->path;
    t->bytes = a->size;
    t->ref_bytes = r->size;
    t->bpw = sa.bpw;
    t->ref_bpw = sr.bpw;
    if (oom) {
        gg_cmp_table_free(t);
        return gg_fail(e, GG_E_NOMEM, "out of memory");
    }
    return 0;
}

void gg_cmp_table_free(gg_cmp_table *t)
{
    for (size_t k = 0; k < t->n; k++)
        free((char *)t->rows[k].note);
    free((gg_cmp_row *)t->rows);
    memset(t, 0, sizeof *t);
}

/* ---- diff ---- */

static gg_tlbuf diff_a = GG_TLBUF_INIT, diff_r = GG_TLBUF_INIT;

ssize_t gg_cmp_read_diff(const gg_cmp *c, size_t k, const gg_cmp_side *a, const gg_cmp_side *r, char *buf,
                         size_t size, uint64_t off, gg_err *e)
{
    const pair *p = &c->p[k];
    uint64_t total = a->m->t[p->a].info->nelems * 4;
    if (off >= total || !size)
        return 0;
    if (size > total - off)
        size = (size_t)(total - off);
    uint64_t e0 = off / 4, n = (off + size + 3) / 4 - e0;
    float *x = gg_tlbuf_get(&diff_a, n * 4), *y = gg_tlbuf_get(&diff_r, n * 4);
    if (!x || !y)
        return gg_fail(e, GG_E_NOMEM, "out of memory");
    const gg_tensor *ta = &a->m->t[p->a], *tr = &r->m->t[p->r];
    ssize_t ga = gg_read_view_copy(a->r, a->m, ta, a->uid + (uint32_t)p->a, GG_VIEW_F32, (char *)x, n * 4, e0 * 4,
                                   a->ra, e);
    if (ga < 0)
        return -1;
    ssize_t gr = gg_read_view_copy(r->r, r->m, tr, r->uid + (uint32_t)p->r, GG_VIEW_F32, (char *)y, n * 4, e0 * 4,
                                   r->ra, e);
    if (gr < 0)
        return -1;
    if (ga != (ssize_t)(n * 4) || gr != ga)
        return gg_fail(e, GG_E_IO, "%s: tensor \"%.*s\": f32 shorter than its elements", a->m->path,
                       (int)(ta->name_len > 200 ? 200 : ta->name_len), ta->name);
    for (uint64_t i = 0; i < n; i++)
        x[i] = x[i] - y[i];
    memcpy(buf, (char *)x + (off - e0 * 4), size);
    return (ssize_t)size;
}
