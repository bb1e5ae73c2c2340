#!/usr/bin/env python3
"""scripts/finish-assets.py PKG_DIR HASH_FILE — finishes a `cargo leptos build --release
--split` site for immutable caching, precompresses it and prints its sizes.

cargo-leptos 0.3.11 names the main JS, the main WASM and the lazy-module manifest after
their content *before* it writes the lazy-module loader's final name into them, so their
names would stay the same when only a lazy module changes, and a browser keeping them as
immutable would then ask for a loader that no longer exists. The main JS, the main WASM,
the loader and the manifest refer to each other (a cycle no content hash can name), so
they are renamed after one hash of their four contents with those names taken out; the
references are rewritten in place (same length, so the WASM stays valid) and so is the
hash file the server reads. Every other file must already be named after its content: this
checks it and stops otherwise. The main JS and the loader are minified first, with
terser from node_modules (cargo-leptos's own minifier, swc, is left out of its build:
scripts/build-cargo-leptos). The TypeScript declarations are dropped (nothing loads
them), and every asset gets a .gz (zopfli, ~5 % smaller than gzip -9; gzip -9 without it)
and a .br (quality 11) when smaller.
"""

import base64
import concurrent.futures
import gzip
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys

HASHED = re.compile(r"^(?P<stem>.+)\.(?P<hash>[A-Za-z0-9_-]{22})\.(?P<ext>[a-z]+)$")
PLACEHOLDER = b"_" * 22


def b64md5(data: bytes) -> str:
    return base64.urlsafe_b64encode(hashlib.md5(data).digest()).decode().rstrip("=")


def read(path):
    with open(path, "rb") as f:
        return f.read()


def write(path, data):
    with open(path, "wb") as f:
        f.write(data)


def fail(msg):
    sys.exit(f"finish-assets: {msg}")


TERSER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "node_modules", ".bin", "terser")


def minify(data: bytes) -> bytes:
    """An ES module's JavaScript, minified (compressed and mangled) by terser."""
    if not os.path.exists(TERSER):
        fail(f"{TERSER} is missing (scripts/setup installs it from package-lock.json)")
    out = subprocess.run([TERSER, "--module", "--compress", "--mangle"], input=data, capture_output=True)
    if out.returncode != 0 or not out.stdout:
        fail(f"terser failed: {out.stderr.decode(errors='replace')[:500]}")
    return out.stdout


def main(pkg, hash_file):
    lines = dict(
        (k.strip(), v.strip())
        for k, v in (l.split(":", 1) for l in read(hash_file).decode().splitlines() if ":" in l)
    )
    for f in os.listdir(pkg):
        if f.endswith((".br", ".gz")) or (f.endswith(".ts") and ".d." in f):
            os.remove(os.path.join(pkg, f))
    files = sorted(f for f in os.listdir(pkg) if os.path.isfile(os.path.join(pkg, f)))
    # The cycle: main JS, main WASM, loader ("split"), manifest.
    group_keys = [k for k in ("js", "wasm", "split", "manifest") if k in lines]
    if not {"js", "wasm"} <= set(group_keys):
        fail(f"{hash_file} names no JS or WASM")
    kinds = {"js": ("js", False), "wasm": ("wasm", False), "split": ("js", True), "manifest": ("json", True)}

    def find(key):
        ext, loader = kinds[key]
        return next(
            (f for f in files if (m := HASHED.match(f)) and m["hash"] == lines[key] and m["ext"] == ext
             and m["stem"].startswith("__wasm_split") == loader),
            None,
        )

    group = {k: find(k) for k in group_keys}
    if None in group.values():
        fail(f"{hash_file} names files that are not in {pkg}: {lines}")
    old = [lines[k].encode() for k in group_keys]
    contents = {k: read(os.path.join(pkg, f)) for k, f in group.items()}
    for k in ("js", "split"):
        if k in contents:
            contents[k] = minify(contents[k])
    normalised = b""
    for k in group_keys:
        data = contents[k]
        for h in old:
            data = data.replace(h, PLACEHOLDER)
        normalised += data
    new = b64md5(normalised)
    for k in group_keys:
        data = contents[k]
        for h in old:
            data = data.replace(h, new.encode())
        name = group[k].replace(lines[k], new)
        os.remove(os.path.join(pkg, group[k]))
        write(os.path.join(pkg, name), data)
        group[k] = name
        lines[k] = new
    # Every other hashed file must be named after its content.
    for f in sorted(os.listdir(pkg)):
        m = HASHED.match(f)
        if f in group.values() or not m or not os.path.isfile(os.path.join(pkg, f)):
            continue
        data = read(os.path.join(pkg, f))
        if any(h in data for h in old):
            fail(f"{f} refers to a renamed file: cargo-leptos changed how it names files")
        if b64md5(data) != m["hash"]:
            fail(f"{f} is not named after its content: cargo-leptos changed how it names files")
    write(hash_file, "".join(f"{k}: {v}\n" for k, v in lines.items()).encode())
    compress(pkg)
    report(pkg, group, lines)


