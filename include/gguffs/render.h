/* render.h - key/value pairs as the text users read: one file per key, and
 * the whole metadata as JSON.
 *
 * Text rules (metadata/<key>):
 *   integers in decimal; floats as the shortest decimal that reads back to the
 *   same value (f32 and f64 each at their own precision, Python-style: 1e-05,
 *   10000.0, -0.0, inf, nan); bools true/false; a string is its exact bytes
 *   and "\n"; an array is one element per line, string elements escaping
 *   backslash, newline and carriage return as \\ \n \r (so `wc -l` counts
 *   elements); an element that is itself an array is one line of JSON. */
#ifndef GGUFFS_RENDER_H
#define GGUFFS_RENDER_H

#include <stddef.h>
#include <stdint.h>

#include "gguffs/buf.h"
#include "gguffs/floatfmt.h" /* gg_fmt_f32, gg_fmt_f64: the float text rules */
#include "gguffs/gguf.h"

/* The text of metadata/<key> for KV kv. */
void gg_render_kv_text(const gg_file *f, const gg_kv *kv, gg_buf *out);
/* What --dump shows of it: the same lines, at most max elements of an
 * array, and a string (or string element) written as a TSV field
 * (gg_tsv_field), so that no control byte reaches a terminal. */
void gg_render_kv_text_n(const gg_file *f, const gg_kv *kv, uint64_t max, gg_buf *out);

/* A field of a tab-separated file, and any text shown that comes from a
 * file (names, values): backslash, tab, newline and CR as \\ \t \n \r,
 * any other control byte (NUL too) as \xHH; other bytes as they are. */
void gg_tsv_field(gg_buf *out, const char *s, size_t n);

/* The value of KV kv as JSON, as metadata.json writes it (an array cut to
 * its first max elements). */
void gg_render_value_json(const gg_file *f, const gg_kv *kv, uint64_t max, gg_buf *out);

/* metadata.json: {"key": {"type": ..., "value": ...}, ...} in file order.
 * Strings are gg_json_string()s. No key is lost: a key that is not valid
 * UTF-8 is written with U+FFFD replacements, made distinct from every other
 * key with "~2", "~3", ... (keys that are valid UTF-8 keep their exact
 * form), and its object says "key_hex": the exact bytes in hex. */
void gg_render_metadata_json(const gg_file *f, gg_buf *out);

/* The keys metadata.json gives the KVs that are not valid UTF-8, per KV
 * index: the inside of the JSON string literal; NULL for keys written as
 * themselves. Returns NULL when every key is valid UTF-8 (or, with *oom
 * set, when memory ran out). Free with gg_metadata_json_keys_free(). */
char **gg_metadata_json_keys(const gg_file *f, int *oom);
void gg_metadata_json_keys_free(const gg_file *f, char **keys);

#endif
