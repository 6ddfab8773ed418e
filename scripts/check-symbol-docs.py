#!/usr/bin/env python3
"""Fails when a public symbol declared in Sources/ has no doc comment.

Reads the symbol graphs that `swift package generate-documentation` leaves in
.build/<triple>/extracted-symbols/<package>/<Module>/ (run `make docs`, which runs this after it).
Extensions are exempt: DocC documents their members, not the extension itself.
Usage: scripts/check-symbol-docs.py Module [Module ...]
"""
import glob
import json
import os
import sys

root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
modules = sys.argv[1:]
if not modules:
    sys.exit("usage: check-symbol-docs.py Module [Module ...]")

missing = set()
for module in modules:
    files = glob.glob(os.path.join(root, ".build", "*", "extracted-symbols", "*", module, "*.symbols.json"))
    if not files:
        sys.exit(f"error: no symbol graph for {module} under .build/*/extracted-symbols/: run "
                 f"`swift package generate-documentation --target {module}` first")
    for path in files:
        with open(path) as handle:
            graph = json.load(handle)
        for symbol in graph["symbols"]:
            if symbol.get("accessLevel") not in ("public", "open"):
                continue
            if symbol["kind"]["identifier"] == "swift.extension":
                continue
            uri = symbol.get("location", {}).get("uri", "")
            if "/Sources/" not in uri:
                continue  # synthesized, or inherited from a protocol of another module
            comment = symbol.get("docComment")
            if comment and any(line["text"].strip() for line in comment.get("lines", [])):
                if comment.get("uri", uri) == uri:
                    continue  # its own comment, not one inherited from a protocol requirement
            line = symbol["location"]["position"]["line"] + 1
            where = "Sources/" + uri.split("/Sources/", 1)[1]
            missing.add(f"{where}:{line}: error: public {symbol['kind']['displayName'].lower()} "
                        f"'{'.'.join(symbol['pathComponents'])}' has no doc comment (///)")

for line in sorted(missing):
    print(line)
if missing:
    sys.exit(f"{len(missing)} public symbol(s) without documentation")
print(f"Every public symbol of {', '.join(modules)} has a doc comment.")
