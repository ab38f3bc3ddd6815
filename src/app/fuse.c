/* fuse.c - the libfuse low-level callbacks: thin glue between the kernel and
 * the tree (tree.h). Inode numbers are the tree's. The content never changes
 * while mounted (with -o edits=, a change makes new inodes, and the tree
 * tells the kernel what to forget), so attributes and entries are cached by
 * the kernel for a long time and file pages are kept across opens; the
 * keys of a writable metadata/ are read and written with direct_io. Errors
 * come from the tree as gg_err codes and leave here as errno values. */
#define FUSE_USE_VERSION 312
#include "fuse_glue.h"

#include <errno.h>
#include <fcntl.h>
#include <fuse_lowlevel.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "base/log.h"
#include "mountinfo.h"
#include "gguffs/scope.h"
#include "base/tlbuf.h"

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

static void reply_error(fuse_req_t req, const gg_err *e) { fuse_reply_err(req, gg_code_errno(e->code)); }

/* A request that failed: EINTR when its caller gave up (scope_end), else e. */
static void reply_failed(fuse_req_t req, int gave_up, const gg_err *e)
{
    fuse_reply_err(req, gave_up ? EINTR : gg_code_errno(e->code));
}

static void to_stat(ctx *c, gg_ino ino, const gg_attr *a, struct stat *st)
{
    memset(st, 0, sizeof *st);
    st->st_ino = ino;
    st->st_uid = c->uid;
    st->st_gid = c->gid;
    st->st_mtim = st->st_ctim = st->st_atim = a->mtime;
    st->st_blksize = IO_BLOCK;
    st->st_nlink = a->nlink;
    st->st_mode = a->kind == GG_K_DIR ? S_IFDIR | (a->writable ? 0755 : 0555)
                  : a->kind == GG_K_LINK ? S_IFLNK | 0777 : S_IFREG | (a->writable ? 0644 : 0444);
    st->st_size = (off_t)a->size;
    st->st_blocks = (blkcnt_t)a->blocks;
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
    /* (open(O_TRUNC) of a key comes as one call, not a truncation first) */
    if (conn->capable & FUSE_CAP_ATOMIC_O_TRUNC)
        conn->want |= FUSE_CAP_ATOMIC_O_TRUNC;
}

/* A live shelf changed: the kernel forgets what it cached of those names
 * (called from the shelf's thread, never from a request's). */
static void inval_entry(void *arg, gg_ino parent, const char *name)
{
    fuse_lowlevel_notify_inval_entry(arg, parent, name, strlen(name));
}

static void inval_inode(void *arg, gg_ino ino) { fuse_lowlevel_notify_inval_inode(arg, ino, 0, 0); }

static void on_interrupt(fuse_req_t req, void *stop)
{
    (void)req;
    atomic_store((_Atomic int *)stop, 1);
}

/* Has the reading thread a signal waiting (Ctrl-C), or is it gone (exited,
 * or a zombie not yet reaped)? The kernel interrupts a read its reader
 * waits on (FUSE_INTERRUPT), but not a read-ahead request of the page
 * cache: its reader waits on the pages that request fills, killable only,
 * with the signal pending until the request is answered, or exits when
 * killed. /proc shows the signal, and the exit. */
static int reader_gave_up(void *arg)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)(intptr_t)arg);
    FILE *f = fopen(path, "re");
    if (!f)
        return errno == ENOENT || errno == ESRCH;
    unsigned long long pnd = 0, shd = 0, blk = 0, ign = 0;
    char state = 0;
    while (fgets(line, sizeof line, f)) {
        sscanf(line, "State: %c", &state);
        sscanf(line, "SigPnd: %llx", &pnd);
        sscanf(line, "ShdPnd: %llx", &shd);
        sscanf(line, "SigBlk: %llx", &blk);
        sscanf(line, "SigIgn: %llx", &ign);
    }
    fclose(f);
    return state == 'Z' || state == 'X' || ((pnd | shd) & ~blk & ~ign) != 0;
}

