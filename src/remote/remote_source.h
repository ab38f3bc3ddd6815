/* remote_source.h - the one remote source: an object read through a fetcher
 * (fetch.h) as a source (source.h), with the net's block cache, disk cache,
 * read-ahead workers and counters (net.h). Internal to remote/. */
#ifndef GGUFFS_REMOTE_SOURCE_H
#define GGUFFS_REMOTE_SOURCE_H

#include "gguffs/net.h"
#include "gguffs/source.h"
#include "remote/fetch.h"

/* Open the object f reads (one fetch of its first block; without an answer,
 * from the disk cache's meta line if it has one). The source owns f from
 * here, also when it fails (NULL with *e set). f NULL: NULL (*e is set by
 * whoever failed to make it). */
gg_source *gg_remote_open(gg_net *net, gg_fetcher *f, gg_err *e);

/* The http(s) fetcher (http_fetch.c): url as given, redirects followed,
 * each request with policy (its scheme's, net.h; NULL: none). */
gg_fetcher *gg_http_fetcher_new(gg_net *net, const char *url, const gg_net_policy *policy, gg_err *e);

#endif
