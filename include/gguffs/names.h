/* names.h - GGUF names (keys, tensor names) as file names, and back.
 *
 * A GGUF name may hold any byte. In the tree: '%' is written %25, '/' %2F
 * and a NUL byte %00; the names "." and ".." become %2E and %2E%2E and the
 * empty name becomes a lone "%". Nothing else changes. A name whose escaped
 * form is longer than 255 bytes (the kernel's limit) is cut to 244 bytes
 * followed by "%~" and 8 hex digits of a hash of the full name. */
#ifndef GGUFFS_NAMES_H
#define GGUFFS_NAMES_H

#include <stddef.h>

/* Escaped form of s[0..n) as a new NUL-terminated string (NULL if out of memory). */
char *gg_name_escape(const char *s, size_t n);

/* Inverse of gg_name_escape for names that were not shortened: writes the
 * original bytes to out (at least strlen(name) bytes) and returns their
 * count, or -1 if name is not a valid escaped form. */
long gg_name_unescape(const char *name, char *out);

#endif
