#!/usr/bin/env bash
# Fails when a C++ or CUDA source differs from .clang-format's style, or a shell script has a
# finding of shellcheck (.shellcheckrc).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
mapfile -t sources < <(git ls-files '*.h' '*.cpp' '*.cu' '*.cuh')
clang-format --dry-run -Werror "${sources[@]}"
echo "check_format: ${#sources[@]} files formatted"
mapfile -t scripts < <(git ls-files '*.sh' .ci/run)
shellcheck -x "${scripts[@]}"
echo "check_format: ${#scripts[@]} shell scripts clean"
