/* diskcache.c - persistent block cache (see diskcache.h).
 *
 *   DIR/objects/<hash of key>/b<block>   a block: header + bytes
 *   DIR/urls/<hash of url>               what is known of a URL (text)
 *
 * A block file: "GGUFFSB2", u64 block number, u64 length, u64 key hash,
 * u64 checksum of the bytes, then the bytes. Files appear whole (written as
 * .tmp-PID-N, then renamed); an access refreshes the file's time, and
 * eviction removes the oldest files first. */
#include "gguffs/diskcache.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/hash.h"
#include "gguffs/buf.h"

#define MAGIC "GGUFFSB2" /* (B1 files, another checksum, read as damaged) */
#define HEAD 40
#define STRAY_TMP_SECONDS 600 /* temporary files older than this were left by a killed writer */
#define META_MAX (64 << 20)    /* bytes of what is known of one URL (a listing) */

struct gg_diskcache {
    char *dir;
    uint64_t max;
    _Atomic uint64_t bytes;   /* in block files, as counted by this process */
    _Atomic unsigned tmp_seq;
    pthread_mutex_t evict_lock; /* puts and their evictions, one at a time */
};

/* A checksum of the bytes: four lanes of 8 bytes at a time (independent
 * multiply chains, so a warm block is checked at memory speed rather than
 * at one multiply latency per word), every bit of each word mixed in. */
static inline uint64_t lane(uint64_t h, uint64_t w)
{
    h = (h ^ w) * 0xbf58476d1ce4e5b9ull;
    return h ^ h >> 31;
}

static uint64_t checksum(const void *p, size_t n, uint64_t seed)
{
    const unsigned char *s = p;
    uint64_t a = seed ^ 0x9E3779B97F4A7C15ull ^ n, b = seed + 0x94d049bb133111ebull, c = ~seed, d = seed * 3 + 1;
    size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        uint64_t w[4];
        memcpy(w, s + i, 32);
        a = lane(a, w[0]);
        b = lane(b, w[1]);
        c = lane(c, w[2]);
        d = lane(d, w[3]);
    }
    for (; i + 8 <= n; i += 8) {
        uint64_t w;
        memcpy(&w, s + i, 8);
        a = lane(a, w);
    }
    for (; i < n; i++)
        a = (a ^ s[i]) * 0x94d049bb133111ebull;
    return gg_hash_mix(a ^ gg_hash_mix(b) ^ gg_hash_mix(c + 0x632be59bd9b4e019ull) ^ gg_hash_mix(d ^ 0x3c6ef372fe94f82aull));
}

static void put64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

static void key_dir(const gg_diskcache *d, const char *key, char *out, size_t cap)
{
    snprintf(out, cap, "%s/objects/%016" PRIx64, d->dir, gg_hash64(key, strlen(key), 0));
}

/* Bytes of every block file below DIR/objects; removes stray temporary files. */
static uint64_t scan(const gg_diskcache *d, int (*visit)(void *, const char *, const struct stat *), void *arg)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/objects", d->dir);
    DIR *top = opendir(path);
    uint64_t total = 0;
    if (!top)
        return 0;
    time_t now = time(NULL);
    for (struct dirent *o; (o = readdir(top));) {
        if (o->d_name[0] == '.')
            continue;
        char od[4400];
        snprintf(od, sizeof od, "%s/%s", path, o->d_name);
        DIR *sub = opendir(od);
        if (!sub)
            continue;
        for (struct dirent *f; (f = readdir(sub));) {
            char fp[4700];
            struct stat st;
            snprintf(fp, sizeof fp, "%s/%s", od, f->d_name);
            if (!strncmp(f->d_name, ".tmp-", 5)) {
                if (stat(fp, &st) == 0 && now - st.st_mtime > STRAY_TMP_SECONDS)
                    unlink(fp);
                continue;
            }
            if (f->d_name[0] != 'b' || stat(fp, &st) != 0 || !S_ISREG(st.st_mode))
                continue;
            total += (uint64_t)st.st_size;
            if (visit && visit(arg, fp, &st))
                break;
        }
        closedir(sub);
        rmdir(od); /* only succeeds when empty */
    }
    closedir(top);
    return total;
}

