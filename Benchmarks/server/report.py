#!/usr/bin/env python3
"""Prints the bench-server table from the raw results and checks the targets.

    python3 report.py RESULTS.tsv
RESULTS.tsv lines: round, server, row, connections, requests/s, errors (tab-separated); a row
is a file (`100k.png`) or a file and what is asked of it (`100k.png/304`, `100k.png/206`), which
are measured against nginx only. Exit status 0 when every row meets its targets, 1 otherwise.
"""
import statistics
import sys
from collections import defaultdict

NGINX_TARGET = 0.8      # understudy >= 0.8x nginx
WIREMOCK_TARGET = 3.0   # understudy >= 3x WireMock


def main() -> int:
    samples = defaultdict(list)
    errors = defaultdict(int)
    rows = []
    with open(sys.argv[1]) as f:
        for line in f:
            _round, server, name, conns, rps, errs = line.rstrip("\n").split("\t")
            key = (name, int(conns))
            if key not in rows:
                rows.append(key)
            samples[(key, server)].append(float(rps))
            errors[(key, server)] += int(errs)

    def median(key, server):
        values = samples.get((key, server))
        return statistics.median(values) if values else float("nan")

    header = (f"{'row':<13}{'conns':>6}{'understudy':>12}{'nginx':>11}{'wiremock':>11}"
              f"{'us/nginx':>10}{'us/wiremock':>13}  result")
    print(header)
    print("-" * len(header))
    ok = True
    for key in rows:
        us, ng, wm = (median(key, s) for s in ("understudy", "nginx", "wiremock"))
        with_wiremock = (key, "wiremock") in samples
        r_ng, r_wm = us / ng, us / wm
        misses = []
        if not r_ng >= NGINX_TARGET:
            misses.append(f"nginx <{NGINX_TARGET}x")
        if with_wiremock and not r_wm >= WIREMOCK_TARGET:
            misses.append(f"wiremock <{WIREMOCK_TARGET:g}x")
        ok = ok and not misses
        verdict = "PASS" if not misses else "FAIL (" + ", ".join(misses) + ")"
        wm_cells = f"{wm:>11,.0f}" if with_wiremock else f"{'-':>11}"
        r_wm_cells = f"{r_wm:>12.2f}x" if with_wiremock else f"{'-':>13}"
        print(f"{key[0]:<13}{key[1]:>6}{us:>12,.0f}{ng:>11,.0f}{wm_cells}{r_ng:>9.2f}x{r_wm_cells}  {verdict}")
    print()
    print("median req/s of the rounds; each sample:")
    for key in rows:
        for server in ("understudy", "nginx", "wiremock"):
            if (key, server) not in samples:
                continue
            values = ", ".join(f"{v:,.0f}" for v in samples[(key, server)])
            bad = errors[(key, server)]
            note = f"  ({bad} socket errors or non-2xx)" if bad else ""
            print(f"  {key[0]:<13}c{key[1]:<4}{server:<11}{values}{note}")
    bad_total = sum(errors.values())
    if bad_total:
        print(f"warning: {bad_total} socket errors or non-2xx responses in all")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
