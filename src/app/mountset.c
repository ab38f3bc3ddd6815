/* mountset.c - what the command line asks to mount, as a shelf (shelf.h):
 *
 *   files and URLs     opened now (a bad one mounts nothing; a relative
 *                      path made absolute), each named by
 *                      its file name without .gguf and shard suffix; the
 *                      same file or split set named twice counts once
 *   hf://ORG/REPO/F    a name of one model (resolver.h): its URL, likewise
 *   hf://ORG/REPO      a name of a collection: every GGUF of the
 *                      repository, named by its path in it, opened on
 *                      first look
 *   folders            every model below, by their paths (a model store is
 *                      recognised), opened on first look, kept current; a
 *                      folder among several sources in a folder of its own,
 *                      named as it is (~2 if taken); a file that a folder
 *                      shows too is shown once, in the folder. A folder named
 *                      *.gguf that holds no model is refused (a file was
 *                      meant, surely)
 *   --ollama, --hf-cache, --lmstudio   the tools' own folders, at the root
 * One file or URL alone is mounted at the root ("single"). */
#include "mountset.h"

#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gguffs/net.h"
#include "gguffs/resolver.h"

/* A local model's path as the tree and the tools write it (tensors.tsv,
 * info.json, model.safetensors, models.tsv, --dump): absolute, so that it
 * still names the file after a cd, and otherwise as typed: symbolic links
 * are kept, and the working folder is spelled as $PWD when that is it (the
 * shell's spelling, links and all). NULL when out of memory. */
static char *absolute(const char *p)
{
    if (p[0] == '/')
        return strdup(p);
    char buf[PATH_MAX];
    const char *cwd = getenv("PWD");
    struct stat a, b;
    if (!cwd || cwd[0] != '/' || stat(cwd, &a) || stat(".", &b) || a.st_dev != b.st_dev || a.st_ino != b.st_ino)
        cwd = getcwd(buf, sizeof buf);
    if (!cwd)
        return strdup(p); /* (the working folder is gone: as given) */
    while (p[0] == '.' && p[1] == '/')
        for (p += 2; *p == '/'; p++)
            ;
    char *abs;
    size_t n = strlen(cwd);
    return asprintf(&abs, "%s%s%s", cwd, n && cwd[n - 1] == '/' ? "" : "/", p) < 0 ? NULL : abs;
}

static int need_net(gg_cli *c, gg_net **net)
{
    if (*net)
        return 0;
    gg_err e;
    *net = gg_net_new(&c->net, &e);
    if (!*net) {
        fprintf(stderr, "gguffs: %s\n", e.msg);
        return e.code == GG_E_INVAL ? GG_EXIT_USAGE : GG_EXIT_INTERNAL;
    }
    c->open.open_url = gg_net_url_opener;
    c->open.url_arg = *net;
    return 0;
}

/* Open one model named on the command line, unless it is one already there:
 * named as its file is, or name; with its side files (model.h), if any. */
static int add_file(gg_cli *c, gg_shelf *s, const char *spec, const char *name_as, const gg_side_spec *sides,
                    int nsides, gg_model ***opened, int *nopened)
{
    gg_model *m = calloc(1, sizeof *m);
    if (!m) {
        fprintf(stderr, "gguffs: out of memory\n");
        return GG_EXIT_INTERNAL;
    }
    gg_err e;
    if (gg_model_open(m, spec, &c->open, &e) || gg_model_load_sides(m, sides, nsides, &c->open, &e)) {
        fprintf(stderr, "gguffs: %s\n", e.msg);
        gg_model_close(m);
        free(m);
        return gg_exit_for(e.code);
    }
    for (int i = 0; i < *nopened; i++) {
        if (gg_model_same((*opened)[i], m)) {
            gg_model_close(m);
            free(m);
            return 0;
        }
    }
    gg_model **p = realloc(*opened, (size_t)(*nopened + 1) * sizeof *p);
    char name[4096];
    if (name_as)
        snprintf(name, sizeof name, "%s", name_as);
    else
        gg_model_folder_name(m, name, sizeof name);
    if (p)
        *opened = p;
    if (!p || gg_shelf_add_sides(s, name, spec, m, sides, nsides, &e)) {
        fprintf(stderr, "gguffs: out of memory\n");
        gg_model_close(m);
        free(m);
        return GG_EXIT_INTERNAL;
    }
    p[(*nopened)++] = m;
    return 0;
}

