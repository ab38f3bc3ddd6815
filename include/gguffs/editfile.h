/* editfile.h - a model's edits (kvedit.h) kept in a small JSON file of
 * their own, never in the model:
 *
 *   {
 *     "gguffs_edits": 1,
 *     "model": {"path": "/models/qwen.gguf", "size": 4683073504,
 *               "header_sha256": "9f86d0..."},
 *     "set": {
 *       "general.name": {"type": "str", "value": "Qwen2.5 7B Instruct"},
 *       "tokenizer.ggml.eos_token_id": {"type": "u32", "value": 151645},
 *       "my.list": {"type": "arr[i32]", "value": [1, 2, 3]}
 *     },
 *     "removed": ["general.url"]
 *   }
 *
 * "set" holds every key set, in the order they were first set (new keys
 * go last in that order); a value is written as metadata.json writes it,
 * or as "value_hex" (the GGUF bytes of the value, after its type) when its
 * JSON would not give the same bytes back (strings that are not UTF-8, a
 * NaN's payload). A key that is not UTF-8 has "key_hex" beside its value.
 *
 * "model" names the model the edits were made for: its path (made
 * absolute and canonical for a local file; the URL for a remote one), its
 * size in bytes (all files of a split set), and the SHA-256 of its header
 * (of a split set, of the shards' headers' digests in order). Loading
 * refuses edits made for another model, or for this one changed since,
 * naming the difference: they are never applied to the wrong model.
 *
 * Saving writes a file beside it, syncs it and renames it over the old
 * one (then syncs the folder): a crash at any point leaves the old edits
 * or the new ones, whole. */
#ifndef GGUFFS_EDITFILE_H
#define GGUFFS_EDITFILE_H

#include "gguffs/error.h"
#include "gguffs/kvedit.h"
#include "gguffs/model.h"

/* What names model m in an edits file: the SHA-256 of its header(s), its
 * size and real path. Worked out by the first load of a file that exists
 * or the first save (about 30 ms for a header of 6.5 MB); start it zeroed
 * (path NULL: not worked out yet), free it with gg_model_ident_free. */
typedef struct gg_model_ident {
    char *path;
    uint64_t size;
    char sha256[65];
} gg_model_ident;

void gg_model_ident_free(gg_model_ident *id);

/* The edits of path for model m (id: its identity) into *out. A file that
 * does not exist is no edits (0, *out empty). Else 0, or -1 with *e set:
 * GG_E_INVAL for edits of another model (or of m changed since) or a file
 * that is not an edits file (naming the file, and where and what), I/O
 * errors as they are. Free *out with gg_edits_free. */
int gg_editfile_load(const char *path, const gg_model *m, gg_model_ident *id, gg_edits *out, gg_err *e);

/* Save ed (whose result is `edited`, gg_edits_apply's) for model m (id:
 * its identity) to path, atomically, making its folder if it is missing.
 * 0, or -1 with *e. */
int gg_editfile_save(const char *path, const gg_model *m, gg_model_ident *id, const gg_file *edited,
                     const gg_edits *ed, gg_err *e);

/* Remove what a save cut short left beside path (PATH.tmp-XXXXXX): for
 * the one process that writes path, before it writes. */
void gg_editfile_tidy(const char *path);

#endif
