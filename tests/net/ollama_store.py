#!/usr/bin/python3
"""ollama_store.py STORE NS/MODEL:TAG [--model F] [--projector F] [--tensor F]
                  [--template TEXT] [--system TEXT] [--params JSON] [--license TEXT]...

Adds a tag to STORE, laid out as Ollama keeps its models
(manifests/registry.ollama.ai/NS/MODEL/TAG, blobs/sha256-HEX): the files
given as its layers (--tensor: a layer of Ollama's safetensors models,
application/vnd.ollama.image.tensor, instead of a GGUF one), the texts as
its small layers. The same folder is a local store (gguffs --ollama) and
the content of the registry emulation (servers.py start-ollama). Prints
the digest of each layer, one "KIND sha256:HEX" a line."""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import make_stores  # noqa: E402  (blob, ollama_manifest)

MT = "application/vnd.ollama.image."


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("store")
    ap.add_argument("name")
    for f in ("model", "projector", "tensor"):
        ap.add_argument("--" + f)
    for t in ("template", "system", "params"):
        ap.add_argument("--" + t)
    ap.add_argument("--license", action="append", default=[])
    a = ap.parse_args()
    ns_model, _, tag = a.name.partition(":")
    ns, _, model = ns_model.rpartition("/")
    os.makedirs(os.path.join(a.store, "blobs"), exist_ok=True)
    layers = []
    for kind in ("model", "projector", "tensor"):
        if getattr(a, kind):
            layers.append((MT + kind, make_stores.blob(a.store, open(getattr(a, kind), "rb").read())))
    for kind in ("template", "system", "params"):
        if getattr(a, kind) is not None:
            layers.append((MT + kind, make_stores.blob(a.store, getattr(a, kind).encode())))
    for text in a.license:
        layers.append((MT + "license", make_stores.blob(a.store, text.encode())))
    make_stores.ollama_manifest(a.store, "manifests/registry.ollama.ai/%s/%s/%s" % (ns or "library", model, tag or "latest"),
                                layers)
    for mt, d in layers:
        print(mt[len(MT):], d)


if __name__ == "__main__":
    main()
