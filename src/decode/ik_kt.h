/* ik_kt.h - the trellis value generator of the KT types, shared by the
 * scalar and SIMD kernels of that family. */
#ifndef GGUFFS_DECODE_IK_KT_H
#define GGUFFS_DECODE_IK_KT_H

#include <stdint.h>

/* Multiplier of the generator (x = x * IKT_MULT mod 2^32 per value). */
#define IKT_MULT 0xCBAC1FEDu

/* The value of state x: the four bytes of x & 0x3F3F3F3F added, minus 126. */
static inline int ikt_value(uint32_t x)
{
    uint32_t s = x & 0x3F3F3F3Fu;
    return (int)((s & 0xff) + (s >> 8 & 0xff) + (s >> 16 & 0xff) + (s >> 24)) - 126;
}

#endif
