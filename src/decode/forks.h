/* forks.h - the STQ1_0 codebook and the PTQ1_0 digit rule, shared by the
 * scalar and SIMD kernels of the forks family. Private to that family. */
#ifndef GGUFFS_DECODE_FORKS_H
#define GGUFFS_DECODE_FORKS_H

#include <stdint.h>

#include "tables.h"

/* STQ1_0 patterns: four 2-bit lanes per byte (lane 0 in the low bits),
 * 00 = -1, 01 = 0, 10 = +1. Entry = 16 * sign bit + slot; each pattern has
 * exactly one zero lane (its position is slot >> 2), and entries 16..31 are
 * entries 0..15 with the non-zero lanes negated. This is the format's
 * codebook as published with the type (the block layout's only table). */
static const uint8_t gg_stq1_codebook[32] = {
    0xA9, 0x89, 0x29, 0x09, 0xA6, 0x86, 0x26, 0x06, 0x9A, 0x92, 0x1A, 0x12, 0x6A, 0x62, 0x4A, 0x42,
    0x01, 0x21, 0x81, 0xA1, 0x04, 0x24, 0x84, 0xA4, 0x10, 0x18, 0x90, 0x98, 0x40, 0x48, 0x60, 0x68,
};

/* PTQ1_0: base-3 digit n (n = 0 the most significant) of byte v is
 * ((uint8_t)(v * 3^n) * 3) >> 8, a number 0..2; the value is
 * (float)(digit - 1) * d. */
static inline float gg_ptq_value(uint8_t v, int n, float d)
{
    uint8_t x = (uint8_t)(v * gg_tq1_0_pow3[n]);
    int level = ((x * 3) >> 8) - 1;
    return (float)level * d;
}

#endif
