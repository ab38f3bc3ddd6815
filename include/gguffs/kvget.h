/* kvget.h - typed reads of metadata values, for the modules that turn keys
 * into other formats (the Hugging Face view): look a key up by architecture
 * and suffix, read a scalar as a number, a string, an array's elements.
 *
 * Every read checks the value's type and says so by its return; nothing
 * converts or allocates but gg_kv_str_index (which indexes an array of
 * strings once, so that element i is found without walking the others).
 * Values lie in the header copy the parser bounds-checked. */
#ifndef GGUFFS_KVGET_H
#define GGUFFS_KVGET_H

#include <stdint.h>

#include "gguffs/gguf.h"

/* The KV "<arch>.<suffix>" (or the key `suffix` when arch is NULL), or NULL. */
const gg_kv *gg_kv_get(const gg_file *f, const char *arch, const char *suffix);
/* The KV of the key of n bytes at key (any bytes), or NULL. */
const gg_kv *gg_kv_named(const gg_file *f, const char *key, size_t n);

/* A scalar integer or bool as an unsigned value: 0 and *v set, or -1 when
 * kv is NULL, not an integer or negative. */
int gg_kv_uint(const gg_file *f, const gg_kv *kv, uint64_t *v);
/* A scalar number of any type as a double (exact for f32): 0 or -1. */
int gg_kv_double(const gg_file *f, const gg_kv *kv, double *v);
/* A bool (or an integer: nonzero is true): 0 or -1. */
int gg_kv_bool(const gg_file *f, const gg_kv *kv, int *v);
/* A string: its bytes (not NUL-terminated) and length; 0 or -1. */
int gg_kv_str(const gg_file *f, const gg_kv *kv, const char **s, uint64_t *len);
/* Does the string value equal s? */
int gg_kv_str_is(const gg_file *f, const gg_kv *kv, const char *s);

/* An array of numbers: its element type and count, and where element 0
 * lies (little-endian, gg_vtype_size bytes each); -1 when kv is not an
 * array of scalars. */
int gg_kv_arr(const gg_file *f, const gg_kv *kv, uint32_t *type, uint64_t *n, const uint8_t **data);
/* Element i of such an array as a double / as a signed integer. */
double gg_kv_arr_double(uint32_t type, const uint8_t *data, uint64_t i);
int64_t gg_kv_arr_int(uint32_t type, const uint8_t *data, uint64_t i);

/* An array of strings: the header offset of each element's length field,
 * n + 1 entries (the last is the end), malloc'd; NULL when kv is not an
 * array of strings or memory is short. */
uint64_t *gg_kv_str_index(const gg_file *f, const gg_kv *kv, uint64_t *n);
/* Element i of an indexed array of strings. */
const char *gg_kv_str_at(const gg_file *f, const uint64_t *index, uint64_t i, uint64_t *len);

#endif
