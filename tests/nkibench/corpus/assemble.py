"""Assemble a public NKI kernel corpus into a folder outside the repository: the classic-API one (issue 18) or,
with --generation current, the current-API (`import nki`) one (issue 17).

    /usr/bin/python3 tests/nkibench/corpus/assemble.py --mirrors /work/.mirror --out /work/corpus/classic
    /usr/bin/python3 tests/nkibench/corpus/assemble.py --mirrors /work/.mirror --out /work/corpus/current \
        --generation current

--mirrors holds bare git mirrors named owner+repo/repo (as the workbench's fetch tool makes them; a plain
`git clone --mirror https://github.com/OWNER/REPO OWNER+REPO/repo` gives the same). Every file is read at the
pinned commit below, so the corpus is the same wherever it is assembled. The kernels are third-party code: they go
only into --out, never into this repository. Into --out go also our manifest.json (from entries.py) and our numpy
references (references.py), which test_kernel_corpus.py reads; and sources.json, which says where each file came
from and how many files were skipped as the other generation or as harness code without a kernel.
"""
from __future__ import annotations

import argparse
import ast
import fnmatch
import posixpath
import json
import os
import re
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# (corpus folder, mirror owner+repo, commit, path patterns)
SOURCES = [
    # Neuron SDK 2.26 docs: the classic-API tutorials and examples (before the move to the current nki namespace)
    ("sdk226", "aws-neuron+aws-neuron-sdk", "8a38e733", ["general/nki/examples/*.py", "general/nki/examples/*/*.py"]),
    # nki-samples at its newest snapshot: tutorials and contributed kernels
    ("samples", "aws-neuron+nki-samples", "6905a68a", ["src/nki_samples/tutorials/*/*.py", "contributed/*.py"]),
    # nki-samples before its reference kernels were removed (c4b806e removed them)
    ("samples_ref", "aws-neuron+nki-samples", "c4b806e^", ["src/nki_samples/reference/*.py",
                                                           "src/nki_samples/reference/*/*.py"]),
    # the original AccelOpt repository: its NKIBench baselines and the sample kernels it optimized
    ("accelopt", "zhang677+AccelOpt", "47e29a7c", ["NKIBench/kernels/*.py", "samples/nki/*.py"]),
]

# The current-API corpus: the Neuron SDK docs' examples after the move to the nki.* namespace (the newest snapshot,
# docs for NKI 0.6.0 / SDK 2.32), and nki-samples' tutorials at its newest snapshot (most are still classic there).
SOURCES_CURRENT = [
    ("sdk", "aws-neuron+aws-neuron-sdk", "81ce03ae", ["nki/examples/*.py", "nki/examples/*/*.py",
                                                      "nki/deep-dives/src/*/*.py"]),
    ("samples", "aws-neuron+nki-samples", "6905a68a", ["src/nki_samples/tutorials/*/*.py", "contributed/*.py"]),
]

CLASSIC = re.compile(r"^\s*(import neuronxcc|from neuronxcc)", re.M)
CURRENT = re.compile(r"^\s*(import nki\b|from nki\b|from nki\.)", re.M)
KERNEL = re.compile(r"(@nki\.jit|@nki\.baremetal|@nki\.compiler|@jit\b|nki\.jit\(|^def kernel\()", re.M)


RELATIVE = re.compile(r"^\s*from \.", re.M)


def relative_imports(path: str, text: str) -> list:
    """The repository paths of the modules a file imports relatively (`from ..util.x import y` in
    a/b/c.py is a/util/x.py; `from . import m` is a/b/m.py), as Python resolves them within the file's package."""
    out = []
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return out  # a published syntax error: the kernel's entry says so, its imports cannot be followed
    for node in ast.walk(tree):
        if not isinstance(node, ast.ImportFrom) or not node.level:
            continue
        base = posixpath.dirname(path)
        for _ in range(node.level - 1):
            base = posixpath.dirname(base)
        mod = node.module.split(".") if node.module else []
        if mod:
            out.append(posixpath.join(base, *mod) + ".py")
        else:
            out.extend(posixpath.join(base, a.name) + ".py" for a in node.names)
    return out


def git(mirror, *args):
    return subprocess.run(["git", "--git-dir", mirror, *args], check=True, capture_output=True).stdout


