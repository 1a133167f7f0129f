// A consumer of the installed package: the public header under its installed name, the ops
// through the C++ API, checked against aten bit for bit. Exit status 0 when every check holds.
#include <ATen/ATen.h>
#include <hardsigmoid_ops/hardsigmoid.h>

#include <cstdio>

int main() {
  const at::Tensor x = at::randn({1024, 33}) * 4;
  const at::Tensor grad = at::randn_like(x);
  const bool forward_ok = at::equal(hardsigmoid_ops::hardsigmoid(x), at::hardsigmoid(x));
  const bool backward_ok =
      at::equal(hardsigmoid_ops::hardsigmoid_backward(grad, x), at::hardsigmoid_backward(grad, x));
  at::Tensor y = x.clone();
  const bool inplace_ok =
      hardsigmoid_ops::hardsigmoid_(y).is_same(y) && at::equal(y, at::hardsigmoid(x));
  std::printf("installed package: forward %s, backward %s, in-place %s\n",
              forward_ok ? "ok" : "WRONG", backward_ok ? "ok" : "WRONG",
              inplace_ok ? "ok" : "WRONG");
  return forward_ok && backward_ok && inplace_ok ? 0 : 1;
}
