// Runs one op through hardsigmoid_ops and through aten on copies of the same inputs, and checks
// that the two agree bit for bit: results, output strides, and every buffer element, inside the
// views and out.
#pragma once

#include <string>

#include "test_support.h"

namespace hardsigmoid_test {

enum class Op { Functional, InPlace, Out, Backward };
std::string op_label(Op op);
void PrintTo(Op op, std::ostream* os);

// `self` is the input. `other` is `out` for Op::Out and `grad_output` for Op::Backward; the
// other ops ignore it. Neither is modified: the ops run on clones.
void expect_matches_aten(Op op, const Placed& self, const Placed& other);

}  // namespace hardsigmoid_test
