/* resolve.h - dialect resolution, shared by model.c (internal to the core). */
#ifndef GGUFFS_RESOLVE_H
#define GGUFFS_RESOLVE_H

#include <stdint.h>

#include "gguffs/model.h"

/* Evidence of which programs wrote the file (GG_DIALECT_* bits): metadata
 * keys, and ids that only one dialect defines. Only breaks ties. */
uint32_t gg_dialect_evidence(const gg_model *m);

/* The type t's id means here, given its shape and t->space; NULL (with
 * t->err set) when unknown, ambiguous or fitting nothing. t->resolution
 * explains the choice when the id has several meanings or was forced. */
const gg_type *gg_resolve(gg_model *m, gg_tensor *t, const gg_open_opts *o);

/* Rows of a tensor: the product of its dimensions after the first. */
uint64_t gg_nrows(const gg_tinfo *ti);

#endif
