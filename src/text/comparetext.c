/* comparetext.c - the texts of a comparison (see comparetext.h). */
#include "gguffs/comparetext.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gguffs/render.h"

/* sqrt(x / y) as a relative error: 0 when x is (equal tensors), inf when
 * only y is 0. */
static double rel(double x, double y) { return x == 0 ? 0 : sqrt(x / y); }

void gg_cmp_figures(const gg_cmp_sums *s, gg_cmp_figs *f)
{
    f->rmse = sqrt(s->d2 / (double)s->n);
    f->max_abs_err = s->max_abs;
    f->rel_rmse = rel(s->d2, s->r2);
    f->w_rel_rmse = rel(s->wd2, s->wr2);
    if (isnan(s->d2) || isnan(s->ar))
        f->cosine = NAN;
    else if (s->a2 == 0 || s->r2 == 0)
        f->cosine = NAN;
    else if (s->d2 == 0)
        f->cosine = 1;
    else {
        double c = s->ar / (sqrt(s->a2) * sqrt(s->r2));
        f->cosine = c > 1 ? 1 : c < -1 ? -1 : c;
    }
    f->snr_db = s->d2 == 0 ? INFINITY : 10 * log10(s->r2 / s->d2);
}

/* A figure over no element at all (no tensor compared, a tensor of no
 * elements, no element the imatrix weighs): not a number of any kind. */
static const double over_nothing;
#define NOTHING (&over_nothing)

/* A figure in its field: right-aligned, or blank while not known; over
 * nothing "-" (null in JSON). JSON gets "inf" and "nan" as strings. */
static void figure(gg_buf *out, const double *v, int json)
{
    char s[GG_FMT_BUF + 2];
    if (!v || v == NOTHING) {
        gg_buf_printf(out, "%*s", GG_CMP_WIDTH, !v ? "" : json ? "null" : "-");
        return;
    }
    int n = gg_fmt_f64(s + 1, *v);
    if (json && !isfinite(*v)) {
        s[0] = '"';
        s[n + 1] = '"';
        s[n + 2] = 0;
        gg_buf_printf(out, "%*s", GG_CMP_WIDTH, s);
    } else {
        gg_buf_printf(out, "%*s", GG_CMP_WIDTH, s + 1);
    }
}

void gg_compare_tsv(const gg_cmp_table *t, gg_buf *out)
{
    gg_buf_printf(out, "name\ttype\tref_type\telements\trmse\tmax_abs_err\trel_rmse\tcosine\tsnr_db%s\tnote\n",
                  t->weighted ? "\tw_rel_rmse" : "");
    for (size_t i = 0; i < t->n; i++) {
        const gg_cmp_row *r = &t->rows[i];
        gg_tsv_field(out, r->name, r->name_len);
        gg_buf_printf(out, "\t%s\t%s\t%" PRIu64, r->type, r->ref_type, r->elements);
        gg_cmp_figs f;
        if (r->sums)
            gg_cmp_figures(r->sums, &f);
        const double *v[] = {&f.rmse, &f.max_abs_err, &f.rel_rmse, &f.cosine, &f.snr_db, &f.w_rel_rmse};
        int nfig = t->weighted ? 6 : 5;
        for (int k = 0; k < nfig; k++) {
            gg_buf_puts(out, "\t");
            /* noted rows and rows the imatrix does not weigh: empty */
            if (r->kind == GG_CMP_COMPARED && (k < 5 || r->weighted))
                figure(out, !r->elements ? NOTHING : r->sums ? v[k] : NULL, 0);
        }
        gg_buf_puts(out, "\t");
        if (r->note)
            gg_tsv_field(out, r->note, strlen(r->note));
        gg_buf_puts(out, "\n");
    }
}

/* ---- the summary's figures ---- */

typedef struct group {
    const char *type;  /* by type */
    int64_t layer;     /* by layer (-1: not in one) */
    uint64_t tensors, elements;
    double d2, r2;
} group;

typedef struct tally {
    uint64_t compared, only_here, only_ref, shape, undecodable;
    uint64_t elements, w_elements; /* compared; of them, weighed */
    double d2, r2, wd2, wr2;
    int known;         /* every compared row has its sums */
    group *types, *layers;
    size_t ntypes, nlayers;
    size_t *worst;     /* rows, worst first */
    size_t nworst;
    int name_w, type_w, jname_w, jtype_w;
} tally;

