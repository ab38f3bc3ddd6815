/* numarray.c - arrays of numbers and bools as text (rules in numarray.h). */
#include "numarray.h"

#include <stdlib.h>
#include <string.h>

#include "gguffs/floatfmt.h"
#include "gguffs/gguf.h"

#define BLOCK 4096
#define MAX_TEXT (GG_FMT_F64_LEN + 4) /* longest element, quotes, ", " */

int gg_numarray_type(uint32_t t) { return t < GG_VT_COUNT && t != GG_VT_STR && t != GG_VT_ARR; }

static inline uint64_t le_at(const uint8_t *p, size_t n)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

/* Text of a float's bits at o. In JSON, nan and infinities are strings
 * (JSON has no such numbers). */
static inline int float_text(uint64_t bits, int f64, int json, char *o)
{
    int finite = f64 ? (~bits & 0x7ff0000000000000ull) != 0 : (~bits & 0x7f800000u) != 0;
    int q = json && !finite;
    int n;
    if (f64) {
        double d;
        memcpy(&d, &bits, 8);
        n = gg_fmt_f64(o + q, d);
    } else {
        float f;
        uint32_t u = (uint32_t)bits;
        memcpy(&f, &u, 4);
        n = gg_fmt_f32(o + q, f);
    }
    if (q) {
        o[0] = o[n + 1] = '"';
        n += 2;
    }
    return n;
}

/* One element of type t at p as text at o; returns its length. Each case
 * reads a constant number of bytes (one load once inlined). */
static inline int element_text(const uint8_t *p, uint32_t t, int json, char *o)
{
    switch (t) {
    case GG_VT_U8: return gg_fmt_u64(o, p[0]);
    case GG_VT_I8: return gg_fmt_i64(o, (int8_t)p[0]);
    case GG_VT_U16: return gg_fmt_u64(o, le_at(p, 2));
    case GG_VT_I16: return gg_fmt_i64(o, (int16_t)le_at(p, 2));
    case GG_VT_U32: return gg_fmt_u64(o, le_at(p, 4));
    case GG_VT_I32: return gg_fmt_i64(o, (int32_t)le_at(p, 4));
    case GG_VT_U64: return gg_fmt_u64(o, le_at(p, 8));
    case GG_VT_I64: return gg_fmt_i64(o, (int64_t)le_at(p, 8));
    case GG_VT_F32: return float_text(le_at(p, 4), 0, json, o);
    case GG_VT_F64: return float_text(le_at(p, 8), 1, json, o);
    case GG_VT_BOOL:
        memcpy(o, p[0] ? "true" : "false", 5);
        return p[0] ? 4 : 5;
    }
    return 0;
}

uint64_t gg_numarray_text(gg_buf *out, const uint8_t *p, uint32_t t, uint64_t n, int json)
{
    size_t sz = gg_vtype_size(t);
    for (uint64_t i = 0; i < n;) {
        uint64_t m = n - i < BLOCK ? n - i : BLOCK;
        char *o = gg_buf_room(out, (size_t)m * MAX_TEXT + GG_FMT_BUF); /* + the scratch of the last */
        if (!o)
            break;
        char *start = o;
        for (uint64_t j = 0; j < m; j++, i++, p += sz) {
            if (json && i) {
                memcpy(o, ", ", 2);
                o += 2;
            }
            o += element_text(p, t, json, o);
            if (!json)
                *o++ = '\n';
        }
        out->len += (size_t)(o - start);
        out->p[out->len] = 0;
    }
    return n * sz;
}
