/* hfexport.c - as/hf/model.safetensors as segments (see hfexport.h). */
#include "gguffs/hfexport.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "gguffs/buf.h"

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
    gg_buf_free(&json);
    c->seg[c->n++] = (gg_segment){.at = 0, .len = hlen, .bytes = c->header, .view = dtype};
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
            s->xform = q->xform == GG_HF_MINUS_ONE ? GG_SEG_MINUS_ONE : GG_SEG_PLAIN;
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
