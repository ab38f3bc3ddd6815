/* testlib.h - the one assertion the C unit tests use: report and count. */
#ifndef GGUFFS_TESTLIB_H
#define GGUFFS_TESTLIB_H

#include <stdio.h>

static int fails;
#define EXPECT(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "%s:%d: ", __FILE__, __LINE__);                                        \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            fails++;                                                                               \
        }                                                                                          \
    } while (0)

#endif
