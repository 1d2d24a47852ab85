// c10/util/TypeName.h — a C++ type's readable name, for error messages.
//
//   c10::demangled_name(typeid(MyGuardImpl))  // "npu::MyGuardImpl"
#pragma once

#include <string>
#include <typeinfo>

namespace c10 {

// c10::demangled_name
//
// `type`'s name as written in source ("CountingGenerator" rather than the
// mangled "17CountingGenerator"); the mangled name where demangling is not
// available. Thread-safe.
std::string demangled_name(const std::type_info& type);

}  // namespace c10