def compress(pkg):
    """Writes each asset's .gz and .br, on every core at once (zopfli and brotli are
    single-threaded; the main WASM's zopfli alone is most of the time, so the largest
    files start first)."""
    brotli = shutil.which("brotli")
    zopfli = shutil.which("zopfli")
    if not brotli:
        fail("the brotli command is missing (scripts/setup installs Debian's brotli)")
    paths = [os.path.join(pkg, f) for f in os.listdir(pkg)]
    paths = sorted((p for p in paths if os.path.isfile(p)), key=os.path.getsize, reverse=True)

    def gz(path):
        if zopfli:
            out = subprocess.run([zopfli, "--i5", "-c", path], check=True, capture_output=True).stdout
        else:
            out = gzip.compress(read(path), compresslevel=9, mtime=0)
        if len(out) < os.path.getsize(path):
            write(path + ".gz", out)

    def br(path):
        subprocess.run([brotli, "-q", "11", "-f", "-o", path + ".br", path], check=True)
        if os.path.getsize(path + ".br") >= os.path.getsize(path):
            os.remove(path + ".br")

    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        jobs = [pool.submit(job, p) for p in paths for job in (gz, br)]
        for job in jobs:
            job.result()


# What the sign-in page or the list may load, gzip (issue 35: "within 350 KB"), in KiB.
FIRST_PAGE_BUDGET_KIB = 350


def size(pkg, name, ext=""):
    path = os.path.join(pkg, name + ext)
    return os.path.getsize(path) if os.path.exists(path) else os.path.getsize(os.path.join(pkg, name))


def report(pkg, group, lines):
    print(f"{'asset':<72} {'raw':>9} {'gzip':>9} {'br':>9}")
    for f in sorted(os.listdir(pkg)):
        if not f.endswith((".br", ".gz")):
            print(f"{f:<72} {size(pkg, f):>9} {size(pkg, f, '.gz'):>9} {size(pkg, f, '.br'):>9}")
    css = next((f for f in os.listdir(pkg) if f.endswith(".css")), None)
    first = [group["js"], group["wasm"]] + ([css] if css else []) + ([group["split"]] if "split" in group else [])

    def total(names, label):
        t = [sum(size(pkg, n, e) for n in names) for e in ("", ".gz", ".br")]
        print(f"{label:<72} {t[0]:>9} {t[1]:>9} {t[2]:>9}")
        return t

    first_gzip = total(first, "main JS + WASM + CSS + loader (every first page)")[1]
    print(f"first page: {first_gzip / 1024:.1f} KiB gzip (budget {FIRST_PAGE_BUDGET_KIB} KiB)")
    if "manifest" in group:
        manifest = json.loads(read(os.path.join(pkg, group["manifest"])))
        for route, modules in sorted(manifest.items()):
            label = re.sub(r"^__(.*)_route_view_\d+$", r"\1", route)
            names = [m + ".wasm" for m in modules]
            total(names, f"  {label}: its modules (loaded when visited)")
            total(first + names, f"  {label} as the first page")
    if first_gzip > FIRST_PAGE_BUDGET_KIB * 1024:
        fail(
            f"the first page is {first_gzip / 1024:.1f} KiB gzip, over its budget of "
            f"{FIRST_PAGE_BUDGET_KIB} KiB (docs/benchmarks.md). If the main WASM's data section "
            "grew, the splitter may have kept all read-only data in it: see SPLIT_ROOM in "
            "app/src/lib.rs."
        )

if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
