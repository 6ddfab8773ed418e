#!/usr/bin/env python3
"""Fails on two tracked paths that differ only in case.

macOS and its CI runners use a case-insensitive file system by default: there
`Sources/understudy` and `Sources/Understudy` are one folder, and a checkout merges them.
Reads `git ls-files` (every tracked file and, through their parents, every folder). Run from
the package root; CI runs it.
"""
import subprocess
import sys


def main():
    files = subprocess.run(["git", "ls-files", "-z"], check=True, capture_output=True).stdout.decode().split("\0")
    paths = set()
    for file in filter(None, files):
        parts = file.split("/")
        for end in range(1, len(parts) + 1):
            paths.add("/".join(parts[:end]))
    by_folded = {}
    for path in paths:
        by_folded.setdefault(path.casefold(), set()).add(path)
    collisions = sorted(sorted(group) for group in by_folded.values() if len(group) > 1)
    for group in collisions:
        print(f"error: these tracked paths differ only in case, and are one path on macOS: {', '.join(group)}")
    if not collisions:
        print(f"no two of the {len(paths)} tracked paths differ only in case")
    return 1 if collisions else 0


if __name__ == "__main__":
    sys.exit(main())
