/* swa.h - which layers attend over a sliding window, as llama.cpp reads the
 * keys (src/models/<arch>.cpp, llama_hparams::set_swa_pattern).
 *
 * The window is "<arch>.attention.sliding_window" (gemma2: 4096 without
 * it; exaone-moe: 128); none when it is 0. Which layers slide:
 * "<arch>.attention.sliding_window_pattern" as a list of one flag per layer,
 * or as a period n: layer il slides when il % n < n - 1 (every layer when n
 * is 0; laguna's full layer comes first: il % n != 0), without the key the
 * architecture's period: gemma2 2, gemma3 6, cohere2 4, olmo2 4, gpt-oss 2,
 * afmoe 4, exaone-moe 4, laguna 4, mellum 4. Other architectures have no
 * sliding window here (llama.cpp ignores the key of most of them; the few
 * others share or shape their caches their own way). */
#ifndef GGUFFS_SWA_H
#define GGUFFS_SWA_H

#include <stdint.h>

#include "gguffs/gguf.h"

/* The window in tokens (0: no layer slides) and, when slides is not NULL,
 * slides[il] = 1 for each of the n_layer layers that slides, else 0. */
uint64_t gg_sliding_layers(const gg_file *f, const char *arch, uint64_t n_layer, uint8_t *slides);

#endif
