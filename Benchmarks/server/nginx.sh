# Sourced by the server benchmark scripts after scratch.sh: start_nginx writes nginx-light's
# configuration into $work/nginx and starts it in the background, adding it to $pids and
# setting $nginx_pid. Common to every row: worker_processes = cores (what our event loop group
# uses), keep-alive that outlasts the runs, sendfile and TCP_NOPUSH, no access log.
#   start_nginx "HTTP-LEVEL DIRECTIVES" "SERVER BLOCKS"
# Needs $nginx_bin and $cores. A caller may set $nginx_main (directives put first, such as
# `master_process off;`) and the array $nginx_runner (a command nginx runs under, such as valgrind).
start_nginx() {
    local http_directives="$1" servers="$2"
    mkdir -p "$work/nginx/tmp"
    cat >"$work/nginx/nginx.conf" <<NGINX
${nginx_main:-}
worker_processes $cores;
daemon off;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log warn;
events { worker_connections 1024; }
http {
    types { image/png png; }
    default_type application/octet-stream;
    access_log off;
    sendfile on;
    tcp_nopush on;
    keepalive_timeout 65;
    keepalive_requests 1000000;
    client_body_temp_path $work/nginx/tmp/body;
    proxy_temp_path $work/nginx/tmp/proxy;
    fastcgi_temp_path $work/nginx/tmp/fastcgi;
    uwsgi_temp_path $work/nginx/tmp/uwsgi;
    scgi_temp_path $work/nginx/tmp/scgi;
$http_directives
$servers
}
NGINX
    ${nginx_runner[@]+"${nginx_runner[@]}"} "$nginx_bin" -p "$work/nginx" -c "$work/nginx/nginx.conf" -e "$work/nginx/error.log" >"$work/nginx/stdout.log" 2>&1 &
    nginx_pid=$!
    pids+=("$nginx_pid")
}
