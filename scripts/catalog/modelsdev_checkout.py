#!/usr/bin/env python3
"""Turn a models.dev source checkout into the api.json that models.dev serves.

For machines that cannot reach https://models.dev/api.json but can get the
repository (github.com/anomalyco/models.dev): it applies the same rules as
the site's generator (packages/core/src/generate.ts): model metadata from
models/, provider models from providers/<id>/models/**.toml, `base_model`
merged under the provider's own fields, `base_model_omit` removed.

    python3 scripts/catalog/modelsdev_checkout.py CHECKOUT > api.json
    go run ./scripts/catalog -in api.json -source "models.dev checkout @<commit>"

Standard library only (Python 3.11+ for tomllib).
"""
import json
import os
import sys
import tomllib

# Fields of model metadata a provider model does not inherit (generate.ts).
NOT_INHERITED = {"id", "benchmarks", "license", "links", "weights"}


def load(path):
    with open(path, "rb") as f:
        return tomllib.load(f)


def tomls(root):
    for dirpath, _, files in os.walk(root, followlinks=True):
        for name in sorted(files):
            if name.endswith(".toml"):
                full = os.path.join(dirpath, name)
                if not os.path.exists(full):  # a dangling symlink in the checkout
                    print(f"skipped {full}: no such file", file=sys.stderr)
                    continue
                yield os.path.relpath(full, root)[:-5].replace(os.sep, "/"), full


def merge(base, over):
    out = dict(base)
    for k, v in over.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = merge(out[k], v)
        else:
            out[k] = v
    return out


def omit(target, paths):
    for p in paths:
        parts = p.split(".")
        cur = target
        for part in parts[:-1]:
            cur = cur.get(part)
            if not isinstance(cur, dict):
                break
        else:
            cur.pop(parts[-1], None)


def main(checkout):
    metadata = {mid: load(p) for mid, p in tomls(os.path.join(checkout, "models"))}
    out = {}
    pdir = os.path.join(checkout, "providers")
    for pid in sorted(os.listdir(pdir)):
        ptoml = os.path.join(pdir, pid, "provider.toml")
        if not os.path.isfile(ptoml):
            continue
        provider = load(ptoml)
        provider["id"] = pid
        models = {}
        mdir = os.path.join(pdir, pid, "models")
        if os.path.isdir(mdir):
            for mid, path in tomls(mdir):
                m = load(path)
                if "base_model" in m:
                    base = {k: v for k, v in metadata[m["base_model"]].items() if k not in NOT_INHERITED}
                    drop = m.pop("base_model_omit", [])
                    del m["base_model"]
                    m = merge(base, m)
                    omit(m, drop)
                m["id"] = mid
                models[mid] = m
        provider["models"] = models
        out[pid] = provider
    json.dump(out, sys.stdout, sort_keys=True)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: modelsdev_checkout.py CHECKOUT_DIR > api.json")
    main(sys.argv[1])
