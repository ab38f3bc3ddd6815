/* sha256.h - SHA-256 (FIPS 180-4), for content-addressed blobs: an Ollama
 * layer read whole is checked against its digest, a model's blob as its
 * blocks come (src/base/). */
#ifndef GGUFFS_SHA256_H
#define GGUFFS_SHA256_H
#include <stddef.h>
#include <stdint.h>

/* The digest of n bytes as 64 lowercase hex digits and a NUL. */
void gg_sha256_hex(const void *p, size_t n, char out[65]);

/* The same over bytes that come in pieces: init, update with each piece in
 * order, then final. */
typedef struct gg_sha256 {
    uint32_t h[8];
    uint64_t n;      /* bytes so far */
    uint8_t buf[64]; /* the last n % 64 of them */
} gg_sha256;
void gg_sha256_init(gg_sha256 *s);
void gg_sha256_update(gg_sha256 *s, const void *p, size_t n);
void gg_sha256_final_hex(gg_sha256 *s, char out[65]);
#endif
