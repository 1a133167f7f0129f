#!/usr/bin/env bash
# The aarch64 release wheel checked under emulation: pip installs it for aarch64 CPython 3.11 into a
# folder, and the emulated arm64 root's Python runs check_wheel.py under qemu's default processor
# (aten's DEFAULT capability) beside the aarch64 torch of each release asked for (default: the
# pinned one; scripts/aarch64_check.sh's root and cache), which must load that release's library.
# qemu-user of bookworm-backports runs it, for every release: bookworm's 7.2 crashes in torch
# 2.13 - 2.15's import.
# The x86-64 wheel is installed from a package index and checked by scripts/release/check_index_install.sh.
#   bash scripts/release/check_wheel.sh WHEEL [TORCH_VERSION...] [-- CHECK_WHEEL_ARGS...]
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../aarch64/environment.sh"
wheel="$(realpath "$1")"
shift
pinned="$TORCH"
torch_versions=()
while (($#)) && [[ "$1" != -- ]]; do
  torch_versions+=("$1")
  shift
done
(($#)) && shift
((${#torch_versions[@]})) || torch_versions=("$pinned")
name="$(basename "$wheel")"
version="$(cut -d- -f2 <<<"$name")"
work="${WHEEL_BUILD_DIR:-$ROOT/build-wheels}/check-${name%.whl}"
rm -rf "$work"
mkdir -p "$work/elsewhere"
cp "$ROOT/scripts/release/check_wheel.py" "$work/elsewhere/"
links="$work/links"
mkdir -p "$links"
cp "$wheel" "$links/"
echo "== check $name"
[[ "$name" == *_aarch64.whl ]] || { echo "check_wheel.sh: $name is not an aarch64 wheel" >&2; exit 2; }

bash "$ROOT/scripts/aarch64_check.sh" setup >"$work/aarch64-setup.log" 2>&1 ||
  { tail -20 "$work/aarch64-setup.log"; exit 1; }
read -ra platforms <<<"$(pip_platforms aarch64 | xargs)"
aarch64_install() {  # TARGET ARGS...
  local target="$1"
  shift
  rm -rf "$target"
  "$ROOT/.venv/bin/python" -m pip install -q --target "$target" --only-binary=:all: \
    --python-version 3.11 --implementation cp "${platforms[@]}" "$@"
}
# pip accepts the wheel's tags for aarch64 CPython 3.11 (its torch requirement is checked by
# check_wheel.py against the torch beside it).
aarch64_install "$work/site" --no-deps --no-index --find-links "$links" "hardsigmoid_ops==$version"
for torch_version in "${torch_versions[@]}"; do
  # The release's aarch64 torch with its dependencies: the pinned release's is aarch64_check.sh's.
  sites=("$CACHE"/site-torch-"$torch_version"-*)
  if [[ -d "${sites[0]}/torch" ]]; then
    site="${sites[0]}"
  else
    site="$CACHE/check-site-torch-$torch_version"
    [[ -d "$site/torch" ]] || with_retries aarch64_install "$site" "torch==$torch_version" numpy
  fi
  (cd "$work/elsewhere" && QEMU_CPU=max HARDSIGMOID_OPS_AARCH64_SITE="$work/site:$site" \
    HARDSIGMOID_OPS_QEMU="$QEMU_BACKPORTS" "$PYTHON_AARCH64" check_wheel.py "$@" |
    tee "$work/check-$torch_version.json")
  echo "-- $name: installed for aarch64 CPython 3.11, checked with torch $torch_version under" \
    "$("$QEMU_BACKPORTS" --version | head -1) (DEFAULT)"
done
