// The cases of the CPU benchmark: what one benchmark measures, its name (which --benchmark_filter
// matches), its label, and the bytes it moves. A case of an op times ours and aten's in turns;
// a copy case times memcpy alone.
//
// Names read dtype/variant/layout/at_threads:T/log2n:K, e.g.
//   float32/out/contiguous/at_threads:2/log2n:20
// (Google Benchmark appends /manual_time), so that a filter can pick any slice: '^bfloat16/',
// '/(forward|copy)/', '/strided/', 'at_threads:1/', 'log2n:1[02]/' (2^10 and 2^12),
// '^(quint8|qint8|qint32)/' (the quantized dtypes).
#pragma once

#include <c10/core/ScalarType.h>

#include <cstdint>
#include <string>
#include <vector>

namespace hardsigmoid_ops::bench {

// kCopy is memcpy's: the bandwidth ceiling, moving the bytes a forward moves.
enum class Variant { kForward, kInplace, kOut, kBackward, kCopy };

// kStrided: every tensor the benchmark passes in is a step-2 slice, which no op can walk as one
// flat span (ours and aten both take their TensorIterator path).
enum class Layout { kContiguous, kStrided };

struct Case {
  at::ScalarType dtype;
  Variant variant;
  Layout layout;
  int threads;  // at::set_num_threads
  int log2n;    // elements: 2^log2n

  int64_t numel() const { return int64_t{1} << log2n; }
};

inline std::string dtype_name(at::ScalarType dtype) {
  switch (dtype) {
    case at::kFloat:
      return "float32";
    case at::kDouble:
      return "float64";
    case at::kHalf:
      return "float16";
    case at::kBFloat16:
      return "bfloat16";
    case at::kQUInt8:
      return "quint8";
    case at::kQInt8:
      return "qint8";
    case at::kQInt32:
      return "qint32";
    default:
      return c10::toString(dtype);
  }
}

inline std::string variant_name(Variant variant) {
  switch (variant) {
    case Variant::kForward:
      return "forward";
    case Variant::kInplace:
      return "inplace";
    case Variant::kOut:
      return "out";
    case Variant::kBackward:
      return "backward";
    case Variant::kCopy:
      return "copy";
  }
  return "?";
}

inline std::string layout_name(Layout layout) {
  return layout == Layout::kContiguous ? "contiguous" : "strided";
}

// The functional forward and the backward return a new tensor each call: their time includes
// the allocation (and, above malloc's mmap threshold, the page faults of the fresh output).
inline bool allocates(Variant variant) {
  return variant == Variant::kForward || variant == Variant::kBackward;
}

inline std::string benchmark_name(const Case& c) {
  return dtype_name(c.dtype) + "/" + variant_name(c.variant) + "/" + layout_name(c.layout) +
         "/at_threads:" + std::to_string(c.threads) + "/log2n:" + std::to_string(c.log2n);
}

inline std::string label(const Case& c) {
  return std::string(c.variant == Variant::kCopy ? "memcpy " : "ours vs aten ") +
         dtype_name(c.dtype) + " " + variant_name(c.variant) +
         (allocates(c.variant) ? "(allocates)" : "") + " " + layout_name(c.layout) + " " +
         std::to_string(c.threads) + "T";
}

// Bytes read and written per call, counting elements the op touches (a step-2 slice moves the
// same count as a contiguous tensor, though it spans twice the memory): the forward variants and
// the copy read one tensor and write one, the backward reads two. A quantized element is its
// code: 1 byte, 4 for qint32.
inline int64_t bytes_moved(const Case& c) {
  const int64_t tensors = c.variant == Variant::kBackward ? 3 : 2;
  return tensors * c.numel() * static_cast<int64_t>(c10::elementSize(c.dtype));
}

// Every case, in the order they run: the cases sharing one set of inputs (dtype, layout, size)
// run together. The quantized cases come after the floating ones, so that those keep the names
// and order they had before.
inline std::vector<Case> all_cases() {
  const at::ScalarType dtypes[] = {at::kFloat, at::kBFloat16, at::kHalf, at::kDouble};
  const Variant variants[] = {Variant::kForward, Variant::kInplace, Variant::kOut,
                              Variant::kBackward};
  std::vector<Case> cases;
  for (at::ScalarType dtype : dtypes) {
    for (Layout layout : {Layout::kContiguous, Layout::kStrided}) {
      // Powers of 4 from 1 K to 64 M elements, from L1 to main memory (648 benchmarks).
      for (int log2n = 10; log2n <= 26; log2n += 2) {
        for (int threads : {1, 2}) {
          for (Variant variant : variants) {
            cases.push_back({dtype, variant, layout, threads, log2n});
          }
          if (layout == Layout::kContiguous) {
            cases.push_back({dtype, Variant::kCopy, layout, threads, log2n});
          }
        }
      }
    }
  }
  // Quantized: the functional and in-place ops on contiguous tensors, the two that quantized
  // modules call; no out, and no backward (aten's takes no quantized tensor).
  const at::ScalarType quantized_dtypes[] = {at::kQUInt8, at::kQInt8, at::kQInt32};
  for (at::ScalarType dtype : quantized_dtypes) {
    // Powers of 4 from 16 K elements, where the target asks ours to match aten, to 16 M, past
    // the caches (108 benchmarks).
    for (int log2n = 14; log2n <= 24; log2n += 2) {
      for (int threads : {1, 2}) {
        for (Variant variant : {Variant::kForward, Variant::kInplace, Variant::kCopy}) {
          cases.push_back({dtype, variant, Layout::kContiguous, threads, log2n});
        }
      }
    }
  }
  return cases;
}

}  // namespace hardsigmoid_ops::bench
