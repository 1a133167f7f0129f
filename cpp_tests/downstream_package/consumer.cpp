// A consumer of the installed package: the public header under its installed name, the ops
// through the C++ API, checked against aten bit for bit. Exit status 0 when every check holds.
// README.md's and docs/cpp.md's C++ examples are taken from this file (test_docs_examples.py
// checks).
#include <ATen/ATen.h>
#include <hardsigmoid_ops/hardsigmoid.h>

#include <cstdio>

int main() {
  const at::Tensor x = at::randn({1024, 33}) * 4;
  const at::Tensor grad = at::randn_like(x);
  at::Tensor out = at::empty_like(x);
  at::Tensor z = x.clone();

  at::Tensor y = hardsigmoid_ops::hardsigmoid(x);  // CPU, CUDA, meta; autograd
  hardsigmoid_ops::hardsigmoid_out(x, out);        // returns out
  hardsigmoid_ops::hardsigmoid_(z);                // returns z
  at::Tensor g = hardsigmoid_ops::hardsigmoid_backward(grad, x);

  const at::Tensor expected = at::hardsigmoid(x);
  const bool forward_ok = at::equal(y, expected) && at::equal(out, expected);
  const bool inplace_ok = at::equal(z, expected);
  const bool backward_ok = at::equal(g, at::hardsigmoid_backward(grad, x));
  std::printf("installed package: forward and out %s, in-place %s, backward %s\n",
              forward_ok ? "ok" : "WRONG", inplace_ok ? "ok" : "WRONG",
              backward_ok ? "ok" : "WRONG");
  return forward_ok && backward_ok && inplace_ok ? 0 : 1;
}
