/* test_resolver.c - the resolver table (src/remote/resolver.c) and the hub's
 * policy (src/remote/hf.c) without a server: what a spec stands for, which
 * URLs are read with the hub's policy, the headers each hop of those gets
 * (the token to the hub's origin only, never to its CDN), what the policy
 * takes from an answer, the 401/403 hint, and where the token comes from
 * ($HF_TOKEN, $HF_TOKEN_PATH, ~/.cache/huggingface/token); and the S3
 * store's row: s3:// names as URLs (path-style at an endpoint, AWS's
 * virtual hosts), which URLs it signs (never a presigned one), the headers
 * libcurl 7.88 does not add, the credentials' order and the shared files
 * read as botocore reads them, S3's error code read from a refusal without
 * what it echoes. */
#include <curl/curl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "gguffs/net.h"
#include "gguffs/resolver.h"
#include "remote/scheme.h"
#include "testlib.h"

#define HUB "http://Hub.example:8080"

static gg_net *new_net(const char *endpoint, const char *token, gg_err *e)
{
    gg_net_opts o;
    gg_net_default_opts(&o);
    o.prefetch_threads = 0;
    o.hf_endpoint = endpoint;
    o.hf_token = token;
    return gg_net_new(&o, e);
}

/* The headers a policy adds to a hop to url, one a line ("" for none). */
static void hop_headers(const gg_net_policy *p, const char *url, char *out, size_t cap)
{
    struct curl_slist *h = NULL;
    gg_net_hop hop = {.url = url, .home = HUB "/org/repo/resolve/main/m.gguf", .curl = NULL, .headers = &h};
    out[0] = 0;
    if (p && p->hop)
        p->hop(p, &hop);
    for (struct curl_slist *s = h; s; s = s->next)
        snprintf(out + strlen(out), cap - strlen(out), "%s\n", s->data);
    curl_slist_free_all(h);
}

