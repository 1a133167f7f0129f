# shellcheck shell=bash
# Sourced by the scripts that install packages (setup.sh, torch_versions.sh, aarch64_check.sh):
# downloads that survive a dropped connection. torch's wheels and their CUDA libraries are
# hundreds of megabytes each, and one connection cut mid-file, again at each of pip's own resumes,
# used to fail the whole setup on a machine whose network came back a minute later.
#
#   with_retries COMMAND [ARGS...]  runs it up to DOWNLOAD_ATTEMPTS times (default 4), waiting
#                                   30 s, 60 s, 90 s between attempts; its status is the last one's
#   apt_get ARGS...                 apt-get as root (through sudo where needed), with apt's own
#                                   retries of each file, under with_retries
#   pip_platforms ARCH              pip's --platform options for ARCH's manylinux wheels (pip
#                                   installing for another processor: --target --only-binary)

# pip's own settings, read from the environment by every pip these scripts start (a pip that does
# not know one ignores it): more resumes of a file cut mid-download (pip >= 25.1) and more
# retries of a connection.
export PIP_RESUME_RETRIES="${PIP_RESUME_RETRIES:-20}"
export PIP_RETRIES="${PIP_RETRIES:-10}"

with_retries() {
  local attempts="${DOWNLOAD_ATTEMPTS:-4}" attempt=1
  until "$@"; do
    if ((attempt >= attempts)); then
      echo "downloads: '$*' failed $attempt times; giving up" >&2
      return 1
    fi
    echo "downloads: '$*' failed (attempt $attempt of $attempts); again in $((30 * attempt)) s" >&2
    sleep $((30 * attempt))
    attempt=$((attempt + 1))
  done
}

apt_get() {
  local sudo_cmd=()
  [[ $(id -u) -ne 0 ]] && sudo_cmd=(sudo)
  with_retries "${sudo_cmd[@]}" env DEBIAN_FRONTEND=noninteractive \
    apt-get -o Acquire::Retries=5 "$@"
}

pip_platforms() {
  local v
  echo --platform "manylinux2014_$1" --platform "linux_$1"
  for v in $(seq 17 39); do echo --platform "manylinux_2_${v}_$1"; done
}
