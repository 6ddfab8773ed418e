"""Prints the instructions row (bench-server-instructions.sh): instructions per request of each
server and shape, their ratio, and where understudy's go, by module, from callgrind's dumps.

    python3 instructions.py COUNTS.tsv DIR

COUNTS.tsv holds "server<TAB>shape<TAB>requests<TAB>instructions" lines; DIR holds each dump as
SERVER-SHAPE.callgrind.
"""
import collections
import re
import sys

# Where a function's own instructions count, by its (mangled) symbol; the first that matches.
GROUPS = [
    ("reference counting", r"swift_(retain|release)|RefCount|bridgeObject(Retain|Release)|isUniquelyReferenced"),
    ("malloc and free", r"^(malloc|free|cfree|realloc|calloc|_int_|malloc_consolidate|unlink_chunk)"),
    ("Swift runtime: casts, metadata", r"[Cc]ast|Metadata|getCache|[Cc]onformance|getWitness"),
    ("UnderstudyServer", r"UnderstudyServer"),
    ("Understudy, its support", r"10Understudy|UnderstudySupport|UnderstudyImages"),
    ("NIOHTTP1 (llhttp too)", r"NIOHTTP1|llhttp"),
    ("NIOPosix", r"NIOPosix"),
    ("NIOCore", r"NIOCore|_NIO"),
    ("Foundation", r"Foundation"),
    ("libc", r"^(__|mem|str|pthread|epoll|read|write|send|recv|syscall|clock|_dl|lll)"),
    ("Swift standard library", r"^\$s"),
]


def own_instructions(path):
    """Each function's own instructions (not its callees') in a callgrind dump."""
    names, own = {}, collections.Counter()
    function, after_call = None, False

    def name(field):
        match = re.match(r"\((\d+)\)(?: (.*))?", field)
        if not match:
            return field
        if match.group(2):
            names[match.group(1)] = match.group(2)
        return names.get(match.group(1), match.group(1))

    for line in open(path, encoding="utf-8", errors="replace"):
        line = line.rstrip("\n")
        if line.startswith("fn="):
            function = name(line[3:])
        elif line.startswith("cfn="):
            name(line[4:])
        elif line.startswith("calls="):
            after_call = True
        elif line[:1].isdigit() or line[:1] in "+-*":
            fields = line.split()
            if len(fields) >= 2:
                if after_call:
                    after_call = False  # a call's inclusive cost, counted in its callee
                else:
                    own[function] += int(fields[1])
    return own


def group_of(symbol):
    for group, pattern in GROUPS:
        if re.search(pattern, symbol):
            return group
    return "other"


def main():
    counts_path, directory = sys.argv[1], sys.argv[2]
    per_request = {}
    requests_of = {}
    for line in open(counts_path):
        server, shape, requests, instructions = line.split()
        requests_of[server, shape] = int(requests)
        per_request[server, shape] = int(instructions) / int(requests)
    shapes = sorted({shape for _, shape in per_request}, key=["feed", "traced"].index)
    print(f"{'shape':8} {'understudy':>12} {'nginx':>12} {'ratio':>7}")
    for shape in shapes:
        ours, theirs = per_request[("understudy", shape)], per_request[("nginx", shape)]
        print(f"{shape:8} {ours:12,.0f} {theirs:12,.0f} {ours / theirs:6.2f}x")
    for shape in shapes:
        own = own_instructions(f"{directory}/understudy-{shape}.callgrind")
        total = sum(own.values())
        by_group = collections.Counter()
        for symbol, instructions in own.items():
            by_group[group_of(symbol)] += instructions
        requests = requests_of[("understudy", shape)]
        print(f"\nunderstudy, {shape}: where a request's instructions go")
        for group, instructions in by_group.most_common():
            print(f"  {group:32} {instructions / requests:8,.0f}  {100 * instructions / total:5.1f}%")


if __name__ == "__main__":
    main()
