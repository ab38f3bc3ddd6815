#!/usr/bin/python3
"""faultproxy: a fault-injecting HTTP/1.1 reverse proxy for the network tests.

    faultproxy.py --upstream HOST:PORT --port-file FILE [--log FILE]
                  [--cert PEM --key PEM]

Listens on 127.0.0.1 at a free port (written to --port-file once it
listens), forwards requests to the plain-HTTP upstream over persistent
connections (one upstream connection per client connection), and injects
faults chosen by rules set through the control interface under /__proxy/
(never forwarded). With --cert/--key it speaks TLS to its clients (still
plain HTTP to the upstream). One thread per client connection: a hanging
or slow connection never blocks the others. SIGTERM/SIGINT: closes every
socket and exits 0. Interface: README.md in this directory.
"""
import argparse
import json
import os
import re
import signal
import socket
import ssl
import struct
import sys
import threading
import time

ACTIONS = {
    # action: {param: type}
    "latency": {"ms": int},
    "reset": {},
    "status": {"code": int},
    "short": {"bytes": int},
    "full200": {},
    "wrong_range": {"shift": int},
    "drop_header": {"name": (str, list)},
    "set_header": {"name": str, "value": str},
    "hang": {},
    "stall": {"bytes": int},
    "cap_range": {"bytes": int},
    "wrong_total": {"shift": int},
    "trickle": {"bytes": int, "ms": int},
}
OPTIONAL = {"match": str, "regex": str, "range": str, "method": (str, type(None)), "skip": int, "times": int,
            "headers": dict, "body": str, "comment": str}
REASONS = {200: "OK", 206: "Partial Content", 400: "Bad Request", 401: "Unauthorized",
           403: "Forbidden", 404: "Not Found", 408: "Request Timeout", 412: "Precondition Failed",
           416: "Range Not Satisfiable", 429: "Too Many Requests", 500: "Internal Server Error",
           501: "Not Implemented", 502: "Bad Gateway", 503: "Service Unavailable",
           504: "Gateway Timeout"}
HOP = {"connection", "keep-alive", "proxy-connection"}


class Gone(Exception):
    """The client (or upstream) connection went away."""


class Conn:
    """A socket with a read buffer."""

    def __init__(self, sock):
        self.sock = sock
        self.buf = b""

    def _fill(self):
        try:
            d = self.sock.recv(65536)
        except (OSError, ssl.SSLError) as e:
            raise Gone(str(e))
        if not d:
            raise Gone("closed")
        self.buf += d

    def read_head(self, limit=65536):
        """Bytes up to and including the blank line; None on a clean EOF before any byte."""
        while True:
            i = self.buf.find(b"\r\n\r\n")
            if i >= 0:
                head, self.buf = self.buf[:i + 4], self.buf[i + 4:]
                return head
            if len(self.buf) > limit:
                raise Gone("header too long")
            try:
                self._fill()
            except Gone:
                if not self.buf.strip():
                    return None
                raise

    def readline(self):
        while b"\n" not in self.buf:
            if len(self.buf) > 65536:
                raise Gone("line too long")
            self._fill()
        i = self.buf.index(b"\n") + 1
        line, self.buf = self.buf[:i], self.buf[i:]
        return line

    def read(self, n):
        while len(self.buf) < n:
            self._fill()
        d, self.buf = self.buf[:n], self.buf[n:]
        return d

    def read_some(self, n):
        """Up to n bytes; b"" at EOF."""
        if not self.buf:
            try:
                self._fill()
            except Gone:
                return b""
        d, self.buf = self.buf[:n], self.buf[n:]
        return d

    def send(self, data):
        try:
            self.sock.sendall(data)
        except (OSError, ssl.SSLError) as e:
            raise Gone(str(e))

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


def parse_head(head):
    lines = head.decode("latin-1").split("\r\n")
    first = lines[0]
    headers = []
    for line in lines[1:]:
        if not line:
            continue
        if ":" not in line:
            raise ValueError("bad header line %r" % line)
        k, v = line.split(":", 1)
        headers.append([k.strip(), v.strip()])
    return first, headers


