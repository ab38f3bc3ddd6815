/* fuse.c - the libfuse low-level callbacks: thin glue between the kernel and
 * the tree. Inode numbers are tree node numbers + 1 (the root is 1). The
 * content never changes while mounted, so attributes and entries are cached
 * by the kernel for a long time and file pages are kept across opens. */
#define FUSE_USE_VERSION 312
#include "fuse_glue.h"

#include <errno.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <limits.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "gguffs/log.h"
#include "gguffs/mountinfo.h"

#define FOREVER 86400.0 /* seconds: nothing here ever changes */
#define IO_BLOCK (1u << 20)

typedef struct ctx {
    gg_tree *tree;
    const gg_fuse_opts *o;
    uid_t uid;
    gid_t gid;
    char bdi[64];       /* the mount's /sys/class/bdi/MAJ:MIN; "" if unknown */
    atomic_int bdi_set; /* read_ahead_kb written (or tried) */
} ctx;

static ctx *ctx_of(fuse_req_t req) { return fuse_req_userdata(req); }

static int node_of(ctx *c, fuse_ino_t ino, uint32_t *node)
{
    if (ino < 1 || ino > c->tree->n)
        return -1;
    *node = (uint32_t)(ino - 1);
    return 0;
}

/* Content that changes on every read (its size does not). */
static int is_live(const gg_node *n) { return n->content == GG_C_CACHE_STATS; }

static int fill_attr(ctx *c, uint32_t node, struct stat *st)
{
    gg_tree *t = c->tree;
    const gg_node *n = &t->nodes[node];
    memset(st, 0, sizeof *st);
    st->st_ino = node + 1;
    st->st_uid = c->uid;
    st->st_gid = c->gid;
    const gg_model *m = t->models[n->model];
    st->st_mtim = st->st_ctim = st->st_atim = m->mtime;
    st->st_blksize = IO_BLOCK;
    if (gg_node_is_dir(n)) {
        st->st_mode = S_IFDIR | 0555;
        uint32_t subdirs = 0;
        for (uint32_t k = 0; k < n->n_children; k++)
            subdirs += gg_node_is_dir(&t->nodes[n->first_child + k]);
        st->st_nlink = 2 + subdirs;
        return 0;
    }
    int64_t size = gg_tree_size(t, node);
    if (size < 0)
        return (int)size;
    st->st_mode = S_IFREG | 0444;
    st->st_nlink = 1;
    st->st_size = size;
    /* Only stored bytes take disk: du of a mount reports the model, not
     * the decoded views and texts made from it. */
    st->st_blocks = n->content == GG_C_RAW ? (size + 511) / 512 : 0;
    return 0;
}

/* The mount's device number as "MAJ:MIN", from the mount table: the mount
 * point itself is never looked at (see mountinfo.h). */
static void find_bdi(ctx *c, const char *mountpoint)
{
    gg_mount_entry e;
    c->bdi[0] = 0;
    if (gg_mountinfo_find(mountpoint, &e) == 1)
        snprintf(c->bdi, sizeof c->bdi, "%s", e.dev);
}

/* Raise the mount's kernel read-ahead so page-cache reads reach us as 1 MiB
 * requests (the kernel's 128 KiB default cannot be raised from init(): it
 * is reset after it; from the first open() on it sticks). Root only;
 * failures are ignored. */
static void set_bdi_readahead(ctx *c)
{
    if (!c->o->read_ahead_kb || !c->bdi[0] || atomic_exchange(&c->bdi_set, 1))
        return;
    char path[128], val[32];
    snprintf(path, sizeof path, "/sys/class/bdi/%s/read_ahead_kb", c->bdi);
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    int n = snprintf(val, sizeof val, "%d\n", c->o->read_ahead_kb);
    if (write(fd, val, (size_t)n) != n)
        gg_log("%s: could not set read_ahead_kb", path);
    close(fd);
}

static void op_init(void *userdata, struct fuse_conn_info *conn)
{
    (void)userdata;
    /* Big requests: the kernel may send up to 1 MiB per read. */
    if (conn->capable & FUSE_CAP_ASYNC_READ)
        conn->want |= FUSE_CAP_ASYNC_READ;
    conn->want &= ~(unsigned)FUSE_CAP_SPLICE_READ; /* measured: no gain here */
}

