#include "test_support.h"

#include <ATen/Context.h>
#include <ATen/Dispatch.h>
#include <ATen/Version.h>
#include <c10/util/BFloat16.h>
#include <c10/util/Half.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <cstring>
#include <iomanip>
#include <limits>
#include <random>
#include <sstream>

namespace hardsigmoid_test {
namespace {

// The fraction of random elements replaced by an edge value.
constexpr double kEdgeProbability = 0.25;

// The element whose bit pattern is `delta` units above `value`'s: the next representable value
// away from zero for delta = +1, toward zero for delta = -1.
template <typename T>
T step_bits(T value, int delta) {
  using Bits = std::conditional_t<sizeof(T) == 2, uint16_t,
                                  std::conditional_t<sizeof(T) == 4, uint32_t, uint64_t>>;
  Bits bits;
  std::memcpy(&bits, &value, sizeof(T));
  bits = static_cast<Bits>(bits + delta);
  std::memcpy(&value, &bits, sizeof(T));
  return value;
}

at::ScalarType bits_dtype(at::ScalarType dtype) {
  switch (c10::elementSize(dtype)) {
    case 2:
      return at::kShort;
    case 4:
      return at::kInt;
    case 8:
      return at::kLong;
  }
  TORCH_CHECK(false, "no integer type of the size of ", dtype);
}

std::vector<int64_t> row_major_strides(at::IntArrayRef shape) {
  std::vector<int64_t> strides(shape.size());
  int64_t stride = 1;
  for (int64_t d = static_cast<int64_t>(shape.size()) - 1; d >= 0; --d) {
    strides[d] = stride;
    stride *= std::max<int64_t>(shape[d], 1);
  }
  return strides;
}

struct Geometry {
  std::vector<int64_t> strides;
  int64_t offset = 0;
};

Geometry geometry_for(Layout layout, at::IntArrayRef shape) {
  Geometry g{row_major_strides(shape), 0};
  switch (layout) {
    case Layout::Contiguous:
      break;
    case Layout::Transposed: {
      int64_t stride = 1;
      for (size_t d = 0; d < shape.size(); ++d) {
        g.strides[d] = stride;
        stride *= std::max<int64_t>(shape[d], 1);
      }
      break;
    }
    case Layout::Offset:
      g.offset = 1;
      break;
    case Layout::Step2:
      for (int64_t& s : g.strides) s *= 2;
      break;
    case Layout::ChannelsLast: {
      TORCH_CHECK(shape.size() == 4, "channels_last needs a 4-D shape");
      const int64_t c = std::max<int64_t>(shape[1], 1);
      const int64_t h = std::max<int64_t>(shape[2], 1);
      const int64_t w = std::max<int64_t>(shape[3], 1);
      g.strides = {h * w * c, 1, w * c, c};
      break;
    }
    case Layout::Expanded:
      TORCH_CHECK(!shape.empty(), "an expanded layout needs a dimension");
      g.strides[0] = 0;
      break;
  }
  return g;
}

// Elements of storage the view needs, gaps included.
int64_t storage_numel(at::IntArrayRef shape, const Geometry& g) {
  int64_t last = 0;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 0) return g.offset;
    last += (shape[d] - 1) * g.strides[d];
  }
  return g.offset + last + 1;
}

// The part of a view that owns its memory: stride-0 dimensions narrowed to their first index.
at::Tensor distinct_part(at::Tensor t) {
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.stride(d) == 0 && t.size(d) > 1) t = t.narrow(d, 0, 1);
  }
  return t;
}

std::string hex_bits(int64_t bits, size_t bytes) {
  std::ostringstream s;
  s << "0x" << std::hex << std::setfill('0') << std::setw(static_cast<int>(2 * bytes))
    << (static_cast<uint64_t>(bits) & (bytes == 8 ? ~0ULL : ((1ULL << (8 * bytes)) - 1)));
  return s.str();
}

// The iteration of --gtest_repeat that runs, for HARDSIGMOID_TEST_SEED_SWEEP.
class RepeatIteration : public testing::EmptyTestEventListener {
 public:
  static int current() { return current_; }
  void OnTestIterationStart(const testing::UnitTest&, int iteration) override {
    current_ = iteration;
  }

 private:
  static inline int current_ = 0;
};
// Registered before gtest_main's main runs (the listener list takes ownership).
[[maybe_unused]] const bool repeat_iteration_listened = [] {
  testing::UnitTest::GetInstance()->listeners().Append(new RepeatIteration);
  return true;
}();

}  // namespace

uint64_t fresh_seed() {
  if (const char* fixed = std::getenv("HARDSIGMOID_TEST_SEED")) {
    return std::strtoull(fixed, nullptr, 10);
  }
  if (const char* first = std::getenv("HARDSIGMOID_TEST_SEED_SWEEP")) {
    return std::strtoull(first, nullptr, 10) + static_cast<uint64_t>(RepeatIteration::current());
  }
  std::random_device device;
  return (static_cast<uint64_t>(device()) << 32) ^ device();
}