def hget(headers, name):
    name = name.lower()
    for k, v in headers:
        if k.lower() == name:
            return v
    return None


def hdel(headers, name):
    name = name.lower()
    headers[:] = [h for h in headers if h[0].lower() != name]


def hset(headers, name, value):
    """Set a header: replaces the first of that name, drops the others."""
    lname = name.lower()
    for i, h in enumerate(headers):
        if h[0].lower() == lname:
            h[1] = value
            headers[i + 1:] = [x for x in headers[i + 1:] if x[0].lower() != lname]
            return
    headers.append([name, value])


def head_bytes(first, headers):
    return ("\r\n".join([first] + ["%s: %s" % (k, v) for k, v in headers]) + "\r\n\r\n").encode("latin-1")


def tokens(v):
    return {t.strip().lower() for t in (v or "").split(",")}


class Rule:
    def __init__(self, d):
        self.d = d
        self.seen = 0
        self.applied = 0
        self.rx = re.compile(d["regex"]) if d.get("regex") is not None else None
        self.range_rx = re.compile(d["range"]) if d.get("range") is not None else None

    def fits(self, method, path, rng=None):
        d = self.d
        if d.get("method") and d["method"].upper() != method:
            return False
        if d.get("match") is not None and d["match"] not in path:
            return False
        if self.rx is not None and not self.rx.search(path):
            return False
        if self.range_rx is not None and (rng is None or not self.range_rx.search(rng)):
            return False
        return True

    def to_json(self):
        return dict(self.d, seen=self.seen, applied=self.applied)


def validate(cfg):
    if not isinstance(cfg, dict):
        raise ValueError("body must be a JSON object")
    extra = set(cfg) - {"latency_ms", "rules"}
    if extra:
        raise ValueError("unknown keys %s" % sorted(extra))
    lat = cfg.get("latency_ms", 0)
    if not isinstance(lat, int) or isinstance(lat, bool) or lat < 0:
        raise ValueError("latency_ms must be an integer >= 0")
    rules = cfg.get("rules", [])
    if not isinstance(rules, list):
        raise ValueError("rules must be a list")
    out = []
    for i, r in enumerate(rules):
        where = "rule %d: " % i
        if not isinstance(r, dict):
            raise ValueError(where + "not an object")
        a = r.get("action")
        if a not in ACTIONS:
            raise ValueError(where + "action must be one of %s" % sorted(ACTIONS))
        allowed = dict(OPTIONAL, action=str, **ACTIONS[a])
        for k, v in r.items():
            if k not in allowed:
                raise ValueError(where + "unknown key %r for action %r" % (k, a))
            t = allowed[k]
            if not isinstance(v, t) or (t is int and isinstance(v, bool)):
                raise ValueError(where + "%r has the wrong type" % k)
        for k in ACTIONS[a]:
            if k not in r:
                raise ValueError(where + "action %r needs %r" % (a, k))
        if r.get("skip", 0) < 0 or r.get("times", 1) < -1 or r.get("times", 1) == 0:
            raise ValueError(where + "skip must be >= 0, times >= 1 or -1")
        for k in ("ms", "bytes"):
            if r.get(k, 0) < 0:
                raise ValueError(where + "%r must be >= 0" % k)
        if a in ("cap_range", "trickle") and r["bytes"] < 1:
            raise ValueError(where + "bytes must be >= 1")
        if a == "status" and not 100 <= r["code"] <= 599:
            raise ValueError(where + "code must be 100..599")
        for k in ("regex", "range"):
            if r.get(k) is not None:
                try:
                    re.compile(r[k])
                except re.error as e:
                    raise ValueError(where + "bad %s: %s" % (k, e))
        for k, v in (r.get("headers") or {}).items():
            if not isinstance(v, str) or re.search(r"[\r\n]", k + v):
                raise ValueError(where + "headers must map names to strings")
        for k in ("name", "value"):
            for v in (r[k] if isinstance(r.get(k), list) else [r[k]] if k in r else []):
                if not isinstance(v, str) or re.search(r"[\r\n:]" if k == "name" else r"[\r\n]", v):
                    raise ValueError(where + "bad %r" % k)
        out.append(Rule(r))
    return lat, out


