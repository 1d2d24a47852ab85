#!/usr/bin/env python3
"""Generates ATen's C++ API from aten/native_functions/*.txt.

One line per operator: its schema, then optional `|`-separated flags:
  variants=function,method   which C++ entry points to emit (default: function)
  options                    also emit an overload (function and method) taking
                             at::TensorOptions for the dtype/layout/device/
                             pin_memory group
  backend_select             emit a BackendSelect kernel that picks the
                             backend from the `device` argument
  cpp_defaults_from=<arg>    give the at:: function C++ defaults only from
                             that argument on (an overload whose defaults
                             would make a short call ambiguous, such as
                             conv2d.padding)
  cpp_no_default_args=a,b    drop the C++ defaults of these arguments (as
                             PyTorch's cpp_no_default_args: var's `unbiased`,
                             whose default would make at::var(x) ambiguous)
  dispatch=KEY:kernel,...    the backend kernel registered for KEY (CPU, CUDA,
                             PrivateUse1, ...): a function in the backend's
                             namespace, or a qualified name. The backend's
                             generated <KEY>Kernels.h declares it with the
                             schema's C++ signature and Register<KEY>.cc
                             registers it (see --backend below)
  autogen[=exact|castable]   on an out= overload: its kernel is generated, for
                             every backend, from the functional overload (the
                             one whose arguments are the out= overload's
                             without the outs): run the functional op, then
                             resize each out as resize_output does and copy
                             the result into it. The out tensors may have any
                             dtype copy_ accepts (PyTorch's `autogen:`),
                             exactly the result's dtype (`exact`, as
                             PyTorch's structured kernels) or one the result
                             can be cast to (`castable`, as TensorIterator
                             kernels). See Note [Generated out= kernels]

Outputs (each argument is an output path, by basename):
  Operators.h        at::_ops::<op> structs: schema type, call, redispatch
                     (declared; defined in Operators_0.cc .. Operators_3.cc)
  Functions.h        the at:: functions
  TensorMethods.inc  method declarations, included inside class at::Tensor
  TensorMethods.h    method definitions
  RegisterSchemas.cc TORCH_LIBRARY(aten, m) with every schema, and the
                     BackendSelect kernels
  RegisterCompositeOut.cc
                     the `autogen` out= kernels, for
                     CompositeExplicitAutograd

With `--backend KEY --namespace NS --header PATH` it writes a backend's
wiring instead, from the `dispatch=KEY:...` entries:
  <KEY>Kernels.h     declarations of the kernels (in NS unless qualified);
                     the backend's definitions must match them
  Register<KEY>.cc   TORCH_LIBRARY_IMPL(aten, KEY, m) registering each one
                     (PATH is how it includes the header)
"""
import copy
import os
import re
import sys

# ---------------------------------------------------------------- parsing


def split_top(text, sep=","):
    """Splits on `sep` outside brackets and quotes."""
    parts, depth, cur, quote = [], 0, "", None
    for ch in text:
        if quote:
            cur += ch
            if ch == quote:
                quote = None
            continue
        if ch in "\"'":
            quote = ch
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        parts.append(cur.strip())
    return parts


class Type:
    def __init__(self, text):
        # `Tensor?[]` (a list whose entries may be None, as index.Tensor
        # takes) is a list with optional entries; arg_type emits it as a
        # vector of std::optional<at::Tensor>.
        optional_entries = text.endswith("?[]")
        if optional_entries:
            text = text[:-3] + "[]"
        m = re.fullmatch(r"(\w+)(\([a-z*| >-]+!?\))?(\[(\d*)\])?(\?)?", text)
        if not m:
            raise SystemExit("gen_aten: cannot parse type '%s'" % text)
        self.base = {"SymInt": "int"}.get(m.group(1), m.group(1))
        self.alias = m.group(2) or ""
        self.is_list = m.group(3) is not None
        self.optional = m.group(5) is not None or optional_entries
        self.write = self.alias.endswith("!)")


class Arg:
    def __init__(self, text, kwarg_only):
        # The type may hold spaces inside its alias annotation: (a -> *).
        type_text, rest = re.match(r"(\w+(?:\([^)]*\))?\S*)\s+(.*)", text).groups()
        name, _, default = rest.partition("=")
        self.type = Type(type_text)
        self.name = name.strip()
        self.default = default.strip() if default else None
        self.kwarg_only = kwarg_only


