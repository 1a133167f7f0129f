#!/usr/bin/env bash
# Trims the Python matrix's cache (environment.sh's CACHE; its sizes: docs/testing.md), printing
# its size before and after:
#   bash scripts/pythons/prune.sh            the roots of packages no longer listed (an older key,
#                                            or a root left half made), each root's environments
#                                            of cells no longer in MATRIX, and uv's unused entries
#   bash scripts/pythons/prune.sh --uv-cache also every entry of uv's cache in each root: the
#                                            environments keep their files (hard links), the
#                                            next new one downloads again
#   bash scripts/pythons/prune.sh --all      the whole cache (the next run makes it again)
# As root: the roots' files are root's.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/environment.sh"
mode="${1:-}"
case "$mode" in
  "" | --uv-cache | --all) ;;
  *) echo "prune.sh: unknown option '$mode' (--uv-cache, --all)" >&2; exit 2 ;;
esac
size() { if [[ -d "$CACHE" ]]; then du -sh "$CACHE" | cut -f1; else echo 0; fi; }
echo "prune: $CACHE: $(size)"
if [[ "$mode" == --all ]]; then
  rm -rf "$CACHE"
  echo "prune: removed, $(size) left"
  exit 0
fi
[[ -d "$CACHE" ]] || exit 0

current=("$TRIXIE_ROOT" "$SID_ROOT")
for root in "$CACHE"/root-*; do
  [[ -e "$root" ]] || continue
  if [[ " ${current[*]} " != *" $root "* ]]; then
    echo "prune: $(basename "$root"): not a root of the packages listed now"
    rm -rf "$root"
  fi
done

# The environments a cell of MATRIX uses, by folder name (cell.sh's).
wanted=()
for pair in "${MATRIX[@]}"; do
  read -r python torch <<<"$pair"
  wanted+=("$(basename "$(python_of "$python")")-torch$torch")
done
uv="$CACHE/tools-venv/bin/uv"
for root in "${current[@]}"; do
  [[ -d "$root" ]] || continue
  for venv in "$root"/opt/venvs/*; do
    [[ -d "$venv" ]] || continue
    if [[ " ${wanted[*]} " != *" $(basename "$venv") "* ]]; then
      echo "prune: $(basename "$root") $(basename "$venv"): not a cell of the matrix"
      rm -rf "$venv"
    fi
  done
  if [[ -x "$uv" && -d "$root/var/cache/uv" ]]; then
    if [[ "$mode" == --uv-cache ]]; then
      "$uv" cache clean --cache-dir "$root/var/cache/uv" -q
    else
      "$uv" cache prune --cache-dir "$root/var/cache/uv" -q
    fi
  fi
done
echo "prune: $(size) left"
