#!/usr/bin/env bash
# Fails when a C++ or CUDA source differs from .clang-format's style, a shell script has a finding
# of shellcheck (.shellcheckrc), or a Python file one of ruff (pyproject.toml's [tool.ruff]; the
# ruff of the project's environment, which setup.sh installs).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
mapfile -t sources < <(git ls-files '*.h' '*.cpp' '*.cu' '*.cuh')
clang-format --dry-run -Werror "${sources[@]}"
echo "check_format: ${#sources[@]} files formatted"
mapfile -t scripts < <(git ls-files '*.sh' .ci/run)
shellcheck -x "${scripts[@]}"
echo "check_format: ${#scripts[@]} shell scripts clean"
"${HARDSIGMOID_OPS_VENV:-$ROOT/.venv}/bin/ruff" check --quiet .
echo "check_format: Python clean (ruff)"
