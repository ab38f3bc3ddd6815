/* model.h - an opened GGUF model: the parsed header plus, for every tensor,
 * the type its id means in this file (dialect resolution), its layout and
 * the exact byte range of its data. A model is one file or the shards of a
 * split set, each read through a source (a local file or a URL). */
#ifndef GGUFFS_MODEL_H
#define GGUFFS_MODEL_H

#include <stdint.h>
#include <time.h>

#include "gguffs/error.h"
#include "gguffs/gguf.h"
#include "gguffs/layout.h"
#include "gguffs/source.h"

#define GG_MAX_FORCED 32

typedef struct gg_open_opts {
    int n_forced; /* -o types=ID:NAME,... */
    uint32_t forced_id[GG_MAX_FORCED];
    const gg_type *forced_type[GG_MAX_FORCED];
    int stq1_0_consecutive; /* -o stq1_0_order=consecutive */
    gg_url_opener open_url; /* for URLs (gg_net_url_opener); NULL: local files only */
    void *url_arg;
} gg_open_opts;

typedef struct gg_tensor {
    const gg_tinfo *info;
    uint32_t shard;    /* index into the model's shards: the file holding the data */
    const char *name;  /* into the header copy; name_len bytes, may hold any byte */
    uint64_t name_len;
    const gg_type *type; /* NULL when the id cannot be resolved */
    gg_layout layout;    /* valid when type != NULL */
    uint64_t abs_offset; /* offset of the data in its file */
    uint64_t nbytes;     /* bytes of `raw` */
    uint64_t space;      /* bytes from the data to the next tensor or end of file */
    int size_from_space; /* nbytes is `space`: the real size is unknown */
    gg_kept_err *err;    /* why f32 cannot be decoded; NULL if it can */
    char *resolution;    /* how the type was chosen when the id is ambiguous; NULL otherwise */
} gg_tensor;

/* Can its values be decoded? If not, the tree lists only its raw and
 * info.json (which says why), and model.safetensors leaves it out. */
static inline int gg_tensor_decodable(const gg_tensor *t) { return t->type && !t->err; }

/* A small file beside a model, shown in its folder: an Ollama layer read
 * whole (template, system, params, license). Where it is (a path, or a
 * URL opened as the model's are), its size and its sha256 (hex), as the
 * manifest names them. */
typedef struct gg_side_spec {
    char *name;
    char *spec;
    uint64_t size;
    char sha256[65];
} gg_side_spec;
typedef struct gg_side {
    char *name;
    char *bytes;
    uint64_t len;
} gg_side;
#define GG_SIDE_MAX (4u << 20) /* bytes of one side file, at most */

/* One file of a model (split models made by gguf-split have several). */
typedef struct gg_shard {
    gg_source *src; /* src->name is the path or URL */
    gg_file f;
} gg_shard;

typedef struct gg_model {
    char *path;          /* as given (a URL without credentials or query) */
    const char *base;    /* file name part of path, base_len bytes */
    size_t base_len;
    gg_shard *shards;    /* in split.no order; one for a plain file */
    uint32_t nshards;
    gg_file *f;          /* the metadata: the first shard's header */
    uint64_t size;       /* bytes of all shards */
    struct timespec mtime; /* newest of the shards */
    gg_tensor *t;        /* all tensors, shard after shard */
    uint64_t nt;
    uint32_t dialect_hint; /* GG_DIALECT_* evidence found in the file */
    gg_side *sides;      /* small files beside it (gg_model_load_sides) */
    uint32_t nsides;
} gg_model;

/* Open, parse and resolve. A shard of a split model (NAME-00002-of-00003.gguf
 * with split.* keys) opens the whole set. Returns 0, or -1 with *e set
 * (GG_E_NOTFOUND, GG_E_ACCESS, GG_E_NOTREG, GG_E_IO, GG_E_MALFORMED, ...).
 * Call gg_model_close() afterwards in both cases. */
int gg_model_open(gg_model *m, const char *path, const gg_open_opts *o, gg_err *e);
void gg_model_close(gg_model *m);

/* gguf-split names shards PREFIX-00001-of-00003.gguf. Where the
 * "-NNNNN-of-NNNNN.gguf" part starts in the n bytes at name, or -1; *part
 * (if not NULL) gets its first number. */
long gg_shard_suffix(const char *name, size_t n, int *part);
/* A model's name from a file name or a path (n bytes): without .gguf and
 * without a shard suffix. */
void gg_model_name_from(const char *name, size_t n, char *out, size_t cap);
/* The folder of a model named on the command line: its file name so
 * (never empty, no '/'). */
void gg_model_folder_name(const gg_model *m, char *out, size_t cap);

/* Read the side files whole (through o's URL opener for URLs), each
 * checked against its size and sha256, into m->sides. Returns 0, or -1 with
 * *e set naming the file and what was wrong (a digest that differs: the
 * blob is damaged). */
int gg_model_load_sides(gg_model *m, const gg_side_spec *sides, int n, const gg_open_opts *o, gg_err *e);
/* Copies of side specs (NULL, 0 for none): 0, or -1 (out of memory). */
int gg_side_specs_copy(gg_side_spec **dst, int *ndst, const gg_side_spec *src, int n);
void gg_side_specs_free(gg_side_spec *s, int n);

/* Memory the open model holds (header copies, tables), about. */
uint64_t gg_model_bytes(const gg_model *m);

/* Do a and b open the same file (or the same split set)? */
int gg_model_same(const gg_model *a, const gg_model *b);

/* The source holding tensor t's data. */
static inline gg_source *gg_tensor_source(const gg_model *m, const gg_tensor *t)
{
    return m->shards[t->shard].src;
}

/* Parse "ID:NAME[,ID:NAME...]" into o. Returns 0, or -1 (GG_E_INVAL). */
int gg_parse_forced_types(gg_open_opts *o, const char *spec, gg_err *e);

/* The dialect of a resolved type as a word ("mainline", "ik_llama.cpp", ...). */
const char *gg_dialect_name(uint32_t dialects);

#endif