/* What bounds a request: stopped once its caller gave up (interrupted by
 * the FUSE interrupt, signalled while it waits on a read-ahead, gone), as
 * long work asks (a comparison, stats, a long text, a transfer: scope.h),
 * and for a request that may reach a server (remote models) answered within
 * -o timeout, whatever it waits for. Begin before the tree call, end before
 * replying. */
typedef struct req_scope {
    _Atomic int stop;
    gg_scope scope;
} req_scope;

static void scope_begin(ctx *c, fuse_req_t req, req_scope *rs)
{
    pid_t pid = fuse_req_ctx(req)->pid;
    atomic_init(&rs->stop, 0);
    gg_scope_init(&rs->scope, c->o->net ? (int64_t)gg_net_options(c->o->net)->timeout_s * 1000 : 0, &rs->stop,
                  pid > 0 ? reader_gave_up : NULL, (void *)(intptr_t)pid);
    fuse_req_interrupt_func(req, on_interrupt, &rs->stop);
    gg_scope_set(&rs->scope);
}

/* Did the caller give up? */
static int scope_end(ctx *c, fuse_req_t req, req_scope *rs)
{
    (void)c;
    gg_scope_set(NULL);
    fuse_req_interrupt_func(req, NULL, NULL); /* (waits for a call in progress: stop is ours) */
    return atomic_load(&rs->stop) || atomic_load(&rs->scope.given_up);
}

static void op_lookup(fuse_req_t req, fuse_ino_t parent, const char *name)
{
    ctx *c = ctx_of(req);
    gg_err e;
    gg_ino ino;
    struct fuse_entry_param ep = {0};
    gg_attr a;
    req_scope rs; /* (a lookup into a remote model's folder opens it) */
    scope_begin(c, req, &rs);
    int found = gg_tree_lookup(c->tree, parent, name, &ino, &e) == 0;
    int rc = found ? gg_tree_getattr(c->tree, ino, &a, &e) : -1;
    int gave_up = scope_end(c, req, &rs);
    if (!found) {
        if (e.code != GG_E_NOENT) {
            reply_failed(req, gave_up, &e);
            return;
        }
        /* Cache the miss too: names never appear later (but keys made in a
         * writable metadata/). */
        ep.entry_timeout = c->o->edits && gg_tree_dir_writable(c->tree, parent) ? 0 : FOREVER;
        fuse_reply_entry(req, &ep);
        return;
    }
    if (rc) {
        reply_error(req, &e);
        return;
    }
    to_stat(c, ino, &a, &ep.attr);
    ep.ino = ino;
    ep.generation = 1;
    ep.attr_timeout = FOREVER;
    ep.entry_timeout = FOREVER;
    fuse_reply_entry(req, &ep);
}

static void op_getattr(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    (void)fi;
    ctx *c = ctx_of(req);
    gg_err e;
    gg_attr a;
    struct stat st;
    req_scope rs; /* (a text's size may need the text made) */
    scope_begin(c, req, &rs);
    int rc = gg_tree_getattr(c->tree, ino, &a, &e);
    int gave_up = scope_end(c, req, &rs);
    if (rc) {
        reply_failed(req, gave_up, &e);
        return;
    }
    to_stat(c, ino, &a, &st);
    fuse_reply_attr(req, &st, FOREVER);
}

typedef struct dirbuf {
    fuse_req_t req;
    char *p;
    size_t size, used;
    uint64_t next; /* the offset of the entry after the last one added */
} dirbuf;

