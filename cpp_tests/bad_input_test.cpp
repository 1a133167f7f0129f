// One test per row of DESIGN.md's bad-input table: the exception type, a message that names the op
// and what is wrong, and no tensor written. The last rows are inputs that look odd but are valid.
#include <ATen/ATen.h>
#include <c10/core/GradMode.h>
#include <c10/core/InferenceMode.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "compare_with_aten.h"
#include "ops/hardsigmoid.h"
#include "test_support.h"

namespace hardsigmoid_test {
namespace {

// Qualified calls: unqualified ones would also find at::hardsigmoid by argument lookup.
namespace ops = hardsigmoid_ops;

const std::vector<at::ScalarType> kUnsupportedDtypes = {
    at::kLong, at::kInt,    at::kShort,        at::kChar,         at::kByte,
    at::kBool, at::kUInt16, at::kComplexFloat, at::kComplexDouble};

at::Tensor random_of(at::ScalarType dtype, at::IntArrayRef shape = {4}) {
  return (at::randn(shape, at::kDouble) * 4).to(dtype);
}

// Runs `call` and checks that `written` (each tensor the call may write) kept its bytes.
template <typename F>
std::optional<Thrown> thrown_leaving(std::vector<at::Tensor> written, F&& call) {
  std::vector<at::Tensor> before;
  for (const at::Tensor& t : written) before.push_back(t.clone());
  std::optional<Thrown> thrown = thrown_by(call);
  for (size_t i = 0; i < written.size(); ++i) {
    EXPECT_TRUE(same_bytes(written[i], before[i])) << "tensor " << i << " was written";
  }
  return thrown;
}

TEST(BadInput, UnsupportedDtype) {
  HARDSIGMOID_SEED_THIS_TEST();
  for (at::ScalarType dtype : kUnsupportedDtypes) {
    SCOPED_TRACE(c10::toString(dtype));
    const std::string quoted = std::string("'") + c10::toString(dtype) + "'";
    const at::Tensor bad = random_of(dtype);
    const at::Tensor good = random_of(at::kFloat);
    EXPECT_TRUE(raised(thrown_by([&] { ops::hardsigmoid(bad); }), Raises::NotImplemented,
                       {"hardsigmoid:", quoted, "self"}));
    EXPECT_TRUE(raised(thrown_leaving({bad}, [&] { ops::hardsigmoid_(bad); }),
                       Raises::NotImplemented, {"hardsigmoid_:", quoted, "self"}));
    EXPECT_TRUE(raised(thrown_leaving({good}, [&] { ops::hardsigmoid_out(bad, good); }),
                       Raises::NotImplemented, {"hardsigmoid_out:", quoted, "self"}));
    EXPECT_TRUE(raised(thrown_leaving({bad}, [&] { ops::hardsigmoid_out(good, bad); }),
                       Raises::NotImplemented, {"hardsigmoid_out:", quoted, "out"}));
    EXPECT_TRUE(raised(thrown_leaving({bad}, [&] { ops::hardsigmoid_out(bad, bad); }),
                       Raises::NotImplemented, {"hardsigmoid_out:", quoted}));
    EXPECT_TRUE(raised(thrown_by([&] { ops::hardsigmoid_backward(bad, good); }),
                       Raises::NotImplemented, {"hardsigmoid_backward:", quoted, "grad_output"}));
    EXPECT_TRUE(raised(thrown_by([&] { ops::hardsigmoid_backward(good, bad); }),
                       Raises::NotImplemented, {"hardsigmoid_backward:", quoted, "self"}));
  }
}

TEST(BadInput, OutOfAnotherShape) {
  HARDSIGMOID_SEED_THIS_TEST();
  // Another size, the same number of elements in another shape, no elements at all (aten would
  // resize those), and a 0-dim out for a 1-element self.
  for (const auto& [self_shape, out_shape, self_text, out_text] : std::vector<
           std::tuple<std::vector<int64_t>, std::vector<int64_t>, std::string, std::string>>{
           {{4}, {5}, "[4]", "[5]"},
           {{4}, {2, 2}, "[4]", "[2, 2]"},
           {{4}, {0}, "[4]", "[0]"},
           {{1}, {}, "[1]", "[]"}}) {
    SCOPED_TRACE(self_text + " into " + out_text);
    const at::Tensor x = random_of(at::kFloat, self_shape);
    const at::Tensor out = random_of(at::kFloat, out_shape);
    EXPECT_TRUE(raised(thrown_leaving({out, x}, [&] { ops::hardsigmoid_out(x, out); }),
                       Raises::Error, {"hardsigmoid_out:", "shape", self_text, out_text}));
  }
}

TEST(BadInput, OutOfAnotherDtype) {
  HARDSIGMOID_SEED_THIS_TEST();
  for (const auto& [self_dtype, out_dtype] : std::vector<std::pair<at::ScalarType, at::ScalarType>>{
           {at::kFloat, at::kDouble}, {at::kDouble, at::kFloat}, {at::kBFloat16, at::kHalf}}) {
    SCOPED_TRACE(std::string(c10::toString(self_dtype)) + " into " + c10::toString(out_dtype));
    const at::Tensor self = random_of(self_dtype);
    const at::Tensor out = random_of(out_dtype);
    EXPECT_TRUE(
        raised(thrown_leaving({out, self}, [&] { ops::hardsigmoid_out(self, out); }), Raises::Error,
               {"hardsigmoid_out:", "dtype", c10::toString(self_dtype), c10::toString(out_dtype)}));
  }
}

// Without a GPU, meta is the other device. A call mixing meta and CPU tensors dispatches to the
// Meta kernel, which must refuse it as every device's kernel does.
TEST(BadInput, OutOnAnotherDevice) {
  HARDSIGMOID_SEED_THIS_TEST();
  const at::Tensor cpu = random_of(at::kFloat);
  const at::Tensor meta = at::empty({4}, at::TensorOptions().dtype(at::kFloat).device(at::kMeta));
  EXPECT_TRUE(raised(thrown_leaving({cpu}, [&] { ops::hardsigmoid_out(cpu, meta); }), Raises::Error,
                     {"hardsigmoid_out:", "out is on meta", "self is on cpu"}));
  EXPECT_TRUE(raised(thrown_leaving({cpu}, [&] { ops::hardsigmoid_out(meta, cpu); }), Raises::Error,
                     {"hardsigmoid_out:", "out is on cpu", "self is on meta"}));
  if (at::hasCUDA()) {
    const at::Tensor cuda = cpu.cuda();
    EXPECT_TRUE(raised(thrown_leaving({cpu, cuda}, [&] { ops::hardsigmoid_out(cuda, cpu); }),
                       Raises::Error, {"hardsigmoid_out:", "out is on cpu", "self is on cuda"}));
  }
}

TEST(BadInput, OutPartiallyOverlappingSelf) {
  HARDSIGMOID_SEED_THIS_TEST();
  const at::Tensor buffer = random_of(at::kFloat, {65});
  const at::Tensor square = buffer.narrow(0, 0, 64).view({8, 8});
  const std::vector<std::tuple<std::string, at::Tensor, at::Tensor>> cases = {
      {"out one element ahead", buffer.narrow(0, 0, 64), buffer.narrow(0, 1, 64)},
      {"out one element behind", buffer.narrow(0, 1, 64), buffer.narrow(0, 0, 64)},
      {"out the transpose of self", square, square.t()},
      {"out a part of self", buffer.narrow(0, 0, 8), buffer.narrow(0, 4, 8)},
  };
  for (const auto& [what, self, out] : cases) {
    SCOPED_TRACE(what);
    EXPECT_TRUE(raised(thrown_leaving({buffer}, [&] { ops::hardsigmoid_out(self, out); }),
                       Raises::Error, {"hardsigmoid_out:", "shares memory"}));
  }
}

// Sharing a storage without sharing an element is no overlap: interleaved views, or the two
// halves of one buffer, compute as separate tensors would, and self keeps its bits.
TEST(BadInput, OutSharingAStorageButNoElementIsAllowed) {
  HARDSIGMOID_SEED_THIS_TEST();
  const at::Tensor buffer = random_of(at::kFloat, {2, 64});
  const at::Tensor flat = buffer.view({128});
  const std::vector<std::tuple<std::string, at::Tensor, at::Tensor>> cases = {
      {"interleaved", flat.slice(0, 0, 128, 2), flat.slice(0, 1, 128, 2)},
      {"interleaved, out first", flat.slice(0, 1, 128, 2), flat.slice(0, 0, 128, 2)},
      {"two rows", buffer[0], buffer[1]},
      {"two columns of a transpose", buffer.t().select(1, 1), buffer.t().select(1, 0)},
  };
  for (const auto& [what, self, out] : cases) {
    SCOPED_TRACE(what);
    const at::Tensor self_before = self.clone();
    const at::Tensor expected = at::hardsigmoid(self);
    ops::hardsigmoid_out(self, out);
    EXPECT_TRUE(same_bits(out, expected, self_before));
    EXPECT_TRUE(same_bytes(self, self_before));
  }
}

// Full overlap is allowed: `out` is `self` (the same tensor, or another view of the same
// elements), and the result is aten's in-place result, with the gaps untouched.
TEST(BadInput, OutIsSelfIsAllowed) {
  HARDSIGMOID_SEED_THIS_TEST();
  for (Layout layout : {Layout::Contiguous, Layout::Transposed, Layout::Offset, Layout::Step2,
                        Layout::ChannelsLast}) {
    SCOPED_TRACE(layout_label(layout));
    const Placed x = place(layout, shape_for(layout, 83), at::kFloat, at::kCPU);
    Placed expected = clone(x);
    at::hardsigmoid_(expected.view);
    const Placed same_tensor = clone(x);
    const at::Tensor returned = ops::hardsigmoid_out(same_tensor.view, same_tensor.view);
    EXPECT_TRUE(returned.is_same(same_tensor.view));
    EXPECT_TRUE(same_bits(same_tensor.buffer, expected.buffer, x.buffer));
    const Placed other_view = clone(x);
    const at::Tensor alias = other_view.buffer.as_strided(
        other_view.view.sizes(), other_view.view.strides(), other_view.view.storage_offset());
    ops::hardsigmoid_out(other_view.view, alias);
    EXPECT_TRUE(same_bits(other_view.buffer, expected.buffer, x.buffer));
  }
}

TEST(BadInput, WritingATensorWithInternalOverlap) {
  HARDSIGMOID_SEED_THIS_TEST();
  const at::Tensor row = random_of(at::kFloat, {1, 5});
  const at::Tensor expanded = row.expand({3, 5});
  EXPECT_TRUE(raised(thrown_leaving({row}, [&] { ops::hardsigmoid_(expanded); }), Raises::Error,
                     {"hardsigmoid_:", "share memory"}));
  const at::Tensor self = random_of(at::kFloat, {3, 5});
  EXPECT_TRUE(raised(thrown_leaving({row}, [&] { ops::hardsigmoid_out(self, expanded); }),
                     Raises::Error, {"hardsigmoid_out:", "share memory"}));
}

// What autograd refuses to record, with aten's messages: in place on a leaf that requires grad,
// and the out op while an input requires grad. Under no_grad both are fine. (A non-leaf written
// in place is recorded: autograd_test.cpp.)
TEST(BadInput, InPlaceAndOutWhileAutogradRecords) {
  HARDSIGMOID_SEED_THIS_TEST();
  ASSERT_TRUE(c10::GradMode::is_enabled());
  const std::vector<std::string> out_refusal = {
      "hardsigmoid_out(): functions with out=... arguments don't support automatic "
      "differentiation, but one of the arguments requires grad."};
  at::Tensor leaf = random_of(at::kFloat).set_requires_grad(true);
  const at::Tensor plain = random_of(at::kFloat);
  const at::Tensor out_leaf = random_of(at::kFloat).set_requires_grad(true);
  EXPECT_TRUE(raised(thrown_leaving({leaf.detach()}, [&] { ops::hardsigmoid_(leaf); }),
                     Raises::Error,
                     {"a leaf Variable that requires grad is being used in an in-place "
                      "operation."}));
  EXPECT_TRUE(raised(thrown_leaving({plain}, [&] { ops::hardsigmoid_out(leaf, plain); }),
                     Raises::Error, out_refusal));
  EXPECT_TRUE(
      raised(thrown_leaving({out_leaf.detach()}, [&] { ops::hardsigmoid_out(plain, out_leaf); }),
             Raises::Error, out_refusal));

  at::NoGradGuard no_grad;
  at::Tensor expected = leaf.detach().clone();
  at::hardsigmoid_(expected);
  ops::hardsigmoid_(leaf);
  EXPECT_TRUE(same_bits(leaf, expected));
  ops::hardsigmoid_out(plain, out_leaf);
  EXPECT_TRUE(same_bits(out_leaf, at::hardsigmoid(plain)));
}

struct OddLayout {
  std::string name;  // as the message names it
  std::function<at::Tensor()> make;
};

std::vector<OddLayout> odd_layouts() {
  std::vector<OddLayout> layouts = {
      {"sparse COO",
       [] {
         return random_of(at::kFloat, {4, 4}).to_sparse();
       }},
      {"sparse CSR",
       [] {
         return random_of(at::kFloat, {4, 4}).to_sparse_csr();
       }},
      {"nested",
       [] {
         return at::_nested_tensor_from_tensor_list(
             {random_of(at::kFloat, {2, 4}), random_of(at::kFloat, {3, 4})});
       }},
  };
  return layouts;
}

const OddLayout kMkldnn = {"mkldnn", [] { return random_of(at::kFloat, {4, 4}).to_mkldnn(); }};

// Every op refuses the tensor in each of its argument positions, naming the layout.
void expect_refused(const OddLayout& layout) {
  SCOPED_TRACE(layout.name);
  const at::Tensor odd = layout.make();
  const at::Tensor dense = random_of(at::kFloat, {4, 4});
  const std::string name = layout.name;
  EXPECT_TRUE(raised(thrown_by([&] { ops::hardsigmoid(odd); }), Raises::Error,
                     {"hardsigmoid:", "self is a " + name}));
  EXPECT_TRUE(raised(thrown_by([&] { ops::hardsigmoid_(odd); }), Raises::Error,
                     {"hardsigmoid_:", "self is a " + name}));
  EXPECT_TRUE(raised(thrown_leaving({dense}, [&] { ops::hardsigmoid_out(odd, dense); }),
                     Raises::Error, {"hardsigmoid_out:", "self is a " + name}));
  EXPECT_TRUE(raised(thrown_leaving({dense}, [&] { ops::hardsigmoid_out(dense, odd); }),
                     Raises::Error, {"hardsigmoid_out:", "out is a " + name}));
  EXPECT_TRUE(raised(thrown_by([&] { ops::hardsigmoid_backward(odd, dense); }), Raises::Error,
                     {"hardsigmoid_backward:", "grad_output is a " + name}));
  EXPECT_TRUE(raised(thrown_by([&] { ops::hardsigmoid_backward(dense, odd); }), Raises::Error,
                     {"hardsigmoid_backward:", "self is a " + name}));
}

TEST(BadInput, SparseAndNestedLayouts) {
  HARDSIGMOID_SEED_THIS_TEST();
  for (const OddLayout& layout : odd_layouts()) expect_refused(layout);
}

TEST(BadInput, MkldnnLayout) {
  if (!at::hasMKLDNN()) GTEST_SKIP() << "this libtorch is built without mkldnn";
  HARDSIGMOID_SEED_THIS_TEST();
  expect_refused(kMkldnn);
}

// Under inference mode the autograd kernels, which name the layout, are skipped; the call must
// still fail rather than reach a kernel that reads the tensor as strided memory.
TEST(BadInput, NonStridedLayoutsInInferenceMode) {
  HARDSIGMOID_SEED_THIS_TEST();
  std::vector<OddLayout> layouts = odd_layouts();
  if (at::hasMKLDNN()) layouts.push_back(kMkldnn);
  for (const OddLayout& layout : layouts) {
    SCOPED_TRACE(layout.name);
    const at::Tensor odd = layout.make();
    c10::InferenceMode inference;
    EXPECT_TRUE(raised(thrown_by([&] { ops::hardsigmoid(odd); }), Raises::Error,
                       {"hardsigmoid_ops::hardsigmoid"}));
    EXPECT_TRUE(raised(thrown_by([&] { ops::hardsigmoid_(odd); }), Raises::Error,
                       {"hardsigmoid_ops::hardsigmoid_"}));
  }
}

TEST(BadInput, BackwardOnTwoDevices) {
  HARDSIGMOID_SEED_THIS_TEST();
  const at::Tensor cpu = random_of(at::kFloat);
  const at::Tensor meta = at::empty({4}, at::TensorOptions().dtype(at::kFloat).device(at::kMeta));
  EXPECT_TRUE(raised(thrown_by([&] { ops::hardsigmoid_backward(meta, cpu); }), Raises::Error,
                     {"hardsigmoid_backward:", "grad_output is on meta", "self is on cpu"}));
  EXPECT_TRUE(raised(thrown_by([&] { ops::hardsigmoid_backward(cpu, meta); }), Raises::Error,
                     {"hardsigmoid_backward:", "grad_output is on cpu", "self is on meta"}));
  if (at::hasCUDA()) {
    EXPECT_TRUE(raised(thrown_by([&] { ops::hardsigmoid_backward(cpu.cuda(), cpu); }),
                       Raises::Error, {"hardsigmoid_backward:", "device"}));
  }
}

// Valid: empty and 0-dim tensors, through every op, equal to aten. (More than 2^31 elements:
// large_tensor_test.cpp.)
TEST(BadInput, EmptyAndZeroDimTensorsAreValid) {
  HARDSIGMOID_SEED_THIS_TEST();
  for (const std::vector<int64_t>& shape :
       std::vector<std::vector<int64_t>>{{}, {0}, {0, 3}, {2, 0, 5}}) {
    for (at::ScalarType dtype : supported_dtypes()) {
      for (Op op : {Op::Functional, Op::InPlace, Op::Out, Op::Backward}) {
        SCOPED_TRACE(op_label(op) + " " + dtype_label(dtype) + " " +
                     c10::str(at::IntArrayRef(shape)));
        expect_matches_aten(op, place(Layout::Contiguous, shape, dtype, at::kCPU),
                            place(Layout::Contiguous, shape, dtype, at::kCPU));
      }
    }
  }
}

}  // namespace
}  // namespace hardsigmoid_test
