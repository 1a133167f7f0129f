#include "ops/cpu/quantized/byte_table.h"

#include <ATen/Parallel.h>
#include <ATen/native/TensorIterator.h>
#include <c10/util/Exception.h>

#include "ops/cpu/fresh_pages.h"
#include "ops/cpu/quantized/byte_lookup_choice.h"

namespace hardsigmoid_ops::cpu {

void apply_byte_table(const std::array<uint8_t, 256>& table, const at::Tensor& self,
                      const at::Tensor& out, ByteLookup lookup) {
  TORCH_INTERNAL_ASSERT(self.element_size() == 1 && out.element_size() == 1,
                        "apply_byte_table: tensors of a 1-byte dtype only");
  TORCH_INTERNAL_ASSERT(can_run(lookup), "apply_byte_table: ", byte_lookup_name(lookup),
                        " cannot run on this processor");
  // Dense tensors of the same strides are iterated as contiguous rows (TensorIterator coalesces
  // them); others may be strided, where the line is not used.
  const bool dense = self.is_non_overlapping_and_dense() && out.strides() == self.strides();
  const PreparedTable prepared = prepare_table(lookup, table.data(), dense ? self.numel() : 0);
  // A dense output that is fresh memory: mapped a piece at a time before its rows are written
  // (fresh_pages.h); in place, or over an output written before, nothing is called.
  uint8_t* const base = static_cast<uint8_t*>(out.data_ptr());
  const FreshOutput fresh(base, dense && !out.is_same(self) ? out.numel() : 0, 1);
  at::TensorBase written = out;  // unary_op takes a mutable reference
  at::TensorIterator iter = at::TensorIterator::unary_op(written, self);
  iter.for_each(
      [&](char** data, const int64_t* strides, int64_t size0, int64_t size1) {
        for (int64_t r = 0; r < size1; ++r) {
          uint8_t* to = reinterpret_cast<uint8_t*>(data[0] + r * strides[2]);
          const uint8_t* from = reinterpret_cast<const uint8_t*>(data[1] + r * strides[3]);
          if (strides[0] == 1 && strides[1] == 1) {
            const int64_t offset = to - base;
            fresh.write(offset, offset + size0, 1, [&](int64_t begin, int64_t end) {
              lookup_contiguous(prepared, from + (begin - offset), base + begin, end - begin);
            });
          } else {
            lookup_strided(table.data(), from, strides[1], to, strides[0], size0);
          }
        }
      },
      at::internal::GRAIN_SIZE);
}

}  // namespace hardsigmoid_ops::cpu
