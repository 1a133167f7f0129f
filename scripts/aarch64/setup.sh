#!/usr/bin/env bash
# The aarch64 proof's setup (scripts/aarch64_check.sh): Debian's qemu-user-static, binfmt-support,
# g++-aarch64-linux-gnu and mmdebstrap; qemu-user of bookworm-backports; the arm64 root (its
# packages unpacked, nothing configured: no emulated package scripts); the aarch64 wheels installed
# into folders beside it; the emulated Python. What is cached already (environment.sh's CACHE) is reused.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/environment.sh"

phase "setup: Debian packages"
debian_packages qemu-user-static binfmt-support g++-aarch64-linux-gnu mmdebstrap
bash "$ROOT/scripts/setup.sh" # cmake, ninja, the compiler cache, the pinned x86-64 environment
# aarch64 programs started directly: the kernel hands them to qemu-aarch64 through binfmt_misc,
# which a container may not have mounted.
if [[ ! -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ]]; then
  mountpoint -q /proc/sys/fs/binfmt_misc ||
    as_root mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
  as_root update-binfmts --enable qemu-aarch64
fi

# bookworm-backports' qemu-user, fetched by apt with a state of its own (the system's sources and
# packages untouched) and unpacked: apt checks the archive's signature, dpkg-deb runs nothing.
if [[ ! -x "$QEMU_BACKPORTS" ]]; then
  phase "setup: qemu-user of bookworm-backports"
  apt_state="$CACHE/apt-bookworm-backports"
  rm -rf "$apt_state"
  mkdir -p "$apt_state"/{lists/partial,cache/archives/partial,deb}
  echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
    "http://deb.debian.org/debian bookworm-backports main" >"$apt_state/sources.list"
  apt_options=(-o "Dir::Etc::SourceList=$apt_state/sources.list" -o Dir::Etc::SourceParts=/dev/null
    -o "Dir::State::Lists=$apt_state/lists" -o "Dir::Cache=$apt_state/cache"
    -o APT::Sandbox::User=root -o Acquire::Retries=5)
  with_retries apt-get -q "${apt_options[@]}" update
  (cd "$apt_state/deb" && with_retries apt-get -q "${apt_options[@]}" download \
    qemu-user/bookworm-backports)
  unpacked="$(dirname "$(dirname "$(dirname "$QEMU_BACKPORTS")")")"
  rm -rf "$unpacked"
  dpkg-deb -x "$apt_state"/deb/qemu-user_*.deb "$unpacked"
  rm -rf "$apt_state"
  "$QEMU_BACKPORTS" --version | head -1
fi

# mmdebstrap's extract variant runs no package scripts, so nothing runs under emulation.
if [[ ! -x "$ARM_ROOT/usr/bin/python3.11" ]]; then
  phase "setup: the arm64 root"
  rm -rf "$ARM_ROOT"
  mkdir -p "$CACHE"
  # shellcheck disable=SC2317 # run by with_retries
  arm_root() {
    rm -rf "$ARM_ROOT.partial"
    mmdebstrap --quiet --variant=extract --arch=arm64 --aptopt='Acquire::Retries "5"' \
      --include="$(IFS=,; echo "${ROOT_PACKAGES[*]}")" bookworm "$ARM_ROOT.partial"
  }
  with_retries arm_root
  mv "$ARM_ROOT.partial" "$ARM_ROOT"
fi

# The aarch64 wheels, installed from this machine by pip for the aarch64 platform. PyPI's aarch64
# torch is its CUDA build: its libraries need the nvidia wheels' (never used here).
read -ra platforms <<<"$(pip_platforms aarch64 | xargs)"
aarch64_pip() {
  local target="$1"
  shift
  rm -rf "$target"
  # shellcheck disable=SC2317 # run by with_retries
  install_into_partial() {
    rm -rf "$target.partial"
    "$ROOT/.venv/bin/python" -m pip install -q --target "$target.partial" --only-binary=:all: \
      --python-version 3.11 --implementation cp "${platforms[@]}" "$@"
  }
  with_retries install_into_partial "$@"
  mv "$target.partial" "$target"
}
if [[ ! -d "$SITE/torch" ]]; then
  phase "setup: aarch64 torch $TORCH and the test tools"
  aarch64_pip "$SITE" "torch==$TORCH" "${TEST_TOOLS[@]}"
fi
# ExecuTorch apart from torch's folder: its C++ runtime and CMake package only (its Python side
# runs with the newest torch release alone).
if [[ ! -d "$EXECUTORCH_SITE/executorch" ]]; then
  phase "setup: aarch64 executorch $EXECUTORCH"
  aarch64_pip "$EXECUTORCH_SITE" --no-deps "executorch==$EXECUTORCH"
fi

cat >"$PYTHON_AARCH64" <<WRAPPER
#!/usr/bin/env bash
# Python 3.11 for aarch64 under qemu-aarch64, with torch $TORCH (scripts/aarch64/setup.sh), or
# with the folders HARDSIGMOID_OPS_AARCH64_SITE names instead (scripts/release/check_wheel.sh).
export QEMU_LD_PREFIX="$ARM_ROOT"
# HARDSIGMOID_OPS_QEMU: a qemu-aarch64 to run it with instead of the one binfmt_misc names.
export PYTHONPATH="\${HARDSIGMOID_OPS_AARCH64_SITE:-$SITE}\${PYTHONPATH:+:\$PYTHONPATH}"
exec \${HARDSIGMOID_OPS_QEMU:+"\$HARDSIGMOID_OPS_QEMU"} "$ARM_ROOT/usr/bin/python3.11" "\$@"
WRAPPER
chmod +x "$PYTHON_AARCH64"
