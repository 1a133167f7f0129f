// The H200's ceiling for a stream that reads N bytes once and writes N bytes once, hardsigmoid's
// shape: every copy mechanism of benchmarks/studies/ceiling_kernels.cuh, the driver's and PyTorch's
// copies, pure reads and pure writes for reference, and the library's hardsigmoid and aten's
// beside them, timed in one run (docs/performance.md, "The ceiling of a read-once write-once
// stream").
//
//   cuda_ceiling [--csv PATH] [--repeats R] [--headline-only] [--once]
//
// Sizes: float32 buffers of 2^24 ... 2^30 elements and the 4096 × 393216 headline; below three
// times L2 the timed launches rotate over enough buffers that each launch starts from DRAM.
// Each sample is one CUDA-event interval over a fixed number of launches; the median, minimum and
// maximum per launch of R samples are printed and written to the CSV. Every copy and every
// hardsigmoid is checked bit for bit after its timing, into an output overwritten first.
// --once launches each mechanism once at the headline size, each in an NVTX range of its name
// between cudaProfilerStart and Stop: the run to put under
// `ncu --profile-from-start off --nvtx ...`.
#include <ATen/ATen.h>
#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAException.h>
#include <cuda_profiler_api.h>
#include <nvtx3/nvToolsExt.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <string>
#include <vector>

#include "benchmarks/studies/ceiling_kernels.cuh"
#include "ops/cuda/flat_kernels.cuh"
#include "ops/cuda/hardsigmoid_functors.cuh"

namespace {

using ceiling::Load;
using ceiling::Store;

struct Buffers {
  at::Tensor in, out;
};

enum class Check { kCopy, kHardsigmoid, kNone };

struct Mechanism {
  std::string name;
  std::string kind;  // copy, read, write or hardsigmoid
  int directions;    // 2 when the bytes are read and written, 1 when only read or only written
  Check check;
  std::function<void(Buffers&)> launch;
};

cudaStream_t stream() { return at::cuda::getCurrentCUDAStream(); }
int multiprocessors() { return at::cuda::getCurrentDeviceProperties()->multiProcessorCount; }

const uint4* in_vectors(const Buffers& b) {
  return static_cast<const uint4*>(b.in.const_data_ptr());
}
uint4* out_vectors(Buffers& b) { return static_cast<uint4*>(b.out.mutable_data_ptr()); }
int64_t vectors(const Buffers& b) { return b.in.nbytes() / 16; }

template <int kBlock, int kUnroll, Load kLoad, Store kStore>
void launch_tiles(Buffers& b) {
  const int64_t blocks = vectors(b) / (kBlock * kUnroll);
  ceiling::tile_copy<kBlock, kUnroll, kLoad, kStore>
      <<<blocks, kBlock, 0, stream()>>>(in_vectors(b), out_vectors(b));
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

template <int kBlock, int kUnroll, Load kLoad = Load::kPlain, Store kStore = Store::kPlain>
Mechanism tiles(std::string name) {
  return {std::move(name), "copy", 2, Check::kCopy, &launch_tiles<kBlock, kUnroll, kLoad, kStore>};
}

template <typename Kernel>
int resident_blocks(Kernel kernel, int block, size_t shared) {
  int per_sm = 0;
  C10_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, block, shared));
  return multiprocessors() * std::max(per_sm, 1);
}

template <int kBlock, int kUnroll>
void launch_grid_stride(Buffers& b, int waves) {
  const auto kernel = ceiling::grid_stride_copy<kBlock, kUnroll>;
  static const int resident = resident_blocks(kernel, kBlock, 0);
  kernel<<<resident * waves, kBlock, 0, stream()>>>(in_vectors(b), out_vectors(b), vectors(b));
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

template <int kBlock, int kUnroll>
Mechanism grid_stride(std::string name, int waves) {
  return {std::move(name), "copy", 2, Check::kCopy,
          [waves](Buffers& b) { launch_grid_stride<kBlock, kUnroll>(b, waves); }};
}

template <int kChunk, int kStages, int kLead>
int bulk_resident_blocks() {
  const auto kernel = ceiling::bulk_copy<kChunk, kStages, kLead>;
  C10_CUDA_CHECK(
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kChunk * kStages));
  return resident_blocks(kernel, 32, kChunk * kStages);
}

