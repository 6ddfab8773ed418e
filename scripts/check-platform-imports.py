#!/usr/bin/env python3
"""Fails on a module import hidden inside a compile condition.

An `import` between `#if` and `#endif` is allowed only for a platform's own modules (Glibc,
Darwin, FoundationNetworking, ImageIO, ...), or in a file that is one backend from its first
line to its last (the whole file inside one `#if`, as the codec backends are). Anything else
imported conditionally but used unconditionally breaks the platforms where the condition is
false: that is how `UnderstudyURLProtocol` once failed to build on macOS. Run from the package
root; CI runs it. Prints file:line for each finding.
"""
import pathlib
import re
import sys

PLATFORM_MODULES = {
    "Glibc", "Musl", "Darwin", "Android", "Bionic", "WinSDK", "ucrt", "WASILibc",
    "FoundationNetworking", "FoundationEssentials", "FoundationXML",
    "ImageIO", "CoreGraphics", "UniformTypeIdentifiers", "MobileCoreServices",
}
IMPORT = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|private|fileprivate)\s+)?import\s+(?:(?:struct|class|enum|protocol|typealias|func|var|let)\s+)?([A-Za-z_][A-Za-z0-9_]*)")


def whole_file_condition(lines):
    """Whether the file's code is one `#if` ... `#endif` from its first code line to its last."""
    code = [(i, l.strip()) for i, l in enumerate(lines) if l.strip() and not l.strip().startswith("//")]
    if not code or not code[0][1].startswith("#if") or code[-1][1] != "#endif":
        return False
    depth = 0
    for index, (_, line) in enumerate(code):
        if line.startswith("#if"):
            depth += 1
        elif line.startswith("#endif"):
            depth -= 1
            if depth == 0 and index != len(code) - 1:
                return False
        elif line.startswith("#else") or line.startswith("#elseif"):
            if depth == 1:
                return False
    return True


def main(roots):
    findings = []
    for root in roots:
        for path in sorted(pathlib.Path(root).rglob("*.swift")):
            lines = path.read_text().splitlines()
            whole = whole_file_condition(lines)
            depth = 0
            for number, line in enumerate(lines, 1):
                stripped = line.strip()
                if stripped.startswith("#if"):
                    depth += 1
                elif stripped.startswith("#endif"):
                    depth -= 1
                match = IMPORT.match(line)
                if not match or depth == 0:
                    continue
                module = match.group(1)
                if module in PLATFORM_MODULES or (whole and depth == 1):
                    continue
                findings.append(f"{path}:{number}: error: 'import {module}' inside a compile condition; import it unconditionally, or make the whole file the backend of that condition")
    print("\n".join(findings) if findings else f"no module imported inside a compile condition in {', '.join(roots)}")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["Sources"]))
