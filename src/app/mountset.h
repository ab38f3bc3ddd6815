/* mountset.h - the models the command line names, as a shelf (see
 * mountset.c for the rules). */
#ifndef GGUFFS_MOUNTSET_H
#define GGUFFS_MOUNTSET_H

#include "gguffs/shelf.h"
#include "options.h"

/* From c->pos[0..npos) and c->stores: *out (free with gg_shelf_free) and
 * whether it is one model for the root. The HTTP client is made into *net
 * when a URL needs it. Returns 0, or an exit status after a message. */
int gg_mountset(gg_cli *c, int npos, gg_net **net, gg_shelf **out, int *single);

/* For --dump and --verify: the one model c->pos[0] names (a path, a URL,
 * an hf:// name of one file or of a repository holding one GGUF), as a
 * path or URL in *spec (malloc'ed). Returns 0, or an exit status. */
int gg_mountset_one(gg_cli *c, gg_net **net, char **spec);

/* -o edits= for a mount (write 1) or --cat (0) of what gg_mountset made:
 * c->tree's edits options. One model: a file (or in a folder that is
 * there, NAME.edits.json); several: a folder (made when first needed).
 * Returns 0, or an exit status after a message. */
int gg_mountset_edits(gg_cli *c, int single, int write);

#endif
