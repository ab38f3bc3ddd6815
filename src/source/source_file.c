/* source_file.c - a local file as a source (see source.h).
 *
 * Reads are pread()s checked for short reads (a file cut short under a live
 * mount gives GG_E_IO, never SIGBUS). After every read the file is fstat()ed
 * (about a quarter of a microsecond): if its size, modification or change
 * time, or inode differ from when it was opened, it was rewritten in place
 * and the bytes just read may be new ones, so the read fails as stale and
 * so does every later one. A file replaced by a new one under the same name
 * (a rename, a new download) leaves the old inode behind our descriptor:
 * reads go on giving the old bytes, which is consistent. */
#include "gguffs/source.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/log.h"

typedef struct file_source {
    gg_source s;
    int fd;
    dev_t dev;
    ino_t ino;
    struct timespec ctime;
} file_source;

static int same_time(struct timespec a, struct timespec b) { return a.tv_sec == b.tv_sec && a.tv_nsec == b.tv_nsec; }

static int file_check(gg_source *s, gg_err *e)
{
    file_source *f = (file_source *)s;
    struct stat st;
    if (atomic_load_explicit(&s->stale, memory_order_relaxed))
        return gg_fail(e, GG_E_STALE, "%s: changed since it was mounted", s->name);
    if (fstat(f->fd, &st) != 0)
        return gg_fail_errno(e, errno, "%s", s->name);
    /* The change time moves when the file is written, but also when it is
     * unlinked or renamed over; a file no name points to any more keeps its
     * bytes (only its size and modification time are checked then). */
    if (st.st_ino != f->ino || st.st_dev != f->dev || (uint64_t)st.st_size != s->size ||
        !same_time(st.st_mtim, s->mtime) || (st.st_nlink > 0 && !same_time(st.st_ctim, f->ctime))) {
        if (!atomic_exchange(&s->stale, 1))
            gg_log("%s: changed since it was mounted (size %" PRIu64 " -> %" PRIu64 ", or its times): its reads "
                   "fail with ESTALE until it is mounted again", s->name, s->size, (uint64_t)st.st_size);
        return gg_fail(e, GG_E_STALE,
                       "%s: changed since it was mounted (size %" PRIu64 " -> %" PRIu64
                       ", or its times): its reads fail until it is mounted again",
                       s->name, s->size, (uint64_t)st.st_size);
    }
    return 0;
}

static int file_read(gg_source *s, void *buf, size_t n, uint64_t off, gg_err *e)
{
    file_source *f = (file_source *)s;
    char *p = buf;
    uint64_t at = off;
    while (n) {
        ssize_t k = pread(f->fd, p, n, (off_t)at);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0)
            return gg_fail_errno(e, errno, "%s: read of [%" PRIu64 ", +%zu)", s->name, off, n);
        if (k == 0) {
            /* Shorter than when it was opened: it was cut, so it changed. */
            if (file_check(s, e))
                return -1;
            return gg_fail(e, GG_E_IO, "%s: read of [%" PRIu64 ", +%zu): the file ends at %" PRIu64, s->name,
                           off, n, at);
        }
        p += k;
        n -= (size_t)k;
        at += (uint64_t)k;
    }
    return file_check(s, e);
}

static void file_describe(gg_source *s, gg_buf *out)
{
    gg_buf_puts(out, "\"file\": ");
    gg_json_string(out, s->name, strlen(s->name));
}

static void file_close(gg_source *s)
{
    file_source *f = (file_source *)s;
    if (f->fd >= 0)
        close(f->fd);
    free(s->name);
    free(s->id);
    free(f);
}

static const gg_source_ops file_ops = {file_read, file_check, file_describe, file_close};

gg_source *gg_source_open_file(const char *path, gg_err *e)
{
    struct stat st;
    if (stat(path, &st) != 0) {
        gg_fail_errno(e, errno, "%s", path);
        return NULL;
    }
    if (S_ISDIR(st.st_mode)) {
        gg_fail(e, GG_E_NOTREG, "%s: is a directory, not a GGUF file", path);
        return NULL;
    }
    if (!S_ISREG(st.st_mode)) {
        gg_fail(e, GG_E_NOTREG, "%s: not a regular file", path);
        return NULL;
    }
    file_source *f = calloc(1, sizeof *f);
    if (!f || !(f->s.name = strdup(path))) {
        free(f);
        gg_fail(e, GG_E_NOMEM, "%s: out of memory", path);
        return NULL;
    }
    f->s.ops = &file_ops;
    f->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (f->fd < 0 || fstat(f->fd, &st) != 0) {
        gg_fail_errno(e, errno, "%s", path);
        file_close(&f->s);
        return NULL;
    }
    f->s.size = (uint64_t)st.st_size;
    f->s.mtime = st.st_mtim;
    f->ctime = st.st_ctim;
    f->dev = st.st_dev;
    f->ino = st.st_ino;
    if (asprintf(&f->s.id, "file:%ju:%ju", (uintmax_t)st.st_dev, (uintmax_t)st.st_ino) < 0) {
        f->s.id = NULL;
        gg_fail(e, GG_E_NOMEM, "%s: out of memory", path);
        file_close(&f->s);
        return NULL;
    }
    return &f->s;
}