static group *group_of(group **g, size_t *n, const char *type, int64_t layer)
{
    for (size_t i = 0; i < *n; i++)
        if ((*g)[i].layer == layer && (type ? (*g)[i].type && !strcmp((*g)[i].type, type) : !(*g)[i].type))
            return &(*g)[i];
    group *p = realloc(*g, (*n + 1) * sizeof *p);
    if (!p)
        return NULL;
    *g = p;
    p[*n] = (group){type, layer, 0, 0, 0, 0};
    return &p[(*n)++];
}

static int by_layer(const void *a, const void *b)
{
    const group *x = a, *y = b;
    /* layers in order, the tensors of no layer last */
    uint64_t lx = (uint64_t)x->layer, ly = (uint64_t)y->layer;
    return lx < ly ? -1 : lx > ly;
}

/* Worst first: nan, then the largest rel_rmse; ties in row order. */
static int by_badness(const void *a, const void *b, void *arg)
{
    const gg_cmp_row *rows = arg;
    size_t i = *(const size_t *)a, j = *(const size_t *)b;
    double x = rel(rows[i].sums->d2, rows[i].sums->r2), y = rel(rows[j].sums->d2, rows[j].sums->r2);
    if (isnan(x) != isnan(y))
        return isnan(x) ? -1 : 1;
    if (!isnan(x) && x != y)
        return x > y ? -1 : 1;
    return i < j ? -1 : i > j;
}

/* The length of s as escape (gg_json_string, gg_tsv_field) writes it. */
static size_t escaped_len(void (*escape)(gg_buf *, const char *, size_t), const char *s, size_t n)
{
    gg_buf b = {0};
    escape(&b, s, n);
    size_t len = b.len;
    gg_buf_free(&b);
    return len;
}

static int tally_rows(const gg_cmp_table *t, tally *y)
{
    memset(y, 0, sizeof *y);
    y->known = 1;
    y->worst = malloc((t->n ? t->n : 1) * sizeof *y->worst);
    if (!y->worst)
        return -1;
    uint64_t ranked = 0; /* (with figures or not: known before any figure, the texts' sizes) */
    for (size_t i = 0; i < t->n; i++) {
        const gg_cmp_row *r = &t->rows[i];
        if (r->kind != GG_CMP_COMPARED) {
            y->only_here += r->kind == GG_CMP_ONLY_HERE;
            y->only_ref += r->kind == GG_CMP_ONLY_REF;
            y->shape += r->kind == GG_CMP_SHAPES;
            y->undecodable += r->kind == GG_CMP_UNDECODABLE;
            continue;
        }
        y->compared++;
        ranked += r->elements != 0;
        group *gt = group_of(&y->types, &y->ntypes, r->type, -1);
        group *gl = group_of(&y->layers, &y->nlayers, NULL, r->layer);
        if (!gt || !gl)
            return -1;
        gt->tensors++;
        gl->tensors++;
        gt->elements += r->elements;
        gl->elements += r->elements;
        y->elements += r->elements;
        y->w_elements += r->weighted ? r->elements : 0;
        int nw = (int)escaped_len(gg_tsv_field, r->name, r->name_len), tw = (int)strlen(r->type);
        int jnw = (int)escaped_len(gg_json_string, r->name, r->name_len);
        int jtw = (int)escaped_len(gg_json_string, r->type, strlen(r->type));
        y->name_w = nw > y->name_w ? nw : y->name_w;
        y->type_w = tw > y->type_w ? tw : y->type_w;
        y->jname_w = jnw > y->jname_w ? jnw : y->jname_w;
        y->jtype_w = jtw > y->jtype_w ? jtw : y->jtype_w;
        if (!r->sums) {
            y->known = 0;
            continue;
        }
        const gg_cmp_sums *s = r->sums;
        y->d2 += s->d2;
        y->r2 += s->r2;
        y->wd2 += r->weighted ? s->wd2 : 0;
        y->wr2 += r->weighted ? s->wr2 : 0;
        gt->d2 += s->d2;
        gt->r2 += s->r2;
        gl->d2 += s->d2;
        gl->r2 += s->r2;
        if (r->elements) /* (a tensor of no elements has no rel_rmse to rank) */
            y->worst[y->nworst++] = i;
    }
    if (y->nlayers)
        qsort(y->layers, y->nlayers, sizeof *y->layers, by_layer);
    if (y->known)
        qsort_r(y->worst, y->nworst, sizeof *y->worst, by_badness, (void *)t->rows);
    y->nworst = ranked < GG_CMP_WORST ? ranked : GG_CMP_WORST;
    return 0;
}

