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

#include "gguffs/floatfmt.h" /* gg_fmt_f32, gg_fmt_f64: the float text rules */
#include "gguffs/gguf.h"

/* A growable byte buffer. */
typedef struct gg_buf {
    char *p;
    size_t len, cap;
    int oom; /* an allocation failed; contents are incomplete */
} gg_buf;

void gg_buf_put(gg_buf *b, const void *s, size_t n);
void gg_buf_puts(gg_buf *b, const char *s);
void gg_buf_printf(gg_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void gg_buf_free(gg_buf *b);

/* The text of metadata/<key> for KV kv. */
void gg_render_kv_text(const gg_file *f, const gg_kv *kv, gg_buf *out);

/* metadata.json: {"key": {"type": ..., "value": ...}, ...} in file order.
 * Strings that are not valid UTF-8 have the bad bytes replaced by U+FFFD. */
void gg_render_metadata_json(const gg_file *f, gg_buf *out);

/* Append s (n bytes) to out as a JSON string literal, quotes included. */
void gg_json_string(gg_buf *out, const char *s, size_t n);

#endif
