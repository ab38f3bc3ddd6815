/* stores.h - the models a folder holds, as each kind of folder keeps them
 * (internal to the core: shelf.c scans with it).
 *
 *   plain   every *.gguf below the folder, by its path without .gguf; a
 *           split set once, by its first shard, named without the
 *           -NNNNN-of-NNNNN part; folders starting with '.' are skipped
 *   ollama  manifests[-v2]/HOST/NS/MODEL/TAG name their layers: the one of
 *           mediaType application/vnd.ollama.image.model is the blob
 *           blobs/sha256-HEX, shown as MODEL:TAG (NS library of
 *           registry.ollama.ai), NS/MODEL:TAG (another namespace) or
 *           HOST/NS/MODEL:TAG (another registry), nested like the HF
 *           cache's names; a projector layer is shown beside it as
 *           MODEL:TAG.projector; its template, system, params and license
 *           layers are side files of the model, named so (model.h). A
 *           manifest that is not JSON, names a digest
 *           that is not sha256 hex, or a blob that is missing is found as
 *           an error (its path is the manifest's)
 *   hf      models--ORG--NAME/snapshots/REV/PATH.gguf (symbolic links into
 *           blobs/, or files), as ORG/NAME/PATH for the revision refs/main
 *           points at and ORG/NAME@REV/PATH for the others */
#ifndef GGUFFS_STORES_H
#define GGUFFS_STORES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "gguffs/error.h"
#include "gguffs/model.h"
#include "gguffs/store.h"

typedef struct gg_found {
    char *key;      /* what identifies it across scans (its place in the store) */
    char **comps;   /* its name: raw components */
    int ncomps;
    char *spec;     /* the file to open (for a split set, its first shard) */
    dev_t dev;      /* the file as it is now */
    ino_t ino;
    uint64_t size;
    struct timespec mtime;
    int incomplete; /* a split set with a shard missing: it cannot open */
    char *error;    /* not a model but why this place holds none (spec: the
                     * file at fault, e.g. an Ollama manifest), or NULL */
    gg_side_spec *sides; /* files to show beside it: an Ollama model's template, system, params, license */
    int nsides;
} gg_found;

/* Every model of the folder. Returns 0 with *found (free with
 * gg_found_free), or -1 with *e set (the folder cannot be read). Files it
 * cannot make sense of are skipped. Folders on device skip (the mount's
 * own, when the mount point is inside the folder; 0: none) are not
 * looked into. */
int gg_store_scan(const char *dir, gg_store kind, dev_t skip, gg_found **found, size_t *n, gg_err *e);
void gg_found_free(gg_found *f, size_t n);

/* Does a process have the model's file (every shard of a split set) open
 * for writing? 1 yes, 0 no, -1 cannot tell (*why: the errno of the read
 * lease that would say: EACCES for a file neither ours nor ours to lease,
 * EINVAL where the file system has no leases). A read lease
 * (F_SETLEASE F_RDLCK) is refused with EAGAIN exactly while some process
 * has the file open for writing; it is released at once. */
int gg_store_writing(const char *spec, int *why);

#endif
