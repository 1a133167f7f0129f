#include "registration/autograd_nodes.h"

#include <ATen/ops/zeros_like.h>

#include <string>
#include <vector>

#include "ops/hardsigmoid.h"

namespace hardsigmoid_ops::registration {
namespace {

using torch::autograd::SavedVariable;
using torch::autograd::variable_list;
using torch::dynamo::autograd::CompiledNodeArgs;
using torch::dynamo::autograd::IValuePacker;
using torch::dynamo::autograd::PackedArgs;
using torch::dynamo::autograd::SwapSavedVariables;

// The two formulas, each a pure function of the incoming gradients, which input gradients are
// wanted, and the saved self: what eager backward runs, and what compiled autograd puts in its
// graph as one opaque call.
struct HardsigmoidFormula {
  static constexpr const char* kName = "HardsigmoidOpsBackward";
  static constexpr size_t kInputs = 1;  // self
  static variable_list apply(const variable_list& grads, const std::vector<bool>& needed,
                             const at::Tensor& self) {
    variable_list result(kInputs);
    if (needed[0] && grads[0].defined()) {
      result[0] = hardsigmoid_ops::hardsigmoid_backward(grads[0], self);
    }
    return result;
  }
};

struct HardsigmoidBackwardFormula {
  static constexpr const char* kName = "HardsigmoidOpsBackwardBackward";
  static constexpr size_t kInputs = 2;  // grad_output, self
  static variable_list apply(const variable_list& grads, const std::vector<bool>& needed,
                             const at::Tensor& self) {
    variable_list result(kInputs);
    if (!grads[0].defined()) return result;
    if (needed[0]) result[0] = hardsigmoid_ops::hardsigmoid_backward(grads[0], self);
    if (needed[1]) result[1] = at::zeros_like(self);
    return result;
  }
};

template <typename Formula>
class SavedSelfNode final : public torch::autograd::Node {
 public:
  // Which input gradients the running backward wants (a vector: compiled autograd packs it as a
  // list of bools).
  using Needed = std::vector<bool>;

  SavedVariable self_;

  std::string name() const override { return Formula::kName; }

  void release_variables() override {
    std::lock_guard<std::mutex> lock(mutex_);
    self_.reset_data();
  }

  // Compiled autograd: what the graph it builds depends on (the saved tensor, as an input of the
  // forward rather than one of its outputs)...
  void compiled_args(CompiledNodeArgs& args) const override { args.collect(self_, false); }

  // ... and the node lifted into that graph: the saved tensor swapped for its proxy, the formula
  // bound once a process under this node's name, then called on the packed arguments.
  variable_list apply_with_saved(const variable_list& grads, SwapSavedVariables& saved) override {
    saved.before(self_);
    const auto& python = torch::dynamo::autograd::getPyCompilerInterface();
    static const bool bound = [&] {
      python->bind_function(
          saved.get_py_compiler(), Formula::kName, &apply_packed,
          {IValuePacker<Needed>::packed_type(), IValuePacker<at::Tensor>::packed_type()});
      return true;
    }();
    (void)bound;
    PackedArgs packed;
    packed.pack(needed());
    packed.pack(static_cast<at::Tensor>(self_.unpack()));
    const at::IValue output_metadata =
        IValuePacker<std::vector<std::optional<torch::autograd::InputMetadata>>>::pack(
            torch::dynamo::autograd::get_input_metadata(next_edges()));
    variable_list result =
        python->call_function(saved.get_py_compiler(), "apply_functional", Formula::kName, grads,
                              packed.vec(), output_metadata);
    saved.after(self_);
    return result;
  }

 private:
  variable_list apply(variable_list&& grads) override {
    std::lock_guard<std::mutex> lock(mutex_);
    return Formula::apply(grads, needed(), self_.unpack());
  }

  Needed needed() const {
    Needed needed(Formula::kInputs);
    for (size_t i = 0; i < needed.size(); ++i) needed[i] = task_should_compute_output(i);
    return needed;
  }

  static variable_list apply_packed(const variable_list& grads,
                                    const std::vector<c10::IValue>& args) {
    PackedArgs packed(args);
    const auto needed = packed.unpack<Needed>();
    const auto self = packed.unpack<at::Tensor>();
    return Formula::apply(grads, needed, self);
  }
};

template <typename Formula, typename... Inputs>
NodePtr make_node(const at::Tensor& saved_self, const Inputs&... inputs) {
  const auto node = new_node<SavedSelfNode<Formula>>();
  node->set_next_edges(torch::autograd::collect_next_edges(inputs...));
  node->self_ = SavedVariable(saved_self, /*is_output=*/false);
  return node;
}

}  // namespace

NodePtr make_hardsigmoid_node(const at::Tensor& self, const at::Tensor& saved_self) {
  return make_node<HardsigmoidFormula>(saved_self, self);
}

NodePtr make_hardsigmoid_backward_node(const at::Tensor& grad_output, const at::Tensor& self) {
  return make_node<HardsigmoidBackwardFormula>(self, grad_output, self);
}

}  // namespace hardsigmoid_ops::registration
