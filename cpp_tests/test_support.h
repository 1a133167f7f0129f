// Shared by every test: fresh seeds, random inputs sprinkled with edge values, tensors laid out
// over sentinel-filled buffers, and a zero-tolerance comparison against aten.
#pragma once

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <c10/util/Exception.h>

#include <cstdint>
#include <exception>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace hardsigmoid_test {

// ---- seeds -------------------------------------------------------------------------------------

// A fresh seed from std::random_device; HARDSIGMOID_TEST_SEED fixes it (to rerun a failure), and
// HARDSIGMOID_TEST_SEED_SWEEP=first gives iteration i of --gtest_repeat the seed first + i (a sweep
// over consecutive seeds in one process: scripts/seed_sweep.sh).
uint64_t fresh_seed();

// What a failure prints to be replayed from the log alone: the seed, aten's CPU capability, the
// quantized engine and the command that reruns the test under them.
std::string replay_line(uint64_t seed);

// Seeds aten's generators with a fresh seed and names it, with replay_line, in every failure
// message of the enclosing scope.
#define HARDSIGMOID_SEED_THIS_TEST()                                       \
  const uint64_t hardsigmoid_test_seed = ::hardsigmoid_test::fresh_seed(); \
  at::manual_seed(hardsigmoid_test_seed);                                  \
  SCOPED_TRACE(::hardsigmoid_test::replay_line(hardsigmoid_test_seed))

// True when the tests run under an emulator (HARDSIGMOID_OPS_TEST_EMULATED=1, which
// scripts/aarch64/run.sh sets): there they prove bits, not page mapping or speed, and the cases
// sized for the page system take smaller outputs.
bool under_emulator();

// ---- dtypes and devices ------------------------------------------------------------------------

// The dtypes the ops support.
const std::vector<at::ScalarType>& supported_dtypes();

// "Float", "Double", "Half", "BFloat16": readable in test names.
std::string dtype_label(at::ScalarType dtype);

enum class DeviceKind { CPU, CUDA };
std::string device_label(DeviceKind device);
at::Device to_device(DeviceKind device);

// True when the test must be skipped for want of the device.
bool device_missing(DeviceKind device);

// Names in gtest's messages rather than bytes.
void PrintTo(DeviceKind device, std::ostream* os);

// ---- values ------------------------------------------------------------------------------------

// Every value where hardsigmoid is easy to get wrong, exactly representable in `dtype`: NaN, ±inf,
// ±0, ±3 and both neighbours of each, the smallest and largest subnormals, the smallest normal,
// and the largest finite value, each with both signs. A 1-D CPU tensor.
at::Tensor edge_values(at::ScalarType dtype);

// Normal values (mean 0, standard deviation 4) with about a quarter of the elements replaced by
// edge values at random positions, so even a single element is an edge value now and then. A CPU
// tensor of `shape`.
at::Tensor random_values(at::IntArrayRef shape, at::ScalarType dtype);

// ---- layouts -----------------------------------------------------------------------------------

// How a test lays out a tensor in memory.
enum class Layout {
  Contiguous,
  Transposed,    // column-major: at::empty({3, n}).t()
  Offset,        // contiguous one element into its storage: the data pointer is misaligned
  Step2,         // every other element: not dense
  ChannelsLast,  // 4-D, channels_last strides
  Expanded,      // stride 0 in the first dimension: elements share memory (read-only)
};
std::string layout_label(Layout layout);
void PrintTo(Layout layout, std::ostream* os);

// A size of kZeroDim asks for a 0-dim tensor.
constexpr int64_t kZeroDim = -1;

// The shape each layout builds from a size: [n] (contiguous, offset, step 2), [n, 3]
// (transposed), [1, 3, n, 2] (channels_last), [3, n] (expanded), [] for kZeroDim.
std::vector<int64_t> shape_for(Layout layout, int64_t size);

// A tensor viewed in some layout over a buffer of its own. The buffer is 1-D and holds every
// element the view can reach plus the gaps between them, so a comparison of whole buffers also
// catches writes outside the view.
struct Placed {
  at::Tensor buffer;
  at::Tensor view;
};

// The value every buffer element outside the view holds: no output of hardsigmoid or of its
// backward on the inputs here (results lie in [0, 1], gradients are g / 6 with |g| small or an
// edge value).
constexpr double kSentinel = -7.25;

// `layout` applied to `shape` (any shape for the layouts but ChannelsLast, which needs 4-D),
// over a sentinel-filled buffer on `device`; the view's elements get random_values (on meta,
// only the layout).
Placed place(Layout layout, at::IntArrayRef shape, at::ScalarType dtype, at::Device device);

// The same layout over `values` (whose shape is the view's): an expanded layout takes the values
// of its first row.
Placed place_values(Layout layout, const at::Tensor& values, at::Device device);

// A copy of the buffer, viewed the same way.
Placed clone(const Placed& placed);

// ---- comparison --------------------------------------------------------------------------------

// Same dtype and shape, and every element bit-for-bit equal, NaN included (compared as same-size
// integers, so +0 and -0 differ, and so do two NaNs of different sign or payload). On failure: how
// many differ, and the first few with their bits (and the input at that position, when given one of
// the same shape).
testing::AssertionResult same_bits(const at::Tensor& actual, const at::Tensor& expected,
                                   const at::Tensor& input = at::Tensor());

// Strides as a vector, for readable EXPECT_EQ messages.
std::vector<int64_t> strides_of(const at::Tensor& t);

// Byte-for-byte equality of two dense tensors of any dtype: "nothing was written".
testing::AssertionResult same_bytes(const at::Tensor& now, const at::Tensor& before);

// ---- errors ------------------------------------------------------------------------------------

// What a call threw: the type ("c10::NotImplementedError", "c10::Error", "std::exception") and
// the message without backtrace; nullopt when it returned.
struct Thrown {
  std::string type;
  std::string message;
};

template <typename F>
std::optional<Thrown> thrown_by(F&& call) {
  try {
    call();
  } catch (const c10::NotImplementedError& e) {
    return Thrown{"c10::NotImplementedError", e.what_without_backtrace()};
  } catch (const c10::Error& e) {
    return Thrown{"c10::Error", e.what_without_backtrace()};
  } catch (const std::exception& e) {
    return Thrown{"std::exception", e.what()};
  }
  return std::nullopt;
}

// Which exceptions a bad input must raise: c10::NotImplementedError for a dtype (as aten's "not
// implemented for 'Long'"), any c10::Error otherwise.
enum class Raises { Error, NotImplemented };

// The call threw the expected kind of exception, whose message contains every fragment.
testing::AssertionResult raised(const std::optional<Thrown>& thrown, Raises expected,
                                const std::vector<std::string>& fragments);

}  // namespace hardsigmoid_test
