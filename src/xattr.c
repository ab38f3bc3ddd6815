/* xattr.c - extended attributes of tensors and metadata files (xattr.h). */
#include "gguffs/xattr.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

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
    return n < cap ? (int)n : -ERANGE;
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
    return n >= 0 && (size_t)n < cap ? n : -ERANGE;
}

int gg_xattr_get(gg_tree *t, uint32_t node, const char *name, char *val, size_t cap)
{
    const gg_tensor *ts = gg_tree_tensor(t, node, NULL);
    if (ts) {
        for (unsigned i = 0; i < N_TENSOR_ATTRS; i++)
            if (strcmp(name, tensor_attrs[i]) == 0)
                return tensor_attr(ts, i, val, cap);
        return -ENODATA;
    }
    const gg_node *n = &t->nodes[node];
    if (n->content != GG_C_KV)
        return -ENODATA;
    const gg_file *f = t->models[n->model]->f;
    const gg_kv *kv = &f->kv[n->arg];
    int len;
    if (strcmp(name, "user.gguf.type") == 0)
        len = snprintf(val, cap, "%s", gg_vtype_name(kv->type));
    else if (kv->type == GG_VT_ARR && strcmp(name, "user.gguf.arr_type") == 0)
        len = snprintf(val, cap, "%s", gg_vtype_name(kv->arr_type));
    else if (kv->type == GG_VT_ARR && strcmp(name, "user.gguf.n") == 0)
        len = snprintf(val, cap, "%" PRIu64, kv->arr_n);
    else
        return -ENODATA;
    return len >= 0 && (size_t)len < cap ? len : -ERANGE;
}

static int add_name(char *list, size_t cap, int used, const char *name)
{
    size_t n = strlen(name) + 1;
    if ((size_t)used + n <= cap)
        memcpy(list + used, name, n);
    return used + (int)n;
}

int gg_xattr_list(gg_tree *t, uint32_t node, char *list, size_t cap)
{
    int used = 0;
    if (gg_tree_tensor(t, node, NULL)) {
        for (unsigned i = 0; i < N_TENSOR_ATTRS; i++)
            used = add_name(list, cap, used, tensor_attrs[i]);
        return used;
    }
    const gg_node *n = &t->nodes[node];
    if (n->content != GG_C_KV)
        return 0;
    used = add_name(list, cap, used, "user.gguf.type");
    if (t->models[n->model]->f->kv[n->arg].type == GG_VT_ARR) {
        used = add_name(list, cap, used, "user.gguf.arr_type");
        used = add_name(list, cap, used, "user.gguf.n");
    }
    return used;
}
