# shellcheck shell=bash
# Sourced: serve_local_index DIST FOLDER serves DIST's wheels and sdists as a package index on
# 127.0.0.1, the PEP 503 "simple" pages every index speaks (scripts/release/simple_index.py, written
# into FOLDER) behind python's http.server, until the sourcing shell exits. It sets
# LOCAL_INDEX_URL (http://127.0.0.1:PORT/simple), which pip's --index-url or --extra-index-url and
# uv's --index-url or --extra-index-url take as they take a public index's.
serve_local_index() {
  local dist="$1" folder="$2" port here
  here="$(dirname "${BASH_SOURCE[0]}")"
  python3 "$here/simple_index.py" "$dist" "$folder/index" || return 1
  port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
  python3 -m http.server --bind 127.0.0.1 "$port" --directory "$folder/index" \
    >"$folder/server.log" 2>&1 &
  LOCAL_INDEX_SERVER=$!
  trap 'kill $LOCAL_INDEX_SERVER 2>/dev/null || true' EXIT
  LOCAL_INDEX_URL="http://127.0.0.1:$port/simple"
  local _
  for _ in $(seq 50); do
    python3 -c "import urllib.request; urllib.request.urlopen('$LOCAL_INDEX_URL/')" 2>/dev/null &&
      return 0
    sleep 0.2
  done
  echo "local_index.sh: nothing answers at $LOCAL_INDEX_URL ($folder/server.log)" >&2
  return 1
}
