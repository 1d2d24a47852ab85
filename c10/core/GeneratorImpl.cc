// c10/core/GeneratorImpl.cc — GeneratorImpl's constructor and at::Generator's
// error paths.
#include "c10/core/GeneratorImpl.h"

#include <cstdlib>
#include <memory>
#include <string>

#if defined(__GNUC__)
#include <cxxabi.h>
#endif

namespace c10 {

namespace {

// "CountingGenerator" rather than the mangled "17CountingGenerator".
std::string typeName(const std::type_info& type) {
#if defined(__GNUC__)
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(
      abi::__cxa_demangle(type.name(), nullptr, nullptr, &status), std::free);
  if (status == 0 && name != nullptr) return name.get();
#endif
  return type.name();
}

}  // namespace

GeneratorImpl::GeneratorImpl(Device device, DispatchKeySet key_set)
    : device_(device), key_set_(key_set) {}

GeneratorImpl::~GeneratorImpl() = default;

namespace detail {

void reportGeneratorCastFailure(const GeneratorImpl& impl,
                                const std::type_info& requested) {
  const std::string wanted = typeName(requested);
  C10_THROW_ERROR(Error, "Generator::get: the generator is a ",
                  typeName(typeid(impl)), " on device ", impl.device(),
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

}  // namespace at
