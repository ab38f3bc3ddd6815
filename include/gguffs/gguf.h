/* gguf.h - parse a GGUF file's header into an index of its key/value pairs
 * and tensor infos.
 *
 * The parser reads only the header (metadata and tensor infos), never the
 * tensor data; every read is bounds-checked against the file size, and every
 * failure is reported with the file name, the byte offset and what was
 * wrong. Values are not converted at parse time: a KV records where its
 * value lies in the header copy, and render.h turns it into text on demand. */
#ifndef GGUFFS_GGUF_H
#define GGUFFS_GGUF_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "gguffs/error.h"

#define GG_MAX_DIMS 4          /* ggml's GGML_MAX_DIMS */
#define GG_MAX_NESTING 8       /* arrays of arrays, at most this deep */
#define GG_MAX_STRING (1u << 30) /* 1 GiB */
#define GG_DEFAULT_ALIGNMENT 32

/* GGUF value types, numbered as the format numbers them. */
typedef enum gg_vtype {
    GG_VT_U8 = 0, GG_VT_I8 = 1, GG_VT_U16 = 2, GG_VT_I16 = 3, GG_VT_U32 = 4, GG_VT_I32 = 5,
    GG_VT_F32 = 6, GG_VT_BOOL = 7, GG_VT_STR = 8, GG_VT_ARR = 9, GG_VT_U64 = 10,
    GG_VT_I64 = 11, GG_VT_F64 = 12, GG_VT_COUNT
} gg_vtype;

/* A byte string inside the header copy. */
typedef struct gg_bytes {
    uint64_t off, len;
} gg_bytes;

typedef struct gg_kv {
    gg_bytes key;
    uint64_t at;        /* file offset of the KV (its key length) */
    uint32_t type;      /* gg_vtype */
    uint64_t val;       /* header offset of the value (after the type) */
    uint64_t val_len;   /* bytes of the encoded value */
    uint32_t arr_type;  /* arrays: element type */
    uint64_t arr_n;     /* arrays: element count */
} gg_kv;

typedef struct gg_tinfo {
    gg_bytes name;
    uint64_t at;        /* file offset of the tensor info */
    uint32_t n_dims;
    uint64_t ne[GG_MAX_DIMS]; /* ggml order; unused dims are 1 */
    uint64_t nelems;
    uint32_t type_id;
    uint64_t offset;    /* relative to the data section */
} gg_tinfo;

typedef struct gg_file {
    const char *path;   /* as given; used in messages */
    uint64_t size;      /* file size at parse time */
    uint8_t *hdr;       /* copy of bytes [0, hdr_len) of the file */
    uint64_t hdr_len;   /* end of the tensor infos */
    uint32_t version;
    uint64_t n_kv, n_tensors;
    gg_kv *kv;
    gg_tinfo *tensors;
    uint32_t alignment;
    uint64_t data_offset; /* start of the data section (aligned) */
} gg_file;

/* Parse the header of a `size`-byte file from its first `avail` bytes at
 * `bytes` (they may go past the header). Returns 0 and fills *f, or -1 with
 * *err set: GG_E_MALFORMED with "PATH: offset N: what", or GG_E_AGAIN when
 * the header goes on past `avail` bytes (then *want, if not NULL, says how
 * many bytes at least the next try needs). f owns a copy of the header; free
 * it with gg_file_free(). */
int gg_parse(const char *path, const uint8_t *bytes, uint64_t avail, uint64_t size, gg_file *f,
             uint64_t *want, gg_err *err);
void gg_file_free(gg_file *f);

/* Key / tensor name as a pointer into the header copy (not NUL-terminated). */
static inline const char *gg_str_ptr(const gg_file *f, gg_bytes b) { return (const char *)f->hdr + b.off; }

/* Index of the KV with this key, or -1. */
int64_t gg_find_key(const gg_file *f, const char *key);
/* The same for a key of n bytes (a key may hold any byte, NUL too). */
int64_t gg_find_key_n(const gg_file *f, const char *key, size_t n);

const char *gg_vtype_name(uint32_t t); /* "u8", "str", "arr", ... */
/* Bytes of one scalar element of type t (0 for str/arr). */
size_t gg_vtype_size(uint32_t t);

/* Scalar value readers (the KV must be of a matching scalar type). */
uint64_t gg_kv_u64(const gg_file *f, const gg_kv *kv); /* any unsigned/bool */
int64_t gg_kv_i64(const gg_file *f, const gg_kv *kv);  /* any integer */

#endif