gg_diskcache *gg_diskcache_open(const char *dir, uint64_t max_bytes, gg_err *e)
{
    char p[4096];
    gg_diskcache *d = calloc(1, sizeof *d);
    if (!d || !(d->dir = strdup(dir))) {
        free(d);
        gg_fail(e, GG_E_NOMEM, "out of memory");
        return NULL;
    }
    d->max = max_bytes;
    pthread_mutex_init(&d->evict_lock, NULL);
    /* Its parents too (~/.cache may not exist yet), private as XDG asks. */
    snprintf(p, sizeof p, "%s", dir);
    for (char *q = p + 1; (q = strchr(q, '/')); q++) {
        *q = 0;
        if (mkdir(p, 0700) != 0 && errno != EEXIST) {
            gg_fail_errno(e, errno, "cannot make %s", p);
            gg_diskcache_close(d);
            return NULL;
        }
        *q = '/';
    }
    const char *subs[] = {"", "/objects", "/urls"};
    for (int i = 0; i < 3; i++) {
        snprintf(p, sizeof p, "%s%s", dir, subs[i]);
        if (mkdir(p, 0700) != 0 && errno != EEXIST) {
            gg_fail_errno(e, errno, "cannot make %s", p);
            gg_diskcache_close(d);
            return NULL;
        }
    }
    snprintf(p, sizeof p, "%s/objects", dir);
    if (access(p, W_OK) != 0) {
        gg_fail_errno(e, errno, "cannot write in %s", p);
        gg_diskcache_close(d);
        return NULL;
    }
    atomic_store(&d->bytes, scan(d, NULL, NULL));
    return d;
}

void gg_diskcache_close(gg_diskcache *d)
{
    if (!d)
        return;
    pthread_mutex_destroy(&d->evict_lock);
    free(d->dir);
    free(d);
}

uint64_t gg_diskcache_bytes(gg_diskcache *d) { return atomic_load(&d->bytes); }

