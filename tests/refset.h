/* refset.h - reading the reference sets (tests/data/<set>/manifest.tsv, the
 * GGUF file and the expected f32 files) for the C test and bench tools.
 * Header-only: each tool includes it once. */
#ifndef GGUFFS_REFSET_H
#define GGUFFS_REFSET_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gguffs/types.h"

/* The whole file in memory (NULL if unreadable). */
static uint8_t *rs_slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *buf = malloc(n > 0 ? (size_t)n : 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return buf;
}

/* A manifest: a header line naming the tab-separated columns, then rows. */
typedef struct rs_manifest {
    FILE *f;
    char head[8192], line[8192];
    char *names[32], *cols[32];
    int nnames, ncols;
} rs_manifest;

static int rs_split(char *line, char **cols)
{
    int n = 0;
    line[strcspn(line, "\n")] = 0;
    for (char *s = line, *tok; n < 32 && (tok = strsep(&s, "\t"));)
        cols[n++] = tok;
    return n;
}

static int rs_open(rs_manifest *m, const char *path)
{
    memset(m, 0, sizeof *m);
    m->f = fopen(path, "r");
    if (!m->f || !fgets(m->head, sizeof m->head, m->f))
        return -1;
    m->nnames = rs_split(m->head, m->names);
    return 0;
}

/* Next row; 0 at the end. */
static int rs_next(rs_manifest *m)
{
    if (!fgets(m->line, sizeof m->line, m->f))
        return 0;
    m->ncols = rs_split(m->line, m->cols);
    return 1;
}

/* Column `name` of the current row, or NULL if the manifest has none. */
static const char *rs_get(const rs_manifest *m, const char *name)
{
    for (int i = 0; i < m->nnames && i < m->ncols; i++)
        if (strcmp(m->names[i], name) == 0)
            return m->cols[i];
    return NULL;
}

static void rs_close(rs_manifest *m)
{
    if (m->f)
        fclose(m->f);
}

/* "ne0,ne1,..." -> row length and row count. */
static void rs_dims(const char *dims, uint64_t *ne0, uint64_t *nrows)
{
    *ne0 = strtoull(dims, NULL, 10);
    *nrows = 1;
    for (const char *p = strchr(dims, ','); p; p = strchr(p + 1, ','))
        *nrows *= strtoull(p + 1, NULL, 10);
}

/* Our type for a manifest's type name (ik's Q1_0_G128 is our Q1_0). */
static const gg_type *rs_type(const char *type_name)
{
    return gg_type_by_name(strcasecmp(type_name, "q1_0_g128") ? type_name : "Q1_0");
}

#endif
