// The tensors a CPU benchmark case works on, made once per (dtype, layout, size) and kept while
// consecutive cases use them: Google Benchmark calls a benchmark's function again for every
// repetition, and filling 2^26 random elements would cost more than timing them.
#pragma once

#include <ATen/ATen.h>

#include <memory>
#include <tuple>

#include "benchmarks/cpu_benchmark_cases.h"

namespace hardsigmoid_ops::bench {

struct Inputs {
  at::Tensor self;     // uniform in [-4, 4]: both clamps and the linear part
  at::Tensor grad;     // the backward's grad_output, as self; undefined for a quantized dtype
  at::Tensor out;      // the out variant's and the copy's destination, self's layout
  at::Tensor scratch;  // the in-place variant's tensor, self's layout
};

namespace detail {

struct InputQuantization {
  double scale;
  int64_t zero_point;
};

// The codes of a quantized input span [-4, 4], so that it reaches both clamps (at -3 and 3) and
// the linear part between. The 8-bit types spread their 256 codes over it (to -4.02 and 3.98);
// qint32 takes steps of 1e-6, close to a float input's fineness, and its codes (below 2^24)
// convert to float exactly.
inline InputQuantization input_quantization(at::ScalarType dtype) {
  switch (dtype) {
    case at::kQUInt8:
      return {8.0 / 255, 128};
    case at::kQInt8:
      return {8.0 / 255, 0};
    default:
      return {1e-6, 0};
  }
}

// A tensor of n elements in the layout: contiguous, or every other element of a buffer of 2n.
inline at::Tensor in_layout(at::Tensor buffer, Layout layout) {
  return layout == Layout::kContiguous ? buffer : buffer.slice(0, 0, buffer.numel(), 2);
}

// Quantized from float values: uniform in [-4, 4] for self, zeros for the destinations (every
// code written, so that their pages are mapped before any timing).
inline Inputs make_quantized_inputs(at::ScalarType dtype, Layout layout, int64_t numel) {
  const int64_t span = layout == Layout::kContiguous ? numel : 2 * numel;
  const InputQuantization q = input_quantization(dtype);
  auto quantized = [&](const at::Tensor& values) {
    return in_layout(at::quantize_per_tensor(values, q.scale, q.zero_point, dtype), layout);
  };
  Inputs inputs;  // grad left undefined
  inputs.self = quantized(at::empty({span}).uniform_(-4, 4));
  inputs.out = quantized(at::zeros({span}));
  inputs.scratch = quantized(at::zeros({span}));
  return inputs;
}

inline Inputs make_inputs(at::ScalarType dtype, Layout layout, int64_t numel) {
  if (at::isQIntType(dtype)) {
    return make_quantized_inputs(dtype, layout, numel);
  }
  const int64_t span = layout == Layout::kContiguous ? numel : 2 * numel;
  const auto options = at::TensorOptions().dtype(dtype);
  // Destinations are written once here so that their pages are mapped before any timing.
  return {in_layout(at::empty({span}, options).uniform_(-4, 4), layout),
          in_layout(at::empty({span}, options).uniform_(-4, 4), layout),
          in_layout(at::zeros({span}, options), layout),
          in_layout(at::zeros({span}, options), layout)};
}

}  // namespace detail

// The inputs of the case's dtype, layout and size; those of the previous call are released
// first when they differ, so that only one set is alive (4 GiB for float64 at 2^26, strided).
inline const Inputs& inputs_for(const Case& c) {
  using Key = std::tuple<at::ScalarType, Layout, int>;
  static Key key;
  static std::unique_ptr<Inputs> cached;
  const Key wanted{c.dtype, c.layout, c.log2n};
  if (!cached || key != wanted) {
    cached.reset();
    cached = std::make_unique<Inputs>(detail::make_inputs(c.dtype, c.layout, c.numel()));
    key = wanted;
  }
  return *cached;
}

}  // namespace hardsigmoid_ops::bench