static void tally_free(tally *y)
{
    free(y->types);
    free(y->layers);
    free(y->worst);
}

/* The tally of a summary's table; out of memory: -1, out marked (oom) and
 * nothing left to free. */
static int tally_up(const gg_cmp_table *t, tally *y, gg_buf *out)
{
    if (!tally_rows(t, y))
        return 0;
    tally_free(y);
    out->oom = 1;
    return -1;
}

/* rel_rmse of a group of n elements: NULL while not known, NOTHING over none. */
static const double *group_rel(const tally *y, uint64_t n, double d2, double r2, double *v)
{
    *v = rel(d2, r2);
    return !n ? NOTHING : y->known ? v : NULL;
}

static void bytes_line(gg_buf *out, const char *label, uint64_t bytes, double bpw)
{
    gg_buf_printf(out, "%-15s %" PRIu64 " bytes, ", label, bytes);
    if (bpw > 0)
        gg_buf_printf(out, "%.2f bits per weight\n", bpw);
    else
        gg_buf_puts(out, "- bits per weight\n");
}

void gg_compare_summary(const gg_cmp_table *t, gg_buf *out)
{
    tally y;
    if (tally_up(t, &y, out))
        return;
    double v;
    gg_buf_puts(out, "model           ");
    gg_tsv_field(out, t->model, strlen(t->model));
    gg_buf_puts(out, "\nreference       ");
    gg_tsv_field(out, t->ref, strlen(t->ref));
    gg_buf_puts(out, "\n");
    bytes_line(out, "size", t->bytes, t->bpw);
    bytes_line(out, "reference size", t->ref_bytes, t->ref_bpw);
    gg_buf_printf(out, "tensors         %" PRIu64 " compared, %" PRIu64 " only in this model, %" PRIu64
                  " only in the reference, %" PRIu64 " of different shapes, %" PRIu64 " not decodable\n",
                  y.compared, y.only_here, y.only_ref, y.shape, y.undecodable);
    gg_buf_puts(out, "rel_rmse        ");
    figure(out, group_rel(&y, y.elements, y.d2, y.r2, &v), 0);
    gg_buf_puts(out, "\n");
    if (t->weighted) {
        gg_buf_puts(out, "w_rel_rmse      ");
        figure(out, group_rel(&y, y.w_elements, y.wd2, y.wr2, &v), 0);
        gg_buf_puts(out, "\n");
    }
    gg_buf_printf(out, "by type         %7s %*s\n", "tensors", GG_CMP_WIDTH, "rel_rmse");
    for (size_t i = 0; i < y.ntypes; i++) {
        gg_buf_printf(out, "  %-13s %7" PRIu64 " ", y.types[i].type, y.types[i].tensors);
        figure(out, group_rel(&y, y.types[i].elements, y.types[i].d2, y.types[i].r2, &v), 0);
        gg_buf_puts(out, "\n");
    }
    gg_buf_printf(out, "by layer        %7s %*s\n", "tensors", GG_CMP_WIDTH, "rel_rmse");
    for (size_t i = 0; i < y.nlayers; i++) {
        if (y.layers[i].layer >= 0)
            gg_buf_printf(out, "  %-13" PRId64 " %7" PRIu64 " ", y.layers[i].layer, y.layers[i].tensors);
        else
            gg_buf_printf(out, "  %-13s %7" PRIu64 " ", "(none)", y.layers[i].tensors);
        figure(out, group_rel(&y, y.layers[i].elements, y.layers[i].d2, y.layers[i].r2, &v), 0);
        gg_buf_puts(out, "\n");
    }
    gg_buf_printf(out, "worst by rel_rmse\n");
    for (size_t k = 0; k < y.nworst; k++) {
        gg_buf_puts(out, "  ");
        if (!y.known) {
            gg_buf_printf(out, "%*s  %*s  ", y.name_w, "", y.type_w, "");
            figure(out, NULL, 0);
        } else {
            const gg_cmp_row *r = &t->rows[y.worst[k]];
            size_t at = out->len;
            gg_tsv_field(out, r->name, r->name_len);
            gg_buf_printf(out, "%*s  %-*s  ", y.name_w - (int)(out->len - at), "", y.type_w, r->type);
            figure(out, group_rel(&y, r->elements, r->sums->d2, r->sums->r2, &v), 0);
        }
        gg_buf_puts(out, "\n");
    }
    tally_free(&y);
}