static int add_entry(dirbuf *d, const char *name, gg_ino ino, gg_kind kind)
{
    struct stat st = {0};
    st.st_ino = ino;
    st.st_mode = kind == GG_K_DIR ? S_IFDIR : kind == GG_K_LINK ? S_IFLNK : S_IFREG;
    size_t need = fuse_add_direntry(d->req, d->p + d->used, d->size - d->used, name, &st, (off_t)(d->next + 1));
    if (need > d->size - d->used)
        return 1; /* full */
    d->used += need;
    d->next++;
    return 0;
}

static int add_child(void *arg, const char *name, gg_ino ino, gg_kind kind) { return add_entry(arg, name, ino, kind); }

static void op_readdir(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, struct fuse_file_info *fi)
{
    (void)fi;
    ctx *c = ctx_of(req);
    gg_err e;
    dirbuf d = {req, malloc(size), size, 0, (uint64_t)off};
    if (!d.p) {
        fuse_reply_err(req, ENOMEM);
        return;
    }
    /* Offsets: 0 ".", 1 "..", 2 + k the k-th child. */
    int full = 0;
    if (d.next == 0)
        full = add_entry(&d, ".", ino, GG_K_DIR);
    if (!full && d.next == 1)
        full = add_entry(&d, "..", gg_tree_parent(c->tree, ino), GG_K_DIR);
    req_scope rs; /* (listing a remote model's folder opens it) */
    scope_begin(c, req, &rs);
    int rc = !full ? gg_tree_readdir(c->tree, ino, d.next - 2, add_child, &d, &e) : 0;
    int gave_up = scope_end(c, req, &rs);
    if (rc) {
        free(d.p);
        reply_failed(req, gave_up, &e);
        return;
    }
    fuse_reply_buf(req, d.p, d.used);
    free(d.p);
}

static void op_open(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    ctx *c = ctx_of(req);
    gg_err e;
    gg_attr a;
    if (gg_tree_getattr(c->tree, ino, &a, &e)) {
        reply_error(req, &e);
        return;
    }
    if (a.kind == GG_K_DIR) {
        fuse_reply_err(req, EISDIR);
        return;
    }
    gg_open_file *of;
    if ((fi->flags & O_ACCMODE) != O_RDONLY || (fi->flags & O_TRUNC)) {
        if (!c->o->edits || gg_tree_open_write(c->tree, ino, (fi->flags & O_TRUNC) != 0, &of, &e)) {
            if (c->o->edits)
                reply_error(req, &e);
            else
                fuse_reply_err(req, EROFS);
            return;
        }
    } else if (gg_tree_open(c->tree, ino, &of, &e)) {
        reply_error(req, &e);
        return;
    }
    fi->fh = (uint64_t)(uintptr_t)of;
    if (a.writable) {
        fi->direct_io = 1; /* a key: its bytes change with its value, under one inode */
    } else if (a.live) {
        fi->direct_io = 1; /* new numbers at every read: never from the page cache */
    } else {
        /* (a model changed in place: the kernel drops its pages of the
         * file now, so that reads reach us and fail) */
        fi->keep_cache = !gg_tree_open_stale(of);
        /* (-o direct_io is per open: the files loaders map stay in the
         * page cache, where shared mmap works; llama.cpp maps its model) */
        if (a.tensor_data) {
            if (c->o->direct_io && !a.mapped)
                fi->direct_io = 1;
            else
                set_bdi_readahead(c);
        }
    }
    fuse_reply_open(req, fi);
}

static void op_release(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    (void)ino;
    gg_err e;
    gg_open_file *of = (gg_open_file *)(uintptr_t)fi->fh;
    /* (a truncation not written since: taken now; a failure is logged by the tree) */
    gg_tree_flush(ctx_of(req)->tree, of, 1, &e);
    gg_tree_close(ctx_of(req)->tree, of);
    fuse_reply_err(req, 0);
}

/* ---- writing metadata/ (-o edits=; without it the mount is read-only) ---- */

static void reply_rc(fuse_req_t req, int rc, const gg_err *e) { fuse_reply_err(req, rc ? gg_code_errno(e->code) : 0); }