class Proxy:
    def __init__(self, upstream, logfile, tls_ctx):
        host, _, port = upstream.rpartition(":")
        self.upstream = (host or "127.0.0.1", int(port))
        self.logfile = open(logfile, "a", buffering=1) if logfile else None
        self.tls_ctx = tls_ctx
        self.lock = threading.Lock()
        self.stop = threading.Event()
        self.latency_ms = 0
        self.rules = []
        self.log = []
        self.n = 0
        self.nconn = 0
        self.socks = set()

    # ---------------------------------------------------------- bookkeeping

    def track(self, sock):
        with self.lock:
            self.socks.add(sock)

    def untrack(self, sock):
        with self.lock:
            self.socks.discard(sock)

    def pick_rule(self, method, path, rng=None):
        with self.lock:
            for i, r in enumerate(self.rules):
                if not r.fits(method, path, rng):
                    continue
                r.seen += 1
                if r.seen <= r.d.get("skip", 0):
                    continue
                times = r.d.get("times", 1)
                if times != -1 and r.applied >= times:
                    continue
                r.applied += 1
                return i, dict(r.d)
            return None, None

    def new_entry(self, conn_id, method, path, headers):
        with self.lock:
            self.n += 1
            e = {"n": self.n, "conn": conn_id, "method": method, "path": path,
                 "range": hget(headers, "Range"), "if_match": hget(headers, "If-Match"),
                 "if_range": hget(headers, "If-Range"),
                 "authorization": hget(headers, "Authorization"),
                 "headers": [list(h) for h in headers],
                 "action": None, "rule": None, "status": None, "upstream_status": None,
                 "bytes": 0, "t_start": time.time(), "t_end": None, "error": None}
            self.log.append(e)
            return e

    def end_entry(self, e, **kw):
        with self.lock:
            if e["t_end"] is not None:
                return
            e.update(kw)
            e["t_end"] = time.time()
            line = json.dumps(e)
        if self.logfile:
            try:
                self.logfile.write(line + "\n")
            except (OSError, ValueError):
                pass

    def note(self, msg):
        if self.logfile:
            try:
                self.logfile.write(json.dumps({"note": msg, "t": time.time()}) + "\n")
            except (OSError, ValueError):
                pass

    # ---------------------------------------------------------- serving

    def serve(self, lsock):
        lsock.settimeout(0.2)
        while not self.stop.is_set():
            try:
                s, _ = lsock.accept()
            except socket.timeout:
                continue
            except OSError:
                if self.stop.is_set():
                    break
                time.sleep(0.05)
                continue
            s.settimeout(None)
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self.lock:
                self.nconn += 1
                cid = self.nconn
            self.track(s)
            threading.Thread(target=self.handle, args=(s, cid), daemon=True).start()

    def shutdown(self):
        with self.lock:
            socks = list(self.socks)
        for s in socks:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            try:
                s.close()
            except OSError:
                pass

    def handle(self, raw, cid):
        client = None
        up = [None]
        try:
            sock = raw
            if self.tls_ctx is not None:
                raw.settimeout(10)
                sock = self.tls_ctx.wrap_socket(raw, server_side=True)
                sock.settimeout(None)
                self.track(sock)
            client = Conn(sock)
            while not self.stop.is_set():
                head = client.read_head()
                if head is None:
                    break
                if not self.one_request(client, head, cid, up):
                    break
        except (Gone, ValueError, ssl.SSLError, OSError) as ex:
            self.note("conn %d: %s" % (cid, ex))
        finally:
            if up[0] is not None:
                self.untrack(up[0].sock)
                up[0].close()
            if client is not None:
                self.untrack(client.sock)
                client.close()
            self.untrack(raw)
            try:
                raw.close()
            except OSError:
                pass

    def wait_gone(self, client):
        """Keep the client connection open, reading and discarding, until it closes or we stop."""
        client.sock.settimeout(0.2)
        try:
            while not self.stop.is_set():
                try:
                    d = client.sock.recv(65536)
                except (socket.timeout, ssl.SSLWantReadError):
                    continue
                except (OSError, ssl.SSLError):
                    return
                if not d:
                    return
        finally:
            try:
                client.sock.settimeout(None)
            except OSError:
                pass

    def simple(self, client, code, body, headers=(), head_only=False, close=False):
        if isinstance(body, str):
            body = body.encode()
        hs = [list(h) for h in headers]
        if hget(hs, "Content-Type") is None:
            hs.append(["Content-Type", "text/plain" if code >= 300 else "application/json"])
        hset(hs, "Content-Length", str(len(body)))
        if close:
            hs.append(["Connection", "close"])
        client.send(head_bytes("HTTP/1.1 %d %s" % (code, REASONS.get(code, "Status")), hs)
                    + (b"" if head_only else body))
        return 0 if head_only else len(body)

    def one_request(self, client, head, cid, up):
        """Handle one request; False when the client connection must close."""
        first, headers = parse_head(head)
        parts = first.split(" ")
        if len(parts) != 3 or not parts[2].startswith("HTTP/1."):
            self.simple(client, 400, "faultproxy: bad request line\n", close=True)
            return False
        method, path, version = parts
        body = b""
        if hget(headers, "Transfer-Encoding"):
            self.simple(client, 501, "faultproxy: request bodies must use Content-Length\n", close=True)
            return False
        cl = hget(headers, "Content-Length")
        if cl:
            body = client.read(int(cl))
        conn_tokens = tokens(hget(headers, "Connection"))
        client_close = "close" in conn_tokens or (version == "HTTP/1.0" and "keep-alive" not in conn_tokens)

        if path.startswith("/__proxy/") or path == "/__proxy":
            code, obj = self.control(method, path, body)
            self.simple(client, code, json.dumps(obj, indent=1) + "\n",
                        [["Content-Type", "application/json"]], method == "HEAD", client_close)
            return not client_close

        e = self.new_entry(cid, method, path, headers)
        idx, rule = self.pick_rule(method, path, hget(headers, "Range"))
        action = rule["action"] if rule else None
        with self.lock:
            e["action"], e["rule"] = action, idx
            latency = self.latency_ms
        if latency:
            self.stop.wait(latency / 1000.0)
        if action == "latency":
            self.stop.wait(rule["ms"] / 1000.0)
        if self.stop.is_set():
            self.end_entry(e, error="proxy stopping")
            return False

        if action == "reset":
            try:
                client.sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            except OSError:
                pass
            self.end_entry(e)
            return False  # handle() closes: RST because of SO_LINGER 0
        if action == "hang":
            self.wait_gone(client)
            self.end_entry(e)
            return False
        if action == "status":
            code = rule["code"]
            n = str(e["n"])  # ({n} in its headers and body: this request's number)
            hs = [[k, v.replace("{n}", n)] for k, v in (rule.get("headers") or {}).items()]
            b = rule.get("body", "faultproxy: %d\n" % code).replace("{n}", n)
            try:
                n = self.simple(client, code, b, hs, method == "HEAD", client_close)
            except Gone as ex:
                self.end_entry(e, error=str(ex))
                return False
            self.end_entry(e, status=code, bytes=n)
            return not client_close

        # forward
        fwd = [list(h) for h in headers if h[0].lower() not in HOP]
        if action == "full200":
            hdel(fwd, "Range")
            hdel(fwd, "If-Range")
        if action == "cap_range":
            m = re.match(r"\s*bytes=(\d+)-(\d*)\s*$", hget(fwd, "Range") or "")
            if m:
                a, cap = int(m.group(1)), rule["bytes"]
                b = a + cap - 1 if not m.group(2) else min(int(m.group(2)), a + cap - 1)
                hset(fwd, "Range", "bytes=%d-%d" % (a, b))
        req = head_bytes("%s %s HTTP/1.1" % (method, path), fwd) + body
        try:
            rfirst, rheaders = self.upstream_request(req, up)
        except Gone as ex:
            try:
                n = self.simple(client, 502, "faultproxy: upstream error: %s\n" % ex,
                                head_only=method == "HEAD", close=client_close)
                self.end_entry(e, status=502, bytes=n, error="upstream: %s" % ex)
            except Gone as ex2:
                self.end_entry(e, error=str(ex2))
                return False
            return not client_close
        status = int(rfirst.split(" ")[1])
        upc = up[0]

        # body framing
        if method == "HEAD" or status < 200 or status in (204, 304):
            framing, length = "none", 0
        elif "chunked" in tokens(hget(rheaders, "Transfer-Encoding")):
            framing, length = "chunked", None
        elif hget(rheaders, "Content-Length") is not None:
            framing, length = "length", int(hget(rheaders, "Content-Length"))
        else:
            framing, length = "close", None
        up_close = "close" in tokens(hget(rheaders, "Connection")) or framing == "close"
        hdel(rheaders, "Connection")
        hdel(rheaders, "Keep-Alive")

        if action == "wrong_range":
            cr = hget(rheaders, "Content-Range")
            m = re.match(r"\s*bytes\s+(\d+)-(\d+)/(\d+|\*)\s*$", cr or "")
            if m:
                s = rule["shift"]
                hset(rheaders, "Content-Range", "bytes %d-%d/%s"
                     % (int(m.group(1)) + s, int(m.group(2)) + s, m.group(3)))
        elif action == "wrong_total":
            cr = hget(rheaders, "Content-Range")
            m = re.match(r"\s*bytes\s+(\d+-\d+|\*)/(\d+)\s*$", cr or "")
            if m:
                hset(rheaders, "Content-Range", "bytes %s/%d" % (m.group(1), int(m.group(2)) + rule["shift"]))
        elif action == "drop_header":
            for name in rule["name"] if isinstance(rule["name"], list) else [rule["name"]]:
                hdel(rheaders, name)
        elif action == "set_header":
            hset(rheaders, rule["name"], rule["value"])

        close_after = client_close or up_close
        if close_after and action not in ("short", "stall"):
            rheaders.append(["Connection", "close"])
        limit = rule["bytes"] if action in ("short", "stall") else None
        sent = 0
        try:
            client.send(head_bytes(rfirst, rheaders))
            with self.lock:
                e["status"], e["upstream_status"] = status, status
            pace = (rule["bytes"], rule["ms"]) if action == "trickle" else None
            sent, complete = self.relay(upc, client, framing, length, limit, e, pace)
        except Gone as ex:
            # client or upstream gone mid-response: drop both connections
            self.end_entry(e, error=str(ex))
            return False
        if limit is not None and not complete:
            self.drop_upstream(up)
            if action == "stall":
                self.wait_gone(client)
            self.end_entry(e, bytes=sent)
            return False
        if up_close:
            self.drop_upstream(up)
        self.end_entry(e, bytes=sent)
        return not close_after

    def drop_upstream(self, up):
        if up[0] is not None:
            self.untrack(up[0].sock)
            up[0].close()
            up[0] = None

    def upstream_request(self, req, up):
        """Send req; return the parsed response head. Retries once on a stale kept-alive connection."""
        for attempt in (0, 1):
            fresh = up[0] is None
            if fresh:
                try:
                    s = socket.create_connection(self.upstream, timeout=10)
                except OSError as ex:
                    raise Gone("connect %s:%d: %s" % (self.upstream + (ex,)))
                s.settimeout(60)
                s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                self.track(s)
                up[0] = Conn(s)
            try:
                up[0].send(req)
                head = up[0].read_head()
                if head is None:
                    raise Gone("upstream closed the connection")
                while True:
                    first, headers = parse_head(head)
                    code = int(first.split(" ")[1])
                    if code >= 200 or code == 101:
                        return first, headers
                    head = up[0].read_head()  # skip 1xx
                    if head is None:
                        raise Gone("upstream closed the connection")
            except (Gone, ValueError, IndexError) as ex:
                self.drop_upstream(up)
                if fresh or attempt == 1:
                    raise Gone(str(ex))
        raise Gone("unreachable")

    def relay(self, upc, client, framing, length, limit, e, pace=None):
        """Copy the body; returns (bytes sent to the client, whether the body was complete).
        pace (BYTES, MS): send BYTES at a time, MS apart (a trickle)."""
        sent = 0

        def send(data):
            if pace is None:
                client.send(data)
                return
            for i in range(0, len(data), max(pace[0], 1)):
                if self.stop.wait(pace[1] / 1000.0):
                    raise Gone("proxy stopping")
                client.send(data[i:i + max(pace[0], 1)])

        def out(data):
            nonlocal sent
            if limit is not None and sent + len(data) > limit:
                data = data[:limit - sent]
            if data:
                send(data)
                sent += len(data)
                with self.lock:
                    e["bytes"] = sent
            return limit is None or sent < limit

        if framing == "none":
            return 0, True
        if framing == "length":
            left = length
            if limit is not None and limit >= length:
                limit = None
            while left > 0:
                d = upc.read_some(min(left, 65536))
                if not d:
                    raise Gone("upstream closed mid-body")
                left -= len(d)
                if not out(d):
                    return sent, False
            return sent, True
        if framing == "close":
            while True:
                d = upc.read_some(65536)
                if not d:
                    return sent, True
                if not out(d):
                    return sent, False
        # chunked: relay raw, counting framing bytes too
        while True:
            line = upc.readline()
            if not out(line):
                return sent, False
            size = int(line.split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while True:
                    t = upc.readline()
                    if not out(t):
                        return sent, False
                    if t in (b"\r\n", b"\n"):
                        return sent, True
            left = size + 2
            while left > 0:
                d = upc.read(min(left, 65536))
                left -= len(d)
                if not out(d):
                    return sent, False

    # ---------------------------------------------------------- control

    def rules_json(self):
        return {"latency_ms": self.latency_ms, "rules": [r.to_json() for r in self.rules]}

    def control(self, method, path, body):
        p = path.split("?")[0].rstrip("/")
        with self.lock:
            if p == "/__proxy/rules" and method in ("GET", "HEAD"):
                return 200, self.rules_json()
            if p == "/__proxy/log" and method in ("GET", "HEAD"):
                return 200, [dict(e) for e in self.log]
        if p == "/__proxy/rules" and method in ("POST", "PUT"):
            try:
                cfg = json.loads(body.decode() or "{}")
                lat, rules = validate(cfg)
            except (ValueError, UnicodeDecodeError) as ex:
                return 400, {"error": str(ex)}
            with self.lock:
                self.latency_ms, self.rules = lat, rules
                return 200, self.rules_json()
        if p == "/__proxy/reset" and method == "POST":
            with self.lock:
                self.latency_ms, self.rules, self.log, self.n = 0, [], [], 0
            return 200, {"ok": True}
        if p == "/__proxy/log/clear" and method == "POST":
            with self.lock:
                self.log, self.n = [], 0
            return 200, {"ok": True}
        return 404, {"error": "unknown control request %s %s" % (method, p)}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--upstream", required=True, help="HOST:PORT of the plain-HTTP upstream")
    ap.add_argument("--port-file", required=True, help="written with the port once listening")
    ap.add_argument("--log", help="append one JSON line per finished request")
    ap.add_argument("--cert", help="serve TLS with this certificate (PEM)")
    ap.add_argument("--key", help="the certificate's key (PEM)")
    a = ap.parse_args()
    ctx = None
    if a.cert or a.key:
        if not (a.cert and a.key):
            ap.error("--cert and --key go together")
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(a.cert, a.key)
        ctx.set_alpn_protocols(["http/1.1"])
    proxy = Proxy(a.upstream, a.log, ctx)
    lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind(("127.0.0.1", 0))
    lsock.listen(128)

    def on_signal(signum, frame):
        proxy.stop.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    tmp = a.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("%d\n" % lsock.getsockname()[1])
    os.rename(tmp, a.port_file)
    try:
        proxy.serve(lsock)
    finally:
        lsock.close()
        proxy.shutdown()
        deadline = time.monotonic() + 2
        for t in threading.enumerate():
            if t is not threading.current_thread():
                t.join(max(0, deadline - time.monotonic()))
        if proxy.logfile:
            proxy.logfile.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
