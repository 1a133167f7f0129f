#!/usr/bin/env bash
# Prepares a fresh Debian 12 machine: the Debian packages the build needs, then the project's own
# virtual environment (.venv) with the pinned torch and the test tools. Safe to run again: it only
# installs what is missing. run_main.sh and run_tests.sh run it first.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${HARDSIGMOID_OPS_VENV:-$ROOT/.venv}"
PYTHON="${PYTHON:-python3}"
source "$ROOT/scripts/downloads.sh"

# Debian packages: the compiler and build tools, ccache (scripts/compile_cache.sh), GoogleTest,
# Google Benchmark, clang-format, and nlohmann/json.hpp, which torch's functorch headers include
# and its wheel does not ship.
packages=(g++ cmake ninja-build ccache libgtest-dev libbenchmark-dev clang-format
  nlohmann-json3-dev)
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  apt_get update -q
  apt_get install -y -q "${missing[@]}"
fi

# The virtual environment, reinstalled only when requirements.txt changes.
if [[ ! -x "$VENV/bin/python" ]]; then
  echo "setup: creating $VENV"
  "$PYTHON" -m venv "$VENV"
fi
stamp="$VENV/.requirements.sha256"
want="$(sha256sum "$ROOT/requirements.txt" | cut -d' ' -f1)"
if [[ ! -f "$stamp" || "$(cat "$stamp")" != "$want" ]]; then
  echo "setup: installing requirements.txt into $VENV (torch is a large download)"
  with_retries "$VENV/bin/python" -m pip install -q --upgrade pip
  with_retries "$VENV/bin/python" -m pip install -q -r "$ROOT/requirements.txt"
  echo "$want" >"$stamp"
fi
