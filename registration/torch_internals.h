// The internal PyTorch headers the autograd and vmap registrations are written against, included
// here and nowhere else.
//
// Why internal ones: torch::autograd::Function, the public way to write a backward, is refused by
// every torch.func transform and carries no forward-AD formula. PyTorch's own generated autograd
// code (VariableType) is what works everywhere, so the Autograd kernels are written as it is:
// backward Nodes holding SavedVariables (autograd_nodes.*), set_history / rebase_history and
// forward grads (autograd_registration.cpp), compiled autograd's packing of a Node
// (autograd_nodes.cpp), functorch's transform layers (autograd_registration.cpp) and batched
// tensors for vmap (batching_rules.cpp).
//
// These headers change between torch releases. A torch upgrade that breaks the build breaks it
// in the files named above, all in registration/; what each of them takes from here is listed
// beside its include below.
#pragma once

// Node, SavedVariable, collect_next_edges, set_history, rebase_history, check_inplace,
// throw_error_out_requires_grad, increment_version.
#include <torch/csrc/autograd/VariableTypeUtils.h>
// CompiledNodeArgs, SwapSavedVariables, PackedArgs, IValuePacker, getPyCompilerInterface: how a
// Node is lifted into a compiled-autograd graph.
#include <torch/csrc/dynamo/compiled_autograd.h>
// maybeCurrentDynamicLayer: the vmap level a batching rule runs at, and the grad or jvp transform
// a mutating op runs under (pulls in <nlohmann/json.hpp>, which the torch wheel does not ship).
// isBatchedAtLevel, unwrapTensorAtLevel, makeBatched; maybeGetTensorWrapper, unwrapIfDead.
#include <ATen/functorch/DynamicLayer.h>
#include <ATen/functorch/PlumbingHelper.h>
#include <ATen/functorch/TensorWrapper.h>

#include <torch/version.h>

#include <memory>

namespace hardsigmoid_ops::registration {

// How a backward Node is held, the one internal API here that differs between the supported
// releases. Up to torch 2.12 a Node is held by std::shared_ptr, created with deleteNode as its
// deleter (which frees long chains of Nodes without deep recursion); torch 2.13 made Node a
// c10::intrusive_ptr_target, held by c10::intrusive_ptr, and removed deleteNode.
#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 13)
using NodePtr = c10::intrusive_ptr<torch::autograd::Node>;

template <typename NodeType>
c10::intrusive_ptr<NodeType> new_node() {
  return c10::make_intrusive<NodeType>();
}
#else
using NodePtr = std::shared_ptr<torch::autograd::Node>;

template <typename NodeType>
std::shared_ptr<NodeType> new_node() {
  return std::shared_ptr<NodeType>(new NodeType(), torch::autograd::deleteNode);
}
#endif

}  // namespace hardsigmoid_ops::registration