class Op:
    def __init__(self, line):
        schema, *flags = [p.strip() for p in line.split("|")]
        self.schema = schema
        self.flags = {}
        for f in flags:
            key, _, value = f.partition("=")
            self.flags[key.strip()] = value.strip()
        m = re.fullmatch(r"([\w]+)(?:\.(\w+))?\((.*)\) -> (.*)", schema)
        if not m:
            raise SystemExit("gen_aten: cannot parse schema '%s'" % schema)
        self.name, self.overload, args_text, rets_text = m.groups()
        self.overload = self.overload or ""
        self.args, kwarg_only = [], False
        for a in split_top(args_text):
            if a == "*":
                kwarg_only = True
                continue
            self.args.append(Arg(a, kwarg_only))
        rets_text = rets_text.strip()
        if rets_text.startswith("(") and rets_text.endswith(")"):
            rets_text = rets_text[1:-1]
        self.returns = [Type(r.split(" ")[0]) for r in split_top(rets_text)]
        self.variants = self.flags.get("variants", "function").split(",")
        no_defaults = self.flags.get("cpp_no_default_args", "")
        self.cpp_no_default = set(n for n in no_defaults.split(",") if n)
        self.dispatch = {}
        for entry in filter(None, self.flags.get("dispatch", "").split(",")):
            key, sep, kernel = entry.strip().partition(":")
            if not sep or not kernel or not re.fullmatch(r"\w+", key):
                raise SystemExit("gen_aten: %s: dispatch entry '%s' is not KEY:kernel" % (
                    self.schema, entry))
            if key in self.dispatch:
                raise SystemExit("gen_aten: %s: two dispatch entries for %s" % (self.schema, key))
            self.dispatch[key] = kernel.strip()
        self.autogen = self.flags.get("autogen")
        if self.autogen is not None and self.autogen not in ("", "exact", "castable"):
            raise SystemExit("gen_aten: %s: autogen=%s; expected autogen, autogen=exact or "
                             "autogen=castable" % (self.schema, self.autogen))

    @property
    def struct(self):
        return self.name + ("_" + self.overload if self.overload else "")

    @property
    def out_args(self):
        return [a for a in self.args if a.kwarg_only and a.type.write]

    @property
    def is_out(self):
        return bool(self.out_args)


def cpp_args(op):
    """op.args, with the C++ defaults of cpp_no_default_args dropped."""
    out = []
    for a in op.args:
        if a.name in op.cpp_no_default:
            a = copy.copy(a)
            a.default = None
        out.append(a)
    return out


# ---------------------------------------------------------------- C++ types

SCALARS = {
    "int": "int64_t", "float": "double", "bool": "bool",
    "str": "c10::string_view", "Scalar": "at::Scalar",
    "ScalarType": "at::ScalarType", "Device": "at::Device",
    "Layout": "at::Layout", "MemoryFormat": "at::MemoryFormat",
    "Generator": "at::Generator",
}
LISTS = {"int": "at::IntArrayRef", "float": "at::ArrayRef<double>",
         "Tensor": "at::TensorList"}


def arg_type(t):
    if t.base == "Tensor":
        if t.is_list:
            if t.optional:
                return "const ::std::vector<::std::optional<at::Tensor>>&"
            return "at::TensorList"
        if t.write:
            return "at::Tensor&"
        if t.optional:
            return "const ::std::optional<at::Tensor>&"
        return "const at::Tensor&"
    if t.is_list:
        if t.optional and t.base == "int":
            # std::optional<IntArrayRef> would take braced lists only through
            # a template constructor; see c10/util/OptionalArrayRef.h.
            return "at::OptionalIntArrayRef"
        inner = LISTS.get(t.base)
        if inner is None:
            inner = "::std::vector<%s>" % SCALARS[t.base]
            inner = "const %s&" % inner
        return "::std::optional<%s>" % inner if t.optional else inner
    cpp = SCALARS[t.base]
    if t.optional:
        cpp = "::std::optional<%s>" % cpp
    if t.base == "Scalar":
        return "const %s&" % cpp
    return cpp


