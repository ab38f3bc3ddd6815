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

#endif
