#!/usr/bin/python3
"""Write the Hugging Face hub emulation's static answers for one repo revision.

    hf_tree.py ROOTDIR ORG/REPO REV [--commit SHA40] [--token TOKEN]

Reads the files under ROOTDIR/ORG/REPO/ and writes, for REV and for the
commit id (both resolve the same), into ROOTDIR/.hf/ORG/REPO/<rev>/:

  tree-r1.json tree-r2.json  /api/models/ORG/REPO/tree/REV?recursive=true, pages 1 and 2
  tree-1.json  tree-2.json   the same without recursive (top level only)
  info.json                  /api/models/ORG/REPO/revision/REV (and /api/models/ORG/REPO for main)
  meta.json                  what servers.py start-hf turns into nginx config

Entries look like the hub's: files {"type":"file","oid":<git blob sha1>,
"size":N,"path":...} plus "lfs":{"oid":<sha256>,"size":N,"pointerSize":P}
for LFS files (*.gguf, *.safetensors, *.bin, or >= 10 MiB; their git oid is
the blob id of the LFS pointer, as on the hub); directories
{"type":"directory","oid":<git tree sha1>,"size":0,"path":...}. The
commit id defaults to a hash of the content (so changed files give a new
commit). --token makes the repo private: the hub then answers 401 unless
the request has "Authorization: Bearer TOKEN". REV may have slashes
(refs/pr/1): its folder is then named with '+' for each '/'.
"""
import hashlib
import json
import os
import re
import sys

LFS_SUFFIXES = (".gguf", ".safetensors", ".bin")
LFS_MIN = 10 << 20


def blob_id(data):
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def scan(repo_dir):
    """(files, dirs): files as dicts, dirs as {path: tree oid}."""
    files = {}
    for dirpath, dirnames, filenames in os.walk(repo_dir):
        dirnames.sort()
        for name in sorted(filenames):
            full = os.path.join(dirpath, name)
            rel = os.path.relpath(full, repo_dir).replace(os.sep, "/")
            size = os.path.getsize(full)
            lfs = name.endswith(LFS_SUFFIXES) or size >= LFS_MIN
            e = {"path": rel, "size": size, "lfs": lfs}
            if lfs:
                e["sha256"] = sha256_file(full)
                pointer = ("version https://git-lfs.github.com/spec/v1\noid sha256:%s\nsize %d\n"
                           % (e["sha256"], size)).encode()
                e["pointer_size"] = len(pointer)
                e["oid"] = blob_id(pointer)
            else:
                with open(full, "rb") as f:
                    e["oid"] = blob_id(f.read())
            files[rel] = e

    # git tree ids, bottom up
    dirs = {}

    def tree(prefix):
        entries = []
        names = set()
        for p in list(files) + list(all_dirs):
            if p.startswith(prefix) and p != prefix.rstrip("/"):
                names.add(p[len(prefix):].split("/")[0])
        for n in names:
            p = prefix + n
            if p in files:
                entries.append((n, b"100644 %s\0" % n.encode() + bytes.fromhex(files[p]["oid"])))
            else:
                oid = tree(p + "/")
                dirs[p] = oid
                entries.append((n + "/", b"40000 %s\0" % n.encode() + bytes.fromhex(oid)))
        body = b"".join(e for _, e in sorted(entries))
        return hashlib.sha1(b"tree %d\0" % len(body) + body).hexdigest()

    all_dirs = set()
    for p in files:
        parts = p.split("/")[:-1]
        for i in range(1, len(parts) + 1):
            all_dirs.add("/".join(parts[:i]))
    root_tree = tree("")
    return files, dirs, root_tree


def entry_file(e):
    d = {"type": "file", "oid": e["oid"], "size": e["size"], "path": e["path"]}
    if e["lfs"]:
        d["lfs"] = {"oid": e["sha256"], "size": e["size"], "pointerSize": e["pointer_size"]}
    return d


def main(argv):
    args = list(argv)
    opts = {}
    for flag in ("--commit", "--token"):
        if flag in args:
            i = args.index(flag)
            if i + 1 >= len(args):
                sys.exit("hf_tree.py: %s needs a value" % flag)
            opts[flag] = args[i + 1]
            del args[i:i + 2]
    if len(args) != 3:
        sys.stderr.write(__doc__)
        sys.exit(2)
    root, repo, rev = os.path.abspath(args[0]), args[1], args[2]
    if not re.fullmatch(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+", repo) or repo.split("/")[0].startswith("."):
        sys.exit("hf_tree.py: ORG/REPO must be two plain names: %r" % repo)
    if not re.fullmatch(r"[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*", rev) or ".." in rev.split("/"):
        sys.exit("hf_tree.py: REV must be plain names separated by '/': %r" % rev)
    token = opts.get("--token")
    if token is not None and not re.fullmatch(r"[A-Za-z0-9_.-]+", token):
        sys.exit("hf_tree.py: TOKEN must be [A-Za-z0-9_.-]+")
    repo_dir = os.path.join(root, repo)
    if not os.path.isdir(repo_dir):
        sys.exit("hf_tree.py: no directory %s" % repo_dir)
    files, dirs, root_tree = scan(repo_dir)
    for p in files:
        if re.search(r'[\x00-\x1f"\\$]', p):
            sys.exit("hf_tree.py: unsupported character in file name %r" % p)
    commit = opts.get("--commit") or hashlib.sha1(
        ("gguffs test commit\ntree %s\n" % root_tree).encode()).hexdigest()
    if not re.fullmatch(r"[0-9a-f]{40}", commit):
        sys.exit("hf_tree.py: --commit must be 40 lowercase hex digits")

    # preorder: a directory, then what it holds, paths sorted
    entries = []
    for p in sorted(set(files) | set(dirs), key=lambda p: p.split("/")):
        if p in dirs:
            entries.append({"type": "directory", "oid": dirs[p], "size": 0, "path": p})
        else:
            entries.append(entry_file(files[p]))
    top = [e for e in entries if "/" not in e["path"]]

    def pages(lst):
        half = (len(lst) + 1) // 2
        return lst[:half], lst[half:]

    info = {
        "_id": hashlib.sha1(repo.encode()).hexdigest()[:24],
        "id": repo, "modelId": repo, "sha": commit, "private": token is not None,
        "siblings": [{"rfilename": e["path"]} for e in entries if e["type"] == "file"],
    }
    meta = {"repo": repo, "commit": commit, "token": token,
            "files": [{"path": e["path"], "size": e["size"], "lfs": e["lfs"], "oid": e["oid"],
                       **({"sha256": e["sha256"]} if e["lfs"] else {})}
                      for e in (files[p] for p in sorted(files))]}
    for r in dict.fromkeys((rev, commit)):
        out = os.path.join(root, ".hf", repo, r.replace("/", "+"))
        os.makedirs(out, exist_ok=True)
        written = {}
        for name, lst in (("tree-r", entries), ("tree-", top)):
            p1, p2 = pages(lst)
            written[name + "1.json"] = p1
            written[name + "2.json"] = p2
        written["info.json"] = info
        written["meta.json"] = dict(meta, rev=r)
        for name, obj in written.items():
            tmp = os.path.join(out, name + ".tmp")
            with open(tmp, "w") as f:
                json.dump(obj, f, separators=(",", ":"))
            os.rename(tmp, os.path.join(out, name))
    print("%s@%s commit=%s files=%d dirs=%d" % (repo, rev, commit, len(files), len(dirs)))


if __name__ == "__main__":
    main(sys.argv[1:])
