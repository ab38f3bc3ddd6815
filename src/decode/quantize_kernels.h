/* quantize_kernels.h - the reference quantizers of each family (internal).
 *
 * One function per type: nblocks blocks of float32 at x (any alignment)
 * into nblocks stored blocks at y, each block made from its own values only
 * (quantize.c cuts rows into blocks and lists these in its table). */
#ifndef GGUFFS_DECODE_QUANTIZE_KERNELS_H
#define GGUFFS_DECODE_QUANTIZE_KERNELS_H

#include <stdint.h>

typedef void (*gg_quantizer)(const float *x, uint8_t *y, int64_t nblocks);

#endif