def ret_type(op):
    def one(t):
        if t.base == "Tensor":
            if t.is_list:
                return "::std::vector<at::Tensor>"
            return "at::Tensor&" if t.write else "at::Tensor"
        return SCALARS[t.base]
    if not op.returns:
        return "void"
    if len(op.returns) == 1:
        return one(op.returns[0])
    return "::std::tuple<%s>" % ", ".join(one(t) for t in op.returns)


def default_value(arg):
    d = arg.default
    if d is None:
        return None
    if d == "None":
        return "::std::nullopt"
    if d in ("True", "False"):
        return d.lower()
    if d.startswith("["):
        return "{" + d[1:-1] + "}" if d != "[]" else "{}"
    if d.startswith("'"):
        return '"%s"' % d[1:-1]
    if d == "Mean":
        return "1"
    if d == "contiguous_format":
        return "at::MemoryFormat::Contiguous"
    return d


def params(args, with_defaults, defaults_from=None):
    out = []
    for a in args:
        if a.name == defaults_from:
            defaults_from = None
        text = "%s %s" % (arg_type(a.type), a.name)
        dv = default_value(a) if with_defaults and defaults_from is None else None
        if dv is not None:
            text += " = " + dv
        out.append(text)
    return ", ".join(out)


def defaults_ok(args):
    """C++ defaults are only valid on a suffix of the parameter list."""
    seen_default = False
    for a in args:
        if a.default is not None:
            seen_default = True
        elif seen_default:
            return False
    return True


OPTIONS_GROUP = ["dtype", "layout", "device", "pin_memory"]

# ---------------------------------------------------------------- emitters


def emit_operators(ops):
    # Declarations only: the definitions are in the Operators_<k>.cc shards
    # (emit_operator_defs). See Note [Out-of-line operator calls].
    out = []
    for op in ops:
        sig_params = ", ".join(arg_type(a.type) for a in op.args)
        p = params(op.args, False)
        out.append("""struct %(s)s {
  using schema = %(r)s(%(sp)s);
  static constexpr const char* name = "aten::%(n)s";
  static constexpr const char* overload_name = "%(o)s";
  static constexpr const char* schema_str = "%(schema)s";
  static const c10::TypedOperatorHandle<schema>& handle();
  static %(r)s call(%(p)s);
  static %(r)s redispatch(c10::DispatchKeySet ks%(comma)s%(p)s);
};
""" % {"s": op.struct, "r": ret_type(op), "sp": sig_params, "n": op.name,
       "o": op.overload, "schema": op.schema.replace('"', '\\"'), "p": p,
       "comma": ", " if p else ""})
    return "\n".join(out)


# Note [Out-of-line operator calls]
# at::_ops::<op>::call and ::redispatch are defined once, in the core, not
# inline in Operators.h. Inline, every translation unit that called an op
# instantiated the typed dispatch path for its signature
# (TypedOperatorHandle::call, Dispatcher::call, KernelFunction::call and the
# boxing fallback) and optimized it again: about half the compile time of a
# test or module file, paid in every build configuration. Out of line it is
# compiled once per operator, and a call costs one direct call more (as in
# PyTorch, whose Operators.h also only declares them). The handle's static
# also lives in one place (the core) instead of one per shared object.
OPERATOR_SHARDS = 4


def emit_operator_defs(ops, shard, shards):
    out = []
    per = (len(ops) + shards - 1) // shards
    for op in ops[shard * per:(shard + 1) * per]:
        names = ", ".join(a.name for a in op.args)
        p = params(op.args, False)
        out.append("""const c10::TypedOperatorHandle<%(s)s::schema>& %(s)s::handle() {
  static const auto op = c10::Dispatcher::singleton()
      .findSchemaOrThrow(name, overload_name).typed<schema>();
  return op;
}
%(r)s %(s)s::call(%(p)s) {
  return handle().call(%(names)s);
}
%(r)s %(s)s::redispatch(c10::DispatchKeySet ks%(comma)s%(p)s) {
  return handle().redispatch(ks%(comma)s%(names)s);
}
""" % {"s": op.struct, "r": ret_type(op), "p": p, "names": names,
       "comma": ", " if p else ""})
    return HEADER + """// Shard %d of %d of the at::_ops definitions.
// See Note [Out-of-line operator calls] in bazel/codegen/gen_aten.py.
#include "aten/Operators.h"

namespace at {
namespace _ops {

%s
}  // namespace _ops
}  // namespace at
""" % (shard, shards, "\n".join(out))


def function_name(op):
    return op.name + ("_out" if op.is_out else "")


