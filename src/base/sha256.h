/* sha256.h - SHA-256 (FIPS 180-4), for content-addressed blobs: an Ollama
 * layer read whole is checked against its digest (src/base/). */
#ifndef GGUFFS_SHA256_H
#define GGUFFS_SHA256_H
#include <stddef.h>
#include <stdint.h>

/* The digest of n bytes as 64 lowercase hex digits and a NUL. */
void gg_sha256_hex(const void *p, size_t n, char out[65]);
#endif
