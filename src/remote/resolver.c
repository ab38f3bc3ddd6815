/* resolver.c - the resolver table, one row per source scheme, and what a
 * spec stands for (see resolver.h; a row's shape: scheme.h). */
#include "scheme.h"

#include <stdlib.h>
#include <string.h>

#include "gguffs/source.h"
#include "hf.h"

/* One row per scheme. */
static const gg_resolver *const table[] = {&gg_hf_resolver};
#define ROWS (sizeof table / sizeof *table)

/* The row of spec's scheme, or NULL (a path, a URL, a scheme of no row). */
static const gg_resolver *row_of(const char *spec)
{
    if (gg_spec_kind_of(spec) != GG_SPEC_NAME)
        return NULL;
    size_t n = strcspn(spec, ":");
    for (size_t i = 0; i < ROWS; i++)
        if (strlen(table[i]->scheme) == n && !strncmp(spec, table[i]->scheme, n))
            return table[i];
    return NULL;
}

int gg_resolved_add(gg_resolved *r, const char *spec, const char *path, const char *refused, gg_err *e)
{
    gg_resolved_model *p = realloc(r->models, (size_t)(r->count + 1) * sizeof *p);
    if (!p)
        return gg_fail(e, GG_E_NOMEM, "out of memory");
    r->models = p;
    gg_resolved_model *m = &p[r->count];
    m->spec = spec ? strdup(spec) : NULL;
    m->path = strdup(path);
    m->refused = refused ? strdup(refused) : NULL;
    if ((spec && !m->spec) || !m->path || (refused && !m->refused)) {
        free(m->spec);
        free(m->path);
        free(m->refused);
        return gg_fail(e, GG_E_NOMEM, "out of memory");
    }
    r->count++;
    return 0;
}

int gg_resolve_spec(gg_net *n, const char *spec, gg_resolved *r, gg_err *e)
{
    memset(r, 0, sizeof *r);
    const gg_resolver *row = row_of(spec);
    int rc = row ? row->expand(n, spec, r, e) : gg_resolved_add(r, spec, spec, NULL, e);
    if (rc)
        gg_resolved_free(r);
    return rc;
}

void gg_resolved_free(gg_resolved *r)
{
    for (int i = 0; i < r->count; i++) {
        free(r->models[i].spec);
        free(r->models[i].path);
        free(r->models[i].refused);
    }
    free(r->models);
    memset(r, 0, sizeof *r);
}