static void op_write(fuse_req_t req, fuse_ino_t ino, const char *buf, size_t size, off_t off, struct fuse_file_info *fi)
{
    (void)ino;
    gg_err e;
    ssize_t n = gg_tree_write(ctx_of(req)->tree, (gg_open_file *)(uintptr_t)fi->fh, buf, size, (uint64_t)off, &e);
    if (n < 0)
        reply_error(req, &e);
    else
        fuse_reply_write(req, (size_t)n);
}

/* A close (and fsync): what was written becomes the key's value, or the
 * close fails with EINVAL and the key keeps its value. */
static void op_flush(fuse_req_t req, fuse_ino_t ino, struct fuse_file_info *fi)
{
    (void)ino;
    gg_err e;
    reply_rc(req, gg_tree_flush(ctx_of(req)->tree, (gg_open_file *)(uintptr_t)fi->fh, 0, &e), &e);
}

static void op_fsync(fuse_req_t req, fuse_ino_t ino, int datasync, struct fuse_file_info *fi)
{
    (void)datasync;
    op_flush(req, ino, fi);
}

static void op_create(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, struct fuse_file_info *fi)
{
    (void)mode;
    ctx *c = ctx_of(req);
    gg_err e;
    gg_ino ino;
    gg_open_file *of;
    gg_attr a;
    if (gg_tree_create(c->tree, parent, name, &ino, &of, &e)) {
        reply_error(req, &e);
        return;
    }
    if (gg_tree_getattr(c->tree, ino, &a, &e)) {
        gg_tree_close(c->tree, of);
        reply_error(req, &e);
        return;
    }
    struct fuse_entry_param ep = {0};
    to_stat(c, ino, &a, &ep.attr);
    ep.ino = ino;
    ep.generation = 1;
    ep.attr_timeout = FOREVER;
    ep.entry_timeout = FOREVER;
    fi->fh = (uint64_t)(uintptr_t)of;
    fi->direct_io = 1;
    fuse_reply_create(req, &ep, fi);
}

static void op_setattr(fuse_req_t req, fuse_ino_t ino, struct stat *attr, int to_set, struct fuse_file_info *fi)
{
    ctx *c = ctx_of(req);
    gg_err e;
    gg_attr a;
    gg_open_file *of = fi ? (gg_open_file *)(uintptr_t)fi->fh : NULL;
    if (gg_tree_getattr(c->tree, ino, &a, &e)) {
        reply_error(req, &e);
        return;
    }
    /* A key's size is its text's; its mode, owner and times stay (editors
     * copy them onto the files they save: not refused). */
    if (!a.writable) {
        fuse_reply_err(req, EROFS);
        return;
    }
    if ((to_set & FUSE_SET_ATTR_SIZE) &&
        (gg_tree_truncate(c->tree, ino, of, (uint64_t)attr->st_size, &e) || gg_tree_getattr(c->tree, ino, &a, &e))) {
        reply_error(req, &e);
        return;
    }
    struct stat st;
    to_stat(c, ino, &a, &st);
    if (gg_tree_written_size(of) >= 0)
        st.st_size = (off_t)gg_tree_written_size(of);
    fuse_reply_attr(req, &st, FOREVER);
}

static void op_unlink(fuse_req_t req, fuse_ino_t parent, const char *name)
{
    gg_err e;
    reply_rc(req, gg_tree_unlink(ctx_of(req)->tree, parent, name, &e), &e);
}

static void op_rename(fuse_req_t req, fuse_ino_t parent, const char *name, fuse_ino_t newparent, const char *newname,
                      unsigned int flags)
{
    gg_err e;
    if (flags & RENAME_EXCHANGE) {
        fuse_reply_err(req, EINVAL);
        return;
    }
    reply_rc(req, gg_tree_rename(ctx_of(req)->tree, parent, name, newparent, newname, (flags & RENAME_NOREPLACE) != 0, &e),
             &e);
}

