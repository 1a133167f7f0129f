# shellcheck shell=bash
# Sourced by the parts of the Python matrix (setup.sh, check.sh; scripts/pythons_check.sh runs them
# in turn): where each thing lives, computed alike by every part, and nothing done.
#   CACHE        HARDSIGMOID_OPS_PYTHONS_CACHE (default ~/.cache/hardsigmoid_ops/pythons): the
#                Debian roots, keyed by the packages they hold
#   MATRIX       "PYTHON TORCH" pairs: each CPython torch's wheels serve beyond this machine's
#                3.11, beside the oldest and the newest supported torch where PyPI has the wheel
#   root_of PY   the root that holds Python PY (trixie: 3.13; unstable: 3.14, 3.15 and the
#                free-threaded 3.14t, built there from Debian's source of python3.14)
#   python_of PY that Python's program inside its root
#   in_root ROOT COMMAND...   runs COMMAND in ROOT (chroot, in a mount namespace of its own: /dev,
#                /proc, /sys, the source tree at /src, DIST (default dist/) at /dist and OUT_MOUNT
#                where set at /out), with a clean environment
# shellcheck disable=SC2034  # read by the parts that source this file
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
CACHE="${HARDSIGMOID_OPS_PYTHONS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/hardsigmoid_ops/pythons}"
source "$ROOT/scripts/downloads.sh"
source "$ROOT/scripts/torch_releases.sh"
phase() { echo "== $* (at $SECONDS s)"; }

OLDEST="${SUPPORTED_TORCH_RELEASES[0]}"
NEWEST="${SUPPORTED_TORCH_RELEASES[-1]}"
# PyPI's torch: 2.11.0 has wheels for 3.10 - 3.14 and 3.13t, 3.14t; 2.15.0 for 3.11 - 3.15 and
# 3.14t, 3.15t.
MATRIX=("3.13 $OLDEST" "3.13 $NEWEST" "3.14 $OLDEST" "3.14 $NEWEST" "3.15 $NEWEST"
  "3.14t $OLDEST" "3.14t $NEWEST")

# A C++ compiler and Python's headers: inductor compiles the CPU code of torch.compile.
TRIXIE_PACKAGES=(python3.13 python3.13-dev g++ ca-certificates)
# and what building CPython from Debian's source needs for the modules torch and the tests use
SID_PACKAGES=(python3.14 python3.14-dev python3.15 python3.15-dev g++ ca-certificates dpkg-dev make
  pkg-config libssl-dev zlib1g-dev libffi-dev libbz2-dev liblzma-dev libexpat1-dev libmpdec-dev)
key() { echo "$*" | sha256sum | cut -c1-12; }
TRIXIE_ROOT="$CACHE/root-trixie-$(key "${TRIXIE_PACKAGES[*]}")"
SID_ROOT="$CACHE/root-sid-$(key "${SID_PACKAGES[*]}")"
FREE_THREADED_PREFIX=/opt/python3.14t

root_of() {
  case "$1" in
    3.13) echo "$TRIXIE_ROOT" ;;
    3.14 | 3.15 | 3.14t) echo "$SID_ROOT" ;;
    *) echo "pythons: no root holds Python $1" >&2; return 2 ;;
  esac
}
python_of() {
  case "$1" in
    3.14t) echo "$FREE_THREADED_PREFIX/bin/python3.14t" ;;
    *) echo "/usr/bin/python$1" ;;
  esac
}

in_root() {
  local root="$1"
  shift
  # The proxy's or the system's certificates, as this machine's pip uses them.
  local certificates="${PIP_CERT:-${SSL_CERT_FILE:-/etc/ssl/certs/ca-certificates.crt}}"
  cp "$certificates" "$root/etc/ssl/host-certificates.crt"
  # The name service as here: this machine's host name resolves (torchrun's rendezvous asks).
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  cp /etc/hosts "$root/etc/hosts"
  mkdir -p "$root/src" "$root/dist" "$root/out"
  # shellcheck disable=SC2016 # expanded by the shell in the new namespace
  unshare --mount --propagation private -- bash -c '
    root="$1" src="$2" dist="$3" out="$4"
    shift 4
    mount --rbind /dev "$root/dev" && mount -t proc proc "$root/proc" &&
      mount --rbind /sys "$root/sys" && mount --bind "$src" "$root/src" &&
      mount --bind "$dist" "$root/dist" || exit 1
    if [[ -n "$out" ]]; then mount --bind "$out" "$root/out" || exit 1; fi
    exec chroot "$root" /usr/bin/env -i HOME=/root LANG=C.UTF-8 TERM=dumb \
      PATH=/usr/local/bin:/usr/bin:/bin SSL_CERT_FILE=/etc/ssl/host-certificates.crt \
      UV_CACHE_DIR=/var/cache/uv UV_LINK_MODE=hardlink PYTHONDONTWRITEBYTECODE=1 "$@"
  ' _ "$root" "$ROOT" "${DIST:-$ROOT/dist}" "${OUT_MOUNT:-}" "$@"
}