def options_overload(op, args, r, self_expr=None):
    """The overload taking at::TensorOptions for the dtype/layout/device/
    pin_memory group, as (params, call arguments), or None."""
    group = [a for a in args if a.name in OPTIONS_GROUP]
    if "options" not in op.flags or len(group) != len(OPTIONS_GROUP):
        return None
    rest = [a for a in args if a not in group]
    first = args.index(group[0])
    before, after = rest[:first], rest[first:]
    if self_expr is not None:
        before = before[1:]
    # A defaulted `Generator? generator=None` before the options keeps its
    # default (at::normal(0, 1, {3})); other defaults there would make
    # overloads ambiguous (arange's step).
    keep = defaults_ok(before) and all(
        a.type.base == "Generator" for a in before if a.default is not None)
    p = params(before, keep)
    p += (", " if p else "") + "at::TensorOptions options = {}"
    pa = params(after, True)
    p += (", " + pa) if pa else ""
    call_args = []
    for a in args:
        if a.name == "dtype":
            call_args.append("options.dtype_opt()")
        elif a.name == "layout":
            call_args.append("options.layout_opt()")
        elif a.name == "device":
            call_args.append("options.device_opt()")
        elif a.name == "pin_memory":
            call_args.append("options.pinned_memory_opt()")
        elif self_expr is not None and a is args[0]:
            call_args.append(self_expr)
        else:
            call_args.append(a.name)
    return p, ", ".join(call_args)


def emit_functions(ops):
    out = []
    for op in ops:
        if "function" not in op.variants:
            continue
        r = ret_type(op)
        args = cpp_args(op)
        names = ", ".join(a.name for a in args)
        if op.is_out:
            # at::add_out(out, self, …) and at::add_outf(self, …, out)
            outs = [a for a in args if a.kwarg_only and a.type.write]
            ins = [a for a in args if a not in outs]
            out.append("inline %s %s(%s) {\n  return at::_ops::%s::call(%s);\n}\n" % (
                r, op.name + "_out",
                params(outs + ins, defaults_ok(outs + ins)), op.struct, names))
            out.append("inline %s %s(%s) {\n  return at::_ops::%s::call(%s);\n}\n" % (
                r, op.name + "_outf", params(args, False), op.struct, names))
            continue
        with_options = options_overload(op, args, r)
        out.append("inline %s %s(%s) {\n  return at::_ops::%s::call(%s);\n}\n" % (
            r, op.name, params(args, defaults_ok(args) and with_options is None,
                               op.flags.get("cpp_defaults_from")),
            op.struct, names))
        if with_options is not None:
            # As in PyTorch, requires_grad is not an argument of the op: a
            # factory's result is made to require grad after it is created.
            out.append("inline %s %s(%s) {\n  at::Tensor result = at::_ops::%s::call(%s);\n"
                       "  if (options.requires_grad()) result.requires_grad_(true);\n"
                       "  return result;\n}\n" % (
                           r, op.name, with_options[0], op.struct, with_options[1]))
    return "\n".join(out)


def method_parts(op):
    # The argument named `self` is `*this` (where.self's comes second);
    # the others keep their order.
    args = cpp_args(op)
    self_arg = next((a for a in args if a.name == "self"), args[0])
    rest = [a for a in args if a is not self_arg]
    r = ret_type(op)
    if self_arg.type.write:
        self_expr = "const_cast<at::Tensor&>(*this)"
    else:
        self_expr = "*this"
    return r, rest, self_expr


def emit_method_decls(ops):
    out = []
    for op in ops:
        if "method" not in op.variants:
            continue
        r, rest, self_expr = method_parts(op)
        with_options = options_overload(op, cpp_args(op), r, self_expr)
        out.append("  %s %s(%s) const;" % (
            r, op.name, params(rest, defaults_ok(rest) and with_options is None)))
        if with_options is not None:
            out.append("  %s %s(%s) const;" % (r, op.name, with_options[0]))
    return "\n".join(out) + "\n"