static void op_setxattr(fuse_req_t req, fuse_ino_t ino, const char *name, const char *value, size_t size, int flags)
{
    (void)flags;
    gg_err e;
    reply_rc(req, gg_tree_setxattr(ctx_of(req)->tree, ino, name, value, size, &e), &e);
}

/* What metadata/ cannot hold (folders, links, devices), and what no other
 * folder can: refused. */
static void refuse_in(fuse_req_t req, fuse_ino_t parent)
{
    fuse_reply_err(req, gg_tree_dir_writable(ctx_of(req)->tree, parent) ? EPERM : EROFS);
}

static void op_mkdir(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode)
{
    (void)name, (void)mode;
    refuse_in(req, parent);
}

static void op_mknod(fuse_req_t req, fuse_ino_t parent, const char *name, mode_t mode, dev_t rdev)
{
    (void)name, (void)mode, (void)rdev;
    refuse_in(req, parent);
}

static void op_symlink(fuse_req_t req, const char *link, fuse_ino_t parent, const char *name)
{
    (void)link, (void)name;
    refuse_in(req, parent);
}

static void op_link(fuse_req_t req, fuse_ino_t ino, fuse_ino_t newparent, const char *newname)
{
    (void)ino, (void)newname;
    refuse_in(req, newparent);
}

static void op_rmdir(fuse_req_t req, fuse_ino_t parent, const char *name)
{
    (void)name;
    fuse_reply_err(req, EROFS);
}

static void op_removexattr(fuse_req_t req, fuse_ino_t ino, const char *name)
{
    (void)ino, (void)name;
    fuse_reply_err(req, EROFS);
}

/* Reply buffer of the calling FUSE thread, reused across requests. */
static gg_tlbuf reply_buf = GG_TLBUF_INIT;

/* Replies go out from where the bytes are (cached pages, texts) when they
 * can: the kernel copies once, into the page cache or the reader. */
static void op_read(fuse_req_t req, fuse_ino_t ino, size_t size, off_t off, struct fuse_file_info *fi)
{
    ctx *c = ctx_of(req);
    char *buf = gg_tlbuf_get(&reply_buf, size);
    if (!buf) {
        fuse_reply_err(req, ENOMEM);
        return;
    }
    gg_err e;
    gg_ref ref;
    req_scope rs;
    scope_begin(c, req, &rs);
    ssize_t got = gg_tree_read_ref(c->tree, ino, (gg_open_file *)(uintptr_t)fi->fh, buf, size, (uint64_t)off, &ref, &e);
    int gave_up = scope_end(c, req, &rs);
    if (got < 0) {
        reply_failed(req, gave_up, &e);
        return;
    }
    if (ref.niov)
        fuse_reply_iov(req, ref.iov, ref.niov);
    else
        fuse_reply_buf(req, NULL, 0);
    gg_tree_read_done(c->tree, &ref);
}

static void op_statfs(fuse_req_t req, fuse_ino_t ino)
{
    (void)ino;
    ctx *c = ctx_of(req);
    struct statvfs sv = {0};
    uint64_t bytes, nodes;
    gg_tree_totals(c->tree, &bytes, &nodes);
    sv.f_bsize = sv.f_frsize = 4096;
    sv.f_blocks = (bytes + 4095) / 4096;
    sv.f_files = nodes;
    sv.f_namemax = 255;
    fuse_reply_statfs(req, &sv);
}

static void op_readlink(fuse_req_t req, fuse_ino_t ino)
{
    ctx *c = ctx_of(req);
    char target[4096];
    gg_err e;
    if (gg_tree_readlink(c->tree, ino, target, sizeof target, &e) < 0)
        reply_error(req, &e);
    else
        fuse_reply_readlink(req, target);
}

/* An xattr value or list of n bytes (n < 0: the error in e); size 0 asks
 * for the length only. */
