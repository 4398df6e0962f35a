#!/usr/bin/env python3
"""Writes the files of a cuda-samples commit from a bare git mirror (such as
the search tool's `fetch` gives) into a folder, as a checkout would hold
them, for run_samples.py. A mirror may lack some blobs (large data files):
those are skipped and listed, where `git archive` would stop at the first.

Usage: export_checkout.py MIRROR_GIT_DIR OUT_DIR [COMMIT] [PATH ...]
(default commit HEAD; default paths Samples, Common, test_args.json)"""
import os
import subprocess
import sys


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    mirror, out = sys.argv[1], sys.argv[2]
    commit = sys.argv[3] if len(sys.argv) > 3 else "HEAD"
    paths = sys.argv[4:] or ["Samples", "Common", "test_args.json"]
    git = ["git", "--git-dir", mirror]
    listing = subprocess.run(git + ["ls-tree", "-r", "-z", commit, "--"] + paths, check=True,
                             capture_output=True).stdout.split(b"\0")
    entries = []
    for line in filter(None, listing):
        meta, path = line.split(b"\t", 1)
        mode, kind, sha = meta.split()
        if kind == b"blob":
            entries.append((mode, sha, path.decode()))
    batch = subprocess.Popen(git + ["cat-file", "--batch"], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    missing = []
    for mode, sha, path in entries:
        batch.stdin.write(sha + b"\n")
        batch.stdin.flush()
        header = batch.stdout.readline().split()
        if header[-1] == b"missing":
            missing.append(path)
            continue
        data = batch.stdout.read(int(header[2]))
        batch.stdout.read(1)  # the newline after each object
        target = os.path.join(out, path)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if mode == b"120000":
            os.symlink(data.decode(), target)
            continue
        with open(target, "wb") as f:
            f.write(data)
        if mode == b"100755":
            os.chmod(target, 0o755)
    batch.stdin.close()
    batch.wait()
    print(f"{len(entries) - len(missing)} files written to {out}; {len(missing)} missing from the mirror")
    for path in missing:
        print("  missing:", path)


if __name__ == "__main__":
    main()