static void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
    ctx *c = ctx_of(req);
    uint32_t p;
    if (node_of(c, parent, &p) || !gg_node_is_dir(&c->tree->nodes[p])) {
        fuse_reply_err(req, ENOTDIR);
        return;
    }
    uint32_t node = gg_tree_lookup(c->tree, p, name);
    if (node == UINT32_MAX) {
        /* Cache the miss too: names never appear later. */
        struct fuse_entry_param e = {0};
        e.entry_timeout = FOREVER;
        fuse_reply_entry(req, &e);
        return;
    }
    struct fuse_entry_param e = {0};
    int rc = fill_attr(c, node, &e.attr);
    if (rc) {
        fuse_reply_err(req, -rc);
        return;
    }
    e.ino = node + 1;
    e.generation = 1;
    e.attr_timeout = FOREVER;
    e.entry_timeout = FOREVER;
    fuse_reply_entry(req, &e);
}

static void op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    (void)fi;
    ctx *c = ctx_of(req);
    uint32_t node;
    struct stat st;
    if (node_of(c, ino, &node)) {
        fuse_reply_err(req, ENOENT);
        return;
    }
    int rc = fill_attr(c, node, &st);
    if (rc)
        fuse_reply_err(req, -rc);
    else
        fuse_reply_attr(req, &st, FOREVER);
}

static void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, struct fuse_file_info *fi)
{
    (void)fi;
    ctx *c = ctx_of(req);
    uint32_t node;
    if (node_of(c, ino, &node) || !gg_node_is_dir(&c->tree->nodes[node])) {
        fuse_reply_err(req, ENOTDIR);
        return;
    }
    const gg_node *d = &c->tree->nodes[node];
    char *buf = malloc(size);
    if (!buf) {
        fuse_reply_err(req, ENOMEM);
        return;
    }
    size_t used = 0;
    /* Offsets: 0 ".", 1 "..", 2 + k the k-th child, in file order. */
    for (uint64_t k = (uint64_t)off; k < 2 + (uint64_t)d->n_children; k++) {
        struct stat st = {0};
        const char *name;
        if (k < 2) {
            name = k == 0 ? "." : "..";
            st.st_ino = k == 0 ? node + 1 : d->parent + 1;
            st.st_mode = S_IFDIR;
        } else {
            uint32_t child = d->first_child + (uint32_t)(k - 2);
            name = c->tree->nodes[child].name;
            st.st_ino = child + 1;
            st.st_mode = gg_node_is_dir(&c->tree->nodes[child]) ? S_IFDIR : S_IFREG;
        }
        size_t need = fuse_add_direntry(req, buf + used, size - used, name, &st, (off_t)(k + 1));
        if (need > size - used)
            break;
        used += need;
    }
    fuse_reply_buf(req, buf, used);
    free(buf);
}

static void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    ctx *c = ctx_of(req);
    uint32_t node;
    if (node_of(c, ino, &node)) {
        fuse_reply_err(req, ENOENT);
        return;
    }
    const gg_node *n = &c->tree->nodes[node];
    if (gg_node_is_dir(n)) {
        fuse_reply_err(req, EISDIR);
        return;
    }
    if ((fi->flags & O_ACCMODE) != O_RDONLY || (fi->flags & O_TRUNC)) {
        fuse_reply_err(req, EROFS);
        return;
    }
    fi->fh = 0;
    if (is_live(n)) {
        fi->direct_io = 1; /* new numbers at every read: never from the page cache */
    } else {
        fi->keep_cache = 1;
        if (n->content == GG_C_F32 || n->content == GG_C_RAW) {
            if (c->o->direct_io)
                fi->direct_io = 1;
            else
                set_bdi_readahead(c);
        }
    }
    if (n->content == GG_C_F32) {
        gg_readahead *ra = malloc(sizeof *ra);
        if (ra) {
            gg_readahead_init(ra);
            fi->fh = (uint64_t)(uintptr_t)ra;
        }
    }
    fuse_reply_open(req, fi);
}