def classify(text: str) -> str:
    if not KERNEL.search(text):
        return "harness"  # tests, launchers, torch/jax wrappers: no kernel of their own
    if CLASSIC.search(text):
        return "classic"
    if CURRENT.search(text):
        return "current"
    return "harness"


def write(out, dest, text):
    os.makedirs(os.path.dirname(os.path.join(out, dest)), exist_ok=True)
    with open(os.path.join(out, dest), "w", encoding="utf-8") as f:
        f.write(text)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--mirrors", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--generation", choices=("classic", "current"), default="classic")
    a = ap.parse_args(argv)
    keep = a.generation
    other = "current" if keep == "classic" else "classic"
    out = os.path.abspath(a.out)
    if os.path.commonpath([out, os.path.abspath(os.path.join(HERE, "..", "..", ".."))]) == \
            os.path.abspath(os.path.join(HERE, "..", "..", "..")):
        ap.error("--out must be outside the repository: the corpus is third-party code")
    os.makedirs(out, exist_ok=True)
    sources = SOURCES if keep == "classic" else SOURCES_CURRENT
    if os.path.isfile(os.path.join(out, "manifest.json")):
        # re-assembling a corpus folder: its source folders are written anew (a file the sources no longer give,
        # or that now keeps its package's layout, must not linger)
        for folder in {s[0] for s in sources}:
            shutil.rmtree(os.path.join(out, folder), ignore_errors=True)
    record = {"generation": keep, "files": {}, "support": {}, "skipped": {other: [], "harness": []}}
    for folder, mirror, commit, patterns in sources:
        gd = os.path.join(a.mirrors, mirror, "repo")
        if not os.path.isdir(gd):
            print(f"assemble: no mirror {gd}; fetch github:{mirror.replace('+', '/')} first", file=sys.stderr)
            return 1
        full = git(gd, "rev-parse", commit).decode().strip()
        paths = git(gd, "ls-tree", "-r", "--name-only", full).decode().splitlines()
        for p in paths:
            if not any(fnmatch.fnmatch(p, pat) and p.count("/") == pat.count("/") for pat in patterns):
                continue
            text = git(gd, "show", f"{full}:{p}").decode("utf-8", "replace")
            kind = classify(text)
            src = f"github.com/{mirror.replace('+', '/')}@{full[:12]}:{p}"
            if kind != keep:
                record["skipped"][kind].append(src)
                continue
            if RELATIVE.search(text):
                # A kernel file in a package, importing its helpers relatively: it keeps its place in the package,
                # with every module it imports relatively (and they import) at theirs, so its imports resolve as the
                # SDK resolves them (nkisim resolves relative imports against the kernel file's folder).
                dest = posixpath.join(folder, p)
                todo = relative_imports(p, text)
                while todo:
                    m = todo.pop()
                    msrc = f"github.com/{mirror.replace('+', '/')}@{full[:12]}:{m}"
                    mdest = posixpath.join(folder, m)
                    if mdest in record["support"] or m not in paths:
                        continue
                    mtext = git(gd, "show", f"{full}:{m}").decode("utf-8", "replace")
                    record["support"][mdest] = msrc
                    write(out, mdest, mtext)
                    todo.extend(relative_imports(m, mtext))
            else:
                dest = posixpath.join(folder, p.replace("/", "__"))
            write(out, dest, text)
            record["files"][dest] = src
    for f in record["files"]:
        record["support"].pop(f, None)
    sys.path.insert(0, HERE)
    import entries  # our manifest entries
    import entries_current
    manifest = [e for e in (entries.ENTRIES if keep == "classic" else entries_current.ENTRIES)
                if e["file"] in record["files"]]
    with open(os.path.join(out, "manifest.json"), "w", encoding="utf-8") as f:
        json.dump({"version": 1, "entries": manifest}, f, indent=1)
    shutil.copyfile(os.path.join(HERE, "references.py"), os.path.join(out, "references.py"))
    with open(os.path.join(out, "sources.json"), "w", encoding="utf-8") as f:
        json.dump(record, f, indent=1)
    print(f"{len(record['files'])} {keep}-API kernel files ({len(record['support'])} helper modules beside them), "
          f"{len(manifest)} manifest entries; skipped "
          f"{len(record['skipped'][other])} {other}-API and {len(record['skipped']['harness'])} harness files "
          f"-> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
