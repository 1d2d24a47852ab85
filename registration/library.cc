#include "registration/library.h"

#include "registration/plugin_loader.h"

namespace torch {

namespace {
const char* kindName(Library::Kind kind) {
  switch (kind) {
    case Library::DEF: return "TORCH_LIBRARY";
    case Library::IMPL: return "TORCH_LIBRARY_IMPL";
    case Library::FRAGMENT: return "TORCH_LIBRARY_FRAGMENT";
  }
  return "Library";
}
}  // namespace

Library::Library(Kind kind, std::string ns, std::optional<c10::DispatchKey> k,
                 const char* file, uint32_t line)
    : kind_(kind), ns_(std::move(ns)), dispatch_key_(k), file_(file), line_(line) {
  TORCH_CHECK(!ns_.empty(), kindName(kind_), " ", where(),
              ": the namespace is empty; name it, e.g. TORCH_LIBRARY(myops, m).");
  TORCH_CHECK(kind_ == IMPL || ns_ != "_", kindName(kind_), " ", where(),
              ": '_' is only valid as the namespace of TORCH_LIBRARY_IMPL "
              "blocks that register fallbacks.");
  TORCH_CHECK(kind_ == IMPL || !dispatch_key_.has_value(), kindName(kind_), " ",
              where(), ": only TORCH_LIBRARY_IMPL blocks take a dispatch key.");
  if (kind_ == DEF) {
    registrars_.push_back(c10::Dispatcher::singleton().registerLibrary(ns_, debug()));
  }
}

std::string Library::where() const {
  return c10::str("at ", file_ ? file_ : "<unknown>", ":", line_);
}

std::string Library::debug() const { return "registered " + where(); }

void Library::checkNamespace(c10::OperatorName& name, const char* what) const {
  const auto ns = name.getNamespace();
  if (!ns.has_value()) {
    name.setNamespaceIfNotSet(ns_.c_str());
    return;
  }
  TORCH_CHECK(*ns == ns_, what, ": operator ", name, " is in namespace '", *ns,
              "' but this ", kindName(kind_), " block (", where(),
              ") is for namespace '", ns_, "'. Register it in a block for '",
              *ns, "', or drop the namespace from the name.");
}

Library& Library::defSchema(c10::FunctionSchema&& schema) {
  c10::OperatorName name = schema.operator_name();
  checkNamespace(name, "def");
  TORCH_CHECK(kind_ != IMPL, "def: cannot define ", name,
              " inside a TORCH_LIBRARY_IMPL block (", where(),
              "); move the def() into TORCH_LIBRARY(", ns_, ", m) or a "
              "TORCH_LIBRARY_FRAGMENT.");
  schema.setNamespaceIfNotSet(ns_.c_str());
  registrars_.push_back(
      c10::Dispatcher::singleton().registerDef(std::move(schema), debug()));
  return *this;
}

Library& Library::defWithKernel(
    std::variant<c10::OperatorName, c10::FunctionSchema>&& name_or_schema,
    CppFunction&& f) {
  c10::FunctionSchema schema = [&] {
    if (auto* s = std::get_if<c10::FunctionSchema>(&name_or_schema)) {
      return std::move(*s);
    }
    auto& name = std::get<c10::OperatorName>(name_or_schema);
    checkNamespace(name, "def");
    TORCH_CHECK(f.schema_.has_value(), "def: cannot infer a schema for ", name,
                " (", where(), ") from a boxed kernel; pass the full schema "
                "string instead of the bare name.");
    const auto& inferred = *f.schema_;
    return c10::FunctionSchema(name.name, name.overload_name, inferred.arguments(),
                               inferred.returns());
  }();
  const std::string name = schema.operator_name().str();
  defSchema(std::move(schema));
  if (!f.dispatch_key_.has_value()) {
    f.dispatch_key_ = c10::DispatchKey::CompositeImplicitAutograd;
  }
  return implKernel(name, std::move(f));
}

Library& Library::implKernel(const std::string& raw_name, CppFunction&& f) {
  TORCH_CHECK(!(kind_ == IMPL && ns_ == "_"), "impl: TORCH_LIBRARY_IMPL(_, …) "
              "blocks (", where(), ") only register fallbacks; register the "
              "kernel for ", raw_name, " in a block for its namespace.");
  c10::OperatorName name = c10::parseName(raw_name);
  checkNamespace(name, "impl");
  std::optional<c10::DispatchKey> key = dispatch_key_;
  if (f.dispatch_key_.has_value()) {
    TORCH_CHECK(!key.has_value() || *key == *f.dispatch_key_, "impl: the kernel "
                "for ", name, " is registered with torch::dispatch(",
                *f.dispatch_key_, ", …) inside a TORCH_LIBRARY_IMPL block for ",
                *key, " (", where(), "). Drop torch::dispatch or move the "
                "kernel to a block for ", *f.dispatch_key_, ".");
    key = f.dispatch_key_;
  }
  registrars_.push_back(c10::Dispatcher::singleton().registerImpl(
      std::move(name), key.value_or(c10::DispatchKey::CompositeImplicitAutograd),
      std::move(f.func_), std::move(f.schema_), debug()));
  return *this;
}

Library& Library::fallback(CppFunction&& f) & {
  TORCH_CHECK(kind_ == IMPL && ns_ == "_", "fallback: backend fallbacks can only "
              "be registered in TORCH_LIBRARY_IMPL(_, Key, m) blocks, but this "
              "is a ", kindName(kind_), " block for namespace '", ns_, "' (",
              where(), ").");
  TORCH_CHECK(!f.dispatch_key_.has_value() || f.dispatch_key_ == dispatch_key_,
              "fallback: torch::dispatch(", *f.dispatch_key_, ", …) contradicts "
              "the block's key ", *dispatch_key_, " (", where(), ").");
  registrars_.push_back(c10::Dispatcher::singleton().registerFallback(
      *dispatch_key_, std::move(f.func_), debug()));
  return *this;
}

namespace detail {

TorchLibraryInit::TorchLibraryInit(Library::Kind kind, InitFn* fn, const char* ns,
                                   const char* key_name, const char* file,
                                   uint32_t line) {
  try {
    std::optional<c10::DispatchKey> key;
    if (key_name != nullptr) {
      try {
        key = c10::parseDispatchKey(key_name);
      } catch (const c10::Error& e) {
        C10_THROW_ERROR(Error, "TORCH_LIBRARY_IMPL at ", file, ":", line, ": ",
                        e.what_without_backtrace());
      }
    }
    lib_.emplace(kind, ns, key, file, line);
    fn(*lib_);
  } catch (...) {
    lib_.reset();  // undo whatever the block registered before failing
    if (!c10::impl::report_registration_error(std::current_exception())) throw;
  }
}

}  // namespace detail
}  // namespace torch
