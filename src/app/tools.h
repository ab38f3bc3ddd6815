/* tools.h - commands that work without FUSE (containers often have none):
 * front ends of the core library, like the FUSE layer. */
#ifndef GGUFFS_TOOLS_H
#define GGUFFS_TOOLS_H

#include "cli.h"
#include "gguffs/imatrix.h"
#include "gguffs/model.h"
#include "gguffs/view.h"
#include "options.h"

typedef struct gg_tool_opts {
    int json, full;              /* --dump --json / --full */
    const gg_open_opts *open;    /* -o types=, stq1_0_order= (as when mounting) */
    const gg_reader_opts *reader; /* -o threads= */
    char **only;                 /* --verify --tensor GLOB...: only matching tensors */
    int n_only;
    const char *imatrix;         /* --compare -o imatrix=FILE */
    const char *edits;           /* --dump, --set -o edits=FILE */
    char **sets;                 /* --set, --remove: "=KEY[:TYPE]=VALUE" / "-KEY", in order */
    int nsets;
} gg_tool_opts;

/* gguffs --dump [--json] [--full] MODEL: header, key/values (long arrays
 * shortened unless --full) and the tensor table, with the file holding each
 * tensor for split models. Returns an exit status. */
int gg_tool_dump(const char *path, const gg_tool_opts *o);

/* gguffs --set KEY[:TYPE]=VALUE --remove KEY ... -o edits=FILE MODEL: the
 * changes, in order, made to the edits of FILE (editfile.h; made if
 * missing) as writing metadata/<key> of a mount would make them: a value
 * is text in the key's type (a new key: TYPE, else a string). All or
 * nothing: a value that does not parse, a key to remove that is not there,
 * and FILE stays as it was (exit status 2, after a message naming the key
 * and what was wrong). Returns an exit status. */
int gg_tool_set(const char *path, const gg_tool_opts *o);

/* gguffs --verify MODEL: decode every tensor (or those --tensor names) once,
 * on every core, and report NaN/Inf counts and decode errors; exit status 9
 * if any. */
int gg_tool_verify(const char *path, const gg_tool_opts *o);

/* gguffs --cat MODEL PATH: the file at PATH of the tree a mount of MODEL
 * (c->pos[0]: a file, a split set, a URL, an hf:// name, a folder) would
 * show, to stdout, as a mount reads it; a progress bar on stderr when it is
 * a terminal and stdout is not. A PATH that names no file of the tree:
 * GG_EXIT_NO_PATH, after a message saying which name is missing and what
 * the folder holds (and, for vs/ of one model, that it needs several).
 * Files of vs/ are there when MODEL names several models (a folder, a
 * repository), weighed by -o imatrix= as when mounted. Returns an exit
 * status. */
int gg_tool_cat(gg_cli *c);

/* gguffs --compare MODEL REF: the tensors.tsv of vs/REF/ in MODEL's folder
 * of a mount, the same bytes (with --json, its summary.json), computed on
 * every core with a progress bar on stderr when it is a terminal. */
int gg_tool_compare(const char *model, const char *ref, const gg_tool_opts *o);

/* -o imatrix=FILE (path may be NULL: none): *out, loaded (free with
 * gg_imatrix_free), for a mount, --cat and --compare alike. Returns an exit
 * status, after a message naming the option and the file. */
int gg_tool_imatrix(const char *path, const gg_open_opts *o, gg_imatrix **out);

#endif