/* Read a whole small file into buf (cap bytes); its length or -1. */
static ssize_t read_file(const char *path, void *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t got = 0;
    while (got < cap) {
        ssize_t k = read(fd, (char *)buf + got, cap - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    close(fd);
    return (ssize_t)got;
}

/* Write a file whole under a temporary name, then rename it into place. */
static int write_file(gg_diskcache *d, const char *dir, const char *name, const void *a, size_t na, const void *b,
                      size_t nb)
{
    char tmp[4600], dst[4600];
    snprintf(tmp, sizeof tmp, "%s/.tmp-%d-%u", dir, (int)getpid(), atomic_fetch_add(&d->tmp_seq, 1));
    snprintf(dst, sizeof dst, "%s/%s", dir, name);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    int ok = write(fd, a, na) == (ssize_t)na && (!nb || write(fd, b, nb) == (ssize_t)nb);
    ok &= close(fd) == 0;
    if (!ok || rename(tmp, dst) != 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}

int gg_diskcache_get(gg_diskcache *d, const char *key, uint64_t block, void *dst, size_t len)
{
    char dir[4096], path[4200];
    key_dir(d, key, dir, sizeof dir);
    snprintf(path, sizeof path, "%s/b%" PRIu64, dir, block);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    unsigned char h[HEAD];
    uint64_t kh = gg_hash64(key, strlen(key), 0);
    int ok = pread(fd, h, HEAD, 0) == HEAD && !memcmp(h, MAGIC, 8) && get64(h + 8) == block &&
             get64(h + 16) == len && get64(h + 24) == kh;
    size_t got = 0;
    while (ok && got < len) {
        ssize_t k = pread(fd, (char *)dst + got, len - got, (off_t)(HEAD + got));
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    char extra;
    ok = ok && got == len && pread(fd, &extra, 1, (off_t)(HEAD + len)) == 0 &&
         checksum(dst, len, kh ^ block) == get64(h + 32);
    close(fd);
    if (!ok) {
        struct stat st;
        if (stat(path, &st) == 0 && unlink(path) == 0)
            atomic_fetch_sub(&d->bytes, (uint64_t)st.st_size);
        return 1;
    }
    /* Recently used: eviction takes the oldest first. */
    utimensat(AT_FDCWD, path, NULL, 0);
    return 0;
}

typedef struct victim {
    char *path;
    uint64_t when; /* last use, ns (seconds alone would tie a whole stream's blocks) */
    uint64_t bytes;
} victim;

typedef struct victims {
    victim *v;
    size_t n, cap;
} victims;

static int collect(void *arg, const char *path, const struct stat *st)
{
    victims *vs = arg;
    if (gg_grow((void **)&vs->v, &vs->cap, vs->n, sizeof *vs->v, 256))
        return 1;
    vs->v[vs->n++] = (victim){strdup(path), (uint64_t)st->st_mtim.tv_sec * 1000000000u + (uint64_t)st->st_mtim.tv_nsec,
                              (uint64_t)st->st_size};
    return 0;
}

static int older(const void *a, const void *b)
{
    const victim *x = a, *y = b;
    return x->when < y->when ? -1 : x->when > y->when;
}

/* Over the bound: remove the least recently used files down to 90 %
 * (evict_lock held). */
static void evict(gg_diskcache *d)
{
    victims vs = {0};
    uint64_t total = scan(d, collect, &vs);
    qsort(vs.v, vs.n, sizeof *vs.v, older);
    uint64_t target = d->max / 10 * 9;
    for (size_t i = 0; i < vs.n && total > target; i++) {
        if (vs.v[i].path && unlink(vs.v[i].path) == 0)
            total -= vs.v[i].bytes;
    }
    for (size_t i = 0; i < vs.n; i++)
        free(vs.v[i].path);
    free(vs.v);
    atomic_store(&d->bytes, total);
}

void gg_diskcache_put(gg_diskcache *d, const char *key, uint64_t block, const void *src, size_t len)
{
    char dir[4096], name[32];
    key_dir(d, key, dir, sizeof dir);
    if (mkdir(dir, 0700) != 0 && errno != EEXIST)
        return;
    unsigned char h[HEAD];
    uint64_t kh = gg_hash64(key, strlen(key), 0);
    memcpy(h, MAGIC, 8);
    put64(h + 8, block);
    put64(h + 16, len);
    put64(h + 24, kh);
    put64(h + 32, checksum(src, len, kh ^ block));
    snprintf(name, sizeof name, "b%" PRIu64, block);
    /* One writer at a time: with several parts in flight, a block written
     * while another put's eviction scans would be missed by its count (and
     * the bound), or counted twice. */
    pthread_mutex_lock(&d->evict_lock);
    if (write_file(d, dir, name, h, HEAD, src, len) == 0 &&
        atomic_fetch_add(&d->bytes, HEAD + len) + HEAD + len > d->max)
        evict(d);
    pthread_mutex_unlock(&d->evict_lock);
}

void gg_diskcache_put_meta(gg_diskcache *d, const char *url, const char *meta)
{
    char dir[4096], name[32];
    snprintf(dir, sizeof dir, "%s/urls", d->dir);
    snprintf(name, sizeof name, "%016" PRIx64, gg_hash64(url, strlen(url), 0));
    /* The URL itself first: a hash collision must not hand out another's meta. */
    size_t ul = strlen(url);
    char *text = malloc(ul + strlen(meta) + 2);
    if (!text)
        return;
    sprintf(text, "%s\n%s", url, meta);
    write_file(d, dir, name, text, strlen(text), NULL, 0);
    free(text);
}

int gg_diskcache_get_meta(gg_diskcache *d, const char *url, gg_buf *meta)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/urls/%016" PRIx64, d->dir, gg_hash64(url, strlen(url), 0));
    /* (a repository's listing may be long: the file whole, within reason) */
    struct stat st;
    if (stat(path, &st) != 0 || st.st_size <= 0 || st.st_size > META_MAX)
        return -1;
    char *buf = malloc((size_t)st.st_size + 1);
    ssize_t n = buf ? read_file(path, buf, (size_t)st.st_size) : -1;
    size_t ul = strlen(url);
    int ok = n > 0 && (size_t)n > ul && !strncmp(buf, url, ul) && buf[ul] == '\n';
    if (ok) {
        buf[n] = 0;
        gg_buf_puts(meta, buf + ul + 1);
        ok = !meta->oom;
    }
    free(buf);
    return ok ? 0 : -1;
}
