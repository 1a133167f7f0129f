#!/usr/bin/env bash
# The Python matrix's setup (scripts/pythons_check.sh): the Debian roots (trixie for CPython 3.13,
# unstable for 3.14 and 3.15) made by mmdebstrap, uv in each, and CPython 3.14 built with
# --disable-gil from Debian's source package of python3.14 in the unstable root; only the roots of
# the Pythons named, where some are (3.13, 3.14, 3.15, 3.14t). What is cached already
# (environment.sh's CACHE) is reused.
#   bash scripts/pythons/setup.sh [PYTHON...]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/environment.sh"

debian_packages mmdebstrap
mkdir -p "$CACHE"

# A root of SUITE with PACKAGES; deb-src too, for the free-threaded build's source. Unstable's
# Release file is valid for a week only: a mirror that keeps an older copy of it is refused by
# apt unless told that the date does not matter (the signature is still checked).
make_root() {  # ROOT SUITE PACKAGE...
  local root="$1" suite="$2"
  shift 2
  [[ -d "$root" ]] && return 0  # moved into place only once complete
  phase "setup: the $suite root"
  # shellcheck disable=SC2317 # run by with_retries
  attempt() {
    rm -rf "$root.partial"
    mmdebstrap --quiet --variant=apt --aptopt='Acquire::Retries "5"' \
      --aptopt='Acquire::Check-Valid-Until "false"' \
      --include="$(IFS=,; echo "$*")" "$suite" "$root.partial" \
      "deb http://deb.debian.org/debian $suite main" \
      "deb-src http://deb.debian.org/debian $suite main"
  }
  with_retries attempt "$@"
  mv "$root.partial" "$root"
}
pythons=("$@")
((${#pythons[@]})) || pythons=(3.13 3.14 3.15 3.14t)
roots=()
for python in "${pythons[@]}"; do
  root="$(root_of "$python")"
  [[ " ${roots[*]} " == *" $root "* ]] || roots+=("$root")
done
for root in "${roots[@]}"; do
  case "$root" in
    "$TRIXIE_ROOT") make_root "$TRIXIE_ROOT" trixie "${TRIXIE_PACKAGES[@]}" ;;
    "$SID_ROOT") make_root "$SID_ROOT" sid "${SID_PACKAGES[@]}" ;;
  esac
done

# uv from PyPI, at a fixed version, copied into each root: it installs each environment from a
# cache inside the root, linking the files (torch's CUDA libraries are shared by the environments
# of one torch release).
tools="$CACHE/tools-venv"
tools_venv "$tools" "uv==$UV_VERSION"
for root in "${roots[@]}"; do
  install -m 755 "$tools/bin/uv" "$root/usr/local/bin/uv"
done

# The free-threaded CPython: Debian's source of python3.14 (its patches applied by dpkg-source),
# configured with --disable-gil into its own prefix. No profile-guided or link-time optimization:
# what runs is the interpreter's behaviour, not its speed. An archive that serves no source
# packages leaves the matrix without it, said here and by pythons_check.sh.
[[ " ${pythons[*]} " == *" 3.14t "* ]] || exit 0
if [[ ! -x "$SID_ROOT$(python_of 3.14t)" ]]; then
  phase "setup: CPython 3.14 with --disable-gil, from Debian's source"
  # shellcheck disable=SC2016 # expanded by the shell in the root
  in_root "$SID_ROOT" bash -euo pipefail -c '
    rm -rf /build && mkdir /build && cd /build
    apt-get -q update >/dev/null
    apt-get -q source python3.14 >/dev/null
    cd python3.14-*/
    ./configure -q --disable-gil --prefix="$1" --with-ensurepip=no >/dev/null
    make -s -j"$(nproc)" >/dev/null 2>make-warnings.log || { tail -40 make-warnings.log; exit 1; }
    make -s install >/dev/null
    cd / && rm -rf /build
  ' _ "$FREE_THREADED_PREFIX" ||
    echo "setup: no free-threaded CPython: Debian's source of python3.14 could not be fetched" \
      "or built (above)" >&2
fi
if [[ -x "$SID_ROOT$(python_of 3.14t)" ]]; then
  in_root "$SID_ROOT" "$(python_of 3.14t)" -c '
import sys, sysconfig
print(sys.version.split()[0], "Py_GIL_DISABLED =", sysconfig.get_config_var("Py_GIL_DISABLED"),
      "GIL enabled:", sys._is_gil_enabled())'
fi
