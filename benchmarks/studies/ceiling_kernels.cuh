// The copy mechanisms benchmarks/studies/cuda_ceiling.cu times: kernels that read every byte of a
// buffer once and write it once (or only read, or only write), over 16-byte vectors, each with one
// way of reaching memory. They move bytes and compute nothing, so that what they reach is what the
// memory system gives a stream of hardsigmoid's shape. sm_90 only (the bulk copies and the cache
// hints are Hopper PTX); the sizes they take are multiples of their tile.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace ceiling {

// How a thread loads a 16-byte vector.
enum class Load {
  kPlain,         // ld.global
  kStreaming,     // ld.global.cs: evict-first in L1 and L2
  kNoAllocate,    // ld.global.nc.L1::no_allocate: the read-only path, nothing kept in L1
  kPrefetch256,   // ld.global.nc.L1::no_allocate.L2::256B: L2 fetches the whole 256-byte block
  kL2EvictFirst,  // ld.global.L2::cache_hint with an L2 evict_first policy
};

// How a thread stores one.
enum class Store {
  kPlain,         // st.global
  kStreaming,     // st.global.cs
  kNoAllocate,    // st.global.L1::no_allocate
  kL2EvictFirst,  // st.global.L2::cache_hint with an L2 evict_first policy
};

__device__ __forceinline__ uint64_t evict_first_policy() {
  uint64_t policy;
  asm volatile("createpolicy.fractional.L2::evict_first.b64 %0, 1.0;" : "=l"(policy));
  return policy;
}

template <Load kLoad>
__device__ __forceinline__ uint4 load(const uint4* p, uint64_t policy) {
  uint4 v;
  if constexpr (kLoad == Load::kPlain) {
    v = *p;
  } else if constexpr (kLoad == Load::kStreaming) {
    asm volatile("ld.global.cs.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
  } else if constexpr (kLoad == Load::kNoAllocate) {
    asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
  } else if constexpr (kLoad == Load::kPrefetch256) {
    asm volatile("ld.global.nc.L1::no_allocate.L2::256B.v4.u32 {%0, %1, %2, %3}, [%4];"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p));
  } else {
    asm volatile("ld.global.L2::cache_hint.v4.u32 {%0, %1, %2, %3}, [%4], %5;"
                 : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w)
                 : "l"(p), "l"(policy));
  }
  return v;
}

template <Store kStore>
__device__ __forceinline__ void store(uint4* p, uint4 v, uint64_t policy) {
  if constexpr (kStore == Store::kPlain) {
    *p = v;
  } else if constexpr (kStore == Store::kStreaming) {
    asm volatile("st.global.cs.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v.x), "r"(v.y),
                 "r"(v.z), "r"(v.w)
                 : "memory");
  } else if constexpr (kStore == Store::kNoAllocate) {
    asm volatile("st.global.L1::no_allocate.v4.u32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v.x),
                 "r"(v.y), "r"(v.z), "r"(v.w)
                 : "memory");
  } else {
    asm volatile("st.global.L2::cache_hint.v4.u32 [%0], {%1, %2, %3, %4}, %5;" ::"l"(p), "r"(v.x),
                 "r"(v.y), "r"(v.z), "r"(v.w), "l"(policy)
                 : "memory");
  }
}

template <Load kLoad, Store kStore>
__device__ __forceinline__ uint64_t policy_for() {
  return kLoad == Load::kL2EvictFirst || kStore == Store::kL2EvictFirst ? evict_first_policy() : 0;
}

// One tile a block: kBlock threads × kUnroll vectors, all loads before the stores (the library's
// flat kernel is kBlock 128, kUnroll 1, plain loads and stores).
template <int kBlock, int kUnroll, Load kLoad, Store kStore>
__global__ void __launch_bounds__(kBlock) tile_copy(const uint4* in, uint4* out) {
  const uint64_t policy = policy_for<kLoad, kStore>();
  const int64_t base = int64_t{blockIdx.x} * kBlock * kUnroll + threadIdx.x;
  uint4 v[kUnroll];
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) v[u] = load<kLoad>(in + base + u * kBlock, policy);
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) store<kStore>(out + base + u * kBlock, v[u], policy);
}

// A grid smaller than the buffer, each block looping over tiles of kBlock × kUnroll vectors.
template <int kBlock, int kUnroll>
__global__ void __launch_bounds__(kBlock)
    grid_stride_copy(const uint4* in, uint4* out, int64_t vectors) {
  constexpr int64_t kTile = int64_t{kBlock} * kUnroll;
  for (int64_t base = blockIdx.x * kTile + threadIdx.x; base < vectors;
       base += int64_t{gridDim.x} * kTile) {
    uint4 v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) v[u] = in[base + u * kBlock];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) out[base + u * kBlock] = v[u];
  }
}

// A block's kBlock × kUnroll vectors from `base` on, read: folded into one word, written only
// if it equals `never` (the caller passes a value no fold of its data gives), so that the loads
// cannot be dropped.
template <int kBlock, int kUnroll>
__device__ __forceinline__ void read_tile(const uint4* in, int64_t base, uint32_t* sink,
                                          uint32_t never) {
  uint32_t fold = 0;
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) {
    const uint4 v = load<Load::kNoAllocate>(in + base + u * kBlock, 0);
    fold ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (fold == never) *sink = fold;
}

