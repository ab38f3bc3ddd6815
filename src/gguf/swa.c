/* swa.c - the sliding-window layers of a model (see swa.h). */
#include "gguffs/swa.h"

#include <string.h>

#include "gguffs/kvget.h"

static const struct {
    const char *arch;
    uint32_t period;
    int dense_first;    /* the period's full layer is its first, not its last */
    uint64_t window;    /* without the key; 0: the key must say */
} ARCHS[] = {
    {"gemma2", 2, 0, 4096}, {"gemma3", 6, 0, 0},     {"cohere2", 4, 0, 0},   {"olmo2", 4, 0, 0},
    {"gpt-oss", 2, 0, 0},   {"afmoe", 4, 0, 0},      {"exaone-moe", 4, 0, 128}, {"laguna", 4, 1, 0},
    {"mellum", 4, 0, 0},
};

uint64_t gg_sliding_layers(const gg_file *f, const char *arch, uint64_t n_layer, uint8_t *slides)
{
    if (slides)
        memset(slides, 0, n_layer);
    size_t a = 0, n = sizeof ARCHS / sizeof ARCHS[0];
    while (a < n && (!arch || strcmp(arch, ARCHS[a].arch)))
        a++;
    if (a == n)
        return 0;
    uint64_t window = ARCHS[a].window, period = ARCHS[a].period;
    const gg_kv *w = gg_kv_get(f, arch, "attention.sliding_window");
    if (w && gg_kv_uint(f, w, &window))
        return 0; /* not a count */
    if (!window || !slides)
        return window;
    const gg_kv *pat = gg_kv_get(f, arch, "attention.sliding_window_pattern");
    uint32_t type;
    uint64_t len;
    const uint8_t *data;
    if (pat && gg_kv_arr(f, pat, &type, &len, &data) == 0) {
        for (uint64_t il = 0; il < n_layer && il < len; il++)
            slides[il] = gg_kv_arr_int(type, data, il) != 0;
        return window;
    }
    if (pat)
        gg_kv_uint(f, pat, &period);
    for (uint64_t il = 0; il < n_layer; il++)
        slides[il] = period == 0 || (ARCHS[a].dense_first ? il % period != 0 : il % period < period - 1);
    return window;
}
