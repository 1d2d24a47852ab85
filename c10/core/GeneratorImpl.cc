// c10/core/GeneratorImpl.cc — GeneratorImpl's constructor and at::Generator's
// error paths.
#include "c10/core/GeneratorImpl.h"

#include <string>

#include "c10/util/TypeName.h"

namespace c10 {

GeneratorImpl::GeneratorImpl(Device device, DispatchKeySet key_set)
    : device_(device), key_set_(key_set) {}

GeneratorImpl::~GeneratorImpl() = default;

c10::intrusive_ptr<GeneratorImpl> GeneratorImpl::clone() const {
  c10::intrusive_ptr<GeneratorImpl> copy = clone_impl();
  TORCH_INTERNAL_ASSERT(copy, "GeneratorImpl::clone: ", demangled_name(typeid(*this)),
                        "::clone_impl returned null");
  return copy;
}

c10::intrusive_ptr<GeneratorImpl> GeneratorImpl::clone_impl() const {
  C10_THROW_ERROR(Error, "Generator::clone: the generator ",
                  demangled_name(typeid(*this)), " on device ", device(),
                  " cannot be cloned (it does not implement clone_impl). "
                  "Create a new generator and seed it instead.");
}

c10::intrusive_ptr<c10::TensorImpl> GeneratorImpl::get_state() const {
  C10_THROW_ERROR(Error, "Generator::get_state: the generator ",
                  demangled_name(typeid(*this)), " on device ", device(),
                  " cannot save its state (it does not implement get_state). "
                  "Record its seed with current_seed() instead.");
}

void GeneratorImpl::set_state(const c10::TensorImpl& /*new_state*/) {
  C10_THROW_ERROR(Error, "Generator::set_state: the generator ",
                  demangled_name(typeid(*this)), " on device ", device(),
                  " cannot restore a state (it does not implement "
                  "set_state). Seed it with set_current_seed() instead.");
}

namespace detail {

void reportGeneratorCastFailure(const GeneratorImpl& impl,
                                const std::type_info& requested) {
  const std::string wanted = demangled_name(requested);
  C10_THROW_ERROR(Error, "Generator::get: the generator is a ",
                  demangled_name(typeid(impl)), " on device ", impl.device(),
                  ", not the requested ", wanted,
                  ". Pass a generator made for this device and backend "
                  "(e.g. with at::make_generator<", wanted, ">).");
}

void reportUndefinedGenerator(const char* where) {
  C10_THROW_ERROR(Error, "Generator::", where,
                  ": this generator is undefined (it holds no engine). "
                  "Create one with at::make_generator<Impl>(...), or check "
                  "defined() first.");
}

}  // namespace detail
}  // namespace c10

namespace at {

Generator::Generator(c10::intrusive_ptr<c10::GeneratorImpl> impl)
    : impl_(std::move(impl)) {
  TORCH_CHECK(impl_, "Generator: got a null GeneratorImpl; an undefined "
              "generator is spelled at::Generator(). Pass an engine created "
              "with at::make_generator<Impl>(...).");
}

Generator::Generator(const Generator& other) noexcept = default;
Generator::Generator(Generator&& other) noexcept = default;
Generator& Generator::operator=(const Generator& other) noexcept = default;
Generator& Generator::operator=(Generator&& other) noexcept = default;
Generator::~Generator() = default;

Generator Generator::clone() const { return Generator(checked("clone")->clone()); }

}  // namespace at
