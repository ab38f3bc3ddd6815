/* tree_xattr.c - extended attributes of a model tree's nodes (getfattr -d shows them).
 *
 * Tensor folders and files: user.gguf.type, user.gguf.type_id,
 * user.gguf.shape (numpy order), user.gguf.dims (ggml order),
 * user.gguf.offset (offset in its file), user.gguf.bytes.
 * Metadata files: user.gguf.type (value type), and for arrays
 * user.gguf.arr_type and user.gguf.n; a key made and not written yet
 * (-o edits=) the type it will take. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "modeltree.h"

static const char *const tensor_attrs[] = {"user.gguf.type", "user.gguf.type_id", "user.gguf.shape",
                                           "user.gguf.dims", "user.gguf.offset", "user.gguf.bytes"};
#define N_TENSOR_ATTRS (sizeof tensor_attrs / sizeof tensor_attrs[0])

static int dims_text(const gg_tinfo *ti, int numpy, char *out, size_t cap)
{
    size_t n = 0;
    out[0] = 0;
    for (uint32_t d = 0; d < ti->n_dims && n < cap; d++) {
        uint32_t k = numpy ? ti->n_dims - 1 - d : d;
        n += (size_t)snprintf(out + n, cap - n, d ? ",%" PRIu64 : "%" PRIu64, ti->ne[k]);
    }
    return n < cap ? (int)n : -1;
}

static int tensor_attr(const gg_tensor *ts, unsigned which, char *val, size_t cap)
{
    int n;
    switch (which) {
    case 0:
        n = snprintf(val, cap, "%s", ts->type ? ts->type->name : "unknown");
        break;
    case 1:
        n = snprintf(val, cap, "%" PRIu32, ts->info->type_id);
        break;
    case 2:
        return dims_text(ts->info, 1, val, cap);
    case 3:
        return dims_text(ts->info, 0, val, cap);
    case 4:
        n = snprintf(val, cap, "%" PRIu64, ts->abs_offset);
        break;
    default:
        n = snprintf(val, cap, "%" PRIu64, ts->nbytes);
        break;
    }
    return n >= 0 && (size_t)n < cap ? n : -1;
}

static int too_small(gg_err *e, const char *name)
{
    return gg_fail(e, GG_E_RANGE, "%s: value longer than the buffer", name);
}

int gg_mtree_getxattr(gg_mtree *t, uint32_t node, const char *name, char *val, size_t cap, gg_err *e)
{
    const gg_node *n = &t->nodes[node];
    const gg_tensor *ts = gg_mtree_tensor(t, node);
    if (ts) {
        for (unsigned i = 0; i < N_TENSOR_ATTRS; i++) {
            if (strcmp(name, tensor_attrs[i]) == 0) {
                int len = tensor_attr(ts, i, val, cap);
                return len < 0 ? too_small(e, name) : len;
            }
        }
        return gg_fail(e, GG_E_NOATTR, "%s: no such attribute", name);
    }
    if (!gg_node_is_key(n))
        return gg_fail(e, GG_E_NOATTR, "%s: no such attribute", name);
    /* (a key made and not written yet: the type it will take, no n) */
    gg_vdesc d;
    gg_mtree_key_type(t, node, &d);
    int len;
    if (strcmp(name, "user.gguf.type") == 0)
        len = snprintf(val, cap, "%s", gg_vtype_name(d.t[0]));
    else if (d.t[0] == GG_VT_ARR && strcmp(name, "user.gguf.arr_type") == 0)
        len = snprintf(val, cap, "%s", gg_vtype_name(d.t[1]));
    else if (gg_node_is_kv(n) && d.t[0] == GG_VT_ARR && strcmp(name, "user.gguf.n") == 0)
        len = snprintf(val, cap, "%" PRIu64, t->m->f->kv[n->arg].arr_n);
    else
        return gg_fail(e, GG_E_NOATTR, "%s: no such attribute", name);
    return len >= 0 && (size_t)len < cap ? len : too_small(e, name);
}

static int add_name(char *list, size_t cap, int used, const char *name)
{
    size_t n = strlen(name) + 1;
    if ((size_t)used + n <= cap)
        memcpy(list + used, name, n);
    return used + (int)n;
}

int gg_mtree_listxattr(gg_mtree *t, uint32_t node, char *list, size_t cap, gg_err *e)
{
    int used = 0;
    const gg_node *n = &t->nodes[node];
    if (gg_mtree_tensor(t, node)) {
        for (unsigned i = 0; i < N_TENSOR_ATTRS; i++)
            used = add_name(list, cap, used, tensor_attrs[i]);
        return (size_t)used > cap && cap ? too_small(e, "attribute list") : used;
    }
    if (!gg_node_is_key(n))
        return 0;
    used = add_name(list, cap, used, "user.gguf.type");
    gg_vdesc d;
    gg_mtree_key_type(t, node, &d);
    if (d.t[0] == GG_VT_ARR) {
        used = add_name(list, cap, used, "user.gguf.arr_type");
        if (gg_node_is_kv(n))
            used = add_name(list, cap, used, "user.gguf.n");
    }
    return (size_t)used > cap && cap ? too_small(e, "attribute list") : used;
}