// ... or written: each vector its own index, so that no two lines hold the same bytes.
template <int kBlock, int kUnroll>
__device__ __forceinline__ void write_tile(uint4* out, int64_t base) {
#pragma unroll
  for (int u = 0; u < kUnroll; ++u) {
    const auto i = static_cast<uint32_t>(base + u * kBlock);
    out[base + u * kBlock] = make_uint4(i, i + 1, i + 2, i + 3);
  }
}

// Reads only, one tile a block.
template <int kBlock, int kUnroll>
__global__ void __launch_bounds__(kBlock)
    read_only(const uint4* in, uint32_t* sink, uint32_t never) {
  read_tile<kBlock, kUnroll>(in, int64_t{blockIdx.x} * kBlock * kUnroll + threadIdx.x, sink, never);
}

// Writes only, one tile a block.
template <int kBlock, int kUnroll>
__global__ void __launch_bounds__(kBlock) write_only(uint4* out) {
  write_tile<kBlock, kUnroll>(out, int64_t{blockIdx.x} * kBlock * kUnroll + threadIdx.x);
}

// A copy's traffic without a copy: even blocks read a tile of `in`, odd blocks write the same
// tile of `out`, no data passing between them. Against a copy of the same tile shape, it tells
// whether the cost is the mix of reads and writes at the DRAM or a copy's stores waiting for
// its loads.
template <int kBlock, int kUnroll>
__global__ void __launch_bounds__(kBlock)
    unpaired_read_write(const uint4* in, uint4* out, uint32_t* sink, uint32_t never) {
  const int64_t base = int64_t{blockIdx.x / 2} * kBlock * kUnroll + threadIdx.x;
  if (blockIdx.x % 2 == 0) {
    read_tile<kBlock, kUnroll>(in, base, sink, never);
  } else {
    write_tile<kBlock, kUnroll>(out, base);
  }
}

// Hopper's bulk copy engine (TMA, cp.async.bulk without a tensor map): a persistent grid, one
// thread a block issuing every copy. Chunks of kChunk bytes go global → shared (completion on an
// mbarrier, one per stage) and shared → global (bulk groups). kLead loads run ahead of the store
// being issued; a stage is reloaded once the store that last read it has finished reading it,
// so up to kStages − kLead stores stay in flight.
template <int kChunk, int kStages, int kLead>
__global__ void __launch_bounds__(32) bulk_copy(const char* in, char* out, int64_t chunks) {
  static_assert(kChunk % 16 == 0 && kLead >= 1 && kLead < kStages);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
  __trap();  // the bulk copies are sm_90's: built for an older architecture, it stops here
#else
  extern __shared__ __align__(128) unsigned char stages[];
  __shared__ __align__(8) uint64_t full[kStages];
  if (threadIdx.x != 0 || blockIdx.x >= chunks) return;
  const auto smem = [](const void* p) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(p));
  };
  for (int s = 0; s < kStages; ++s) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(smem(&full[s])));
  }
  asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  const int64_t mine = (chunks - blockIdx.x + gridDim.x - 1) / gridDim.x;
  const auto offset = [&](int64_t j) { return (blockIdx.x + j * gridDim.x) * int64_t{kChunk}; };
  const auto issue_load = [&](int64_t j) {
    const int s = static_cast<int>(j % kStages);
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(smem(&full[s])),
                 "r"(kChunk)
                 : "memory");
    asm volatile(
        "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, "
        "[%3];" ::"r"(smem(stages + s * kChunk)),
        "l"(in + offset(j)), "r"(kChunk), "r"(smem(&full[s]))
        : "memory");
  };
  for (int64_t j = 0; j < kLead && j < mine; ++j) issue_load(j);
  for (int64_t j = 0; j < mine; ++j) {
    const int s = static_cast<int>(j % kStages);
    const auto parity = static_cast<uint32_t>((j / kStages) & 1);
    uint32_t done = 0;
    while (!done) {
      asm volatile(
          "{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
          " selp.u32 %0, 1, 0, p;\n}"
          : "=r"(done)
          : "r"(smem(&full[s])), "r"(parity)
          : "memory");
    }
    asm volatile(
        "cp.async.bulk.global.shared::cta.bulk_group [%0], [%1], %2;" ::"l"(out + offset(j)),
        "r"(smem(stages + s * kChunk)), "r"(kChunk)
        : "memory");
    asm volatile("cp.async.bulk.commit_group;" ::: "memory");
    if (j + kLead < mine) {
      // Stage (j + kLead) % kStages was last read by store j + kLead − kStages: the stores after
      // it, kStages − kLead of them, may still be reading.
      asm volatile("cp.async.bulk.wait_group.read %0;" ::"n"(kStages - kLead) : "memory");
      issue_load(j + kLead);
    }
  }
  asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
#endif
}

}  // namespace ceiling
