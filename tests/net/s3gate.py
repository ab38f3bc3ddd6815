#!/usr/bin/env python3
"""s3gate: an S3 front door that checks every request's SigV4 signature,
for tests/check.d/75_remote_s3.sh.

    s3gate.py --upstream HOST:PORT --creds FILE --port-file FILE [--log FILE]

Runs with a Python that has botocore (the machine image's, beside moto).
Listens on 127.0.0.1 at a free port (written to --port-file once it
listens) and forwards what it lets through, unchanged, to the S3 server at
--upstream (moto_server, with no checks of its own). Why not moto's own
check (INITIAL_NO_AUTH_ACTION_COUNT): moto 5.2.1 recomputes the signature
over the URL as werkzeug rebuilds it (moto/core/authorization.py takes
self.uri, moto/iam/access_control.py signs it with botocore), and that URL
comes back with %2B in the path and %2F in the query decoded, so requests
signed as SigV4 says (and as botocore signs them for AWS) fail there, and
it reads only the Authorization header (a presigned URL is a KeyError, 500).

What it checks, as S3 does, on the request exactly as received:
  - Authorization: AWS4-HMAC-SHA256 Credential=KEY/DATE/REGION/s3/aws4_request,
    SignedHeaders=..., Signature=...: the key known (403 InvalidAccessKeyId),
    a session key's x-amz-security-token present, signed and its own (403
    InvalidToken), host and x-amz-date and x-amz-content-sha256 signed, and
    the signature equal to botocore's S3SigV4Auth over the method, the raw
    path, the query (pairs sorted as sent, not re-encoded), the signed
    headers and the x-amz-content-sha256 value (403 SignatureDoesNotMatch,
    with the StringToSign and CanonicalRequest S3 sends back, which hold the
    token: a client must not repeat them);
  - a presigned URL (X-Amz-Signature in the query): the same over the query
    without X-Amz-Signature and UNSIGNED-PAYLOAD, not expired (403);
  - both at once: 400 InvalidArgument (Only one auth mechanism allowed);
  - neither: 403 AccessDenied.

--creds FILE: JSON {"KEYID": {"secret": S, "token": T or null}, ...}, read
at each request (the test may add keys). --log FILE: one JSON line per
request: method, path, auth ("header", "query", "none"), key, region (of the
signature's credential scope), status.
"""
import argparse
import datetime
import http.client
import json
import os
import socket
import sys
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import unquote

from botocore.auth import S3SigV4Auth, SigV4Auth
from botocore.awsrequest import AWSRequest
from botocore.credentials import Credentials

ARGS = None
LOG_LOCK = threading.Lock()


def s3_error(code, message, extra=""):
    return ('<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>%s</Code><Message>%s</Message>%s'
            '<RequestId>s3gate</RequestId></Error>' % (code, message, extra)).encode()


def xml_escape(s):
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class Refused(Exception):
    def __init__(self, status, code, message, extra=""):
        super().__init__(code)
        self.status, self.code, self.message, self.extra = status, code, message, extra


def load_creds():
    with open(ARGS.creds) as f:
        return json.load(f)


def split_target(target):
    path, _, query = target.partition("?")
    pairs = [p.partition("=") for p in query.split("&")] if query else []
    return path, [(k, v) for k, _, v in pairs]


def canonical(method, path, pairs, headers, signed, payload):
    """The canonical request, as SigV4 defines it for S3 (no path normalisation)."""
    q = "&".join("%s=%s" % kv for kv in sorted(pairs))
    hdrs = "".join("%s:%s\n" % (h, " ".join(headers.get(h, "").split())) for h in signed)
    return "\n".join([method, path, q, hdrs, ";".join(signed), payload])


def check_header_auth(method, target, headers, creds):
    auth = headers["authorization"]
    if not auth.startswith("AWS4-HMAC-SHA256 "):
        raise Refused(400, "InvalidArgument", "Unsupported Authorization Type")
    fields = dict(p.strip().partition("=")[::2] for p in auth[len("AWS4-HMAC-SHA256 "):].split(","))
    try:
        key, date, region, service, term = fields["Credential"].split("/")
        signed = fields["SignedHeaders"].split(";")
        signature = fields["Signature"]
    except (KeyError, ValueError):
        raise Refused(400, "AuthorizationHeaderMalformed", "The authorization header is malformed")
    c = creds.get(key)
    if c is None:
        raise Refused(403, "InvalidAccessKeyId", "The AWS Access Key Id you provided does not exist in our records.")
    check_token(c, headers.get("x-amz-security-token"), "x-amz-security-token" in signed)
    for h in ("host", "x-amz-date", "x-amz-content-sha256"):
        if h not in signed:
            raise Refused(403, "AccessDenied", "%s must be signed" % h)
    path, pairs = split_target(target)
    payload = headers["x-amz-content-sha256"]
    creq = canonical(method, path, pairs, headers, signed, payload)
    # botocore's own signer, over the request as received (its canonical
    # request must be ours: a check of the check).
    req = AWSRequest(method=method, url="http://%s%s" % (headers["host"], target),
                     headers={h: headers[h] for h in signed if h in headers})
    req.context["timestamp"] = headers["x-amz-date"]
    a = S3SigV4Auth(Credentials(key, c["secret"], c.get("token")), service, region)
    if a.canonical_request(req) != creq:
        raise Refused(500, "InternalError", "s3gate: botocore's canonical request differs from the gate's")
    sts = a.string_to_sign(req, creq)
    if a.signature(sts, req) != signature:
        raise Refused(403, "SignatureDoesNotMatch",
                      "The request signature we calculated does not match the signature you provided. "
                      "Check your key and signing method.",
                      "<AWSAccessKeyId>%s</AWSAccessKeyId><StringToSign>%s</StringToSign>"
                      "<CanonicalRequest>%s</CanonicalRequest>" % (key, xml_escape(sts), xml_escape(creq)))
    return key, region


