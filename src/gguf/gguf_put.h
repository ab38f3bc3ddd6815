/* gguf_put.h - GGUF version 3 bytes appended to a buffer (internal to
 * gguf/: the header writers, gguf_write.c and kvedit.c, share them). */
#ifndef GGUFFS_GGUF_PUT_H
#define GGUFFS_GGUF_PUT_H

#include <stdint.h>

#include "gguffs/buf.h"

void gg_put_u32(gg_buf *b, uint32_t v);
void gg_put_u64(gg_buf *b, uint64_t v);
/* v over the 8 bytes at b->p + at (written before, e.g. as a placeholder 0). */
void gg_put_u64_at(gg_buf *b, size_t at, uint64_t v);
/* A value of a GGUF v1 header (32-bit lengths and counts) at p, written as
 * v3; returns the bytes it took in the v1 header. */
uint64_t gg_put_v1_value(gg_buf *out, const uint8_t *p, uint32_t type);

#endif
