/* shelf_texts.c - what the shelf says of itself: models.tsv, .errors and
 * the totals of statfs (state in shelf_int.h). */
#include "gguffs/shelf.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "gguffs/render.h"
#include "gguffs/summary.h"
#include "shelf_int.h"

/* The full name of a visible entry as the tree shows it. */
void shelf_shown_path(const gg_shelf *s, uint32_t node, gg_buf *out)
{
    if (node == 0)
        return;
    shelf_shown_path(s, s->nodes[node].parent, out);
    if (s->nodes[node].parent != 0)
        gg_buf_put(out, "/", 1);
    gg_buf_puts(out, s->nodes[node].name);
}

/* The entry ids of the models below folder dir, in the order a listing
 * shows them (each folder's names in order, depth first); lock held. */
static void models_in_order(const gg_shelf *s, uint32_t dir, uint32_t *ids, uint32_t *n, uint32_t cap, int depth)
{
    const snode *d = &s->nodes[dir];
    for (uint32_t i = 0; i < d->nkids && *n < cap; i++) {
        const snode *c = &s->nodes[d->kids[i]];
        if (c->kind == GG_SN_MODEL)
            ids[(*n)++] = c->entry;
        else if (c->kind == GG_SN_DIR && depth < 64)
            models_in_order(s, d->kids[i], ids, n, cap, depth + 1);
    }
}

/* Where a model comes from, for models.tsv and .errors: a URL without its
 * credentials and query string. */
static void spec_field(gg_buf *out, const char *spec)
{
    char *shown = gg_spec_kind_of(spec) == GG_SPEC_URL ? gg_url_display(spec) : NULL;
    const char *v = shown ? shown : gg_spec_kind_of(spec) == GG_SPEC_URL ? "(a URL)" : spec;
    gg_tsv_field(out, v, strlen(v));
    free(shown);
}

/* en's figures, learnt now if it was not opened yet (a header). Returns 1
 * if known, 0 if not just now (its line says "-"), -1 if it failed to open
 * (it goes to the errors, and has no line). */
static int learn_figures(gg_shelf *s, gg_entry *en, gg_summary *sum)
{
    pthread_mutex_lock(&en->mu);
    gg_err err;
    int have = en->have_sum;
    if (!have)
        have = shelf_peek_model(s, en, &err) == 0;
    int later = !have && (gg_spec_kind_of(en->spec) != GG_SPEC_PATH ||
                          (shelf_transient(&err) && shelf_failed_for_now(s, en, &err) == 0));
    *sum = en->sum;
    pthread_mutex_unlock(&en->mu);
    if (!have && !later) {
        shelf_failed(s, en, &err);
        return -1;
    }
    return have;
}

/* The line of visible model en (lock held): its figures if have, else its
 * size only. */
static void tsv_line(const gg_shelf *s, const gg_entry *en, const gg_summary *sum, int have, gg_buf *out)
{
    gg_buf name = {0};
    shelf_shown_path(s, en->node, &name);
    char p[32];
    gg_params_text(sum->params, p, sizeof p);
    gg_tsv_field(out, name.p ? name.p : "", name.len);
    gg_buf_put(out, "\t", 1);
    if (have) {
        gg_tsv_field(out, sum->arch[0] ? sum->arch : "-", strlen(sum->arch[0] ? sum->arch : "-"));
        gg_buf_printf(out, "\t%s\t%s\t", p, sum->main_type[0] ? sum->main_type : "-");
        if (sum->params) /* (bits per weight of no parameters: "-") */
            gg_buf_printf(out, "%.2f", sum->bpw);
        else
            gg_buf_puts(out, "-");
        gg_buf_printf(out, "\t%" PRIu64 "\t", sum->file_bytes);
    } else { /* (cannot be opened just now: its figures are not known) */
        gg_buf_printf(out, "-\t-\t-\t-\t%" PRIu64 "\t", en->size);
    }
    spec_field(out, en->spec);
    gg_buf_put(out, "\n", 1);
    gg_buf_free(&name);
}

void gg_shelf_models_tsv(gg_shelf *s, gg_buf *out)
{
    gg_buf_puts(out, "name\tarchitecture\tparameters\tmain_type\tbits_per_weight\tbytes\tpath\n");
    pthread_rwlock_rdlock(&s->lock);
    uint32_t cap = s->nent, n = 0;
    uint32_t *ids = malloc((cap ? cap : 1) * sizeof *ids);
    if (ids)
        models_in_order(s, 0, ids, &n, cap, 0);
    pthread_rwlock_unlock(&s->lock);
    if (!ids) {
        out->oom = 1;
        return;
    }
    /* The figures of models not opened yet are learnt now (a header each). */
    for (uint32_t k = 0; k < n; k++) {
        gg_entry *en = gg_shelf_entry(s, ids[k]);
        if (!en)
            continue;
        pthread_rwlock_rdlock(&s->lock);
        int visible = en->state == E_VISIBLE;
        pthread_rwlock_unlock(&s->lock);
        if (!visible)
            continue;
        gg_summary sum;
        int have = learn_figures(s, en, &sum);
        if (have < 0)
            continue;
        pthread_rwlock_rdlock(&s->lock);
        if (en->state == E_VISIBLE)
            tsv_line(s, en, &sum, have, out);
        pthread_rwlock_unlock(&s->lock);
    }
    free(ids);
}

void gg_shelf_errors(gg_shelf *s, gg_buf *out)
{
    gg_buf_puts(out, "path\toffset\tmessage\n");
    pthread_rwlock_rdlock(&s->lock);
    for (uint32_t k = 0; k < s->nent; k++) {
        const gg_entry *en = s->ent[k];
        if (en->state != E_ERROR || !en->error)
            continue;
        /* "FILE: offset N: what" -> N; messages without an offset give "-" */
        const char *o = strstr(en->error, ": offset ");
        spec_field(out, en->spec);
        if (o)
            gg_buf_printf(out, "\t%" PRIu64 "\t", (uint64_t)strtoull(o + 9, NULL, 10));
        else
            gg_buf_puts(out, "\t-\t");
        gg_tsv_field(out, en->error, strlen(en->error));
        gg_buf_put(out, "\n", 1);
    }
    pthread_rwlock_unlock(&s->lock);
}

void gg_shelf_totals(gg_shelf *s, uint64_t *bytes, uint64_t *models)
{
    *bytes = *models = 0;
    pthread_rwlock_rdlock(&s->lock);
    for (uint32_t k = 0; k < s->nent; k++) {
        if (s->ent[k]->state == E_VISIBLE) {
            *bytes += s->ent[k]->size; /* (not the model: another thread may be closing it) */
            (*models)++;
        }
    }
    pthread_rwlock_unlock(&s->lock);
}