def check_token(c, token, signed):
    if c.get("token"):
        if token != c["token"] or not signed:
            raise Refused(403, "InvalidToken", "The provided token is malformed or otherwise invalid.")
    elif token is not None:
        raise Refused(403, "InvalidToken", "The provided token is malformed or otherwise invalid.")


def check_query_auth(method, target, headers, creds):
    path, pairs = split_target(target)
    q = {k: unquote(v) for k, v in pairs}
    try:
        key, date, region, service, term = q["X-Amz-Credential"].split("/")
        signed = q["X-Amz-SignedHeaders"].split(";")
        when = datetime.datetime.strptime(q["X-Amz-Date"], "%Y%m%dT%H%M%SZ").replace(tzinfo=datetime.timezone.utc)
        expires = int(q["X-Amz-Expires"])
    except (KeyError, ValueError):
        raise Refused(400, "AuthorizationQueryParametersError", "malformed presigned query")
    c = creds.get(key)
    if c is None:
        raise Refused(403, "InvalidAccessKeyId", "The AWS Access Key Id you provided does not exist in our records.")
    check_token(c, q.get("X-Amz-Security-Token"), True)
    if datetime.datetime.now(datetime.timezone.utc) > when + datetime.timedelta(seconds=expires):
        raise Refused(403, "AccessDenied", "Request has expired")
    creq = canonical(method, path, [kv for kv in pairs if kv[0] != "X-Amz-Signature"], headers, signed,
                     "UNSIGNED-PAYLOAD")
    a = SigV4Auth(Credentials(key, c["secret"], c.get("token")), service, region)
    req = AWSRequest(method=method, url="http://%s%s" % (headers["host"], target))
    req.context["timestamp"] = q["X-Amz-Date"]
    if a.signature(a.string_to_sign(req, creq), req) != q["X-Amz-Signature"]:
        raise Refused(403, "SignatureDoesNotMatch",
                      "The request signature we calculated does not match the signature you provided. "
                      "Check your key and signing method.")
    return key, region


class Gate(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def do_GET(self):
        self.handle_one("GET")

    def do_HEAD(self):
        self.handle_one("HEAD")

    def handle_one(self, method):
        headers = {k.lower(): v for k, v in self.headers.items()}
        target = self.path
        query_auth = "X-Amz-Signature=" in target.partition("?")[2]
        how = "header" if "authorization" in headers else "query" if query_auth else "none"
        key = region = None
        try:
            creds = load_creds()
            if "authorization" in headers and query_auth:
                raise Refused(400, "InvalidArgument", "Only one auth mechanism allowed; only the X-Amz-Algorithm "
                              "query parameter, Signature query string parameter or the Authorization header "
                              "should be specified")
            if how == "header":
                key, region = check_header_auth(method, target, headers, creds)
            elif how == "query":
                key, region = check_query_auth(method, target, headers, creds)
            else:
                raise Refused(403, "AccessDenied", "Access Denied")
        except Refused as r:
            body = s3_error(r.code, r.message, r.extra)
            self.send_response(r.status)
            self.send_header("Content-Type", "application/xml")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            if method != "HEAD":
                self.wfile.write(body)
            self.log(method, target, how, key, region, r.status, r.code)
            return
        status = self.forward(method, target)
        self.log(method, target, how, key, region, status, None)

    def forward(self, method, target):
        up = http.client.HTTPConnection(ARGS.upstream_host, ARGS.upstream_port, timeout=60)
        hdrs = {k: v for k, v in self.headers.items() if k.lower() not in ("connection", "keep-alive")}
        up.request(method, target, headers=hdrs)
        r = up.getresponse()
        self.send_response(r.status, r.reason)
        body_len = None
        for k, v in r.getheaders():
            if k.lower() in ("connection", "keep-alive", "transfer-encoding", "server", "date"):
                continue
            if k.lower() == "content-length":
                body_len = v
            self.send_header(k, v)
        data = r.read() if method != "HEAD" else b""
        if body_len is None:
            self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if method != "HEAD":
            self.wfile.write(data)
        up.close()
        return r.status

    def log(self, method, target, how, key, region, status, code):
        if not ARGS.log:
            return
        with LOG_LOCK, open(ARGS.log, "a") as f:
            f.write(json.dumps({"method": method, "path": target, "auth": how, "key": key, "region": region,
                                "status": status,
                                "code": code, "range": self.headers.get("Range"),
                                "if_match": self.headers.get("If-Match")}) + "\n")


def main():
    global ARGS
    ap = argparse.ArgumentParser()
    ap.add_argument("--upstream", required=True)
    ap.add_argument("--creds", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--log")
    ARGS = ap.parse_args()
    ARGS.upstream_host, _, port = ARGS.upstream.rpartition(":")
    ARGS.upstream_port = int(port)
    srv = ThreadingHTTPServer(("127.0.0.1", 0), Gate)
    srv.daemon_threads = True
    tmp = ARGS.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % srv.server_address[1])
    os.rename(tmp, ARGS.port_file)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    import signal
    signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
    main()
