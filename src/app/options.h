/* options.h - the command line: words, -o options and their checked values.
 *
 * Every gguffs option is parsed and range-checked here, before anything is
 * opened, from one table in options.c (a new option is one row there); a
 * bad value is refused with a message naming the option and the values it
 * accepts (exit status 2). Options libfuse knows (allow_other, ...) are
 * passed on to it untouched. --dump and --verify take the options
 * that change how a model is read (types=, stq1_0_order=, simd=, threads=);
 * --cat and --compare every gguffs option (those of libfuse are refused). */
#ifndef GGUFFS_OPTIONS_H
#define GGUFFS_OPTIONS_H

#include <stdio.h>

#include "fuse_glue.h"
#include "gguffs/model.h"
#include "gguffs/net.h"
#include "gguffs/tree.h"
#include "gguffs/view.h"

typedef enum gg_mode {
    GG_MODE_MOUNT,
    GG_MODE_DUMP,
    GG_MODE_VERIFY,
    GG_MODE_CAT,
    GG_MODE_COMPARE,
    GG_MODE_SET,
    GG_MODE_HELP,
    GG_MODE_VERSION
} gg_mode;

typedef struct gg_cli {
    gg_mode mode;
    int json, full;        /* --dump --json / --full; --compare --json */
    int stores;            /* --ollama (1), --hf-cache (2), --lmstudio (4) */
    char **only;           /* --verify --tensor GLOB (repeatable) */
    int n_only;
    char **pos;            /* models..., and the mount point when mounting (--cat: MODEL PATH) */
    int npos;
    char *logfile;         /* -o logfile=PATH */
    char *cafile;          /* -o cafile=PATH, absolute (net.cafile points at it) */
    char *cache_dir;       /* -o cache_dir=DIR, absolute (net.cache_dir points at it) */
    char *s3_region, *s3_endpoint, *ollama_registry; /* -o s3_region= ... (net's point at them) */
    char *imatrix;         /* -o imatrix=FILE, absolute: weighs the comparisons (vs/, --compare) */
    char *as;              /* -o as=LIST: the recipes as/ lists (tree.as points here) */
    char *edits;           /* -o edits=FILE|DIR, absolute: the models' edits (editfile.h) */
    char **sets;           /* --set KEY[:TYPE]=VALUE, --remove KEY: "=KEY..." / "-KEY", in order */
    int nsets;
    gg_reader_opts reader;
    gg_open_opts open;
    gg_fuse_opts fuse;
    gg_tree_opts tree;
    gg_net_opts net;       /* for URLs and hf:// names */
    uint64_t models_bytes; /* -o model_memory=SIZE: opened models of folders kept within it */
    char *headers[GG_NET_MAX_HEADERS]; /* -o header=: what net.headers point at */
    int fuse_argc;         /* what goes to libfuse: argv[0], -f/-d/-s, -o ... */
    char **fuse_argv;
} gg_cli;

/* Parse argv. Returns 0, or an exit status (2 for usage errors, after a
 * message on stderr). Free with gg_cli_free() in both cases. */
int gg_cli_parse(gg_cli *c, int argc, char **argv);
void gg_cli_free(gg_cli *c);

void gg_cli_usage(FILE *out);

/* "1.5G", "256M", "4096", "64KiB" -> bytes. Returns 0, or -1 if not a size. */
int gg_parse_size(const char *s, unsigned long long *out);

#endif
