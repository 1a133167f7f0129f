# shellcheck shell=bash
# Sourced by build_wheels.sh: aarch64_cuda_toolkit CACHE prints the root of a CUDA toolkit that
# cross-compiles for aarch64 (Grace), assembled once into CACHE by cuda_target.py from the host's
# nvcc and PyPI's aarch64 wheels of the same CUDA release. nvcc's version names the release: its
# headers (nvidia-cuda-crt) come from nvcc itself, so the two must match exactly, as the x86-64
# toolkit's do. NVIDIA's cuda-toolkit metapackage pins every component of one release.
# Downloads some 1.3 GB of wheels (cuBLAS, cuSOLVER, cuSPARSE and cuFFT for their headers), kept
# as a 130 MB toolkit (NVRTC is most of it); the wheels are deleted.

# nvcc's release -> the cuda-toolkit metapackage of that release on PyPI.
declare -A CUDA_TOOLKIT_OF_NVCC=([13.0.88]=13.0.2)
# The components a torch extension's CUDA build reads (nvcc's code includes fatbinary_section.h
# from nvcc's own component; aten's CUDA headers include cuBLAS,
# cuSPARSE and cuSOLVER's; torch's CMake finds cuRAND and cuFFT).
CUDA_TOOLKIT_COMPONENTS=cudart,crt,cccl,nvcc,nvrtc,cublas,cusparse,cusolver,curand,cufft,nvtx,culibos

aarch64_cuda_toolkit() {
  local cache="$1" nvcc host nvcc_version release out wheels
  nvcc="$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)"
  # nvcc on PATH may be a wrapper that execs the toolkit's (a script in /usr/local/bin): its
  # toolkit is where nvcc itself says, not where the name on PATH resolves.
  host="$("$nvcc" --dryrun -x cu -c /dev/null -o /dev/null 2>&1 | sed -n 's/^#\$ TOP=//p' | head -1)"
  if [[ -z "$host" ]]; then
    echo "aarch64_cuda_toolkit.sh: $nvcc --dryrun names no toolkit (TOP=)" >&2
    return 1
  fi
  host="$(readlink -f "$host")"
  nvcc_version="$("$host/bin/nvcc" --version | sed -n 's/.*, V\([0-9.]*\)$/\1/p')"
  release="${CUDA_TOOLKIT_OF_NVCC[$nvcc_version]:-}"
  if [[ -z "$release" ]]; then
    echo "aarch64_cuda_toolkit.sh: no CUDA release known for nvcc $nvcc_version" >&2
    return 1
  fi
  out="$cache/cuda-$release-aarch64"
  if [[ -f "$out/.assembled" && "$(cat "$out/.assembled")" == "$host $CUDA_TOOLKIT_COMPONENTS" ]]; then
    echo "$out"
    return
  fi
  wheels="$cache/cuda-$release-aarch64-wheels"
  rm -rf "$wheels"
  # The metapackage and its components, each at the release's version.
  # shellcheck disable=SC2046 # the platform options are words
  with_retries python3 -m pip download -q --only-binary=:all: $(pip_platforms aarch64) \
    --python-version 3.11 -d "$wheels" "cuda-toolkit[$CUDA_TOOLKIT_COMPONENTS]==$release" >&2 ||
    return 1
  python3 "$ROOT/scripts/release/cuda_target.py" "$out" "$host" "$CUDA_TOOLKIT_COMPONENTS" \
    "$wheels" >&2 || return 1
  local crt
  crt="$(basename "$wheels"/nvidia_cuda_crt-*.whl | cut -d- -f2)"
  if [[ "$crt" != "$nvcc_version" ]]; then
    echo "aarch64_cuda_toolkit.sh: nvcc $nvcc_version, but the wheels' headers are $crt" >&2
    return 1
  fi
  rm -rf "$wheels"
  aarch64_cuda_probe "$out" || return 1
  echo "$host $CUDA_TOOLKIT_COMPONENTS" >"$out/.assembled"
  echo "$out"
}

# aarch64_cuda_probe TOOLKIT: the toolkit compiles a kernel into an aarch64 object with the
# aarch64 host compiler, before it is stamped assembled: a toolkit that cannot (nvcc linked from
# somewhere that is not a toolkit) fails here, by name, not inside CMake's compiler check.
aarch64_cuda_probe() {
  local toolkit="$1" probe
  probe="$(mktemp -d)"
  printf '#include <cuda_runtime.h>\n__global__ void probe(float* p) { p[threadIdx.x] = 1.f; }\n' \
    >"$probe/probe.cu"
  if ! "$toolkit/bin/nvcc" -ccbin aarch64-linux-gnu-g++ -arch sm_90 -c "$probe/probe.cu" \
    -o "$probe/probe.o" >"$probe/log" 2>&1 ||
    ! readelf -h "$probe/probe.o" | grep -q "Machine: *AArch64"; then
    echo "aarch64_cuda_toolkit.sh: $toolkit does not compile a kernel for aarch64:" >&2
    cat "$probe/log" >&2
    rm -rf "$probe"
    return 1
  fi
  rm -rf "$probe"
}
