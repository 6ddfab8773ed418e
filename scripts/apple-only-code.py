#!/usr/bin/env python3
"""Lists the Swift lines no Linux build compiles: those in `#if` branches that are false in both
of Linux's configurations (the default traits, and `make test-portable`'s: traits off,
UNDERSTUDY_PORTABLE). They are compiled only on Apple platforms, so no test here runs them;
docs/ARCHITECTURE.md lists them. Prints each file's lines of code (comments and blank lines left out) and its regions, then the total.
"""
import pathlib
import re
import sys

LINUX_CONFIGS = [
    {"SystemCodecs": True, "UNDERSTUDY_SYSTEM_CODECS": True, "UNDERSTUDY_PORTABLE": False},
    {"SystemCodecs": False, "UNDERSTUDY_SYSTEM_CODECS": False, "UNDERSTUDY_PORTABLE": True},
]
LINUX_MODULES = {"Glibc", "FoundationNetworking", "FoundationEssentials", "FoundationXML", "Synchronization", "XCTest", "Testing"}


def evaluate(condition, config):
    expression = condition
    expression = re.sub(r"os\((\w+)\)", lambda m: str(m.group(1) == "Linux"), expression)
    expression = re.sub(r"canImport\((\w+)\)", lambda m: str(m.group(1) in LINUX_MODULES), expression)
    expression = re.sub(r"arch\(\w+\)", "True", expression)
    expression = re.sub(r"compiler\([^)]*\)|swift\([^)]*\)", "True", expression)
    expression = re.sub(r"\b(UNDERSTUDY_\w+|SystemCodecs|HomebrewCodecs|DEBUG)\b", lambda m: str(config.get(m.group(1), False)), expression)
    expression = expression.replace("&&", " and ").replace("||", " or ").replace("!", " not ")
    return eval(expression, {"__builtins__": {}}, {})


def regions(path):
    lines = path.read_text().splitlines()
    dead = [False] * len(lines)
    for config in LINUX_CONFIGS:
        stack = []  # (branch active, some earlier branch taken, parent active)
        for index, line in enumerate(lines):
            stripped = line.strip()
            active = all(frame[0] for frame in stack)
            if stripped.startswith("#if "):
                value = evaluate(stripped[4:], config)
                stack.append([value, value, active])
                continue
            if stripped.startswith("#elseif "):
                frame = stack[-1]
                value = not frame[1] and evaluate(stripped[8:], config)
                frame[0], frame[1] = value, frame[1] or value
                continue
            if stripped.startswith("#else"):
                frame = stack[-1]
                frame[0], frame[1] = not frame[1], True
                continue
            if stripped.startswith("#endif"):
                stack.pop()
                continue
            compiled = all(frame[0] for frame in stack)
            # A line is dead only if no Linux configuration compiles it.
            if config is LINUX_CONFIGS[0]:
                dead[index] = not compiled
            else:
                dead[index] = dead[index] and not compiled
    found, start = [], None
    for index, is_dead in enumerate(dead + [False]):
        if is_dead and start is None:
            start = index
        elif not is_dead and start is not None:
            code = [l for l in lines[start:index] if l.strip() and not l.strip().startswith("//")]
            if code:
                found.append((start + 1, index, len(code)))
            start = None
    return found


def main(roots):
    total = 0
    for root in roots:
        for path in sorted(pathlib.Path(root).rglob("*.swift")):
            found = regions(path)
            if not found:
                continue
            count = sum(n for _, _, n in found)
            total += count
            spans = ", ".join(f"{a}-{b}" if a != b else f"{a}" for a, b, _ in found)
            print(f"{path}: {count} (lines {spans})")
    print(f"{total} lines of code compiled only on Apple platforms")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:] or ["Sources"]))
