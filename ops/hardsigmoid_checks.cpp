#include "ops/hardsigmoid_checks.h"

#include <ATen/MemoryOverlap.h>
#include <c10/util/Exception.h>

#include "ops/memory_overlap.h"

namespace hardsigmoid_ops::checks {
namespace {

bool is_supported_dtype(at::ScalarType dtype) {
  return dtype == at::kFloat || dtype == at::kDouble || dtype == at::kHalf ||
         dtype == at::kBFloat16;
}

// Layouts other than dense strided memory, by the name a user knows them.
const char* unsupported_layout_name(const at::Tensor& t) {
  if (t.is_quantized()) return "quantized";
  // A jagged nested tensor is a Python tensor subclass: past autograd's kernel (where this check
  // also runs) its own dispatch applies the op to its dense values (nested_jagged.py); it never
  // reaches a device kernel. Strided nested tensors have no kernel here, as in aten.
  if (t.is_nested()) return t.layout() == at::kJagged ? nullptr : "nested (strided layout)";
  if (t.is_mkldnn()) return "mkldnn";
  switch (t.layout()) {
    case at::kStrided:
      return nullptr;
    case at::kSparse:
      return "sparse COO";
    case at::kSparseCsr:
      return "sparse CSR";
    case at::kSparseCsc:
      return "sparse CSC";
    case at::kSparseBsr:
      return "sparse BSR";
    case at::kSparseBsc:
      return "sparse BSC";
    default:
      return "non-strided";
  }
}

}  // namespace

std::string format_sizes(c10::SymIntArrayRef sizes) {
  std::string text = "[";
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (i > 0) text += ", ";
    if (auto value = sizes[i].maybe_as_int()) {
      text += std::to_string(*value);
    } else {
      text += sizes[i].toSymNodeImplUnowned()->str();
    }
  }
  return text + "]";
}

void check_input(const char* op, const char* name, const at::Tensor& t) {
  TORCH_CHECK(t.defined(), op, ": ", name, " is an undefined tensor");
  const char* layout = unsupported_layout_name(t);
  TORCH_CHECK(layout == nullptr, op, ": ", name, " is a ", layout,
              " tensor; only dense (strided) tensors are supported");
  TORCH_CHECK_NOT_IMPLEMENTED(is_supported_dtype(t.scalar_type()), op, ": not implemented for '",
                              c10::toString(t.scalar_type()), "' (", name,
                              "); supported dtypes are Float, Double, Half and BFloat16");
}

void check_quantized_input(const char* op, const char* name, const at::Tensor& t) {
  TORCH_CHECK(t.defined(), op, ": ", name, " is an undefined tensor");
  TORCH_CHECK(t.is_quantized(), op, ": ", name, " is not a quantized tensor (",
              c10::toString(t.scalar_type()), ")");
  TORCH_CHECK(t.device().is_cpu(), op, ": ", name, " is a quantized tensor on ", t.device().str(),
              "; quantized tensors are supported on the CPU only, as by aten's op");
  TORCH_CHECK(t.qscheme() == at::kPerTensorAffine, op, ": ", name, " is quantized with the ",
              c10::toString(t.qscheme()),
              " scheme; only per_tensor_affine quantized tensors are supported, as by aten's op");
  const at::ScalarType dtype = t.scalar_type();
  TORCH_CHECK_NOT_IMPLEMENTED(dtype == at::kQUInt8 || dtype == at::kQInt8 || dtype == at::kQInt32,
                              op, ": not implemented for '", c10::toString(dtype), "' (", name,
                              "); supported quantized dtypes are QUInt8, QInt8 and QInt32");
}

void check_forward_input(const char* op, const char* name, const at::Tensor& t) {
  if (t.defined() && t.is_quantized()) {
    check_quantized_input(op, name, t);
  } else {
    check_input(op, name, t);
  }
}

void check_quantized_out(const char* op, const at::Tensor& self, const at::Tensor& out) {
  TORCH_CHECK(self.defined(), op, ": self is an undefined tensor");
  TORCH_CHECK(out.defined(), op, ": out is an undefined tensor");
  TORCH_CHECK(self.is_quantized() && out.is_quantized(), op, ": self is ",
              self.is_quantized() ? "" : "not ", "quantized (", c10::toString(self.scalar_type()),
              ") but out is ", out.is_quantized() ? "" : "not ", "quantized (",
              c10::toString(out.scalar_type()), "); both must be quantized tensors of one dtype");
  check_quantized_input(op, "self", self);
  check_quantized_input(op, "out", out);
  check_same_device(op, "out", out, "self", self);
  check_same_shape_and_dtype(op, "out", out, "self", self);
}

void check_same_device(const char* op, const char* name_a, const at::Tensor& a, const char* name_b,
                       const at::Tensor& b) {
  TORCH_CHECK(a.device() == b.device(), op, ": ", name_a, " is on ", a.device().str(), " but ",
              name_b, " is on ", b.device().str(), "; expected both on one device");
}

void check_same_shape_and_dtype(const char* op, const char* name_a, const at::Tensor& a,
                                const char* name_b, const at::Tensor& b) {
  TORCH_CHECK(a.scalar_type() == b.scalar_type(), op, ": ", name_a, " has dtype ",
              c10::toString(a.scalar_type()), " but ", name_b, " has dtype ",
              c10::toString(b.scalar_type()), "; expected the same dtype");
  TORCH_CHECK(a.sym_sizes() == b.sym_sizes(), op, ": ", name_a, " has shape ",
              format_sizes(a.sym_sizes()), " but ", name_b, " has shape ",
              format_sizes(b.sym_sizes()), "; expected the same shape");
}

void check_no_internal_overlap(const char* op, const char* name, const at::Tensor& t) {
  TORCH_CHECK(at::has_internal_overlap(t) != at::MemOverlap::Yes, op, ": ", name,
              " has elements that share memory (an expanded tensor, say) and cannot be written; "
              "clone() it first");
}

void check_no_partial_overlap(const char* op, const at::Tensor& self, const at::Tensor& out) {
  // Meta tensors share storages too; symbolic sizes cannot be compared without guards.
  if (self.unsafeGetTensorImpl()->has_symbolic_sizes_strides() ||
      out.unsafeGetTensorImpl()->has_symbolic_sizes_strides()) {
    return;
  }
  TORCH_CHECK(element_overlap(self, out) != Overlap::kPartial, op,
              ": out shares memory with self without being self; pass self itself for an "
              "in-place result, or a separate out");
}

}  // namespace hardsigmoid_ops::checks