static void reply_xattr(fuse_req_t req, const char *val, int n, size_t size, const gg_err *e)
{
    if (n < 0)
        reply_error(req, e);
    else if (size == 0)
        fuse_reply_xattr(req, (size_t)n);
    else if ((size_t)n > size)
        fuse_reply_err(req, ERANGE);
    else
        fuse_reply_buf(req, val, (size_t)n);
}

static void op_getxattr(fuse_req_t req, fuse_ino_t ino, const char *name, size_t size)
{
    ctx *c = ctx_of(req);
    char val[256];
    gg_err e;
    int n = gg_tree_getxattr(c->tree, ino, name, val, sizeof val, &e);
    reply_xattr(req, val, n, size, &e);
}

static void op_listxattr(fuse_req_t req, fuse_ino_t ino, size_t size)
{
    ctx *c = ctx_of(req);
    char list[512];
    gg_err e;
    int n = gg_tree_listxattr(c->tree, ino, list, sizeof list, &e);
    reply_xattr(req, list, n, size, &e);
}

/* SIGTERM, SIGINT, SIGHUP: stop all work at once (every network transfer,
 * every comparison, stats or text being made: a read waiting on them must
 * not hold the unmount up), then end the loop. SIGUSR1: ignored; SIGUSR2
 * does nothing (the mount watcher wakes the main thread with it). */
static struct fuse_session *signal_session;
static gg_net *signal_net;

static void stop_everything(void)
{
    gg_scope_stop_all();
    if (signal_net)
        gg_net_abort(signal_net);
    if (signal_session)
        fuse_session_exit(signal_session);
}

static void on_signal(int sig)
{
    (void)sig;
    stop_everything();
}

static void on_wake(int sig) { (void)sig; }

static int session_gone(void *se) { return fuse_session_exited(se); }

static void catch_signals(struct fuse_session *se, gg_net *net)
{
    signal_session = se;
    signal_net = net;
    gg_catch_stop_signals(on_signal);
    /* SIGUSR1 and SIGUSR2 have no use here; by default they would kill the
     * daemon and leave a stale mount behind. (SIGUSR2 interrupts the main
     * thread's wait: no SA_RESTART.) */
    signal(SIGUSR1, SIG_IGN);
    struct sigaction wake = {0};
    wake.sa_handler = on_wake;
    sigemptyset(&wake.sa_mask);
    sigaction(SIGUSR2, &wake, NULL);
}

/* The mount watcher: when the mount leaves the mount table (fusermount3 -u,
 * and -u -z, which the kernel allows while files are open and which leaves
 * their readers waiting on us), everything stops as on SIGTERM and the main
 * thread, which waits for the loop's end, is woken. */
typedef struct watcher {
    pthread_t thread, main;
    const char *dev;   /* the mount's "MAJ:MIN" */
    int wake[2];       /* written to end the watch */
    _Atomic int gone;  /* the mount left the table */
    int running;
} watcher;

static void *watch_mount(void *arg)
{
    watcher *w = arg;
    if (gg_mountinfo_wait_gone(w->dev, w->wake[0]) == 1) {
        atomic_store(&w->gone, 1);
        gg_log("the mount left the mount table (unmounted): stopping all work");
        stop_everything();
        pthread_kill(w->main, SIGUSR2);
    }
    return NULL;
}

static void watch_start(watcher *w, const char *dev)
{
    w->dev = dev;
    w->main = pthread_self();
    if (!dev[0] || pipe2(w->wake, O_CLOEXEC))
        return;
    /* (its signals are the main thread's to take) */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    w->running = pthread_create(&w->thread, NULL, watch_mount, w) == 0;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (!w->running) {
        close(w->wake[0]);
        close(w->wake[1]);
    }
}