std::string replay_line(uint64_t seed) {
  const testing::TestInfo* test = testing::UnitTest::GetInstance()->current_test_info();
  const std::string name =
      test ? std::string(test->test_suite_name()) + "." + test->name() : std::string("*");
  std::string capability = at::get_cpu_capability();
  std::transform(capability.begin(), capability.end(), capability.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  std::ostringstream line;
  line << "seed " << seed << ", aten's CPU capability " << capability << ", quantized engine "
       << c10::toString(at::globalContext().qEngine()) << " (rerun: HARDSIGMOID_TEST_SEED=" << seed
       << " ATEN_CPU_CAPABILITY=" << capability << " hardsigmoid_ops_tests --gtest_filter='" << name
       << "')";
  return line.str();
}

bool under_emulator() {
  const char* emulated = std::getenv("HARDSIGMOID_OPS_TEST_EMULATED");
  return emulated != nullptr && std::string(emulated) == "1";
}

const std::vector<at::ScalarType>& supported_dtypes() {
  static const std::vector<at::ScalarType> dtypes = {at::kFloat, at::kDouble, at::kHalf,
                                                     at::kBFloat16};
  return dtypes;
}

std::string dtype_label(at::ScalarType dtype) { return c10::toString(dtype); }

std::string device_label(DeviceKind device) { return device == DeviceKind::CPU ? "CPU" : "CUDA"; }

at::Device to_device(DeviceKind device) {
  return device == DeviceKind::CPU ? at::Device(at::kCPU) : at::Device(at::kCUDA, 0);
}

void PrintTo(DeviceKind device, std::ostream* os) { *os << device_label(device); }

bool device_missing(DeviceKind device) { return device == DeviceKind::CUDA && !at::hasCUDA(); }

at::Tensor edge_values(at::ScalarType dtype) {
  at::Tensor result;
  AT_DISPATCH_FLOATING_TYPES_AND2(at::kHalf, at::kBFloat16, dtype, "edge_values", [&] {
    using limits = std::numeric_limits<scalar_t>;
    const scalar_t three(3.0f);
    const scalar_t minus_three(-3.0f);
    const scalar_t largest_subnormal = step_bits(limits::min(), -1);
    const std::vector<scalar_t> values = {
        limits::quiet_NaN(),
        limits::infinity(),
        -limits::infinity(),
        scalar_t(0.0f),
        scalar_t(-0.0f),
        three,
        minus_three,
        step_bits(three, -1),
        step_bits(three, +1),
        step_bits(minus_three, -1),
        step_bits(minus_three, +1),
        limits::denorm_min(),
        -limits::denorm_min(),
        largest_subnormal,
        -largest_subnormal,
        limits::min(),
        -limits::min(),
        limits::max(),
        limits::lowest(),
    };
    result = at::empty({static_cast<int64_t>(values.size())}, dtype);
    std::memcpy(result.mutable_data_ptr(), values.data(), values.size() * sizeof(scalar_t));
  });
  return result;
}

namespace {

// Normal values of mean 0 and standard deviation 4, drawn through aten's serial normal kernel (a
// strided view takes it): its contiguous kernel is vectorized, and qemu runs SVE256's vectors some
// ten times slower than NEON's (2^16 doubles: 0.77 s under SVE256, 0.10 s under DEFAULT, 0.07 s
// through the serial kernel), so that drawing took most of the emulated SVE256 run.
at::Tensor normal_values(at::IntArrayRef shape) {
  const int64_t numel = c10::multiply_integers(shape);
  return at::empty({numel, 2}, at::kDouble).select(1, 0).normal_(0, 4).reshape(shape);
}

}  // namespace

at::Tensor random_values(at::IntArrayRef shape, at::ScalarType dtype) {
  const at::Tensor normal = normal_values(shape).to(dtype);
  const at::Tensor edges = edge_values(dtype);
  const at::Tensor use_edge = at::rand(shape, at::kDouble) < kEdgeProbability;
  const at::Tensor which = at::randint(edges.numel(), shape, at::kLong);
  return at::where(use_edge, edges.index_select(0, which.reshape({-1})).reshape(shape), normal);
}

std::string layout_label(Layout layout) {
  switch (layout) {
    case Layout::Contiguous:
      return "Contiguous";
    case Layout::Transposed:
      return "Transposed";
    case Layout::Offset:
      return "Offset";
    case Layout::Step2:
      return "Step2";
    case Layout::ChannelsLast:
      return "ChannelsLast";
    case Layout::Expanded:
      return "Expanded";
  }
  return "?";
}

void PrintTo(Layout layout, std::ostream* os) { *os << layout_label(layout); }

std::vector<int64_t> shape_for(Layout layout, int64_t size) {
  if (size == kZeroDim) return {};
  switch (layout) {
    case Layout::Transposed:
      return {size, 3};
    case Layout::ChannelsLast:
      return {1, 3, size, 2};
    case Layout::Expanded:
      return {3, size};
    default:
      return {size};
  }
}

Placed place_values(Layout layout, const at::Tensor& values, at::Device device) {
  const Geometry g = geometry_for(layout, values.sizes());
  Placed placed;
  placed.buffer = at::full({storage_numel(values.sizes(), g)}, kSentinel,
                           at::TensorOptions().dtype(values.scalar_type()).device(device));
  placed.view = placed.buffer.as_strided(values.sizes(), g.strides, g.offset);
  // Meta tensors hold no data, and copying into them is an error.
  if (device.is_meta()) return placed;
  const at::Tensor target = distinct_part(placed.view);
  at::Tensor source = values;
  for (int64_t d = 0; d < source.dim(); ++d) source = source.narrow(d, 0, target.size(d));
  target.copy_(source);
  return placed;
}

Placed place(Layout layout, at::IntArrayRef shape, at::ScalarType dtype, at::Device device) {
  return place_values(layout, random_values(shape, dtype), device);
}

Placed clone(const Placed& placed) {
  Placed copy;
  copy.buffer = placed.buffer.clone();
  copy.view = copy.buffer.as_strided(placed.view.sizes(), placed.view.strides(),
                                     placed.view.storage_offset());
  return copy;
}

testing::AssertionResult same_bits(const at::Tensor& actual, const at::Tensor& expected,
                                   const at::Tensor& input) {
  if (!actual.defined() || !expected.defined()) {
    return testing::AssertionFailure() << "undefined tensor";
  }
  if (actual.scalar_type() != expected.scalar_type()) {
    return testing::AssertionFailure()
           << "dtype " << actual.scalar_type() << ", expected " << expected.scalar_type();
  }
  if (actual.sizes() != expected.sizes()) {
    return testing::AssertionFailure()
           << "shape " << actual.sizes() << ", expected " << expected.sizes();
  }
  const at::Tensor a = actual.cpu().contiguous().reshape({-1});
  const at::Tensor e = expected.cpu().contiguous().reshape({-1});
  const at::ScalarType bits = bits_dtype(a.scalar_type());
  const at::Tensor a_bits = a.view(bits);
  const at::Tensor e_bits = e.view(bits);
  // Every element's bits, NaN's sign and payload included: aten's vector loop returns an all-ones
  // NaN, its scalar loop the input's, and ours must return the same one on the same element.
  const at::Tensor positions = a_bits.ne(e_bits).nonzero().reshape({-1});
  const int64_t count = positions.numel();
  if (count == 0) {
    return testing::AssertionSuccess();
  }
  const bool show_input = input.defined() && input.sizes() == actual.sizes();
  const at::Tensor in = show_input ? input.cpu().contiguous().reshape({-1}) : at::Tensor();
  const size_t bytes = c10::elementSize(a.scalar_type());
  auto failure = testing::AssertionFailure();
  failure << count << " of " << a.numel() << " elements differ (shape " << actual.sizes()
          << ", dtype " << actual.scalar_type() << "); first ones:";
  for (int64_t k = 0; k < std::min<int64_t>(positions.numel(), 8); ++k) {
    const int64_t i = positions[k].item<int64_t>();
    failure << "\n  [" << i << "] actual " << a[i].item<double>() << " ("
            << hex_bits(a_bits[i].item<int64_t>(), bytes) << "), expected " << e[i].item<double>()
            << " (" << hex_bits(e_bits[i].item<int64_t>(), bytes) << ")";
    if (show_input) failure << ", input " << std::setprecision(17) << in[i].item<double>();
  }
  return failure;
}

std::vector<int64_t> strides_of(const at::Tensor& t) { return t.strides().vec(); }

testing::AssertionResult same_bytes(const at::Tensor& now, const at::Tensor& before) {
  if (now.scalar_type() != before.scalar_type() || now.sizes() != before.sizes()) {
    return testing::AssertionFailure() << "dtype or shape changed";
  }
  const auto bytes = [](const at::Tensor& t) {
    return t.cpu().contiguous().reshape({-1}).view(at::kByte);
  };
  if (at::equal(bytes(now), bytes(before))) {
    return testing::AssertionSuccess();
  }
  return testing::AssertionFailure() << "the tensor was modified";
}

testing::AssertionResult raised(const std::optional<Thrown>& thrown, Raises expected,
                                const std::vector<std::string>& fragments) {
  if (!thrown) {
    return testing::AssertionFailure() << "nothing was thrown";
  }
  const bool type_ok = expected == Raises::NotImplemented
                           ? thrown->type == "c10::NotImplementedError"
                           : thrown->type != "std::exception";
  if (!type_ok) {
    return testing::AssertionFailure()
           << "threw " << thrown->type << " (" << thrown->message << "), expected "
           << (expected == Raises::NotImplemented ? "c10::NotImplementedError" : "c10::Error");
  }
  for (const std::string& fragment : fragments) {
    if (thrown->message.find(fragment) == std::string::npos) {
      return testing::AssertionFailure()
             << "message \"" << thrown->message << "\" lacks \"" << fragment << "\"";
    }
  }
  return testing::AssertionSuccess();
}

}  // namespace hardsigmoid_test
