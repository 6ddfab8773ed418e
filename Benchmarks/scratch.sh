# Sourced by the benchmark scripts as `source Benchmarks/scratch.sh NAME`: makes $work, a
# temporary directory named after NAME, and $pids, the servers started into it. On exit every
# pid in $pids is stopped (TERM, then KILL after 5 s) and $work is removed.
work="$(mktemp -d "${TMPDIR:-/tmp}/$1.XXXXXX")"
pids=()
cleanup() {
    local pid
    for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
    for pid in "${pids[@]}"; do
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -KILL "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
