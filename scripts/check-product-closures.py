#!/usr/bin/env python3
"""Each library product's targets, platform by platform, from `swift package dump-package`.

Fails when a product would link a system library target (a C library found through
pkg-config) on macOS, iOS, tvOS or watchOS, or on Linux with the default traits off; and when
UnderstudyClient would pull in SwiftNIO anywhere. Conditions are read as SwiftPM reads them: a
dependency applies on the platforms it names (all when it names none) when one of the traits
it names is on (always when it names none). Run from the package root; CI runs it.
"""
import json
import subprocess
import sys

NIO_PACKAGES = {"swift-nio", "swift-nio-ssl", "swift-nio-http2", "swift-nio-extras", "async-http-client", "swift-nio-transport-services"}

# (platform as dump-package spells it, traits on): what a user of each platform builds.
CONFIGURATIONS = [
    ("macos", {"SystemCodecs"}, "macOS"),
    ("ios", {"SystemCodecs"}, "iOS"),
    ("tvos", {"SystemCodecs"}, "tvOS"),
    ("watchos", {"SystemCodecs"}, "watchOS"),
    ("linux", set(), "Linux with default traits off"),
]


def applies(condition, platform, traits):
    if not condition:
        return True
    platforms = condition.get("platformNames") or []
    wanted = condition.get("traits") or []
    return (not platforms or platform in platforms) and (not wanted or bool(set(wanted) & traits))


def closure(package, target_name, platform, traits):
    targets = {t["name"]: t for t in package["targets"]}
    seen, products, stack = set(), set(), [target_name]
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        for dependency in targets[name].get("dependencies", []):
            (kind, value), = dependency.items()
            if kind == "product":
                product, package_name, _, condition = value
                if applies(condition, platform, traits):
                    products.add((package_name, product))
                continue
            dependency_name, condition = value[0], value[-1]
            if dependency_name in targets and applies(condition, platform, traits):
                stack.append(dependency_name)
            elif dependency_name not in targets and applies(condition, platform, traits):
                products.add((dependency_name, dependency_name))
    return seen, products


def main():
    dump = subprocess.run(["swift", "package", "dump-package"], check=True, capture_output=True, text=True).stdout
    package = json.loads(dump)
    targets = {t["name"]: t for t in package["targets"]}
    system = {name for name, t in targets.items() if t["type"] == "system"}
    failures, lines = [], []
    for product in package["products"]:
        if "library" not in product["type"]:
            continue
        for platform, traits, label in CONFIGURATIONS:
            names, products = set(), set()
            for target in product["targets"]:
                found, external = closure(package, target, platform, traits)
                names |= found
                products |= external
            c_libraries = sorted(names & system)
            nio = sorted(f"{p} ({pkg})" for pkg, p in products if pkg in NIO_PACKAGES)
            lines.append(f"{product['name']:<22} {label:<30} {len(names):>2} targets, system libraries: {', '.join(c_libraries) or 'none'}")
            if c_libraries:
                failures.append(f"{product['name']} links {', '.join(c_libraries)} on {label}: only Linux with the SystemCodecs trait may")
            if product["name"] == "UnderstudyClient" and nio:
                failures.append(f"UnderstudyClient pulls in {', '.join(nio)} on {label}: it must build with Foundation alone")
    # The check must be able to fail: on Linux with the trait, UnderstudyImages has all six.
    found, _ = closure(package, "UnderstudyImages", "linux", {"SystemCodecs"})
    if len(found & system) != len(system):
        failures.append(f"UnderstudyImages links {', '.join(sorted(found & system)) or 'no system library'} on Linux with SystemCodecs, not all of {', '.join(sorted(system))}")
    lines.append(f"{'UnderstudyImages':<22} {'Linux with SystemCodecs':<30} system libraries: {', '.join(sorted(found & system))}")
    found, _ = closure(package, "UnderstudyImages", "macos", {"SystemCodecs", "HomebrewCodecs"})
    lines.append(f"{'UnderstudyImages':<22} {'macOS with HomebrewCodecs':<30} system libraries: {', '.join(sorted(found & system))}")
    print("\n".join(lines))
    for failure in failures:
        print(f"error: {failure}", file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
