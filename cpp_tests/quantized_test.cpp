// The C++ API on per-tensor quantized tensors, against at::hardsigmoid and at::hardsigmoid_: the
// same codes, scale, zero point, dtype and strides, under every quantized engine this libtorch
// has, with fresh random parameters and codes every run; the quantized loops' arithmetic and
// tables against aten's directly. CTest reruns these cases under each CPU capability
// (ATEN_CPU_CAPABILITY), where aten and the library's quantized formulas switch to DEFAULT
// together. What aten refuses, the C++ API refuses with a message naming op and argument.
#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <string>
#include <vector>

#include "ops/cpu/capability_choice.h"
#include "ops/cpu/quantized/byte_lookup_choice.h"
#include "ops/cpu/quantized/byte_table.h"
#include "ops/cpu/quantized/hardsigmoid_quantized.h"
#include "ops/cpu/quantized/quantized_loops.h"
#include "ops/hardsigmoid.h"
#include "test_support.h"

namespace hardsigmoid_test {
namespace {

namespace ops = hardsigmoid_ops;

const at::ScalarType kQuantizedDtypes[] = {at::kQUInt8, at::kQInt8, at::kQInt32};

// The integer dtype holding a quantized dtype's codes.
at::ScalarType code_dtype(at::ScalarType dtype) {
  switch (dtype) {
    case at::kQUInt8:
      return at::kByte;
    case at::kQInt8:
      return at::kChar;
    default:
      return at::kInt;
  }
}

// Random codes over the dtype's whole range (QInt32: of random magnitudes) with a random scale
// from 1e-6 to 10 and a random zero point.
at::Tensor random_quantized(at::ScalarType dtype, at::IntArrayRef shape) {
  const int64_t numel = c10::multiply_integers(shape);
  at::Tensor codes;
  int64_t zero_point = 0;
  if (dtype == at::kQInt32) {
    codes = at::randint(-(int64_t{1} << 31), int64_t{1} << 31, {numel}, at::kLong)
                .bitwise_right_shift(at::randint(0, 32, {numel}, at::kLong))
                .to(at::kInt);
    zero_point = at::randint(-1000, 1001, {1}, at::kLong).item<int64_t>();
  } else {
    const int64_t low = dtype == at::kQUInt8 ? 0 : -128;
    codes = at::randint(low, low + 256, {numel}, at::kLong).to(code_dtype(dtype));
    zero_point = at::randint(low, low + 256, {1}, at::kLong).item<int64_t>();
  }
  const double scale = std::pow(10.0, at::rand({1}, at::kDouble).item<double>() * 7 - 6);
  return at::_make_per_tensor_quantized_tensor(codes.reshape(shape), scale, zero_point);
}

// A scale as a replay needs it: every digit of the double.
std::string exact(double value) {
  std::ostringstream text;
  text << std::setprecision(17) << value;
  return text.str();
}

testing::AssertionResult same_codes(const at::Tensor& ours, const at::Tensor& aten) {
  if (ours.sizes() != aten.sizes()) return testing::AssertionFailure() << "shapes differ";
  if (at::equal(ours, aten)) return testing::AssertionSuccess();
  return testing::AssertionFailure() << ours.ne(aten).sum().item<int64_t>() << " of "
                                     << ours.numel() << " codes differ from aten's";
}

testing::AssertionResult same_quantized(const at::Tensor& ours, const at::Tensor& aten) {
  if (ours.scalar_type() != aten.scalar_type() || ours.qscheme() != aten.qscheme()) {
    return testing::AssertionFailure() << "dtype or qscheme differs from aten's";
  }
  if (ours.q_scale() != aten.q_scale() || ours.q_zero_point() != aten.q_zero_point()) {
    return testing::AssertionFailure()
           << "scale, zero point " << ours.q_scale() << ", " << ours.q_zero_point() << "; aten's "
           << aten.q_scale() << ", " << aten.q_zero_point();
  }
  if (strides_of(ours) != strides_of(aten)) {
    return testing::AssertionFailure() << "strides differ from aten's";
  }
  return same_codes(ours.int_repr(), aten.int_repr());
}

// aten's QNNPACK path (QUInt8 under the QNNPACK engine) divides by zero on an empty tensor and
// refuses a 0-dim one; the library takes both, with the other engines' result.
bool aten_qnnpack_cannot_run(const at::Tensor& q) {
  return at::globalContext().qEngine() == at::QEngine::QNNPACK && q.scalar_type() == at::kQUInt8 &&
         (q.numel() == 0 || q.dim() == 0);
}

// Each engine this libtorch has, set for the duration of the callback (and the one before
// restored, whatever the callback throws).
template <typename F>
void under_each_engine(F&& body) {
  struct Restore {
    at::QEngine engine = at::globalContext().qEngine();
    ~Restore() { at::globalContext().setQEngine(engine); }
  } restore;
  for (const at::QEngine engine : at::globalContext().supportedQEngines()) {
    if (engine == at::QEngine::NoQEngine) continue;
    at::globalContext().setQEngine(engine);
    SCOPED_TRACE(c10::toString(engine));
    body();
  }
}

at::Tensor in_layout(const at::Tensor& q, const std::string& layout) {
  if (layout == "channels_last") return q.contiguous(at::MemoryFormat::ChannelsLast);
  if (layout == "transposed") return q.transpose(1, 3);
  if (layout == "sliced") return q.slice(2, 0, q.size(2), 2);
  return q;
}

TEST(Quantized, FunctionalAndInPlaceMatchAten) {
  HARDSIGMOID_SEED_THIS_TEST();
  // 0-dim, empty, inside one vector loop, and above aten's grain (threads split the work).
  const std::vector<std::vector<int64_t>> flat_shapes = {{}, {0}, {1}, {1000}, {70001}};
  under_each_engine([&] {
    for (const at::ScalarType dtype : kQuantizedDtypes) {
      SCOPED_TRACE(c10::toString(dtype));
      std::vector<at::Tensor> inputs;
      for (const auto& shape : flat_shapes) inputs.push_back(random_quantized(dtype, shape));
      for (const char* layout : {"contiguous", "channels_last", "transposed", "sliced"}) {
        inputs.push_back(in_layout(random_quantized(dtype, {3, 5, 16, 25}), layout));
      }
      for (const at::Tensor& q : inputs) {
        SCOPED_TRACE("shape " + std::to_string(q.dim()) + "-dim, " + std::to_string(q.numel()));
        if (aten_qnnpack_cannot_run(q)) continue;  // the Python suite compares these
        EXPECT_TRUE(same_quantized(ops::hardsigmoid(q), at::hardsigmoid(q)));
        at::Tensor ours = q.clone(), theirs = q.clone();
        ops::hardsigmoid_(ours);
        at::hardsigmoid_(theirs);
        EXPECT_TRUE(same_quantized(ours, theirs));
      }
    }
  });
}

TEST(Quantized, OutMatchesAten) {
  HARDSIGMOID_SEED_THIS_TEST();
  under_each_engine([&] {
    for (const at::ScalarType dtype : kQuantizedDtypes) {
      SCOPED_TRACE(c10::toString(dtype));
      const at::Tensor q = random_quantized(dtype, {4, 3, 9, 7});
      at::Tensor ours = random_quantized(dtype, {4, 3, 9, 7});
      at::Tensor theirs = ours.clone();
      ops::hardsigmoid_out(q, ours);
      at::hardsigmoid_out(theirs, q);
      EXPECT_TRUE(same_quantized(ours, theirs));
    }
  });
}

// Where an 8-bit input's two tables agree, the op takes a byte lookup from 2^10 to 2^14 elements
// (byte_lookup_choice.cpp's table_from_elements, by lookup): the arithmetic (quantized_loops.cpp)
// is then compared with aten here directly, on inputs large enough to be split between threads,
// with tails off every vector boundary.
TEST(Quantized, ArithmeticMatchesAtenAtEverySize) {
  HARDSIGMOID_SEED_THIS_TEST();
  namespace cpu = hardsigmoid_ops::cpu;
  for (const at::ScalarType dtype : kQuantizedDtypes) {
    SCOPED_TRACE(c10::toString(dtype));
    for (const int64_t numel : {int64_t{1} << 14, int64_t{70001}, int64_t{3} << 16}) {
      const at::Tensor q = random_quantized(dtype, {numel});
      const cpu::OutputQuantization output = cpu::output_quantization(dtype);
      const at::Tensor ours = at::_empty_affine_quantized({numel}, at::TensorOptions().dtype(dtype),
                                                          output.scale, output.zero_point);
      cpu::selected_quantized_loops().forward(q, ours);
      EXPECT_TRUE(same_quantized(ours, at::hardsigmoid(q)));
    }
  }
}

// aten's output codes for each of an 8-bit dtype's 256 input codes (indexed by the code's byte)
// under one of its two formulas (quantized_loops.cpp): the vector formula from a contiguous
// tensor of the codes twice (whole vectors at every capability, no scalar tail), the scalar one
// from a step-2 view of a quantized tensor (an input TensorIterator cannot iterate as contiguous
// takes aten's scalar loop). The view is sliced from the quantized tensor:
// _make_per_tensor_quantized_tensor copies a strided tensor of codes into a contiguous one.
at::Tensor atens_codes(at::ScalarType dtype, double scale, int64_t zero_point,
                       hardsigmoid_ops::cpu::Formula formula) {
  const at::Tensor codes = at::arange(0, 256, at::kLong).to(at::kByte).view(code_dtype(dtype));
  at::Tensor self;
  if (formula == hardsigmoid_ops::cpu::Formula::kVector) {
    self = at::_make_per_tensor_quantized_tensor(at::cat({codes, codes}), scale, zero_point)
               .slice(0, 0, 256);
    TORCH_CHECK(self.is_contiguous(), "atens_codes: the vector loop's input is not contiguous");
  } else {
    self = at::_make_per_tensor_quantized_tensor(at::stack({codes, codes}, 1).flatten(), scale,
                                                 zero_point)
               .slice(0, 0, 512, 2);
    TORCH_CHECK(!self.is_contiguous(), "atens_codes: the scalar loop's input is contiguous");
  }
  return at::hardsigmoid(self).int_repr().view(at::kByte).contiguous();
}

// Whether aten's two formulas give the same code for each of the 256 codes of this input
// quantization (then the op may take the table: hardsigmoid_quantized.cpp).
bool atens_formulas_agree(at::ScalarType dtype, double scale, int64_t zero_point) {
  namespace cpu = hardsigmoid_ops::cpu;
  return at::equal(atens_codes(dtype, scale, zero_point, cpu::Formula::kVector),
                   atens_codes(dtype, scale, zero_point, cpu::Formula::kScalar));
}

// Each formula's table against aten's loop of that formula over the 256 codes, and the library's
// agreeing table: the scalar table where aten's two loops agree on every code, none where they
// don't. Of these draws, aten's two formulas disagree on some code in about 1 in 7,000 for QUInt8
// and 1 in 10,000 for QInt8 under AVX2 and AVX512 (3 and 2 of 20,000), none of 20,000 under
// DEFAULT; the same under every engine (scripts/tools/quantized_formula_agreement.py).
TEST(Quantized, TablesAreAtensFormulas) {
  HARDSIGMOID_SEED_THIS_TEST();
  namespace cpu = hardsigmoid_ops::cpu;
  for (const at::ScalarType dtype : {at::kQUInt8, at::kQInt8}) {
    SCOPED_TRACE(c10::toString(dtype));
    const int64_t low = dtype == at::kQUInt8 ? 0 : -128;
    for (int trial = 0; trial < 20; ++trial) {
      const double scale = std::pow(10.0, at::rand({1}, at::kDouble).item<double>() * 7 - 6);
      const int64_t zero_point = at::randint(low, low + 256, {1}, at::kLong).item<int64_t>();
      SCOPED_TRACE("scale " + exact(scale) + ", zero point " + std::to_string(zero_point));
      const auto table = [&](cpu::Formula formula) {
        const auto values =
            cpu::selected_quantized_loops().table(dtype, scale, zero_point, formula);
        return at::tensor(std::vector<uint8_t>(values.begin(), values.end()), at::kByte);
      };
      const at::Tensor vector = atens_codes(dtype, scale, zero_point, cpu::Formula::kVector);
      const at::Tensor scalar = atens_codes(dtype, scale, zero_point, cpu::Formula::kScalar);
      EXPECT_TRUE(same_codes(table(cpu::Formula::kVector), vector));
      EXPECT_TRUE(same_codes(table(cpu::Formula::kScalar), scalar));
      const auto agreeing =
          cpu::agreeing_quantized_table(cpu::selected_quantized_loops(), dtype, scale, zero_point);
      if (at::equal(vector, scalar)) {
        ASSERT_TRUE(agreeing);
        EXPECT_TRUE(same_codes(
            at::tensor(std::vector<uint8_t>(agreeing->begin(), agreeing->end()), at::kByte),
            scalar));
      } else {
        EXPECT_FALSE(agreeing) << "a table where aten's two formulas disagree";
      }
    }
  }
}

// Each byte lookup this processor runs, forced, under every engine: the functional, in-place and
// out ops on 8-bit inputs holding all 256 codes, contiguous and strided, at the size from which
// that lookup is taken, give aten's codes; and the op takes the table there (QNNPACK's under that
// engine for QUInt8) and aten's arithmetic one element below, so that a lookup or a threshold
// silently not taken fails here. The formulas' table is taken only where aten's two formulas
// agree on every code: of these draws they disagree in about 1 in 2,000 for QUInt8 under AVX2 and
// AVX512 (10 of 20,000; none of 20,000 for QInt8, none under DEFAULT; the same under every engine
// that runs them: scripts/tools/quantized_formula_agreement.py). Such a draw is checked to take
// aten's arithmetic and give its codes, and drawn again.
TEST(Quantized, EveryByteLookupGivesAtensCodes) {
  HARDSIGMOID_SEED_THIS_TEST();
  namespace cpu = hardsigmoid_ops::cpu;
  for (const cpu::ByteLookup lookup : cpu::kByteLookups) {
    if (!cpu::can_run(lookup)) continue;
    SCOPED_TRACE(cpu::byte_lookup_name(lookup));
    const cpu::ForcedByteLookup forced(lookup);
    const int64_t from = cpu::table_from_elements(lookup);
    int lines_taken = 0;  // AVX2's line: the tables drawn below that a line was found for
    under_each_engine([&] {
      for (const at::ScalarType dtype : {at::kQUInt8, at::kQInt8}) {
        SCOPED_TRACE(c10::toString(dtype));
        const bool qnnpack =
            at::globalContext().qEngine() == at::QEngine::QNNPACK && dtype == at::kQUInt8;
        const cpu::OutputQuantization output = cpu::output_quantization(dtype);
        const auto path = [&](const at::Tensor& self) {
          const at::Tensor out = at::_empty_affine_quantized(self.sizes(), self.options(),
                                                             output.scale, output.zero_point);
          return cpu::quantized_forward(self, out);
        };
        // A scale that leaves some 100 - 300 codes between the clamps, so that the table has as
        // many distinct entries (a wrong row then gives a wrong code), and a zero point near the
        // middle of the range; 16 draws in a row where the formulas disagree would be a chance
        // of about 1 in 10^57. A draw where they disagree is checked on every code repeated past
        // the lookup's size: aten's arithmetic, and its codes.
        double scale = 0;
        int64_t zero_point = 0;
        for (int draw = 0;; ++draw) {
          ASSERT_LT(draw, 16) << "aten's formulas disagreed on 16 draws in a row";
          scale = 0.02 + 0.04 * at::rand({1}, at::kDouble).item<double>();
          const int64_t middle = dtype == at::kQUInt8 ? 128 : 0;
          zero_point = middle + at::randint(-20, 21, {1}, at::kLong).item<int64_t>();
          if (atens_formulas_agree(dtype, scale, zero_point)) break;
          SCOPED_TRACE("aten's formulas disagree at scale " + exact(scale) + ", zero point " +
                       std::to_string(zero_point));
          const at::Tensor every =
              at::_make_per_tensor_quantized_tensor(at::arange(0, 256, at::kLong)
                                                        .to(at::kByte)
                                                        .view(code_dtype(dtype))
                                                        .repeat({from / 256 + 1}),
                                                    scale, zero_point);
          EXPECT_EQ(path(every),
                    qnnpack ? cpu::QuantizedPath::kQnnpackTable : cpu::QuantizedPath::kArithmetic);
          EXPECT_TRUE(same_quantized(cpu::hardsigmoid_quantized(every), at::hardsigmoid(every)));
        }
        // Rows of 2 * from + 1 elements, the first row's first 256 every code; 3 rows, or for
        // AVX2's line enough for it to be fitted (kLineFromElements).
        const int64_t rows = lookup == cpu::ByteLookup::kAvx2Line
                                 ? std::max<int64_t>(3, cpu::kLineFromElements / (2 * from + 1) + 1)
                                 : 3;
        const at::Tensor codes = random_quantized(dtype, {rows, 2 * from + 1}).int_repr();
        codes.view(at::kByte).select(0, 0).slice(0, 0, 256).copy_(
            at::arange(0, 256, at::kLong).to(at::kByte));
        const at::Tensor q = at::_make_per_tensor_quantized_tensor(codes, scale, zero_point);
        SCOPED_TRACE("scale " + exact(q.q_scale()) + ", zero point " +
                     std::to_string(q.q_zero_point()));
        EXPECT_EQ(path(q),
                  qnnpack ? cpu::QuantizedPath::kQnnpackTable : cpu::QuantizedPath::kFormulaTable);
        if (!qnnpack) {
          const auto table = cpu::agreeing_quantized_table(cpu::selected_quantized_loops(), dtype,
                                                           q.q_scale(), q.q_zero_point());
          ASSERT_TRUE(table);
          lines_taken += cpu::prepare_table(lookup, table->data(), q.numel()).lookup ==
                         cpu::ByteLookup::kAvx2Line;
        }
        EXPECT_EQ(path(q.flatten().slice(0, 0, from - 1)),
                  qnnpack ? cpu::QuantizedPath::kQnnpackTable : cpu::QuantizedPath::kArithmetic);
        for (const at::Tensor& self : {q, q.t(), q.slice(1, 0, q.size(1), 2)}) {
          SCOPED_TRACE(self.is_contiguous() ? "contiguous" : "strided");
          EXPECT_TRUE(same_quantized(cpu::hardsigmoid_quantized(self), at::hardsigmoid(self)));
          at::Tensor ours = self.clone(), theirs = self.clone();
          cpu::hardsigmoid_quantized_(ours);
          at::hardsigmoid_(theirs);
          EXPECT_TRUE(same_quantized(ours, theirs));
          at::Tensor out = random_quantized(dtype, self.sizes());
          at::Tensor aten_out = out.clone();
          cpu::hardsigmoid_quantized_out(self, out);
          at::hardsigmoid_out(aten_out, self);
          EXPECT_TRUE(same_quantized(out, aten_out));
        }
      }
    });
    // A line is found for all but about 1 in 1000 of aten's tables (byte_lookups_test.cpp).
    if (lookup == cpu::ByteLookup::kAvx2Line) {
      EXPECT_GT(lines_taken, 0);
    }
  }
}

TEST(Quantized, RefusedByName) {
  HARDSIGMOID_SEED_THIS_TEST();
  const at::Tensor q = random_quantized(at::kQUInt8, {2, 3});
  const at::Tensor dense = random_values({2, 3}, at::kFloat);
  const at::Tensor per_channel = at::quantize_per_channel(
      dense, at::tensor({0.1, 0.2}, at::kDouble), at::tensor({1, 2}, at::kLong), 0, at::kQUInt8);
  EXPECT_TRUE(raised(thrown_by([&] { ops::hardsigmoid(per_channel); }), Raises::Error,
                     {"hardsigmoid:", "self is quantized with the per_channel_affine scheme"}));
  at::Tensor per_channel_out = per_channel.clone();
  EXPECT_TRUE(raised(thrown_by([&] { ops::hardsigmoid_out(q, per_channel_out); }), Raises::Error,
                     {"hardsigmoid_out:", "out is quantized with the per_channel_affine scheme"}));
  EXPECT_TRUE(same_codes(per_channel_out.int_repr(), per_channel.int_repr()));
  EXPECT_TRUE(raised(thrown_by([&] { ops::hardsigmoid_backward(q, dense); }), Raises::Error,
                     {"hardsigmoid_backward:", "grad_output is a quantized tensor"}));
  EXPECT_TRUE(raised(thrown_by([&] { ops::hardsigmoid_backward(dense, q); }), Raises::Error,
                     {"hardsigmoid_backward:", "self is a quantized tensor"}));
  at::Tensor float_out = at::zeros({2, 3});
  EXPECT_TRUE(raised(thrown_by([&] { ops::hardsigmoid_out(q, float_out); }), Raises::Error,
                     {"hardsigmoid_out:", "out is not quantized (Float)"}));
  const at::Tensor quint4x2 = at::quantize_per_tensor(at::randn({2, 4}), 0.1, 1, at::kQUInt4x2);
  EXPECT_TRUE(raised(thrown_by([&] { ops::hardsigmoid(quint4x2); }), Raises::NotImplemented,
                     {"hardsigmoid:", "not implemented for 'QUInt4x2' (self)"}));
}

}  // namespace
}  // namespace hardsigmoid_test
