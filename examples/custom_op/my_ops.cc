// examples/custom_op/my_ops.cc — a custom op library, libember_myops.so:
// myops::mymul(self, other) = self * other, with a CPU kernel and a backward
// registered as an Autograd kernel built on torch::autograd::Function. Built
// with ember_plugin (which writes its descriptor, EMBER_PLUGIN(myops)) and
// loaded at run time with torch::load_library. docs/custom_ops.md quotes the
// marked regions.
#include <ATen/ATen.h>
#include <ATen/Dispatch.h>
#include <torch/autograd.h>
#include <torch/library.h>

namespace {

// [doc:cpu_kernel]
// The CPU kernel: a plain loop over contiguous copies of the inputs, for
// each floating dtype (AT_DISPATCH_FLOATING_TYPES, as in libtorch).
at::Tensor mymul_cpu(const at::Tensor& self, const at::Tensor& other) {
  TORCH_CHECK(self.sizes() == other.sizes(), "mymul: self has sizes ", self.sizes(),
              " but other has ", other.sizes(), "; pass tensors of one shape.");
  TORCH_CHECK(self.scalar_type() == other.scalar_type(), "mymul: self is ",
              self.scalar_type(), " but other is ", other.scalar_type(),
              "; convert one with .to().");
  at::Tensor a = self.contiguous();
  at::Tensor b = other.contiguous();
  at::Tensor result = at::empty(a.sizes(), a.options());
  AT_DISPATCH_FLOATING_TYPES(a.scalar_type(), "mymul", [&] {
    const scalar_t* pa = a.data_ptr<scalar_t>();
    const scalar_t* pb = b.data_ptr<scalar_t>();
    scalar_t* out = result.data_ptr<scalar_t>();
    for (int64_t i = 0; i < result.numel(); ++i) out[i] = pa[i] * pb[i];
  });
  return result;
}
// [doc:end]

// [doc:autograd]
// The backward: a torch::autograd::Function whose forward calls the op
// below autograd (so it reaches the CPU kernel) and whose backward uses
// the op itself, so second derivatives work too.
struct MyMulFunction : torch::autograd::Function<MyMulFunction> {
  static at::Tensor forward(torch::autograd::AutogradContext* ctx, at::Tensor self,
                            at::Tensor other) {
    ctx->save_for_backward({self, other});
    static auto op = c10::Dispatcher::singleton()
                         .findSchemaOrThrow("myops::mymul", "")
                         .typed<at::Tensor(const at::Tensor&, const at::Tensor&)>();
    at::AutoDispatchBelowADInplaceOrView guard;
    return op.call(self, other);
  }
  static torch::autograd::variable_list backward(torch::autograd::AutogradContext* ctx,
                                                 torch::autograd::variable_list grads) {
    const auto saved = ctx->get_saved_variables();
    return {grads[0] * saved[1], grads[0] * saved[0]};
  }
};

at::Tensor mymul_autograd(const at::Tensor& self, const at::Tensor& other) {
  return MyMulFunction::apply(self, other);
}
// [doc:end]

}  // namespace

// [doc:registrations]
TORCH_LIBRARY(myops, m) {
  m.def("mymul(Tensor self, Tensor other) -> Tensor");
}

TORCH_LIBRARY_IMPL(myops, CPU, m) {
  m.impl("mymul", &mymul_cpu);
}

TORCH_LIBRARY_IMPL(myops, Autograd, m) {
  m.impl("mymul", &mymul_autograd);
}
// [doc:end]
