/* aws_config.c - the AWS settings as botocore reads them (see
 * aws_config.h): the profile's sections of the two shared files, parsed as
 * Python's configparser does (keys in lowercase, '=' or ':', an indented
 * line goes on the value before it), and the credentials in botocore's
 * order of providers. */
#include "aws_config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "gguffs/buf.h"

const char *gg_aws_env(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

/* A shared file: where it is, and how a message names it. */
typedef struct shared_file {
    char path[4096];
    char shown[4300];
    int exists;
} shared_file;

static void locate(shared_file *f, const char *var, const char *dflt)
{
    const char *v = gg_aws_env(var), *home = gg_aws_env("HOME");
    if (v && v[0] == '~' && v[1] == '/' && home)
        snprintf(f->path, sizeof f->path, "%s%s", home, v + 1);
    else if (v || home)
        snprintf(f->path, sizeof f->path, v ? "%s" : "%s/%s", v ? v : home, dflt);
    else
        f->path[0] = 0;
    struct stat st;
    f->exists = f->path[0] && stat(f->path, &st) == 0 && S_ISREG(st.st_mode);
    if (v)
        snprintf(f->shown, sizeof f->shown, "%s ($%s%s)", f->path, var, f->exists ? "" : ": no such file");
    else
        snprintf(f->shown, sizeof f->shown, "~/%s%s", dflt, f->exists ? "" : " (no such file)");
}

/* A profile's settings in one file. */
typedef struct setting {
    char *key, *value;
} setting;
typedef struct profile {
    setting *s;
    int n, cap;
    int found; /* the file has a section of it */
} profile;

static const char *get(const profile *p, const char *key)
{
    for (int i = p->n - 1; i >= 0; i--)
        if (!strcmp(p->s[i].key, key))
            return p->s[i].value;
    return NULL;
}

static void clear(profile *p)
{
    for (int i = 0; i < p->n; i++) {
        memset(p->s[i].value, 0, strlen(p->s[i].value)); /* (secrets among them) */
        free(p->s[i].key);
        free(p->s[i].value);
    }
    p->n = 0;
}

static int put(profile *p, const char *key, const char *value)
{
    if (p->n == p->cap) {
        int nc = p->cap ? 2 * p->cap : 16;
        setting *s = realloc(p->s, (size_t)nc * sizeof *s);
        if (!s)
            return -1;
        p->s = s;
        p->cap = nc;
    }
    setting *s = &p->s[p->n];
    if (!(s->key = strdup(key)) || !(s->value = strdup(value))) {
        free(s->key);
        return -1;
    }
    p->n++;
    return 0;
}

/* The words of a section's name as Python's shlex splits them (quotes
 * removed): their number, the second one into second. */
static int words(const char *s, char *second, size_t cap)
{
    int n = 0;
    second[0] = 0;
    while (*s) {
        s += strspn(s, " \t");
        if (!*s)
            break;
        size_t k = 0;
        for (char q = 0; *s && (q || (*s != ' ' && *s != '\t')); s++) {
            if (q ? *s == q : (*s == '"' || *s == '\'')) {
                q = q ? 0 : *s;
                continue;
            }
            if (n == 1 && k + 1 < cap)
                second[k++] = *s;
        }
        if (n == 1)
            second[k] = 0;
        n++;
    }
    return n;
}

/* Is [header] a section of profile `name`? In the config file [default] or
 * [profile NAME] (botocore: a header that starts with "profile" and is two
 * words), in the credentials file [NAME]. */
static int names_profile(const char *header, int config, const char *name)
{
    char second[1024];
    if (!config)
        return !strcmp(header, name);
    if (!strcmp(header, "default"))
        return !strcmp(name, "default");
    return !strncmp(header, "profile", 7) && words(header, second, sizeof second) == 2 && !strcmp(second, name);
}

static void trim_end(char *s)
{
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = 0;
}

/* Profile `name`'s settings in file f (the last of its sections: botocore
 * keeps the last), into p. 0, or -1 (out of memory). */
static int read_profile(const shared_file *f, int config, const char *name, profile *p)
{
    FILE *fp = f->exists ? fopen(f->path, "re") : NULL;
    if (!fp)
        return 0;
    char line[8192];
    int in = 0, after_key = 0, rc = 0;
    while (rc == 0 && fgets(line, sizeof line, fp)) {
        line[strcspn(line, "\r\n")] = 0;
        char *t = line + strspn(line, " \t");
        if (!*t || *t == '#' || *t == ';')
            continue;
        if (t != line && after_key)
            continue; /* (an indented line goes on the value before it: "s3 =\n  region = x" is no region) */
        char *close = *t == '[' ? strrchr(t, ']') : NULL;
        if (close) {
            *close = 0;
            in = names_profile(t + 1, config, name);
            if (in) {
                clear(p);
                p->found = 1;
            }
            after_key = 0;
            continue;
        }
        size_t k = strcspn(t, "=:");
        if (!t[k])
            continue;
        after_key = 1;
        if (!in)
            continue;
        char *v = t + k + 1;
        t[k] = 0;
        trim_end(t);
        for (char *c = t; *c; c++)
            if (*c >= 'A' && *c <= 'Z')
                *c = (char)(*c - 'A' + 'a');
        v += strspn(v, " \t");
        trim_end(v);
        rc = put(p, t, v);
    }
    memset(line, 0, sizeof line);
    fclose(fp);
    return rc;
}

static int say(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int say(char **out, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    *out = gg_vxprintf(fmt, ap);
    va_end(ap);
    return *out ? 0 : -1;
}

static int take(gg_aws *a, const char *id, const char *secret, const char *token)
{
    a->key_id = strdup(id);
    a->secret = strdup(secret);
    a->token = token ? strdup(token) : NULL;
    return a->key_id && a->secret && (!token || a->token) ? 0 : -1;
}

/* What the profile names that botocore would get credentials from and
 * gguffs does not, in botocore's order (before the credentials file's key
 * pair, or after it): its words, or NULL. */
static const char *unsupported(const profile *pc, const profile *pk, int before_keys, const char **key)
{
    static const struct {
        int before;
        const char *key, *what;
    } kinds[] = {
        {1, "role_arn", "assuming a role (role_arn, source_profile or credential_source)"},
        {1, "web_identity_token_file", "a web identity token (web_identity_token_file)"},
        {1, "sso_account_id", "AWS IAM Identity Center (sso_*)"},
        {1, "sso_role_name", "AWS IAM Identity Center (sso_*)"},
        {0, "login_session", "a console login (login_session)"},
        {0, "credential_process", "a program (credential_process)"},
    };
    for (size_t i = 0; i < sizeof kinds / sizeof *kinds; i++) {
        if (kinds[i].before != before_keys || !(get(pk, kinds[i].key) || get(pc, kinds[i].key)))
            continue;
        if (!strcmp(kinds[i].key, "role_arn") && (get(pk, "web_identity_token_file") || get(pc, "web_identity_token_file")))
            continue; /* (botocore: a web identity then) */
        *key = kinds[i].key;
        return kinds[i].what;
    }
    return NULL;
}

/* The key pair of one file's section: 1 taken (or *bad said), 0 none there,
 * -1 out of memory. */
static int pair_of(gg_aws *a, const profile *p, const char *name, const shared_file *f)
{
    const char *id = get(p, "aws_access_key_id"), *secret = get(p, "aws_secret_access_key");
    if (!id)
        return 0;
    if (!secret)
        return say(&a->bad, "partial credentials: profile \"%s\" of %s has aws_access_key_id and no "
                   "aws_secret_access_key", name, f->shown) ? -1 : 1;
    const char *token = get(p, "aws_security_token") ? get(p, "aws_security_token") : get(p, "aws_session_token");
    if (take(a, id, secret, token) || say(&a->source, "profile \"%s\" of %s", name, f->shown))
        return -1;
    return 1;
}

static int credentials(gg_aws *a, const char *name, const profile *pc, const profile *pk, const shared_file *conf,
                       const shared_file *creds)
{
    const char *id = gg_aws_env("AWS_ACCESS_KEY_ID"), *secret = gg_aws_env("AWS_SECRET_ACCESS_KEY"), *key;
    if (id && !secret)
        return say(&a->bad, "partial credentials: $AWS_ACCESS_KEY_ID is set and $AWS_SECRET_ACCESS_KEY is not");
    if (id) {
        const char *token = gg_aws_env("AWS_SECURITY_TOKEN") ? gg_aws_env("AWS_SECURITY_TOKEN")
                                                              : gg_aws_env("AWS_SESSION_TOKEN");
        return take(a, id, secret, token) || say(&a->source, "$AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY") ? -1 : 0;
    }
    const char *what = unsupported(pc, pk, 1, &key);
    if (!what && gg_aws_env("AWS_WEB_IDENTITY_TOKEN_FILE"))
        what = "a web identity token ($AWS_WEB_IDENTITY_TOKEN_FILE)", key = NULL;
    int got = what ? 0 : pair_of(a, pk, name, creds);
    if (got == 0 && !what)
        what = unsupported(pc, pk, 0, &key);
    if (got == 0 && !what)
        got = pair_of(a, pc, name, conf);
    if (got < 0)
        return -1;
    if (what)
        return say(&a->bad, "profile \"%s\" gets its credentials from %s%s%s, which gguffs does not do: give it a "
                   "key pair in $AWS_ACCESS_KEY_ID, $AWS_SECRET_ACCESS_KEY and $AWS_SESSION_TOKEN (`aws configure "
                   "export-credentials --profile %s --format env` prints them)", name, what, key ? " in " : "",
                   key ? (get(pk, key) ? creds->shown : conf->shown) : "", name);
    if (got == 0 && say(&a->source, "neither $AWS_ACCESS_KEY_ID and $AWS_SECRET_ACCESS_KEY, nor a key pair in "
                        "profile \"%s\" of %s or %s", name, creds->shown, conf->shown))
        return -1;
    return 0;
}

int gg_aws_load(gg_aws *a)
{
    memset(a, 0, sizeof *a);
    const char *var = gg_aws_env("AWS_DEFAULT_PROFILE") ? "AWS_DEFAULT_PROFILE" : "AWS_PROFILE";
    const char *named = gg_aws_env(var), *name = named ? named : "default";
    shared_file conf, creds;
    locate(&conf, "AWS_CONFIG_FILE", ".aws/config");
    locate(&creds, "AWS_SHARED_CREDENTIALS_FILE", ".aws/credentials");
    profile pc = {0}, pk = {0};
    int rc = read_profile(&conf, 1, name, &pc) || read_profile(&creds, 0, name, &pk) ? -1 : 0;
    const char *region = get(&pk, "region") ? get(&pk, "region") : get(&pc, "region");
    if (rc == 0 && region && !(a->region = strdup(region)))
        rc = -1;
    if (rc == 0 && named && !pc.found && !pk.found)
        rc = say(&a->bad, "the config profile (%s) could not be found ($%s names it; it is in neither %s nor %s)",
                 name, var, conf.shown, creds.shown);
    else if (rc == 0)
        rc = credentials(a, name, &pc, &pk, &conf, &creds);
    clear(&pc);
    clear(&pk);
    free(pc.s);
    free(pk.s);
    return rc;
}

void gg_aws_free(gg_aws *a)
{
    if (a->secret)
        memset(a->secret, 0, strlen(a->secret));
    if (a->token)
        memset(a->token, 0, strlen(a->token));
    free(a->region);
    free(a->key_id);
    free(a->secret);
    free(a->token);
    free(a->bad);
    free(a->source);
    memset(a, 0, sizeof *a);
}