static void watch_stop(watcher *w)
{
    if (!w->running)
        return;
    if (write(w->wake[1], "x", 1) != 1)
        gg_log("could not end the mount watcher");
    pthread_join(w->thread, NULL);
    close(w->wake[0]);
    close(w->wake[1]);
    w->running = 0;
}

/* The mount left the table (watch_mount): has its connection ended too (a
 * plain unmount; allowed a moment)? Then libfuse's unmount only closes the
 * device and forgets the mount point. While files of a lazily unmounted
 * mount are still open it would unmount the folder by its path, where
 * something else may be mounted by now: that is left undone, and the
 * connection ends with the process. */
static int connection_ended(struct fuse_session *se)
{
    struct pollfd p = {fuse_session_fd(se), 0, 0};
    return poll(&p, 1, 100) == 1 && (p.revents & POLLERR);
}

static const struct fuse_lowlevel_ops ops = {
    .init = op_init,
    .lookup = op_lookup,
    .getattr = op_getattr,
    .readdir = op_readdir,
    .open = op_open,
    .release = op_release,
    .read = op_read,
    .readlink = op_readlink,
    .statfs = op_statfs,
    .getxattr = op_getxattr,
    .listxattr = op_listxattr,
    /* writing: only with -o edits= (else the mount is "ro" and the kernel refuses) */
    .write = op_write,
    .flush = op_flush,
    .fsync = op_fsync,
    .create = op_create,
    .setattr = op_setattr,
    .unlink = op_unlink,
    .rename = op_rename,
    .setxattr = op_setxattr,
    .removexattr = op_removexattr,
    .mkdir = op_mkdir,
    .mknod = op_mknod,
    .symlink = op_symlink,
    .link = op_link,
    .rmdir = op_rmdir,
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
    watcher w = {0};
    if (fuse_set_signal_handlers(se) != 0) {
        rc = GG_EXIT_INTERNAL;
        goto out_session;
    }
    catch_signals(se, o->net);
    if (o->net)
        gg_net_set_probe(o->net, session_gone, se);
    int mounted = fuse_session_mount(se, mountpoint);
    /* Mounted (or not): another gguffs on this mount point may look now. */
    if (o->mount_lock >= 0)
        close(o->mount_lock);
    if (mounted != 0) {
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
    gg_tree_set_invalidate(tree, inval_entry, inval_inode, se);
    unsigned maj, min;
    if (o->shelf && sscanf(c.bdi, "%u:%u", &maj, &min) == 2)
        gg_shelf_skip_dev(o->shelf, makedev(maj, min));
    if (o->shelf)
        gg_shelf_start(o->shelf, 1, 1);
    watch_start(&w, c.bdi);
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
    if (loop < 0 && !atomic_load(&w.gone))
        rc = GG_EXIT_INTERNAL;
    watch_stop(&w);
    if (atomic_load(&w.gone) && !connection_ended(se))
        goto out_signals;
out_unmount:
    fuse_session_unmount(se);
    /* Said, not assumed: a mount left behind is a broken folder for the user.
     * (Once it left the table, its device number may be another mount's.) */
    char where[PATH_MAX];
    if (!atomic_load(&w.gone) && c.bdi[0] && gg_mountinfo_find_dev(c.bdi, where, sizeof where) == 1) {
        gg_log("%s: could not unmount (the mount is now at %s); clear it with: fusermount3 -u %s", mountpoint,
               where, where);
        rc = GG_EXIT_UNMOUNT;
    }
out_signals:
    if (o->net) {
        gg_net_abort(o->net);
        gg_net_set_probe(o->net, NULL, NULL);
    }
    signal(SIGTERM, SIG_DFL);
    signal(SIGINT, SIG_DFL);
    signal(SIGHUP, SIG_DFL);
    signal(SIGUSR1, SIG_DFL);
    signal(SIGUSR2, SIG_DFL);
    fuse_remove_signal_handlers(se);
out_session:
    fuse_session_destroy(se);
    fuse_opt_free_args(&args);
    return rc;
}