def emit_method_defs(ops):
    out = []
    for op in ops:
        if "method" not in op.variants:
            continue
        r, rest, self_expr = method_parts(op)
        rest_names = {a.name for a in rest}
        names = ", ".join(a.name if a.name in rest_names else self_expr for a in op.args)
        out.append("inline %s Tensor::%s(%s) const {\n  return at::_ops::%s::call(%s);\n}\n" % (
            r, op.name, params(rest, False), op.struct, names))
        with_options = options_overload(op, cpp_args(op), r, self_expr)
        if with_options is not None:
            # Defaults belong to the declaration only.
            p = re.sub(r" = [^,]*(?=,|$)", "", with_options[0])
            out.append("inline %s Tensor::%s(%s) const {\n  return at::_ops::%s::call(%s);\n}\n" % (
                r, op.name, p, op.struct, with_options[1]))
    return "\n".join(out)


def emit_registrations(ops):
    defs = "\n".join('  m.def("%s");' % op.schema.replace('"', '\\"') for op in ops)
    bs_kernels, bs_impls = [], []
    for op in ops:
        if "backend_select" not in op.flags:
            continue
        kernel = "backend_select_" + op.struct
        p = params(op.args, False)
        names = ", ".join(a.name for a in op.args)
        bs_kernels.append("""static %(r)s %(k)s(c10::DispatchKeySet ks, %(p)s) {
  // See Note [BackendSelect kernels].
  const c10::DispatchKeySet backend(c10::computeDispatchKey(
      device.has_value() ? device->type() : c10::DeviceType::CPU));
  return at::_ops::%(s)s::redispatch(
      (ks - c10::DispatchKeySet(c10::DispatchKey::BackendSelect)) | backend, %(names)s);
}
""" % {"r": ret_type(op), "k": kernel, "p": p, "s": op.struct, "names": names})
        bs_impls.append('  m.impl("%s%s", TORCH_FN(at::%s));' % (
            op.name, "." + op.overload if op.overload else "", kernel))
    view_kernels, view_impls = [], []
    for op in ops:
        writes = [a for a in op.args if a.type.write]
        if not writes:
            continue
        kernel = "inplace_or_view_" + op.struct
        p = params(op.args, False)
        names = ", ".join(a.name for a in op.args)
        # An out the kernel left undefined (it may, where an output is not
        # computed) has no version counter to bump.
        bumps = "".join(
            "  if (%s.defined()) %s.unsafeGetTensorImpl()->bump_version();\n" % (a.name, a.name)
            for a in writes)
        view_kernels.append("""static %(r)s %(k)s(c10::DispatchKeySet ks, %(p)s) {
  %(r)s result = at::_ops::%(s)s::redispatch(
      ks - c10::DispatchKeySet(c10::DispatchKey::ADInplaceOrView), %(names)s);
%(bumps)s  return result;
}
""" % {"r": ret_type(op), "k": kernel, "p": p, "s": op.struct, "names": names,
       "bumps": bumps})
        view_impls.append('  m.impl("%s%s", TORCH_FN(at::%s));' % (
            op.name, "." + op.overload if op.overload else "", kernel))
    return """// Generated by bazel/codegen/gen_aten.py from aten/native_functions/*.txt.
#include "aten/Functions.h"
#include "registration/library.h"

namespace at {

// Note [BackendSelect kernels]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Factories have no tensor argument to take a backend from. Every call
// includes the BackendSelect key; these kernels add the backend key of the
// `device` argument (CPU when absent) and redispatch, so the backend's
// kernel runs next.
%s
// Note [Version bumps]
// ~~~~~~~~~~~~~~~~~~~~
// Every tensor carries ADInplaceOrView; for ops that write to an argument
// (in-place and out= ops) these kernels run the op below themselves, then
// bump the version counter of each written tensor, which all its views
// share. Autograd compares it with the version it saved.
%s
}  // namespace at

TORCH_LIBRARY(aten, m) {
%s
}

TORCH_LIBRARY_IMPL(aten, BackendSelect, m) {
%s
}

TORCH_LIBRARY_IMPL(aten, ADInplaceOrView, m) {
%s
}
""" % ("\n".join(bs_kernels), "\n".join(view_kernels), defs,
       "\n".join(bs_impls), "\n".join(view_impls))


def op_key(op):
    return op.name + ("." + op.overload if op.overload else "")


