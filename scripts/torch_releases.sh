# shellcheck shell=bash
# Sourced by the scripts that build for several torch releases (torch_versions.sh,
# build_wheels.sh): the releases this source supports, one per minor release, at the patch
# release each is tested with. The pinned one (the project's .venv) is requirements.txt's.
# shellcheck disable=SC2034  # read by the scripts that source this file
SUPPORTED_TORCH_RELEASES=(2.11.0 2.12.1 2.13.0 2.14.1 2.15.0)
