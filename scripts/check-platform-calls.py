#!/usr/bin/env python3
"""Fails on code that compiles on one platform's C library only, outside a branch for it.

- A module-qualified call of a C library (`Glibc.send`, `Darwin.close`, `Musl.read`) names a
  module that exists on one platform: it is allowed only inside an `#if` branch for that
  platform (`os(Linux)`, `canImport(Glibc)`, `canImport(Darwin)`, `os(macOS)`, ...).
- `.rawValue` of a socket constant (`SOCK_STREAM.rawValue`) compiles on Glibc, where the
  constant is an enum, and not on Darwin, where it is an `Int32`: allowed only in a Linux branch.
- `MSG_NOSIGNAL` does not exist on Darwin (`SO_NOSIGPIPE` does that there): Linux branch only.
- `#if SystemCodecs`: SwiftPM defines an enabled trait's condition on every platform, macOS
  included, where the C codecs are not linked; "the C codecs are here" is
  `os(Linux) && SystemCodecs` (or a question to the build: `ImageFormat.encodableKinds`).

Run from the package root with the folders to check (CI: Sources Tests). Prints file:line for
each finding, as the compiler would.
"""
import pathlib
import re
import sys

LINUX = re.compile(r"os\(Linux\)|canImport\((Glibc|Musl)\)|os\(Android\)")
DARWIN = re.compile(r"canImport\(Darwin\)|os\((macOS|iOS|tvOS|watchOS|visionOS)\)|canImport\(ObjectiveC\)")
QUALIFIED = re.compile(r"\b(Glibc|Musl|Darwin)\.([A-Za-z_][A-Za-z0-9_]*)")
SOCKET_RAW = re.compile(r"\b(SOCK_[A-Z]+|AF_[A-Z0-9]+|PF_[A-Z0-9]+|IPPROTO_[A-Z0-9]+|SHUT_[A-Z]+|MSG_[A-Z]+)\.rawValue\b")
NOSIGNAL = re.compile(r"\bMSG_NOSIGNAL\b")
TRAIT = re.compile(r"\bSystemCodecs\b")
NEEDS = {"Glibc": LINUX, "Musl": LINUX, "Darwin": DARWIN}


def code_part(line):
    """The line without a trailing // comment or string literals (good enough for this check)."""
    line = re.sub(r'"(?:[^"\\]|\\.)*"', '""', line)
    return line.split("//", 1)[0]


def check(path):
    findings = []
    # Each open #if: the condition of the branch being read, or None in an #else (which holds
    # for no platform this check can name).
    stack = []
    in_block_string = False
    for number, raw in enumerate(path.read_text().splitlines(), 1):
        if raw.count('"""') % 2 == 1:
            in_block_string = not in_block_string
            continue
        if in_block_string:
            continue
        stripped = raw.strip()
        if stripped.startswith("#if") or stripped.startswith("#elseif"):
            condition = stripped[3:] if stripped.startswith("#if") else stripped[7:]
            if TRAIT.search(condition) and not LINUX.search(condition):
                findings.append(f"{path}:{number}: error: the trait condition 'SystemCodecs' is true on macOS too, where no C codec is linked; write 'os(Linux) && SystemCodecs', or ask the build (ImageFormat.encodableKinds)")
            if stripped.startswith("#if"):
                stack.append(condition)
            elif stack:
                stack[-1] = condition
            continue
        if stripped.startswith("#else"):
            if stack:
                stack[-1] = None
            continue
        if stripped.startswith("#endif"):
            if stack:
                stack.pop()
            continue
        code = code_part(raw)
        active = [c for c in stack if c is not None]

        def inside(pattern):
            return any(pattern.search(condition) for condition in active)

        for match in QUALIFIED.finditer(code):
            module = match.group(1)
            if not inside(NEEDS[module]):
                findings.append(f"{path}:{number}: error: '{match.group(0)}' is {module}'s own spelling; call the function unqualified (from a file-scope helper when a method shares its name), or put this in an '#if' branch for {module}'s platform")
        for match in SOCKET_RAW.finditer(code):
            if not inside(LINUX):
                findings.append(f"{path}:{number}: error: '{match.group(0)}' compiles on Glibc only ({match.group(1)} is an Int32 on Darwin); spell the constant per platform in '#if canImport(Glibc)' / '#elseif canImport(Darwin)' branches")
        if NOSIGNAL.search(code) and not inside(LINUX):
            findings.append(f"{path}:{number}: error: 'MSG_NOSIGNAL' does not exist on Darwin (it uses the socket option SO_NOSIGPIPE); use it in a Linux branch only")
    return findings


def main(roots):
    findings = []
    for root in roots:
        for path in sorted(pathlib.Path(root).rglob("*.swift")):
            findings += check(path)
    print("\n".join(findings) if findings else f"no platform-only C library call outside its platform's branch in {', '.join(roots)}")
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["Sources", "Tests"]))
