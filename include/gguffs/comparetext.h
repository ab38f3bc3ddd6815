/* comparetext.h - the texts of a comparison of two models (vs/<ref>/ and
 * gguffs --compare): tensors.tsv, summary and summary.json, as pure
 * functions of the figures that compare.h folds. They know no model file
 * and read no tensor data.
 *
 * Every figure is written as the shortest text that reads back to the same
 * double (floatfmt.h), right-aligned in a field of GG_CMP_WIDTH bytes, and
 * everything else in the texts is known before any figure is: written with
 * no figures (rows' sums NULL) a text has exactly the length it has with
 * them, so a file's size is known before anything is computed.
 *
 * Figures of a tensor, from its sums (this model a, the reference r, d = a - r):
 *   rmse = sqrt(Σd² / n), max_abs_err = max |d|, rel_rmse = sqrt(Σd² / Σr²),
 *   cosine = Σa·r / (sqrt(Σa²)·sqrt(Σr²)) clamped to [-1, 1] (nan when a or r
 *   is all zeros), snr_db = 10·log10(Σr² / Σd²), w_rel_rmse = sqrt(Σw·d² / Σw·r²)
 *   with w the imatrix weight of each element's column.
 *   Equal tensors (Σd² = 0): rel_rmse and w_rel_rmse 0, cosine 1 (or nan as
 *   above), snr_db inf. A NaN anywhere makes the figures nan. A figure over
 *   no element (a tensor of none; a summary's group of none, such as the
 *   whole model when nothing was compared) is "-", null in JSON. */
#ifndef GGUFFS_COMPARETEXT_H
#define GGUFFS_COMPARETEXT_H

#include <stddef.h>
#include <stdint.h>

#include "gguffs/buf.h"
#include "gguffs/floatfmt.h"

#define GG_CMP_WIDTH GG_FMT_F64_LEN /* a figure's field: any double fits */
#define GG_CMP_WORST 10             /* tensors in the summary's list of the worst */

/* What is folded of one pair of tensors, in double precision. */
typedef struct gg_cmp_sums {
    uint64_t n;       /* elements */
    double d2;        /* Σ (a - r)² */
    double r2, a2;    /* Σ r², Σ a² */
    double ar;        /* Σ a·r */
    double max_abs;   /* max |a - r|; nan when a difference is nan */
    double wd2, wr2;  /* Σ w·(a - r)², Σ w·r² (weighted rows only) */
} gg_cmp_sums;

typedef struct gg_cmp_figs {
    double rmse, max_abs_err, rel_rmse, cosine, snr_db, w_rel_rmse;
} gg_cmp_figs;

void gg_cmp_figures(const gg_cmp_sums *s, gg_cmp_figs *f);

/* Why a tensor is on a line of its own (the ones compared come first). */
typedef enum gg_cmp_kind {
    GG_CMP_COMPARED,
    GG_CMP_ONLY_HERE,    /* only in this model */
    GG_CMP_ONLY_REF,     /* only in the reference */
    GG_CMP_SHAPES,       /* different shapes */
    GG_CMP_UNDECODABLE,  /* one of the two cannot be decoded */
} gg_cmp_kind;

/* One line of tensors.tsv. */
typedef struct gg_cmp_row {
    const char *name;         /* the GGUF name, name_len bytes (any bytes) */
    size_t name_len;
    const char *type, *ref_type; /* the two models' types; "" where a model has no such tensor */
    uint64_t elements;
    int64_t layer;            /* N of a "blk.N." name, -1 for the others */
    int weighted;             /* the imatrix weighs it: a w_rel_rmse */
    gg_cmp_kind kind;
    const char *note;         /* why it is not compared (NULL for GG_CMP_COMPARED) */
    const gg_cmp_sums *sums;  /* compared: its sums, or NULL while not known */
} gg_cmp_row;

typedef struct gg_cmp_table {
    const gg_cmp_row *rows;   /* the tensors compared first, then the noted ones */
    size_t n;
    int weighted;             /* an imatrix is given: tensors.tsv has a w_rel_rmse column */
    const char *model, *ref;  /* the two models' paths */
    uint64_t bytes, ref_bytes; /* their files' sizes */
    double bpw, ref_bpw;      /* bits per weight; 0 when a model has no parameters */
} gg_cmp_table;

/* tensors.tsv: a header line, then a line per row. */
void gg_compare_tsv(const gg_cmp_table *t, gg_buf *out);
/* summary (for people) and summary.json: the whole model's rel_rmse (and
 * w_rel_rmse), per type of this model and per layer, the GG_CMP_WORST
 * worst tensors by rel_rmse (nan first), the files' sizes and bits per weight. */
void gg_compare_summary(const gg_cmp_table *t, gg_buf *out);
void gg_compare_summary_json(const gg_cmp_table *t, gg_buf *out);

#endif