/* A JSON string padded with spaces to w bytes (blank while not known). */
static void json_padded(gg_buf *out, const char *s, size_t n, int w, int known)
{
    size_t at = out->len;
    if (known)
        gg_json_string(out, s, n);
    gg_buf_printf(out, "%*s", w - (int)(out->len - at), "");
}

static void json_bpw(gg_buf *out, const char *key, double bpw)
{
    if (bpw > 0)
        gg_buf_printf(out, ",\n  \"%s\": %.4f", key, bpw);
    else
        gg_buf_printf(out, ",\n  \"%s\": null", key);
}

void gg_compare_summary_json(const gg_cmp_table *t, gg_buf *out)
{
    tally y;
    if (tally_up(t, &y, out))
        return;
    double v;
    gg_buf_puts(out, "{\n  \"model\": ");
    gg_json_string(out, t->model, strlen(t->model));
    gg_buf_puts(out, ",\n  \"reference\": ");
    gg_json_string(out, t->ref, strlen(t->ref));
    gg_buf_printf(out, ",\n  \"file_bytes\": %" PRIu64 ",\n  \"ref_file_bytes\": %" PRIu64, t->bytes, t->ref_bytes);
    json_bpw(out, "bits_per_weight", t->bpw);
    json_bpw(out, "ref_bits_per_weight", t->ref_bpw);
    gg_buf_printf(out, ",\n  \"tensors\": {\"compared\": %" PRIu64 ", \"only_in_model\": %" PRIu64
                  ", \"only_in_reference\": %" PRIu64 ", \"different_shapes\": %" PRIu64
                  ", \"not_decodable\": %" PRIu64 "}", y.compared, y.only_here, y.only_ref, y.shape, y.undecodable);
    gg_buf_puts(out, ",\n  \"rel_rmse\": ");
    figure(out, group_rel(&y, y.elements, y.d2, y.r2, &v), 1);
    if (t->weighted) {
        gg_buf_puts(out, ",\n  \"w_rel_rmse\": ");
        figure(out, group_rel(&y, y.w_elements, y.wd2, y.wr2, &v), 1);
    }
    gg_buf_puts(out, ",\n  \"types\": [");
    for (size_t i = 0; i < y.ntypes; i++) {
        gg_buf_printf(out, "%s\n    {\"type\": ", i ? "," : "");
        gg_json_string(out, y.types[i].type, strlen(y.types[i].type));
        gg_buf_printf(out, ", \"tensors\": %" PRIu64 ", \"rel_rmse\": ", y.types[i].tensors);
        figure(out, group_rel(&y, y.types[i].elements, y.types[i].d2, y.types[i].r2, &v), 1);
        gg_buf_puts(out, "}");
    }
    gg_buf_puts(out, "\n  ],\n  \"layers\": [");
    for (size_t i = 0; i < y.nlayers; i++) {
        gg_buf_printf(out, "%s\n    {\"layer\": ", i ? "," : "");
        if (y.layers[i].layer >= 0)
            gg_buf_printf(out, "%" PRId64, y.layers[i].layer);
        else
            gg_buf_puts(out, "null");
        gg_buf_printf(out, ", \"tensors\": %" PRIu64 ", \"rel_rmse\": ", y.layers[i].tensors);
        figure(out, group_rel(&y, y.layers[i].elements, y.layers[i].d2, y.layers[i].r2, &v), 1);
        gg_buf_puts(out, "}");
    }
    gg_buf_puts(out, "\n  ],\n  \"worst\": [");
    for (size_t k = 0; k < y.nworst; k++) {
        const gg_cmp_row *r = y.known ? &t->rows[y.worst[k]] : NULL;
        gg_buf_printf(out, "%s\n    {\"rel_rmse\": ", k ? "," : "");
        figure(out, r ? group_rel(&y, r->elements, r->sums->d2, r->sums->r2, &v) : NULL, 1);
        gg_buf_puts(out, ", \"type\": ");
        json_padded(out, r ? r->type : "", r ? strlen(r->type) : 0, y.jtype_w, r != NULL);
        gg_buf_puts(out, ", \"name\": ");
        json_padded(out, r ? r->name : "", r ? r->name_len : 0, y.jname_w, r != NULL);
        gg_buf_puts(out, "}");
    }
    gg_buf_puts(out, "\n  ]\n}\n");
    tally_free(&y);
}
