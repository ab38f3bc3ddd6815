/* xattr.h - extended attributes of tree nodes (getfattr -d shows them).
 *
 * Tensor folders and files: user.gguf.type, user.gguf.type_id,
 * user.gguf.shape (numpy order), user.gguf.dims (ggml order),
 * user.gguf.offset (absolute file offset), user.gguf.bytes.
 * Metadata files: user.gguf.type (value type), and for arrays
 * user.gguf.arr_type and user.gguf.n. */
#ifndef GGUFFS_XATTR_H
#define GGUFFS_XATTR_H

#include <stddef.h>
#include <stdint.h>

#include "gguffs/tree.h"

/* Value of attribute `name` of node into val (cap bytes); returns its
 * length or -ENODATA / -ERANGE. */
int gg_xattr_get(gg_tree *t, uint32_t node, const char *name, char *val, size_t cap);

/* NUL-separated list of the node's attribute names; returns its length. */
int gg_xattr_list(gg_tree *t, uint32_t node, char *list, size_t cap);

#endif
