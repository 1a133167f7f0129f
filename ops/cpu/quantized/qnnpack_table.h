// The table aten's QNNPACK engine computes QUInt8 hardsigmoid with: the output code of each of
// the 256 input codes, as QNNPACK's operator builds it in the torch this library runs in
// (qnnpack_table.cpp says how that arithmetic differs from aten's other engines).
#pragma once

#include <array>
#include <cstdint>

namespace hardsigmoid_ops::cpu {

// For a QUInt8 input of `scale` (a normal, positive float once narrowed, which is where aten's
// QNNPACK path runs) and `zero_point` (as QNNPACK takes it: a byte), into the output's fixed
// 1/256 and 0.
std::array<uint8_t, 256> qnnpack_table(double scale, uint8_t zero_point);

}  // namespace hardsigmoid_ops::cpu
