# Sourced by the HTTP/2 and HTTPS benchmark scripts after scratch.sh: the two PNG files (exactly
# 4 KB and 100 KB) in $work/files, served as `file:` stubs from $work/stubs and as nginx's root
# $work/nginx/www (with $work/nginx/tmp for its temporary paths).
chmod 755 "$work"   # nginx workers may run as another user
mkdir -p "$work/files" "$work/stubs" "$work/nginx/www" "$work/nginx/tmp"
python3 Benchmarks/server/make_png.py "$work/files/4k.png" 4096
python3 Benchmarks/server/make_png.py "$work/files/100k.png" 102400
for f in 4k.png 100k.png; do
    cp "$work/files/$f" "$work/stubs/$f"
    cp "$work/files/$f" "$work/nginx/www/$f"
done
cat >"$work/stubs/bench.yaml" <<'YAML'
stubs:
  - name: png-4k
    request: { method: GET, path: /4k.png }
    response: { file: 4k.png }
  - name: png-100k
    request: { method: GET, path: /100k.png }
    response: { file: 100k.png }
YAML
chmod -R a+rX "$work"
