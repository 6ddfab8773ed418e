# Sourced by the rows that compare two paths of one server (hazard, chance):
#
#   paired_paths LABEL_A URL_A LABEL_B URL_B
#
# wrk asks each at -c16 and -c64, the two alternating over $rounds rounds of $duration seconds
# after a warm-up of $warmup seconds each; prints the medians and the ratio A/B against
# $target, and sets $status to 1 when a row misses it.
run_wrk() {
    local out
    out="$(wrk -t2 -c"$2" -d"$3s" "$1")"
    awk '/^Requests\/sec:/ { print $2 }' <<<"$out"
}

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

paired_paths() {
    local label_a="$1" url_a="$2" label_b="$3" url_b="$4"
    local urls=("$url_a" "$url_b") order round c url a b ratio verdict
    declare -A results
    echo "wrk -t2 -c{16,64} -d${duration}s, $rounds rounds, the two paths alternating; warm-up ${warmup}s each"
    for url in "${urls[@]}"; do run_wrk "$url" 64 "$warmup" >/dev/null; done
    for round in $(seq "$rounds"); do
        order=("${urls[@]}")
        if (( round % 2 == 0 )); then order=("$url_b" "$url_a"); fi
        for c in 16 64; do
            for url in "${order[@]}"; do
                results["$url $c"]+="$(run_wrk "$url" "$c" "$duration") "
            done
        done
    done
    status=0
    printf '%-6s %14s %14s %8s\n' conns "$label_a req/s" "$label_b req/s" ratio
    for c in 16 64; do
        a="$(median <<<"${results["$url_a $c"]}")"
        b="$(median <<<"${results["$url_b $c"]}")"
        ratio="$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", a / b }')"
        verdict=PASS
        if awk -v r="$ratio" -v t="$target" 'BEGIN { exit !(r < t) }'; then verdict=FAIL; status=1; fi
        printf '%-6s %14.0f %14.0f %7sx %s (target >= %sx)\n' "$c" "$a" "$b" "$ratio" "$verdict" "$target"
        echo "       rounds: $label_a ${results["$url_a $c"]}; $label_b ${results["$url_b $c"]}"
    done
}