def functional_of(op, ops):
    """The functional overload an `autogen` out= overload is made from, and
    the C++ arguments of the call to it: same name, and the out= overload's
    arguments without its outs, in order, where the functional one may take
    more that default to None (_to_copy's dtype, layout, ...), passed as
    nullopt."""
    def sig(a):
        return (a.name, a.type.base, a.type.is_list, a.type.optional)
    ins = [a for a in op.args if a not in op.out_args]
    for f in ops:
        if f.name != op.name or f.is_out or any(a.type.write for a in f.args):
            continue
        call, rest = [], list(ins)
        for a in f.args:
            if rest and sig(a) == sig(rest[0]):
                call.append(rest.pop(0).name)
            elif a.default == "None":
                call.append("::std::nullopt")
            else:
                break
        else:
            if not rest:
                return f, call
    raise SystemExit("gen_aten: %s is marked autogen, but no overload of %s takes its "
                     "arguments without the outs; add that functional overload or write "
                     "the out= kernel" % (op.schema, op.name))


def emit_composite_out(ops):
    kernels, impls = [], []
    for op in ops:
        if op.autogen is None:
            continue
        if not op.is_out:
            raise SystemExit("gen_aten: %s is marked autogen but is not an out= overload "
                             "(it has no keyword-only Tensor(a!) argument)" % op.schema)
        if op.dispatch:
            raise SystemExit("gen_aten: %s is marked autogen and has dispatch entries; a "
                             "backend kernel and a generated one cannot both run. Drop "
                             "one." % op.schema)
        f, call_args = functional_of(op, ops)
        outs = op.out_args
        if len(f.returns) != len(outs) or any(t.base != "Tensor" or t.is_list
                                              for t in f.returns):
            raise SystemExit("gen_aten: %s is marked autogen, but %s returns %d values for "
                             "%d outs; write the out= kernel" % (
                                 op.schema, op_key(f), len(f.returns), len(outs)))
        kernel = "autogen_" + op.struct
        rule = {"": "Any", "exact": "Exact", "castable": "Castable"}[op.autogen]
        body = []
        for o in outs:
            body.append('  at::native::check_out_defined(%s, "%s", "%s");' % (
                o.name, op.name, o.name))
        if any(a.name == "output_mask" for a in op.args):
            body.append('  at::native::check_mask_all_true(output_mask, "%s");' % op.name)
        call = "at::_ops::%s::call(%s)" % (f.struct, ", ".join(call_args))
        if len(outs) == 1:
            results = ["result"]
            body.append("  const at::Tensor result = %s;" % call)
        else:
            body.append("  const auto all = %s;" % call)
            results = ["std::get<%d>(all)" % i for i in range(len(outs))]
            for i, r in enumerate(results):
                body.append('  at::native::check_result_defined(%s, %d, "%s");' % (
                    r, i, op.name))
        for o, r in zip(outs, results):
            body.append('  at::native::check_out_dtype(%s, %s, at::native::OutDtype::%s, '
                        '"%s", "%s");' % (o.name, r, rule, op.name, o.name))
        for o, r in zip(outs, results):
            body.append('  at::native::copy_to_out(ks, %s, %s, "%s", "%s");' % (
                o.name, r, op.name, o.name))
        if len(outs) == 1:
            body.append("  return %s;" % outs[0].name)
        else:
            body.append("  return %s(%s);" % (ret_type(op), ", ".join(o.name for o in outs)))
        kernels.append("static %s %s(c10::DispatchKeySet ks, %s) {\n%s\n}\n" % (
            ret_type(op), kernel, params(op.args, False), "\n".join(body)))
        impls.append('  m.impl("%s", TORCH_FN(at::%s));' % (op_key(op), kernel))
    return HEADER + """#include "aten/CompositeOut.h"
#include "aten/Functions.h"
#include "registration/library.h"

namespace at {

// Note [Generated out= kernels]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// An out= overload marked `autogen` in aten/native_functions/*.txt needs no
// kernel from any backend: the kernel below runs the functional overload
// through the dispatcher (so the backend's functional kernel computes it),
// then writes each result into its out tensor with the backend's copy_
// (a redispatch with the keys this kernel was called with), after
// resize_output. The result is computed before anything is written, so an
// out tensor may alias an input. aten/CompositeOut.h has the checks and the
// dtype rules.
%s
}  // namespace at

TORCH_LIBRARY_IMPL(aten, CompositeExplicitAutograd, m) {
%s
}
""" % ("\n".join(kernels), "\n".join(impls))


