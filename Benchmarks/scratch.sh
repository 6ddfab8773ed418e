# Sourced by the benchmark scripts as `source Benchmarks/scratch.sh NAME`: makes $work, a
# temporary directory named after NAME, and $pids, the servers started into it. On exit every
# pid in $pids is stopped (TERM, then KILL after 5 s) and $work is removed. Also defines
# free_port (a free TCP port on 127.0.0.1) and start_understudy (below).
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

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# start_understudy SUBCOMMAND ARG...: runs `$understudy SUBCOMMAND ARG... --host 127.0.0.1
# --port 0 --log quiet` in the background (log: $work/understudy.log), adds it to $pids, and
# sets $understudy_pid and $understudy_port from its ready line. Needs $understudy
# (understudy-binary.sh) and the calling script's die; runs under the array $understudy_runner
# (such as valgrind) when the caller set one, waiting $understudy_wait tenths of a second for it
# to be ready (300 unless set).
start_understudy() {
    ${understudy_runner[@]+"${understudy_runner[@]}"} "$understudy" "$@" --host 127.0.0.1 --port 0 --log quiet >"$work/understudy.log" 2>&1 &
    understudy_pid=$!
    pids+=("$understudy_pid")
    for _ in $(seq "${understudy_wait:-300}"); do
        grep -q 'Understudy listening on' "$work/understudy.log" && break
        kill -0 "$understudy_pid" 2>/dev/null || { cat "$work/understudy.log" >&2; die "understudy exited"; }
        sleep 0.1
    done
    understudy_port="$(sed -n 's#.*Understudy listening on http://127\.0\.0\.1:\([0-9]*\).*#\1#p' "$work/understudy.log" | head -1)"
    [ -n "$understudy_port" ] || { cat "$work/understudy.log" >&2; die "understudy did not print its ready line"; }
}