static void op_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    (void)ino;
    gg_readahead *ra = (gg_readahead *)(uintptr_t)fi->fh;
    if (ra) {
        gg_readahead_destroy(ra);
        free(ra);
    }
    fuse_reply_err(req, 0);
}

/* Reply buffer of the calling FUSE thread, reused across requests; freed
 * with the thread (the loop retires idle threads) through a thread key. */
typedef struct rbuf {
    char *p;
    size_t cap;
} rbuf;

static pthread_key_t rbuf_key;
static pthread_once_t rbuf_once = PTHREAD_ONCE_INIT;
static int rbuf_key_ok;

static void rbuf_free(void *v)
{
    rbuf *b = v;
    free(b->p);
    free(b);
}

static void rbuf_key_init(void) { rbuf_key_ok = pthread_key_create(&rbuf_key, rbuf_free) == 0; }

static char *reply_buf(size_t size)
{
    pthread_once(&rbuf_once, rbuf_key_init);
    if (!rbuf_key_ok)
        return NULL;
    rbuf *b = pthread_getspecific(rbuf_key);
    if (!b) {
        b = calloc(1, sizeof *b);
        if (!b)
            return NULL;
        if (pthread_setspecific(rbuf_key, b) != 0) {
            free(b);
            return NULL;
        }
    }
    if (size > b->cap || !b->p) {
        char *p = realloc(b->p, size ? size : 1);
        if (!p)
            return NULL;
        b->p = p;
        b->cap = size;
    }
    return b->p;
}

/* The cache's number for a tensor: the same numbering as tree.c (tensors of
 * all models in order). */
/* f32 reads are sent straight from the pinned cache pages: no copy in
 * user space (the kernel copies once, into the page cache or the reader). */
static void read_f32(fuse_req_t req, ctx *c, uint32_t node, size_t size, off_t off, struct fuse_file_info *fi)
{
    const gg_model *m;
    const gg_tensor *t = gg_tree_tensor(c->tree, node, &m);
    char *buf = reply_buf(size);
    if (!t || !buf) {
        fuse_reply_err(req, t ? ENOMEM : EIO);
        return;
    }
    gg_f32_ref ref;
    ssize_t got = gg_read_f32_ref(c->tree->reader, m, t, gg_tree_uid(c->tree, node), buf, size, (uint64_t)off,
                                  (gg_readahead *)(uintptr_t)fi->fh, &ref);
    if (got < 0) {
        fuse_reply_err(req, (int)-got);
        return;
    }
    if (ref.niov)
        fuse_reply_iov(req, ref.iov, ref.niov);
    else
        fuse_reply_buf(req, NULL, 0);
    gg_f32_ref_release(c->tree->reader, &ref);
}

static void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, struct fuse_file_info *fi)
{
    ctx *c = ctx_of(req);
    uint32_t node;
    if (node_of(c, ino, &node)) {
        fuse_reply_err(req, ENOENT);
        return;
    }
    if (c->tree->nodes[node].content == GG_C_F32) {
        read_f32(req, c, node, size, off, fi);
        return;
    }
    char *buf = reply_buf(size);
    if (!buf) {
        fuse_reply_err(req, ENOMEM);
        return;
    }
    ssize_t got = gg_tree_read(c->tree, node, buf, size, (uint64_t)off, (gg_readahead *)(uintptr_t)fi->fh);
    if (got < 0)
        fuse_reply_err(req, (int)-got);
    else
        fuse_reply_buf(req, buf, (size_t)got);
}

static void op_statfs(fuse_req_t req, fuse_ino_t ino)
{
    (void)ino;
    ctx *c = ctx_of(req);
    struct statvfs sv = {0};
    uint64_t bytes = 0;
    for (int i = 0; i < c->tree->n_models; i++)
        bytes += c->tree->models[i]->size;
    sv.f_bsize = sv.f_frsize = 4096;
    sv.f_blocks = (bytes + 4095) / 4096;
    sv.f_files = c->tree->n;
    sv.f_namemax = 255;
    fuse_reply_statfs(req, &sv);
}

