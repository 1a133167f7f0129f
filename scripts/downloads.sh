# shellcheck shell=bash
# Sourced by the scripts that install packages (setup.sh, torch_versions.sh, aarch64/setup.sh,
# build_wheels.sh, check_wheel.sh): what setting up needs, written once. Downloads that survive a
# dropped connection. torch's wheels and their CUDA libraries are
# hundreds of megabytes each, and one connection cut mid-file, again at each of pip's own resumes,
# used to fail the whole setup on a machine whose network came back a minute later.
#
#   with_retries COMMAND [ARGS...]  runs it up to DOWNLOAD_ATTEMPTS times (default 4), waiting
#                                   30 s, 60 s, 90 s between attempts; its status is the last one's
#   apt_get ARGS...                 apt-get as root (through sudo where needed), with apt's own
#                                   retries of each file, under with_retries
#   pip_platforms ARCH              pip's --platform options for ARCH's manylinux wheels (pip
#                                   installing for another processor: --target --only-binary)
#   as_root COMMAND [ARGS...]       runs it as root, through sudo where this user is not root
#   debian_packages PACKAGE...      installs those of the Debian packages not installed yet
#   pinned NAME [FILE]              the version FILE (default: requirements.txt) pins NAME to
#   UV_VERSION                      the uv the scripts install (check_index_install.sh,
#                                   check_wheel.sh, pythons/setup.sh)
#   tools_venv DIR PACKAGE...       a virtual environment at DIR holding those pinned packages
#                                   (the scripts' tools: uv, twine, auditwheel ...), made again
#                                   where the list changed
#   stamp_matches FILE TEXT         whether FILE holds TEXT's digest (an environment installed
#   write_stamp FILE TEXT           from that TEXT of requirements), and writes it there

# pip's own settings, read from the environment by every pip these scripts start (a pip that does
# not know one ignores it): more resumes of a file cut mid-download (pip >= 25.1) and more
# retries of a connection.
export PIP_RESUME_RETRIES="${PIP_RESUME_RETRIES:-20}"
export PIP_RETRIES="${PIP_RETRIES:-10}"

with_retries() {
  local attempts="${DOWNLOAD_ATTEMPTS:-4}" attempt=1
  until "$@"; do
    if ((attempt >= attempts)); then
      echo "downloads: '$*' failed $attempt times; giving up" >&2
      return 1
    fi
    echo "downloads: '$*' failed (attempt $attempt of $attempts); again in $((30 * attempt)) s" >&2
    sleep $((30 * attempt))
    attempt=$((attempt + 1))
  done
}

as_root() {
  if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi
}

REQUIREMENTS="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/requirements.txt"
pinned() {
  sed -n "s/^$1==\([^ ]*\).*/\1/p" "${2:-$REQUIREMENTS}"
}

# shellcheck disable=SC2034 # read by the scripts that source this file
UV_VERSION=0.13.9

apt_get() {
  with_retries as_root env DEBIAN_FRONTEND=noninteractive apt-get -o Acquire::Retries=5 "$@"
}

debian_packages() {
  local missing=() p
  for p in "$@"; do
    dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  echo "setup: installing Debian packages: ${missing[*]}" >&2
  apt_get update -q && apt_get install -y -q "${missing[@]}"
}

digest() { sha256sum <<<"$1" | cut -d' ' -f1; }
stamp_matches() { [[ -f "$1" && "$(cat "$1")" == "$(digest "$2")" ]]; }
write_stamp() { digest "$2" >"$1"; }

pip_platforms() {
  local v
  echo --platform "manylinux2014_$1" --platform "linux_$1"
  for v in $(seq 17 39); do echo --platform "manylinux_2_${v}_$1"; done
}

tools_venv() {
  local dir="$1"
  shift
  [[ -f "$dir/.tools" && "$(cat "$dir/.tools")" == "$*" ]] && return 0
  rm -rf "$dir"
  python3 -m venv "$dir" && with_retries "$dir/bin/python" -m pip install -q "$@" &&
    echo "$*" >"$dir/.tools"
}
