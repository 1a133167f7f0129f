#!/usr/bin/env bash
# Prepares a fresh Debian 12 machine: the Debian packages the build needs, then the project's own
# virtual environment (.venv) with the pinned torch and the test tools. Safe to run again: it only
# installs what is missing. run_main.sh and run_tests.sh run it first.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${HARDSIGMOID_OPS_VENV:-$ROOT/.venv}"
PYTHON="${PYTHON:-python3}"
source "$ROOT/scripts/downloads.sh"

# Debian packages: Python's venv module (Debian's python3 has none without python3-venv), the
# compiler and build tools, ccache (scripts/compile_cache.sh), GoogleTest, Google Benchmark,
# clang-format and shellcheck (scripts/check_format.sh), and nlohmann/json.hpp, which torch's
# functorch headers include and its wheel does not ship.
debian_packages python3 python3-venv g++ cmake ninja-build ccache libgtest-dev libbenchmark-dev \
  clang-format shellcheck nlohmann-json3-dev

# The virtual environment, reinstalled only when requirements.txt changes.
if [[ ! -x "$VENV/bin/python" ]]; then
  echo "setup: creating $VENV"
  "$PYTHON" -m venv "$VENV"
fi
stamp="$VENV/.requirements.sha256"
requirements="$(cat "$ROOT/requirements.txt")"
if ! stamp_matches "$stamp" "$requirements"; then
  echo "setup: installing requirements.txt into $VENV (torch is a large download)"
  with_retries "$VENV/bin/python" -m pip install -q --upgrade pip
  with_retries "$VENV/bin/python" -m pip install -q -r "$ROOT/requirements.txt"
  write_stamp "$stamp" "$requirements"
fi