static void op_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name, size_t size)
{
    ctx *c = ctx_of(req);
    uint32_t node;
    if (node_of(c, ino, &node)) {
        fuse_reply_err(req, ENOENT);
        return;
    }
    char val[256];
    int n = gg_xattr_get(c->tree, node, name, val, sizeof val);
    if (n < 0)
        fuse_reply_err(req, -n);
    else if (size == 0)
        fuse_reply_xattr(req, (size_t)n);
    else if ((size_t)n > size)
        fuse_reply_err(req, ERANGE);
    else
        fuse_reply_buf(req, val, (size_t)n);
}

static void op_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size)
{
    ctx *c = ctx_of(req);
    uint32_t node;
    if (node_of(c, ino, &node)) {
        fuse_reply_err(req, ENOENT);
        return;
    }
    char list[512];
    int n = gg_xattr_list(c->tree, node, list, sizeof list);
    if (size == 0)
        fuse_reply_xattr(req, (size_t)n);
    else if ((size_t)n > size)
        fuse_reply_err(req, ERANGE);
    else
        fuse_reply_buf(req, list, (size_t)n);
}

static const struct fuse_lowlevel_ops ops = {
    .init = op_init,
    .lookup = op_lookup,
    .getattr = op_getattr,
    .readdir = op_readdir,
    .open = op_open,
    .release = op_release,
    .read = op_read,
    .statfs = op_statfs,
    .getxattr = op_getxattr,
    .listxattr = op_listxattr,
};

int gg_fuse_run(gg_tree *tree, int argc, char **argv, const char *mountpoint, const gg_fuse_opts *o)
{
    struct fuse_args args = FUSE_ARGS_INIT(argc, argv);
    ctx c = {.tree = tree, .o = o, .uid = getuid(), .gid = getgid()};
    struct fuse_session *se = fuse_session_new(&args, &ops, sizeof ops, &c);
    if (!se) {
        fuse_opt_free_args(&args);
        return GG_EXIT_USAGE; /* libfuse printed which option it did not take */
    }
    int rc = GG_EXIT_OK;
    if (fuse_set_signal_handlers(se) != 0) {
        rc = GG_EXIT_INTERNAL;
        goto out_session;
    }
    if (fuse_session_mount(se, mountpoint) != 0) {
        gg_log("%s: cannot mount (is FUSE available? see messages above)", mountpoint);
        rc = GG_EXIT_MOUNT_FAILED;
        goto out_signals;
    }
    find_bdi(&c, mountpoint);
    if (fuse_daemonize(o->foreground) != 0) {
        rc = GG_EXIT_INTERNAL;
        goto out_unmount;
    }
    if (!o->foreground)
        gg_log_to_syslog(1);
    int loop;
    if (o->single_thread) {
        loop = fuse_session_loop(se);
    } else {
        struct fuse_loop_config *cfg = fuse_loop_cfg_create();
        fuse_loop_cfg_set_clone_fd(cfg, o->clone_fd ? 1 : 0);
        fuse_loop_cfg_set_max_threads(cfg, o->max_threads > 0 ? (unsigned)o->max_threads : 16);
        fuse_loop_cfg_set_idle_threads(cfg, 8);
        loop = fuse_session_loop_mt(se, cfg);
        fuse_loop_cfg_destroy(cfg);
    }
    if (loop < 0)
        rc = GG_EXIT_INTERNAL;
out_unmount:
    fuse_session_unmount(se);
    /* Said, not assumed: a mount left behind is a broken folder for the user. */
    char where[PATH_MAX];
    if (c.bdi[0] && gg_mountinfo_find_dev(c.bdi, where, sizeof where) == 1) {
        gg_log("%s: could not unmount (the mount is now at %s); clear it with: fusermount3 -u %s", mountpoint,
               where, where);
        rc = GG_EXIT_UNMOUNT;
    }
out_signals:
    fuse_remove_signal_handlers(se);
out_session:
    fuse_session_destroy(se);
    fuse_opt_free_args(&args);
    return rc;
}
