#include "registration/infer_schema.h"

#include "c10/util/StringUtil.h"

namespace c10 {
namespace impl {

FunctionSchema makeInferredSchema(std::vector<TypeSpec> arguments,
                                  std::vector<TypeSpec> returns) {
  std::vector<Argument> args;
  args.reserve(arguments.size());
  for (size_t i = 0; i < arguments.size(); ++i) {
    args.emplace_back("_" + std::to_string(i), std::move(arguments[i]));
  }
  std::vector<Argument> rets;
  rets.reserve(returns.size());
  for (auto& r : returns) rets.emplace_back("", std::move(r));
  return FunctionSchema("", "", std::move(args), std::move(rets));
}

namespace {

// The kernel sees `int[2]` and `int[]` alike, and alias annotations are not
// part of a C++ type: compare what a C++ signature can express.
bool sameCppType(const TypeSpec& kernel, const TypeSpec& schema) {
  if (kernel.base != schema.base || kernel.is_list != schema.is_list) return false;
  if (kernel.is_list) {
    return kernel.element_optional == schema.element_optional &&
           kernel.list_optional == schema.list_optional;
  }
  return kernel.element_optional == schema.element_optional;
}

}  // namespace

std::string findSchemaDifference(const FunctionSchema& inferred,
                                 const FunctionSchema& defined) {
  const auto& ka = inferred.arguments();
  const auto& sa = defined.arguments();
  if (ka.size() != sa.size()) {
    return c10::str("argument count differs: the kernel takes ", ka.size(),
                    " arguments but the schema declares ", sa.size());
  }
  for (size_t i = 0; i < ka.size(); ++i) {
    if (!sameCppType(ka[i].type(), sa[i].type())) {
      return c10::str("argument ", i, " ('", sa[i].name(), "') has type ",
                      ka[i].type().str(), " in the kernel but ",
                      sa[i].type().str(), " in the schema");
    }
  }
  const auto& kr = inferred.returns();
  const auto& sr = defined.returns();
  if (kr.size() != sr.size()) {
    return c10::str("return count differs: the kernel returns ", kr.size(),
                    " values but the schema declares ", sr.size());
  }
  for (size_t i = 0; i < kr.size(); ++i) {
    if (!sameCppType(kr[i].type(), sr[i].type())) {
      return c10::str("return ", i, " has type ", kr[i].type().str(),
                      " in the kernel but ", sr[i].type().str(),
                      " in the schema");
    }
  }
  return "";
}

}  // namespace impl
}  // namespace c10