def backend_kernels(ops, key, namespace):
    """(namespace, name, op) for each op with a `key` kernel."""
    out = []
    for op in ops:
        kernel = op.dispatch.get(key)
        if kernel is None:
            continue
        ns, _, name = kernel.rpartition("::")
        out.append((ns or namespace, name, op))
    return out


def emit_backend_header(ops, key, namespace):
    by_ns = {}
    for ns, name, op in backend_kernels(ops, key, namespace):
        decl = "%s %s(%s);  // %s" % (ret_type(op), name, params(op.args, False), op_key(op))
        by_ns.setdefault(ns, []).append(decl)
    parts = []
    for ns in sorted(by_ns):
        parts.append("namespace %s {\n\n%s\n\n}  // namespace %s\n" % (
            ns, "\n".join(by_ns[ns]), ns))
    return HEADER + (
        "// The %s kernels named by `dispatch=%s:...` entries, declared with their\n"
        "// schemas' C++ signatures: a definition whose signature differs is another\n"
        "// function, and Register%s.cc then fails to build or link.\n"
        "#pragma once\n\n#include <optional>\n#include <tuple>\n#include <vector>\n\n"
        "#include \"aten/Operators.h\"\n\n%s") % (key, key, key, "\n".join(parts))


def emit_backend_registration(ops, key, namespace, header):
    impls = []
    for ns, name, op in backend_kernels(ops, key, namespace):
        impls.append('  m.impl("%s", TORCH_FN(%s::%s));' % (op_key(op), ns, name))
    return HEADER + """#include "%s"
#include "registration/library.h"

TORCH_LIBRARY_IMPL(aten, %s, m) {
%s
}
""" % (header, key, "\n".join(impls))


HEADER = "// Generated by bazel/codegen/gen_aten.py from aten/native_functions/*.txt.\n"


def main():
    # Inputs are the .txt files, read in name order; outputs the rest, after
    # the --backend/--namespace/--header options.
    argv, options = [], {}
    args = iter(sys.argv[1:])
    for a in args:
        if a in ("--backend", "--namespace", "--header"):
            options[a[2:]] = next(args, None)
        else:
            argv.append(a)
    srcs = sorted(a for a in argv if a.endswith(".txt"))
    outputs = [a for a in argv if not a.endswith(".txt")]
    ops = []
    for src in srcs:
        with open(src) as f:
            for line in f:
                line = line.split("#", 1)[0].strip()
                if line:
                    ops.append(Op(line))
    seen = set()
    for op in ops:
        if op.struct in seen:
            raise SystemExit("gen_aten: operator %s is listed twice" % op.struct)
        seen.add(op.struct)
    backend = options.get("backend")
    if backend is not None:
        namespace, header = options.get("namespace"), options.get("header")
        if not namespace or not header:
            raise SystemExit("gen_aten: --backend needs --namespace and --header")
        texts = {
            backend + "Kernels.h": emit_backend_header(ops, backend, namespace),
            "Register%s.cc" % backend: emit_backend_registration(ops, backend, namespace,
                                                                 header),
        }
        for path in outputs:
            with open(path, "w") as f:
                f.write(texts[os.path.basename(path)])
        return
    texts = {
        "RegisterCompositeOut.cc": emit_composite_out(ops),
        "Operators.h": HEADER + """#pragma once

#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include "aten/Tensor.h"
#include "c10/util/OptionalArrayRef.h"
#include "registration/Dispatcher.h"

namespace at {
namespace _ops {

%s
}  // namespace _ops
}  // namespace at
""" % emit_operators(ops),
        "Functions.h": HEADER + """#pragma once

#include "aten/Operators.h"
#include "aten/TensorOptions.h"

namespace at {

%s
}  // namespace at

#include "aten/TensorMethods.h"
""" % emit_functions(ops),
        "TensorMethods.inc": HEADER + emit_method_decls(ops),
        "TensorMethods.h": HEADER + """#pragma once

#include "aten/Operators.h"

namespace at {

%s
}  // namespace at
""" % emit_method_defs(ops),
        "RegisterSchemas.cc": emit_registrations(ops),
    }
    for k in range(OPERATOR_SHARDS):
        texts["Operators_%d.cc" % k] = emit_operator_defs(ops, k, OPERATOR_SHARDS)
    for path in outputs:
        name = os.path.basename(path)
        with open(path, "w") as f:
            f.write(texts[name])


if __name__ == "__main__":
    main()