/* A folder's models: at the root, or (own) in a folder named after it. */
static int add_dir(gg_shelf *s, const char *dir, gg_store kind, int own)
{
    gg_err e;
    char *abs = own ? realpath(dir, NULL) : NULL;
    size_t found = 0;
    int rc = gg_shelf_add_dir(s, dir, kind, abs ? basename(abs) : NULL, &found, &e);
    free(abs);
    if (rc) {
        fprintf(stderr, "gguffs: %s\n", e.msg);
        return gg_exit_for(e.code);
    }
    size_t n = strlen(dir);
    while (n > 1 && dir[n - 1] == '/')
        n--;
    if (!found && n > 5 && !memcmp(dir + n - 5, ".gguf", 5)) {
        fprintf(stderr, "gguffs: %s: is a directory, not a GGUF file, and holds no GGUF model\n", dir);
        return GG_EXIT_NOT_REGULAR;
    }
    return 0;
}

/* The models a remote spec stands for (resolver.h): one opened now, or a
 * collection's, each opened on first look. */
static int add_resolved(gg_cli *c, gg_shelf *s, const char *spec, const gg_resolved *r, gg_model ***opened,
                        int *nopened, int *lazy)
{
    int rc = 0;
    for (int k = 0; k < r->count && !rc; k++) {
        const gg_resolved_model *m = &r->models[k];
        if (m->refused) {
            fprintf(stderr, "gguffs: %s: the listing names \"%s\": not mounted (%s)\n", spec, m->path, m->refused);
        } else if (!r->collection) {
            rc = add_file(c, s, m->spec, r->named ? m->path : NULL, m->sides, m->nsides, opened, nopened);
        } else {
            char name[4096];
            gg_err e;
            gg_model_name_from(m->path, strlen(m->path), name, sizeof name);
            if (gg_shelf_add_sides(s, name, m->spec, NULL, m->sides, m->nsides, &e)) {
                fprintf(stderr, "gguffs: %s\n", e.msg);
                rc = GG_EXIT_INTERNAL;
            }
            *lazy = 1;
        }
    }
    return rc;
}

/* Every model opened keeps a descriptor per file (per shard), and a folder
 * of models can hold more than the usual soft limit of 1024: take what the
 * hard limit allows. */
static void raise_fd_limit(void)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
}

