/* hfexport.c - as/hf/model.safetensors as segments, and the rope factors
 * (see hfexport.h). */
#include "gguffs/hfexport.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "gguffs/buf.h"
#include "gguffs/kvget.h"

#define ST_HEADER_MAX (100ull << 20) /* safetensors readers refuse bigger headers */

gg_composite *gg_export_hf_safetensors(const gg_model *m, const gg_hf_plan *p, gg_view_kind dtype, gg_err *e)
{
    if (p->why || !p->nt) {
        gg_fail(e, GG_E_UNSUPPORTED, "%s: no Hugging Face weights (see as/hf/why)", m->path);
        return NULL;
    }
    const char *dt = dtype == GG_VIEW_F32 ? "F32" : dtype == GG_VIEW_F16 ? "F16" : "BF16";
    uint64_t es = gg_view_esize(dtype), at = 0;
    gg_buf json = {0};
    gg_buf_puts(&json, "{\"__metadata__\":{\"format\":\"pt\",\"gguffs.source\":");
    gg_json_string(&json, m->path, strlen(m->path));
    gg_buf_puts(&json, "}");
    for (size_t i = 0; i < p->nt; i++) {
        const gg_hf_tensor *t = &p->t[i];
        gg_buf_puts(&json, ",");
        gg_json_string(&json, t->name, strlen(t->name));
        gg_buf_printf(&json, ":{\"dtype\":\"%s\",\"shape\":[%" PRIu64, dt, t->shape[0]);
        if (t->n_dims > 1)
            gg_buf_printf(&json, ",%" PRIu64, t->shape[1]);
        gg_buf_printf(&json, "],\"data_offsets\":[%" PRIu64 ",%" PRIu64 "]}", at, at + t->nelems * es);
        at += t->nelems * es;
    }
    gg_buf_puts(&json, "}");
    while (json.len % 8)
        gg_buf_put(&json, " ", 1);
    gg_composite *c = NULL;
    if (json.oom)
        goto oom;
    if (json.len > ST_HEADER_MAX) {
        gg_fail(e, GG_E_TOOBIG, "%s: the safetensors header would be %zu bytes (readers take at most %llu MiB)",
                m->path, json.len, ST_HEADER_MAX >> 20);
        gg_buf_free(&json);
        return NULL;
    }
    c = calloc(1, sizeof *c);
    if (!c || !(c->seg = calloc(p->np + 1, sizeof *c->seg)) || !(c->header = malloc(8 + json.len)))
        goto oom;
    for (int b = 0; b < 8; b++)
        c->header[b] = (char)((uint64_t)json.len >> (8 * b));
    memcpy(c->header + 8, json.p, json.len);
    uint64_t hlen = 8 + json.len, pos = hlen;
    c->header_len = hlen;
    gg_buf_free(&json);
    c->seg[c->n++] = (gg_segment){.len = hlen, .bytes = c->header};
    for (size_t i = 0; i < p->nt; i++) {
        const gg_hf_tensor *t = &p->t[i];
        for (size_t k = t->piece0; k < t->piece0 + t->npieces; k++) {
            const gg_hf_piece *q = &p->p[k];
            uint64_t len = q->row * q->rows * es;
            if (!len)
                continue;
            gg_segment *s = &c->seg[c->n++];
            *s = (gg_segment){.at = pos, .len = len, .tensor = q->tensor, .view = dtype};
            s->from = q->from * es;
            s->row = q->rows > 1 ? q->row * es : 0;
            s->stride = q->stride * es;
            s->kind = q->xform == GG_HF_MINUS_ONE ? GG_SEG_MINUS_ONE : GG_SEG_VIEW;
            pos += len;
        }
    }
    c->size = pos;
    return c;
oom:
    gg_buf_free(&json);
    gg_composite_free(c);
    gg_fail(e, GG_E_NOMEM, "out of memory");
    return NULL;
}

/* n F32 values of tensor i, as stored (little-endian, as this host). */
static int read_f32(const gg_model *m, int64_t i, float *v, uint64_t n, gg_err *e)
{
    const gg_tensor *t = &m->t[i];
    if (t->info->ne[0] != n || t->nbytes < 4 * n)
        return gg_fail(e, GG_E_INVAL, "%s: a rope factor tensor of another size", m->path);
    return gg_source_read(gg_tensor_source(m, t), v, 4 * n, t->abs_offset, e);
}

int gg_hf_rope_read(const gg_model *m, const gg_hf_plan *p, gg_hf_rope *out, const char **why, gg_err *e)
{
    out->kind = GG_HF_ROPE_NONE;
    uint64_t n = p->n_rot / 2;
    if (p->rope_freqs < 0 && p->rope_long < 0 && p->rope_short < 0)
        return 0;
    if (n > GG_HF_ROPE_MAX) {
        *why = "rope factor tensors of more than 256 values";
        return gg_fail(e, GG_E_UNSUPPORTED, "%s: %s", m->path, *why);
    }
    *why = "the rope factor tensors could not be read";
    if (p->rope_long >= 0 || p->rope_short >= 0) {
        if (p->rope_long < 0 || p->rope_short < 0) {
            *why = "rope_factors_long.weight and rope_factors_short.weight come in pairs";
            return gg_fail(e, GG_E_UNSUPPORTED, "%s: %s", m->path, *why);
        }
        if (read_f32(m, p->rope_long, out->long_f, n, e) || read_f32(m, p->rope_short, out->short_f, n, e))
            return -1;
        out->kind = GG_HF_ROPE_LONGROPE;
        out->n = n;
        return 0;
    }
    float r[GG_HF_ROPE_MAX];
    if (read_f32(m, p->rope_freqs, r, n, e))
        return -1;
    double base = 10000.0, ctx = 0;
    gg_kv_double(m->f, gg_kv_get(m->f, p->arch, "rope.freq_base"), &base);
    gg_kv_double(m->f, gg_kv_get(m->f, p->arch, "context_length"), &ctx);
    int rc = gg_hf_rope_llama3(r, n, base, p->n_rot, ctx, &out->llama3);
    if (rc < 0) {
        *why = "rope_freqs.weight: its factors are not those of llama 3's rope scaling";
        return gg_fail(e, GG_E_UNSUPPORTED, "%s: %s", m->path, *why);
    }
    out->kind = rc ? GG_HF_ROPE_LLAMA3 : GG_HF_ROPE_NONE;
    return 0;
}
