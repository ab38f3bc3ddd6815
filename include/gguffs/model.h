/* model.h - an opened GGUF model: the parsed header plus, for every tensor,
 * the type its id means in this file (dialect resolution), its layout and
 * the exact byte range of its data. */
#ifndef GGUFFS_MODEL_H
#define GGUFFS_MODEL_H

#include <stdint.h>
#include <time.h>

#include "gguffs/gguf.h"
#include "gguffs/layout.h"

/* Exit statuses, shared by the command line and the tests. */
enum {
    GG_EXIT_OK = 0,
    GG_EXIT_INTERNAL = 1,
    GG_EXIT_USAGE = 2,
    GG_EXIT_CANNOT_OPEN = 3,   /* model missing, unreadable */
    GG_EXIT_NOT_REGULAR = 4,   /* model is a directory or not a regular file */
    GG_EXIT_MALFORMED = 5,     /* not a valid GGUF file */
    GG_EXIT_MOUNTPOINT = 6,    /* mount point missing or not a directory */
    GG_EXIT_MOUNT_BUSY = 7,    /* mount point already mounted (or stale) */
    GG_EXIT_MOUNT_FAILED = 8,  /* FUSE refused to mount */
    GG_EXIT_VERIFY = 9,        /* --verify found problems */
    GG_EXIT_UNMOUNT = 10,      /* the mount could not be undone */
};

#define GG_MAX_FORCED 32

typedef struct gg_open_opts {
    int n_forced; /* -o types=ID:NAME,... */
    uint32_t forced_id[GG_MAX_FORCED];
    const gg_type *forced_type[GG_MAX_FORCED];
    int stq1_0_consecutive; /* -o stq1_0_order=consecutive */
} gg_open_opts;

typedef struct gg_tensor {
    const gg_tinfo *info;
    int fd;            /* file holding the data (its shard for split models) */
    uint32_t shard;    /* index into the model's shards */
    const char *name; /* into the header copy; name_len bytes, may hold any byte */
    uint64_t name_len;
    const gg_type *type; /* NULL when the id cannot be resolved */
    gg_layout layout;    /* valid when type != NULL */
    uint64_t abs_offset; /* file offset of the data */
    uint64_t nbytes;     /* bytes of `raw` */
    uint64_t space;      /* bytes from the data to the next tensor or end of file */
    int size_from_space; /* nbytes is `space`: the real size is unknown */
    char *why;           /* why f32 cannot be decoded; NULL if it can */
    char *resolution;    /* how the type was chosen when the id is ambiguous; NULL otherwise */
} gg_tensor;

/* One file of a model (split models made by gguf-split have several). */
typedef struct gg_shard {
    char *path;
    int fd;
    uint64_t size;
    struct timespec mtime;
    gg_file f;
} gg_shard;

typedef struct gg_model {
    char *path;          /* as given */
    const char *base;    /* file name part of path */
    gg_shard *shards;    /* in split.no order; one for a plain file */
    uint32_t nshards;
    gg_file *f;          /* the metadata: the first shard's header */
    uint64_t size;       /* bytes of all shards */
    struct timespec mtime; /* newest of the shards */
    gg_tensor *t;        /* all tensors, shard after shard */
    uint64_t nt;
    uint32_t dialect_hint; /* GG_DIALECT_* evidence found in the file */
} gg_model;

/* Open, parse and resolve. A shard of a split model (NAME-00002-of-00003.gguf
 * with split.* keys) opens the whole set. Returns GG_EXIT_OK, or an exit
 * status with a message in err (GG_ERR_LEN bytes). Call gg_model_close()
 * afterwards in both cases. */
int gg_model_open(gg_model *m, const char *path, const gg_open_opts *o, char *err);
void gg_model_close(gg_model *m);

/* Do a and b open the same file (or the same split set)? */
int gg_model_same(const gg_model *a, const gg_model *b);

/* Parse "ID:NAME[,ID:NAME...]" into o. Returns 0, or -1 with err set. */
int gg_parse_forced_types(gg_open_opts *o, const char *spec, char *err, size_t errlen);

/* The dialect of a resolved type as a word ("mainline", "ik_llama.cpp", ...). */
const char *gg_dialect_name(uint32_t dialects);

#endif