int gg_mountset(gg_cli *c, int npos, gg_net **net, gg_shelf **out, int *single)
{
    *out = NULL;
    *single = 0;
    raise_fd_limit();
    gg_err e;
    /* The HTTP client first: the shelf opens its models with c->open. */
    for (int i = 0; i < npos; i++) {
        if (gg_spec_kind_of(c->pos[i]) != GG_SPEC_PATH) {
            int rc = need_net(c, net);
            if (rc)
                return rc;
            break;
        }
    }
    gg_shelf *s = gg_shelf_new(&c->open, &e);
    if (!s) {
        fprintf(stderr, "gguffs: %s\n", e.msg);
        return GG_EXIT_INTERNAL;
    }
    gg_shelf_set_budget(s, c->models_bytes);
    gg_model **opened = NULL; /* (the shelf owns them; this list only finds repeats) */
    int nopened = 0, lazy = 0, rc = 0;
    static const gg_store stores[] = {GG_STORE_OLLAMA, GG_STORE_HF, GG_STORE_PLAIN};
    int sources = npos + !!(c->stores & 1) + !!(c->stores & 2) + !!(c->stores & 4);
    for (int k = 0; k < 3 && !rc; k++) {
        if (!(c->stores & (1 << k)))
            continue;
        char *dir = gg_store_default_dir(stores[k], k == 2, &e);
        if (!dir) {
            fprintf(stderr, "gguffs: %s\n", e.msg);
            rc = GG_EXIT_USAGE;
            break;
        }
        rc = add_dir(s, dir, stores[k], 0);
        free(dir);
        lazy = 1;
    }
    /* Tell a wrong model from a missing one with SPEC's own error. */
    for (int i = 0; i < npos && !rc; i++) {
        const char *p = c->pos[i];
        struct stat st;
        if (gg_spec_kind_of(p) == GG_SPEC_PATH && stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
            rc = add_dir(s, p, GG_STORE_AUTO, sources > 1);
            lazy = 1;
            continue;
        }
        if (gg_spec_kind_of(p) == GG_SPEC_PATH) {
            char *abs = absolute(p);
            rc = abs ? add_file(c, s, abs, NULL, NULL, 0, &opened, &nopened) : GG_EXIT_INTERNAL;
            free(abs);
            continue;
        }
        if ((rc = need_net(c, net)))
            break;
        gg_resolved r;
        if (gg_resolve_spec(*net, p, &r, &e)) {
            fprintf(stderr, "gguffs: %s\n", e.msg);
            rc = gg_exit_for(e.code);
            break;
        }
        rc = add_resolved(c, s, p, &r, &opened, &nopened, &lazy);
        gg_resolved_free(&r);
    }
    free(opened);
    if (!rc)
        gg_shelf_drop_repeats(s);
    if (rc) {
        gg_shelf_free(s);
        return rc;
    }
    *single = !lazy && nopened == 1;
    *out = s;
    return 0;
}

int gg_mountset_one(gg_cli *c, gg_net **net, char **spec)
{
    const char *p = c->pos[0];
    *spec = NULL;
    if (gg_spec_kind_of(p) == GG_SPEC_PATH) {
        *spec = absolute(p);
        return *spec ? 0 : GG_EXIT_INTERNAL;
    }
    int rc = need_net(c, net);
    if (rc)
        return rc;
    gg_resolved r;
    gg_err e;
    if (gg_resolve_spec(*net, p, &r, &e)) {
        fprintf(stderr, "gguffs: %s\n", e.msg);
        return gg_exit_for(e.code);
    }
    int one = -1, mounted = 0;
    for (int i = 0; i < r.count; i++)
        if (!r.models[i].refused && !mounted++)
            one = i;
    if (r.named && mounted > 1)
        mounted = 1; /* (an Ollama model and its projector: the model) */
    if (mounted != 1) {
        fprintf(stderr, "gguffs: %s names %d models; name one of them:\n", p, mounted);
        for (int i = 0; i < r.count; i++)
            if (!r.models[i].refused)
                fprintf(stderr, "  %s\n", r.models[i].path);
        rc = GG_EXIT_USAGE;
    } else if (!(*spec = strdup(r.models[one].spec))) {
        rc = GG_EXIT_INTERNAL;
    }
    gg_resolved_free(&r);
    return rc;
}

int gg_mountset_edits(gg_cli *c, int single, int write)
{
    if (!c->edits)
        return 0;
    struct stat st;
    int there = stat(c->edits, &st) == 0, dir = there && S_ISDIR(st.st_mode);
    if (!single && there && !dir) {
        fprintf(stderr, "gguffs: -o edits=%s: this mount has several models; give a folder (each model's edits "
                        "go in it, named after its path in the tree)\n", c->edits);
        return GG_EXIT_USAGE;
    }
    c->tree.edits = c->edits;
    c->tree.edits_dir = dir || !single;
    c->tree.edits_write = write;
    return 0;
}