static void test_origin(void)
{
    static const char *const cases[][2] = {
        {"HTTP://Hub.Example/x?y", "http://hub.example:80"},
        {"https://h.example:8443/a/b", "https://h.example:8443"},
        {"https://h.example", "https://h.example:443"},
        {"not a url", NULL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char *o = gg_url_origin(cases[i][0]);
        EXPECT(cases[i][1] ? o && !strcmp(o, cases[i][1]) : !o, "origin of %s: %s", cases[i][0], o ? o : "NULL");
        free(o);
    }
}

static void test_resolve(gg_net *n)
{
    static const struct {
        const char *spec, *want; /* the one model's spec */
        int collection;
    } ok[] = {
        {"hf://org/repo/a/b.gguf", HUB "/org/repo/resolve/main/a/b.gguf", 0},
        {"hf://org/repo@v1.0/m.gguf", HUB "/org/repo/resolve/v1.0/m.gguf", 0},
        {"hf://org/repo@refs/pr/1/m.gguf", HUB "/org/repo/resolve/refs%2Fpr%2F1/m.gguf", 0},
        {"hf://org/repo/a%20b.gguf", HUB "/org/repo/resolve/main/a%20b.gguf", 0},
        /* a URL stands for itself */
        {"https://cdn.example/m.gguf?sig=1", "https://cdn.example/m.gguf?sig=1", 0},
    };
    for (size_t i = 0; i < sizeof ok / sizeof *ok; i++) {
        gg_resolved r;
        gg_err e;
        int rc = gg_resolve_spec(n, ok[i].spec, &r, &e);
        EXPECT(rc == 0 && r.count == 1 && !r.models[0].refused && !strcmp(r.models[0].spec, ok[i].want) &&
                   r.collection == ok[i].collection,
               "%s: %s", ok[i].spec, rc ? e.msg : r.models[0].spec);
        if (rc == 0)
            gg_resolved_free(&r);
        EXPECT(!r.models && !r.count, "%s: gg_resolved_free zeroes", ok[i].spec);
    }
    static const char *const bad[][2] = {
        {"hf://org", "expected hf://ORG/REPO"},
        {"hf://org/repo/README.md", "not a .gguf file"},
        {"hf://org/repo/../x.gguf", "a '.' or '..' segment"},
        {"hf://org/repo@/m.gguf", "the revision after '@': empty"},
        {"hf://org/repo@../x/m.gguf", "an empty, '.' or '..' segment in the revision"},
        {"hf://org/../m.gguf", "not '.' and without '..'"},
        {"hf://org/repo@a%00b/m.gguf", "a control character (%00)"},
        {"gs://bucket/key.gguf", "gs: no source for this scheme (http:// and https:// URLs, hf://"},
        {"hff://org/repo/m.gguf", "hff: no source for this scheme"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        gg_resolved r;
        gg_err e;
        int rc = gg_resolve_spec(n, bad[i][0], &r, &e);
        EXPECT(rc == -1 && e.code == GG_E_INVAL && strstr(e.msg, bad[i][1]) && !r.count, "%s: %s", bad[i][0],
               rc ? e.msg : "resolved");
        if (rc == 0)
            gg_resolved_free(&r);
    }
}

static void test_hub_policy(gg_net *n)
{
    const gg_net_policy *p = gg_policy_for(n, HUB "/org/repo/resolve/main/m.gguf");
    EXPECT(p && p->extra_name && !strcmp(p->extra_name, "X-Linked-Etag"), "the hub's URLs: the hub's policy");
    EXPECT(gg_policy_for(n, "HTTP://HUB.EXAMPLE:8080/x") == p, "the hub's URLs whatever the case of scheme and host");
    static const char *const not_hub[] = {"http://hub.example/x", "https://hub.example:8080/x",
                                          "http://cdn.example:8080/x", "http://hub.example.evil:8080/x"};
    for (size_t i = 0; i < sizeof not_hub / sizeof *not_hub; i++)
        EXPECT(!gg_policy_for(n, not_hub[i]), "%s: no policy (not the hub's origin)", not_hub[i]);
    if (!p)
        return;

    char h[512];
    hop_headers(p, HUB "/org/repo/resolve/main/m.gguf", h, sizeof h);
    EXPECT(!strcmp(h, "Authorization: Bearer tok\n"), "a hop to the hub: the token (%s)", h);
    hop_headers(p, "http://HUB.example:8080/api/models/org/repo/tree/main?cursor=2", h, sizeof h);
    EXPECT(!strcmp(h, "Authorization: Bearer tok\n"), "a hop to the hub, spelt otherwise: the token (%s)", h);
    static const char *const cdn[] = {"http://cdn.example:8080/org/repo/m.gguf", "http://hub.example:8081/m.gguf",
                                      "https://hub.example:8080/m.gguf"};
    for (size_t i = 0; i < sizeof cdn / sizeof *cdn; i++) {
        hop_headers(p, cdn[i], h, sizeof h);
        EXPECT(!h[0], "a hop to %s (the CDN, another port or scheme): no token (%s)", cdn[i], h);
    }

    gg_http_get g = {0};
    p->header(p, &g, "ETag", "\"cdn\"");
    p->header(p, &g, "x-linked-etag", "\"sha256\"");
    p->header(p, &g, "X-Repo-Commit", "0123456789abcdef0123456789abcdef01234567");
    p->header(p, &g, "X-Linked-Size", "1234");
    EXPECT(!strcmp(g.extra, "\"sha256\"") && !strcmp(g.revision, "0123456789abcdef0123456789abcdef01234567") &&
               !g.etag[0],
           "an answer's hub headers: extra %s, revision %s, etag %s", g.extra, g.revision, g.etag);
    char longv[300];
    memset(longv, 'a', sizeof longv - 1);
    longv[sizeof longv - 1] = 0;
    p->header(p, &g, "X-Linked-Etag", longv);
    EXPECT(strlen(g.extra) == sizeof g.extra - 1, "an absurdly long X-Linked-Etag is cut (%zu)", strlen(g.extra));

    const char *hint = p->access_hint(p, HUB "/org/private/resolve/main/p.gguf");
    EXPECT(hint && strstr(hint, "$HF_TOKEN"), "a 401 from the hub: the $HF_TOKEN hint (%s)", hint ? hint : "none");
    EXPECT(!p->access_hint(p, "http://cdn.example:8080/x"), "a 403 from the CDN: no $HF_TOKEN hint");
}

/* Where the token comes from when none is given: what a hop to the hub gets. */
static void expect_token(const char *how, const char *want)
{
    gg_err e;
    gg_net *n = new_net(HUB, NULL, &e);
    EXPECT(n, "gg_net_new: %s", n ? "" : e.msg);
    if (!n)
        return;
    char h[512], w[512];
    hop_headers(gg_policy_for(n, HUB "/x"), HUB "/x", h, sizeof h);
    snprintf(w, sizeof w, want ? "Authorization: Bearer %s\n" : "", want);
    EXPECT(!strcmp(h, w), "token from %s: %s", how, h[0] ? h : "none");
    gg_net_free(n);
}

static void test_token_sources(void)
{
    char dir[] = "/tmp/test_resolver.XXXXXX";
    EXPECT(mkdtemp(dir), "mkdtemp");
    char path[300], home[300];
    snprintf(home, sizeof home, "%s/.cache/huggingface", dir);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s' && printf 'hometok\\n' >'%s/token' && printf 'filetok\\r\\nsecond\\n' >'%s/tokfile'",
             home, home, dir);
    EXPECT(system(cmd) == 0, "token files");
    snprintf(path, sizeof path, "%s/tokfile", dir);
    unsetenv("HF_TOKEN");
    unsetenv("HF_TOKEN_PATH");
    setenv("HOME", dir, 1);
    expect_token("~/.cache/huggingface/token", "hometok");
    setenv("HF_TOKEN_PATH", path, 1);
    expect_token("$HF_TOKEN_PATH (its first line)", "filetok");
    setenv("HF_TOKEN", "envtok", 1);
    expect_token("$HF_TOKEN", "envtok");
    unsetenv("HF_TOKEN");
    setenv("HF_TOKEN_PATH", "/nonexistent/token", 1);
    expect_token("a token file that is not there", NULL);
    unsetenv("HF_TOKEN_PATH");
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    EXPECT(system(cmd) == 0, "rm");
}

static void test_endpoint(void)
{
    gg_err e;
    gg_net *n = new_net("not a url", "", &e);
    EXPECT(!n && e.code == GG_E_INVAL && !strcmp(e.msg, "HF_ENDPOINT not a url is not a URL"), "a bad endpoint: %s",
           n ? "accepted" : e.msg);
    gg_net_free(n);
    /* trailing slashes are dropped */
    n = new_net(HUB "//", "", &e);
    gg_resolved r;
    EXPECT(n && gg_resolve_spec(n, "hf://o/r/m.gguf", &r, &e) == 0 &&
               !strcmp(r.models[0].spec, HUB "/o/r/resolve/main/m.gguf"),
           "an endpoint with trailing slashes: %s", n ? r.models[0].spec : e.msg);
    if (n)
        gg_resolved_free(&r);
    gg_net_free(n);
}

static gg_net *s3_net(const char *endpoint, gg_err *e)
{
    gg_net_opts o;
    gg_net_default_opts(&o);
    o.prefetch_threads = 0;
    o.hf_token = "";
    o.s3_endpoint = endpoint;
    return gg_net_new(&o, e);
}

static void expect_one(gg_net *n, const char *spec, const char *want)
{
    gg_resolved r;
    gg_err e;
    int rc = gg_resolve_spec(n, spec, &r, &e);
    EXPECT(rc == 0 && r.count == 1 && !r.collection && !strcmp(r.models[0].spec, want), "%s: %s (want %s)", spec,
           rc ? e.msg : r.models[0].spec, want);
    if (rc == 0)
        gg_resolved_free(&r);
}

/* The token a hop to AWS's host of bucket b, key k.gguf, in the net's
 * region (what s3://b/k.gguf stands for) carries, and that URL. */
static void aws_hop(const char *why, const char *region, const char *token)
{
    gg_err e;
    gg_net *n = s3_net(NULL, &e);
    char url[200], h[512], want[100];
    snprintf(url, sizeof url, "https://b.s3.%s.amazonaws.com/k.gguf", region);
    EXPECT(n, "%s: %s", why, n ? "" : e.msg);
    if (!n)
        return;
    expect_one(n, "s3://b/k.gguf", url);
    hop_headers(gg_policy_for(n, url), url, h, sizeof h);
    snprintf(want, sizeof want, "x-amz-security-token: %s\n", token);
    EXPECT(token[0] ? strstr(h, want) != NULL : !strstr(h, "x-amz-security-token"), "%s: token %s (%s)", why, token, h);
    gg_net_free(n);
}

/* The shared files as botocore reads them (aws_config.h): the last section
 * naming a profile, [profile NAME] as shlex splits it, keys in any case and
 * with ':', a nested value ("s3 =" and indented lines) not a setting, the
 * credentials file's keys first, $AWS_DEFAULT_PROFILE before $AWS_PROFILE. */
static void test_botocore_files(const char *dir)
{
    char cfg[300], crd[300];
    snprintf(cfg, sizeof cfg, "%s/cfg", dir);
    snprintf(crd, sizeof crd, "%s/crd", dir);
    FILE *f = fopen(cfg, "w");
    fprintf(f, "[default]\nregion = us-west-2\n[profile default]\nregion = eu-west-3\ns3 =\n    region = ap-south-1\n"
               "# [profile both]\n; region = xx\n[profile \"two words\"]\nAWS_ACCESS_KEY_ID = TW\n"
               "aws_secret_access_key: TWS\naws_session_token = TWTOK\nregion = ca-central-1\n"
               "[profile both]\naws_access_key_id = CB\naws_secret_access_key = CBS\naws_session_token = CBTOK\n"
               "region = sa-east-1\n");
    fclose(f);
    f = fopen(crd, "w");
    fprintf(f, "[both]\naws_access_key_id = KB\naws_secret_access_key = KBS\naws_session_token = KBTOK\n"
               "[default]\naws_access_key_id = KD\naws_secret_access_key = KDS\n");
    fclose(f);
    setenv("AWS_CONFIG_FILE", cfg, 1);
    setenv("AWS_SHARED_CREDENTIALS_FILE", crd, 1);
    aws_hop("default: the region of its last section, not a nested one; no token", "eu-west-3", "");
    setenv("AWS_PROFILE", "two words", 1);
    aws_hop("[profile \"two words\"]: its keys, whatever their case", "ca-central-1", "TWTOK");
    setenv("AWS_PROFILE", "both", 1);
    aws_hop("both files: the credentials file's keys, the config's region", "sa-east-1", "KBTOK");
    setenv("AWS_DEFAULT_PROFILE", "two words", 1);
    aws_hop("$AWS_DEFAULT_PROFILE before $AWS_PROFILE", "ca-central-1", "TWTOK");
    unsetenv("AWS_DEFAULT_PROFILE");
    unsetenv("AWS_PROFILE");
    unsetenv("AWS_CONFIG_FILE");
    unsetenv("AWS_SHARED_CREDENTIALS_FILE");
}

static void test_s3(void)
{
    char dir[] = "/tmp/gguffs-test-s3-XXXXXX", path[300];
    EXPECT(mkdtemp(dir), "mkdtemp");
    setenv("HOME", dir, 1);
    snprintf(path, sizeof path, "%s/.aws", dir);
    mkdir(path, 0700);
    snprintf(path, sizeof path, "%s/.aws/credentials", dir);
    FILE *f = fopen(path, "w");
    fprintf(f, "[default]\naws_access_key_id = D\naws_secret_access_key = DS\naws_session_token = DTOK\n"
               "[other]\naws_access_key_id=O\naws_secret_access_key=OS\naws_session_token=OTOK\n");
    fclose(f);
    snprintf(path, sizeof path, "%s/.aws/config", dir);
    f = fopen(path, "w");
    fprintf(f, "[profile other]\nregion = eu-north-1\n");
    fclose(f);
    static const char *const vars[] = {"AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "AWS_PROFILE",
                                       "AWS_REGION", "AWS_DEFAULT_REGION", "AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3",
                                       "AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE", "AWS_DEFAULT_PROFILE",
                                       "AWS_SECURITY_TOKEN", "AWS_WEB_IDENTITY_TOKEN_FILE"};
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++)
        unsetenv(vars[i]);
    gg_err e;
    char h[512];

    /* A custom endpoint: path-style, the key encoded as SigV4 wants it. */
    gg_net *n = s3_net("http://127.0.0.1:9000/", &e);
    EXPECT(n, "s3 net: %s", n ? "" : e.msg);
    if (!n)
        return;
    expect_one(n, "s3://models/dir with space/a b+c~.gguf", "http://127.0.0.1:9000/models/dir%20with%20space/a%20b%2Bc~.gguf");
    const gg_net_policy *p = gg_policy_for(n, "http://127.0.0.1:9000/models/m.gguf");
    EXPECT(p && p->hop && p->refusal, "the endpoint's URLs: the store's policy");
    EXPECT(!gg_policy_for(n, "http://127.0.0.1:9000/models/m.gguf?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Signature=ab"),
           "a presigned URL: no policy (never signed again)");
    EXPECT(!gg_policy_for(n, "http://127.0.0.1:9001/models/m.gguf"), "another port: no policy");
    /* The profile "default" (no pair in the environment): its token goes along. */
    hop_headers(p, "http://127.0.0.1:9000/models/m.gguf", h, sizeof h);
    EXPECT(!strcmp(h, "x-amz-content-sha256: UNSIGNED-PAYLOAD\nx-amz-security-token: DTOK\n"), "a hop to the store: %s", h);
    hop_headers(p, "http://cdn.example/x", h, sizeof h);
    EXPECT(!h[0], "a hop elsewhere (a redirect): nothing (%s)", h);
    const char *body = "<?xml version=\"1.0\"?><Error><Code>SignatureDoesNotMatch</Code><Message>The request "
                       "signature &amp; so on</Message><StringToSign>x-amz-security-token:SECRET</StringToSign></Error>";
    char said[300];
    EXPECT(p->refusal(p, body, strlen(body), said, sizeof said) &&
               !strcmp(said, "SignatureDoesNotMatch: The request signature & so on"),
           "refusal: %s", said);
    EXPECT(!p->refusal(p, "<html>no</html>", 15, said, sizeof said), "a refusal that is not S3's: nothing said");
    gg_net_free(n);

    /* The environment's pair wins over the profile; AWS_PROFILE picks one. */
    setenv("AWS_ACCESS_KEY_ID", "E", 1);
    setenv("AWS_SECRET_ACCESS_KEY", "ES", 1);
    setenv("AWS_SESSION_TOKEN", "ETOK", 1);
    n = s3_net("http://127.0.0.1:9000", &e);
    hop_headers(n ? gg_policy_for(n, "http://127.0.0.1:9000/b/k.gguf") : NULL, "http://127.0.0.1:9000/b/k.gguf", h, sizeof h);
    EXPECT(strstr(h, "x-amz-security-token: ETOK\n"), "the environment's token first: %s", h);
    gg_net_free(n);
    unsetenv("AWS_ACCESS_KEY_ID");
    unsetenv("AWS_SECRET_ACCESS_KEY");
    unsetenv("AWS_SESSION_TOKEN");
    setenv("AWS_PROFILE", "other", 1);
    n = s3_net(NULL, &e);
    const char *aws = "https://mybucket.s3.eu-north-1.amazonaws.com/k.gguf";
    hop_headers(n ? gg_policy_for(n, aws) : NULL, aws, h, sizeof h);
    EXPECT(strstr(h, "x-amz-security-token: OTOK\n"), "AWS_PROFILE=other: its token (%s)", h);
    /* AWS: the profile's region (config), virtual hosts, path-style for a dotted bucket. */
    if (n) {
        expect_one(n, "s3://mybucket/k.gguf", aws);
        expect_one(n, "s3://my.bucket/a/k.gguf", "https://s3.eu-north-1.amazonaws.com/my.bucket/a/k.gguf");
        EXPECT(gg_policy_for(n, "https://s3.eu-north-1.amazonaws.com/my.bucket/a/k.gguf"), "AWS's path-style host: signed");
        EXPECT(!gg_policy_for(n, "https://mybucket.s3.us-east-1.amazonaws.com/k.gguf"), "another region's host: not signed");
        EXPECT(!gg_policy_for(n, "https://evil.example/x.s3.eu-north-1.amazonaws.com/k.gguf"), "a host that only looks like it");
        gg_resolved r;
        EXPECT(gg_resolve_spec(n, "s3://bad bucket/k.gguf", &r, &e) == -1 && e.code == GG_E_INVAL, "bad bucket: %s", e.msg);
    }
    gg_net_free(n);
    unsetenv("AWS_PROFILE");
    /* A bad -o s3_endpoint= stops the net (it is checked before anything
     * is opened); a bad $AWS_ENDPOINT_URL is said when s3:// is used, and
     * stops nothing else. */
    n = s3_net("http://192.0.2.7:9000", &e);
    EXPECT(!n && e.code == GG_E_INVAL && strstr(e.msg, "-o s3_endpoint=http://192.0.2.7:9000: http:// only to this machine"),
           "a bad -o s3_endpoint=: %s", n ? "a net" : e.msg);
    gg_net_free(n);
    setenv("AWS_ENDPOINT_URL", "http://192.0.2.7:9000", 1);
    n = s3_net(NULL, &e);
    EXPECT(n, "a bad $AWS_ENDPOINT_URL does not stop the net: %s", n ? "" : e.msg);
    if (n) {
        gg_resolved r;
        EXPECT(gg_resolve_spec(n, "s3://b/k.gguf", &r, &e) == -1 && e.code == GG_E_INVAL &&
                   strstr(e.msg, "$AWS_ENDPOINT_URL: http:// only to this machine"),
               "bad endpoint: %s", e.msg);
        EXPECT(gg_resolve_spec(n, "https://x.example/m.gguf", &r, &e) == 0, "a URL still resolves");
        gg_resolved_free(&r);
        gg_net_free(n);
    }
    unsetenv("AWS_ENDPOINT_URL");
    test_botocore_files(dir);
    snprintf(path, sizeof path, "rm -rf '%s'", dir);
    EXPECT(system(path) == 0, "rm");
}

int main(void)
{
    gg_err e;
    gg_net *n = new_net(HUB, "tok", &e);
    EXPECT(n, "gg_net_new: %s", n ? "" : e.msg);
    if (!n)
        return 1;
    test_origin();
    test_resolve(n);
    test_hub_policy(n);
    gg_net_free(n);
    test_token_sources();
    test_endpoint();
    test_s3();
    if (fails)
        fprintf(stderr, "test_resolver: %d failed\n", fails);
    else
        printf("test_resolver: ok\n");
    return fails != 0;
}
