/* stats.c - a tensor's stats, from its decoded values (see stats.h). */
#include "gguffs/stats.h"
#include "gguffs/floatfmt.h"
#include "gguffs/scope.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* Decode the whole tensor in chunks; count, min, max, mean, std, NaN, Inf,
 * zeros. Fixed-width lines ("%-5s %24s\n"), so the file's size is known
 * before anything is decoded (GG_STATS_BYTES). */
int gg_tensor_stats(gg_reader *r, const gg_model *m, const gg_tensor *ts, gg_buf *out, gg_err *err)
{
    if (!ts->type || ts->err)
        return gg_fail(err, ts->err ? ts->err->code : GG_E_UNSUPPORTED, "%s",
                       ts->err ? ts->err->msg : "type unknown");
    const uint64_t chunk = 1u << 20;
    uint64_t n = ts->layout.nelems, nan = 0, inf = 0, zero = 0, finite = 0;
    double sum = 0, sumsq = 0, mn = INFINITY, mx = -INFINITY;
    float *buf = malloc(chunk * sizeof(float));
    if (!buf)
        return gg_fail(err, GG_E_NOMEM, "out of memory");
    /* Chunks aligned to the decode granule so no block is decoded twice. */
    uint64_t g = gg_layout_granule(&ts->layout), step = chunk / g * g;
    if (step == 0) {
        free(buf);
        buf = malloc(g * sizeof(float));
        step = g;
        if (!buf)
            return gg_fail(err, GG_E_NOMEM, "out of memory");
    }
    int rc = 0;
    for (uint64_t e = 0; e < n && rc == 0; e += step) {
        uint64_t e1 = e + step < n ? e + step : n;
        rc = gg_scope_check(err, m->path); /* (a huge tensor: nobody may wait any more) */
        if (rc == 0)
            rc = gg_decode_elems(r, m, ts, e, e1, buf, err);
        for (uint64_t i = 0; rc == 0 && i < e1 - e; i++) {
            float v = buf[i];
            if (isnan(v)) {
                nan++;
                continue;
            }
            if (v == 0)
                zero++;
            if (v < mn)
                mn = v;
            if (v > mx)
                mx = v;
            if (isinf(v)) {
                inf++;
                continue;
            }
            finite++;
            sum += v;
            sumsq += (double)v * v;
        }
    }
    free(buf);
    if (rc)
        return -1;
    char a[32], b[32], c[32], d[32];
    double mean = finite ? sum / finite : NAN;
    double var = finite ? sumsq / finite - mean * mean : NAN;
    if (var < 0)
        var = 0;
    gg_fmt_f32(a, n - nan ? (float)mn : NAN);
    gg_fmt_f32(b, n - nan ? (float)mx : NAN);
    gg_fmt_f64(c, mean);
    gg_fmt_f64(d, sqrt(var));
    char e[32], f2[32], g2[32], h[32];
    snprintf(e, sizeof e, "%" PRIu64, n);
    snprintf(f2, sizeof f2, "%" PRIu64, nan);
    snprintf(g2, sizeof g2, "%" PRIu64, inf);
    snprintf(h, sizeof h, "%" PRIu64, zero);
    const char *keys[] = {"count", "min", "max", "mean", "std", "nan", "inf", "zeros"};
    const char *vals[] = {e, a, b, c, d, f2, g2, h};
    for (int k = 0; k < 8; k++)
        gg_buf_printf(out, "%-5s %*s\n", keys[k], GG_STATS_WIDTH, vals[k]);
    return 0;
}
