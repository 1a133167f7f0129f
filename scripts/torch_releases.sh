# shellcheck shell=bash
# Sourced by the scripts that build for several torch releases (torch_versions.sh,
# build_wheels.sh, aarch64_check.sh, CI): SUPPORTED_TORCH_RELEASES, read from the one data file
# of them, torch_releases.txt.
# shellcheck disable=SC2034  # read by the scripts that source this file
mapfile -t SUPPORTED_TORCH_RELEASES < <(grep -v -e '^#' -e '^$' \
  "$(dirname "${BASH_SOURCE[0]}")/torch_releases.txt")