template <int kChunk, int kStages, int kLead>
void launch_bulk(Buffers& b) {
  static const int resident = bulk_resident_blocks<kChunk, kStages, kLead>();
  const int64_t chunks = b.in.nbytes() / kChunk;
  ceiling::bulk_copy<kChunk, kStages, kLead>
      <<<std::min<int64_t>(resident, chunks), 32, kChunk * kStages, stream()>>>(
          static_cast<const char*>(b.in.const_data_ptr()),
          static_cast<char*>(b.out.mutable_data_ptr()), chunks);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

template <int kChunk, int kStages, int kLead>
Mechanism bulk(std::string name) {
  return {std::move(name), "copy", 2, Check::kCopy, &launch_bulk<kChunk, kStages, kLead>};
}

// Where the kernels that only read write their fold when it equals kNever (it never does).
uint32_t* sink() {
  static const at::Tensor word =
      at::zeros({1}, at::TensorOptions().dtype(at::kInt).device(at::kCUDA));
  return static_cast<uint32_t*>(word.mutable_data_ptr());
}
constexpr uint32_t kNever = 0x5eed5eedu;

template <int kUnroll>
void launch_read_only(Buffers& b) {
  ceiling::read_only<128, kUnroll>
      <<<vectors(b) / (128 * kUnroll), 128, 0, stream()>>>(in_vectors(b), sink(), kNever);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

void launch_unpaired(Buffers& b) {
  ceiling::unpaired_read_write<128, 4>
      <<<2 * (vectors(b) / 512), 128, 0, stream()>>>(in_vectors(b), out_vectors(b), sink(), kNever);
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

// The library's tile shape copying a buffer onto itself: hardsigmoid_'s traffic, each line read
// and written back to the same DRAM page.
void launch_in_place(Buffers& b) {
  ceiling::tile_copy<128, 1, Load::kPlain, Store::kPlain><<<vectors(b) / 128, 128, 0, stream()>>>(
      in_vectors(b), reinterpret_cast<uint4*>(b.in.mutable_data_ptr()));
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

template <int kUnroll>
void launch_write_only(Buffers& b) {
  ceiling::write_only<128, kUnroll>
      <<<vectors(b) / (128 * kUnroll), 128, 0, stream()>>>(out_vectors(b));
  C10_CUDA_KERNEL_LAUNCH_CHECK();
}

void launch_memcpy(Buffers& b) {
  C10_CUDA_CHECK(cudaMemcpyAsync(b.out.mutable_data_ptr(), b.in.const_data_ptr(), b.in.nbytes(),
                                 cudaMemcpyDeviceToDevice, stream()));
}

void launch_memset(Buffers& b) {
  C10_CUDA_CHECK(cudaMemsetAsync(b.out.mutable_data_ptr(), 0, b.out.nbytes(), stream()));
}

void launch_ours(Buffers& b) {
  namespace hs = hardsigmoid_ops::cuda;
  const hs::Pointers<float, 1> p{b.out.mutable_data_ptr<float>(), {b.in.const_data_ptr<float>()}};
  hs::run_flat(p, b.in.numel(), hs::ForwardOp<float>{});
}

std::vector<Mechanism> mechanisms() {
  std::vector<Mechanism> m;
  // The copies a PyTorch user or a CUDA program gets without writing a kernel.
  m.push_back({"cudaMemcpyAsync", "copy", 2, Check::kCopy, &launch_memcpy});
  m.push_back({"clone", "copy", 2, Check::kCopy, [](Buffers& b) { b.out = b.in.clone(); }});
  m.push_back({"copy_", "copy", 2, Check::kCopy, [](Buffers& b) { b.out.copy_(b.in); }});
  // The two hardsigmoids.
  m.push_back({"aten hardsigmoid", "hardsigmoid", 2, Check::kHardsigmoid,
               [](Buffers& b) { at::hardsigmoid_out(b.out, b.in); }});
  m.push_back({"hardsigmoid_ops", "hardsigmoid", 2, Check::kHardsigmoid, &launch_ours});
  // Tile shapes, plain loads and stores (128 × 1 is the library's).
  m.push_back(tiles<128, 1>("tile 128x1"));
  m.push_back(tiles<64, 1>("tile 64x1"));
  m.push_back(tiles<256, 1>("tile 256x1"));
  m.push_back(tiles<512, 1>("tile 512x1"));
  m.push_back(tiles<1024, 1>("tile 1024x1"));
  m.push_back(tiles<128, 2>("tile 128x2"));
  m.push_back(tiles<128, 4>("tile 128x4"));
  m.push_back(tiles<256, 2>("tile 256x2"));
  m.push_back(tiles<512, 4>("tile 512x4"));
  // Cache hints on the library's shape.
  m.push_back(tiles<128, 1, Load::kStreaming, Store::kStreaming>("tile 128x1 ld.cs st.cs"));
  m.push_back(tiles<128, 1, Load::kNoAllocate, Store::kPlain>("tile 128x1 ld.nc no_allocate"));
  m.push_back(
      tiles<128, 1, Load::kNoAllocate, Store::kNoAllocate>("tile 128x1 ld.nc st no_allocate"));
  m.push_back(tiles<128, 1, Load::kPrefetch256, Store::kPlain>("tile 128x1 ld L2::256B"));
  m.push_back(tiles<128, 1, Load::kPrefetch256, Store::kStreaming>("tile 128x1 ld L2::256B st.cs"));
  m.push_back(
      tiles<128, 1, Load::kL2EvictFirst, Store::kL2EvictFirst>("tile 128x1 L2 evict_first"));
  m.push_back(tiles<128, 1, Load::kPlain, Store::kStreaming>("tile 128x1 st.cs"));
  // Grid-stride loops over a grid the device holds at once, or a few times that.
  m.push_back(grid_stride<256, 4>("grid-stride 256x4 (1 wave)", 1));
  m.push_back(grid_stride<256, 4>("grid-stride 256x4 (4 waves)", 4));
  m.push_back(grid_stride<512, 1>("grid-stride 512x1 (1 wave)", 1));
  m.push_back(grid_stride<128, 1>("grid-stride 128x1 (8 waves)", 8));
  // The bulk copy engine: chunk bytes, stages, loads ahead.
  m.push_back(bulk<16384, 4, 2>("bulk 16 KiB x4 stages lead 2"));
  m.push_back(bulk<16384, 8, 4>("bulk 16 KiB x8 stages lead 4"));
  m.push_back(bulk<8192, 8, 6>("bulk 8 KiB x8 stages lead 6"));
  m.push_back(bulk<32768, 6, 4>("bulk 32 KiB x6 stages lead 4"));
  m.push_back(bulk<4096, 16, 12>("bulk 4 KiB x16 stages lead 12"));
  // A copy's traffic with nothing passed from reads to writes; a copy onto itself.
  m.push_back({"reads and writes unpaired 128x4", "copy", 2, Check::kNone, &launch_unpaired});
  m.push_back({"tile 128x1 in place", "copy", 2, Check::kNone, &launch_in_place});
  // One direction only.
  m.push_back({"read only 128x4", "read", 1, Check::kNone, &launch_read_only<4>});
  m.push_back({"read only 128x1", "read", 1, Check::kNone, &launch_read_only<1>});
  m.push_back({"write only 128x1", "write", 1, Check::kNone, &launch_write_only<1>});
  m.push_back({"write only 128x4", "write", 1, Check::kNone, &launch_write_only<4>});
  m.push_back({"cudaMemsetAsync", "write", 1, Check::kNone, &launch_memset});
  return m;
}

struct Size {
  std::string label;
  int64_t elements;
};

std::vector<Buffers> make_buffers(int64_t elements) {
  const int64_t bytes = elements * 4;
  const int64_t l2 = at::cuda::getCurrentDeviceProperties()->l2CacheSize;
  const int64_t count = std::max<int64_t>(1, (3 * l2 + bytes - 1) / bytes);
  std::vector<Buffers> buffers;
  const auto options = at::TensorOptions().device(at::kCUDA);
  for (int64_t i = 0; i < count; ++i) {
    buffers.push_back({at::randn({elements}, options) * 4, at::empty({elements}, options)});
  }
  return buffers;
}

std::string verdict(const Mechanism& m, std::vector<Buffers>& buffers) {
  if (m.check == Check::kNone) return "n/a";
  for (Buffers& b : buffers) {
    const at::Tensor want = m.check == Check::kCopy ? b.in : at::hardsigmoid(b.in);
    // Bitwise: the float views compared as int32, so that -0 and NaN patterns count too.
    if (!at::equal(b.out.view(at::kInt), want.view(at::kInt))) return "WRONG";
  }
  return "ok";
}

struct Timing {
  double median_ms, min_ms, max_ms;
  int launches;
};

Timing time_launches(const Mechanism& m, std::vector<Buffers>& buffers, int64_t elements,
                     int repeats) {
  // At least 2^28 elements a sample, and every buffer as often as the others.
  const int64_t per_sample = std::max<int64_t>(1, (int64_t{1} << 28) / elements);
  const auto rounds = static_cast<int>((per_sample + buffers.size() - 1) / buffers.size());
  const int launches = rounds * static_cast<int>(buffers.size());
  cudaEvent_t start, end;
  C10_CUDA_CHECK(cudaEventCreate(&start));
  C10_CUDA_CHECK(cudaEventCreate(&end));
  std::vector<float> per_launch;
  for (int sample = -2; sample < repeats; ++sample) {  // two samples of warm-up
    C10_CUDA_CHECK(cudaEventRecord(start, stream()));
    for (int l = 0; l < launches; ++l) m.launch(buffers[l % buffers.size()]);
    C10_CUDA_CHECK(cudaEventRecord(end, stream()));
    C10_CUDA_CHECK(cudaEventSynchronize(end));
    float ms = 0;
    C10_CUDA_CHECK(cudaEventElapsedTime(&ms, start, end));
    if (sample >= 0) per_launch.push_back(ms / launches);
  }
  C10_CUDA_CHECK(cudaEventDestroy(start));
  C10_CUDA_CHECK(cudaEventDestroy(end));
  std::sort(per_launch.begin(), per_launch.end());
  return {per_launch[per_launch.size() / 2], per_launch.front(), per_launch.back(), launches};
}

void overwrite_outputs(std::vector<Buffers>& buffers) {
  for (Buffers& b : buffers) b.out.fill_(-7.0);
}

int run_once(const std::vector<Mechanism>& all, int64_t elements) {
  std::vector<Buffers> buffers = make_buffers(elements);
  for (const Mechanism& m : all) {
    // A launch outside the profiled range first, so that what a mechanism sets up once (its
    // occupancy query, the sink) is not counted.
    m.launch(buffers[0]);
    overwrite_outputs(buffers);
    C10_CUDA_CHECK(cudaDeviceSynchronize());
    C10_CUDA_CHECK(cudaProfilerStart());
    nvtxRangePushA(m.name.c_str());
    m.launch(buffers[0]);
    nvtxRangePop();
    C10_CUDA_CHECK(cudaDeviceSynchronize());
    C10_CUDA_CHECK(cudaProfilerStop());
    std::printf("%-34s launched once\n", m.name.c_str());
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  std::string csv_path;
  int repeats = 15;
  bool once = false, headline_only = false;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--csv" && i + 1 < argc) {
      csv_path = argv[++i];
    } else if (arg == "--repeats" && i + 1 < argc) {
      repeats = std::atoi(argv[++i]);
    } else if (arg == "--once") {
      once = true;
    } else if (arg == "--headline-only") {
      headline_only = true;
    } else {
      std::fprintf(stderr, "usage: %s [--csv PATH] [--repeats R] [--headline-only] [--once]\n",
                   argv[0]);
      return 2;
    }
  }
  const std::vector<Mechanism> all = mechanisms();
  const Size headline{"4096x393216", int64_t{4096} * 393216};
  if (once) return run_once(all, headline.elements);

  std::vector<Size> sizes;
  if (!headline_only) {
    for (int log2 = 24; log2 <= 30; log2 += 2) {
      sizes.push_back({"2^" + std::to_string(log2), int64_t{1} << log2});
    }
  }
  sizes.push_back(headline);

  const cudaDeviceProp* device = at::cuda::getCurrentDeviceProperties();
  std::printf("%s, %d SMs, L2 %lld MiB; %d samples a case\n", device->name,
              device->multiProcessorCount, static_cast<long long>(device->l2CacheSize) >> 20,
              repeats);
  FILE* csv = csv_path.empty() ? nullptr : std::fopen(csv_path.c_str(), "w");
  if (!csv_path.empty() && csv == nullptr) {
    std::perror(csv_path.c_str());
    return 1;
  }
  if (csv) {
    std::fprintf(csv,
                 "mechanism,kind,size,elements,bytes_moved,buffers,launches_per_sample,"
                 "median_ms,min_ms,max_ms,gb_per_s,check\n");
  }
  bool wrong = false;
  for (const Size& size : sizes) {
    std::vector<Buffers> buffers = make_buffers(size.elements);
    std::printf("\n%s float32 (%.3f GB each way), %zu buffers\n", size.label.c_str(),
                size.elements * 4e-9, buffers.size());
    for (const Mechanism& m : all) {
      overwrite_outputs(buffers);
      const Timing t = time_launches(m, buffers, size.elements, repeats);
      const std::string check = verdict(m, buffers);
      wrong |= check == "WRONG";
      const double bytes = static_cast<double>(size.elements) * 4 * m.directions;
      const double gbps = bytes / (t.median_ms * 1e6);
      std::printf("  %-34s %9.4f ms (%.4f - %.4f)  %7.1f GB/s  %s\n", m.name.c_str(), t.median_ms,
                  t.min_ms, t.max_ms, gbps, check.c_str());
      if (csv) {
        std::fprintf(csv, "\"%s\",%s,%s,%lld,%.0f,%zu,%d,%.5f,%.5f,%.5f,%.1f,%s\n", m.name.c_str(),
                     m.kind.c_str(), size.label.c_str(), static_cast<long long>(size.elements),
                     bytes, buffers.size(), t.launches, t.median_ms, t.min_ms, t.max_ms, gbps,
                     check.c_str());
      }
    }
    buffers.clear();
    c10::cuda::CUDACachingAllocator::emptyCache();
  }
  if (csv) std::fclose(csv);
  return wrong ? 1 : 0;
}
