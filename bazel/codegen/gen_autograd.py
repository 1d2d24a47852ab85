#!/usr/bin/env python3
"""Generates the autograd kernels from autograd/derivatives.txt.

derivatives.txt lists, for each differentiable op (by its schema name, as in
aten/native_functions/*.txt), one indented line per differentiable input:

  mul.Tensor
    self: mul_tensor_backward(grad, other, self.scalar_type())
    other: mul_tensor_backward(grad, self, other.scalar_type())

A formula is C++ evaluated in the backward Node, with the op's arguments by
name (tensors are saved for the backward only if a formula uses them;
`X.sizes()`, `X.strides()`, `X.storage_offset()`, `X.scalar_type()`,
`X.dim()`, `X.numel()` and `X.options()` of a tensor argument save just
that), `grad` (the gradient of the first
output), `grads[i]`, and `result` / `resultN` (the outputs). Helpers live in
autograd/FunctionsManual.h. Other indented lines:

    output_differentiability: True, False   per output (default: all True)

An op listed with `| nondifferentiable` gets a fallthrough kernel (no
history, e.g. comparisons); ops not listed at all get the autograd fallback,
which raises "the derivative for ... is not implemented" when a gradient
reaches them.

For each entry the generator also covers the op's in-place variant (name_,
same overload), reusing the Node, and every `.out` variant of the op's base
name gets a kernel that refuses inputs requiring grad (as PyTorch does).

Outputs: Functions.h (the Node classes) and VariableType.cc (the kernels
and their TORCH_LIBRARY_IMPL(aten, Autograd, m) registration).

Usage: gen_autograd.py derivatives.txt native_functions/*.txt... OUT_DIR_FILES
"""
import importlib.util
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("gen_aten", os.path.join(HERE, "gen_aten.py"))
gen_aten = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen_aten)

ATTRS = ("sizes", "strides", "storage_offset", "scalar_type", "dim", "numel", "options")


class Entry:
    def __init__(self, name, flags):
        self.name = name
        self.flags = flags
        self.formulas = []  # (input names, formula)
        self.output_diff = None


def parse_derivatives(path):
    entries, cur = [], None
    with open(path) as f:
        for raw in f:
            line = raw.split("#", 1)[0].rstrip()
            if not line.strip():
                continue
            if not line.startswith(" "):
                name, *flags = [p.strip() for p in line.split("|")]
                cur = Entry(name, set(flags))
                entries.append(cur)
                continue
            key, _, formula = line.strip().partition(":")
            key, formula = key.strip(), formula.strip()
            if key == "output_differentiability":
                cur.output_diff = [v.strip() == "True" for v in formula.split(",")]
            else:
                cur.formulas.append(([k.strip() for k in key.split(",")], formula))
    return entries


def camel(name):
    return "".join(p[:1].upper() + p[1:] for p in name.strip("_").split("_"))


def uses(formula, name):
    return re.search(r"(?<![\w.])%s(?!\w)" % re.escape(name), formula) is not None


def uses_whole(formula, name):
    """Whether `name` is used other than as name.attr() for a saved attr."""
    stripped = re.sub(r"(?<![\w.])%s\.(%s)\(\)" % (re.escape(name), "|".join(ATTRS)), "", formula)
    return uses(stripped, name)


SAVED_TYPES = {
    "int": "int64_t", "float": "double", "bool": "bool", "Scalar": "at::Scalar",
    "ScalarType": "at::ScalarType", "str": "std::string", "Layout": "at::Layout",
    "Device": "at::Device", "MemoryFormat": "at::MemoryFormat",
}


def saved_type(t):
    if t.is_list:
        if t.base == "int":
            return "std::optional<std::vector<int64_t>>" if t.optional else "std::vector<int64_t>"
        if t.base == "float":
            return "std::vector<double>"
        if t.base == "bool":
            return "std::vector<bool>"
        raise SystemExit("gen_autograd: cannot save a %s[] argument" % t.base)
    base = SAVED_TYPES.get(t.base)
    if base is None:
        raise SystemExit("gen_autograd: cannot save an argument of type %s" % t.base)
    return "std::optional<%s>" % base if t.optional else base


def save_expr(arg):
    t = arg.type
    if t.is_list and t.base == "int":
        if t.optional:
            return "%s.has_value() ? std::optional<std::vector<int64_t>>(%s->vec()) : std::nullopt" % (
                arg.name, arg.name)
        return "%s.vec()" % arg.name
    if t.is_list and t.base == "bool":  # bool[N] arrives as a std::vector<bool>
        return "std::vector<bool>(%s.begin(), %s.end())" % (arg.name, arg.name)
    if t.is_list:
        return "%s.vec()" % arg.name
    if t.base == "str":
        if t.optional:
            return "%s.has_value() ? std::optional<std::string>(std::string(*%s)) : std::nullopt" % (
                arg.name, arg.name)
        return "std::string(%s)" % arg.name
    return arg.name


def local_expr(arg):
    """How apply() rebuilds the argument from what was saved."""
    t = arg.type
    if t.base == "Tensor":
        return "%s_" % arg.name
    if t.is_list and t.base == "int" and t.optional:
        return "%s_ ? at::OptionalIntArrayRef(*%s_) : at::OptionalIntArrayRef()" % (arg.name, arg.name)
    if t.is_list and t.base == "int":
        return "at::IntArrayRef(%s_)" % arg.name
    return "%s_" % arg.name


ATTR_TYPES = {"sizes": "std::vector<int64_t>", "strides": "std::vector<int64_t>",
              "storage_offset": "int64_t", "scalar_type": "at::ScalarType",
              "dim": "int64_t", "numel": "int64_t", "options": "at::TensorOptions"}
ATTR_SAVE = {"sizes": "%s.sizes().vec()", "strides": "%s.strides().vec()",
             "storage_offset": "%s.storage_offset()", "scalar_type": "%s.scalar_type()",
             "dim": "%s.dim()", "numel": "%s.numel()", "options": "%s.options()"}


class Gen:
    def __init__(self, entry, op, node_name, ops_by_struct):
        self.e = entry
        self.op = op
        self.node = node_name
        self.all_formulas = " ".join(f for _, f in entry.formulas)
        tensor_args = [a for a in op.args if a.type.base == "Tensor" and not a.type.write]
        self_write = [a for a in op.args if a.type.base == "Tensor" and a.type.write]
        names = {a.name: a for a in op.args}
        self.diff_inputs = []
        for inputs, formula in entry.formulas:
            for n in inputs:
                if n not in names:
                    raise SystemExit("gen_autograd: %s has no argument '%s'" % (entry.name, n))
                self.diff_inputs.append((n, formula, len(inputs) > 1, inputs))
        # A tensor input without a formula still gets an edge: a backward
        # that needs its gradient raises instead of silently skipping it.
        listed = {d[0] for d in self.diff_inputs}
        for a in op.args:
            if a.type.base == "Tensor" and not a.type.is_list and a.name not in listed:
                self.diff_inputs.append((a.name, 'not_implemented("%s", "%s")' % (
                    entry.name, a.name), False, [a.name]))
        order = [a.name for a in op.args]
        self.diff_inputs.sort(key=lambda d: order.index(d[0]))
        self.names = names
        self.nret = len(op.returns)
        self.list_return = self.nret == 1 and op.returns[0].is_list
        self.output_diff = entry.output_diff or [True] * self.nret

    # what a formula needs from the forward
    def saved(self):
        out = []  # (kind, name, cpp type, save expr)
        f = self.all_formulas
        for a in self.op.args:
            if a.type.base == "Tensor":
                if a.type.is_list and a.type.optional:
                    # Index tensors (never differentiable): kept as they are.
                    if uses(f, a.name):
                        out.append(("value", a.name, "std::vector<std::optional<at::Tensor>>",
                                    "std::vector<std::optional<at::Tensor>>(%s.begin(), %s.end())" % (
                                        a.name, a.name)))
                    continue
                if a.type.is_list:
                    if uses(f, a.name):
                        out.append(("tensorlist", a.name, None, None))
                    continue
                if uses_whole(f, a.name):
                    out.append(("tensor", a.name, None, None))
                    continue
                for attr in ATTRS:
                    if re.search(r"(?<![\w.])%s\.%s\(\)" % (a.name, attr), f):
                        cpp = ATTR_TYPES[attr]
                        if a.type.optional:
                            expr = "%s.has_value() && %s->defined() ? std::optional<%s>(%s) : std::nullopt" % (
                                a.name, a.name, cpp, ATTR_SAVE[attr] % ("(*" + a.name + ")"))
                            cpp = "std::optional<%s>" % cpp
                        else:
                            expr = ATTR_SAVE[attr] % a.name
                        out.append(("attr", "%s_%s" % (a.name, attr), cpp, expr))
            elif uses(f, a.name):
                out.append(("value", a.name, saved_type(a.type), save_expr(a)))
        if self.nret == 1 and uses(f, "result"):
            out.append(("result", "result", None, 0))
        for i in range(self.nret):
            if uses(f, "result%d" % i):
                out.append(("result", "result%d" % i, None, i))
        return out

    def formula_cpp(self, formula, inputs=None):
        if uses(formula, "grad_input_mask"):
            offsets = self.offsets()
            mask = "std::vector<bool>{%s}" % ", ".join(
                "should_compute_output(%s)" % offsets[n][0] for n in (inputs or []))
            formula = re.sub(r"(?<![\w.])grad_input_mask(?!\w)", mask, formula)
        # X.attr() -> X_attr for saved attributes
        def sub(m):
            name, attr = m.group(1), m.group(2)
            if name in self.names and self.names[name].type.base == "Tensor" \
                    and not uses_whole(self.all_formulas, name):
                return "%s_%s" % (name, attr)
            return m.group(0)
        return re.sub(r"(?<![\w.])(\w+)\.(%s)\(\)" % "|".join(ATTRS), sub, formula)

    def node_class(self):
        saved = self.saved()
        members, releases, unpacks, infos = [], [], [], []
        for kind, name, cpp, _ in saved:
            if kind in ("tensor", "result"):
                members.append("  SavedVariable %s_;" % name)
                releases.append("    %s_.reset_data();" % name)
                infos.append('    out.push_back(%s_.info("%s"));' % (name, name))
                unpacks.append("  at::Tensor %s = %s_.unpack(%s);" % (
                    name, name, "shared_from_this()" if kind == "result" else ""))
            elif kind == "tensorlist":
                members.append("  std::vector<SavedVariable> %s_;" % name)
                releases.append("    for (auto& v : %s_) v.reset_data();" % name)
                infos.append('    for (size_t i = 0; i < %s_.size(); ++i) '
                             'out.push_back(%s_[i].info("%s[" + std::to_string(i) + "]"));'
                             % (name, name, name))
                unpacks.append("  std::vector<at::Tensor> %s;\n  for (const auto& v : %s_) %s.push_back(v.unpack());" % (
                    name, name, name))
            elif kind == "attr":
                members.append("  %s %s;" % (cpp, name))
            else:
                members.append("  %s %s_;" % (cpp, name))
                arg = self.names[name]
                unpacks.append("  auto %s = %s;" % (name, local_expr(arg)))
        body = []
        body.append("variable_list %s::apply(variable_list&& grads) {" % self.node)
        body.append("  std::lock_guard<std::mutex> lock(mutex_);")
        n_out = self.num_grad_outputs()
        body.append("  variable_list grad_inputs(%s);" % n_out)
        body.append("  if (!any_defined(grads)) return grad_inputs;")
        if self.nret > 1 or self.list_return:
            body.append("  materialize_grads(*this, grads);")
        body.append("  const at::Tensor& grad = grads[0];")
        body.append("  (void)grad;")
        body.extend(unpacks)
        # offsets of each differentiable input in grad_inputs
        offsets = self.offsets()
        done = set()
        for name, formula, multi, inputs in self.diff_inputs:
            if multi:
                key = tuple(inputs)
                if key in done:
                    continue
                done.add(key)
                conds = " || ".join("should_compute_output(%s)" % offsets[n][0] for n in inputs)
                body.append("  if (%s) {" % conds)
                body.append("    auto grad_result = %s;" % self.formula_cpp(formula, inputs))
                for i, n in enumerate(inputs):
                    body.append("    if (should_compute_output(%s)) grad_inputs[%s] = std::get<%s>(grad_result);" % (
                        offsets[n][0], offsets[n][0], i))
                body.append("  }")
                continue
            start, is_list = offsets[name]
            if is_list:
                body.append("  {")
                body.append("    std::vector<at::Tensor> parts = %s;" % self.formula_cpp(formula))
                body.append("    for (size_t i = 0; i < parts.size(); ++i) {")
                body.append("      if (should_compute_output(%s + i)) grad_inputs[%s + i] = parts[i];" % (start, start))
                body.append("    }")
                body.append("  }")
            else:
                body.append("  if (should_compute_output(%s)) grad_inputs[%s] = %s;" % (
                    start, start, self.formula_cpp(formula)))
        body.append("  return grad_inputs;")
        body.append("}")
        decl = ["struct %s : Node {" % self.node,
                "  using Node::Node;",
                '  std::string name() const override { return "%s"; }' % self.node,
                "  void release_variables() override {",
                "    std::lock_guard<std::mutex> lock(mutex_);"] + releases + [
                "  }",
                "  variable_list apply(variable_list&& grads) override;"]
        if infos:
            decl += ["  std::vector<SavedTensorInfo> saved_tensors_info() const override {",
                     "    std::vector<SavedTensorInfo> out;"] + infos + [
                     "    return out;",
                     "  }"]
        decl += members
        if self.list_input():
            decl.append("  size_t %s_size_ = 0;" % self.list_input())
        decl.append("};")
        return "\n".join(decl), "\n".join(body)

    def list_input(self):
        for name, _, _, _ in self.diff_inputs:
            if self.names[name].type.is_list:
                return name
        return None

    def offsets(self):
        """grad_inputs index expression of each differentiable input."""
        out, pos = {}, "0"
        seen = []
        for name, _, _, _ in self.diff_inputs:
            if name in seen:
                continue
            seen.append(name)
            is_list = self.names[name].type.is_list
            out[name] = (pos, is_list)
            if is_list:
                pos = "%s + %s_size_" % (pos, name) if pos != "0" else "%s_size_" % name
            else:
                pos = str(int(pos) + 1) if pos.isdigit() else pos + " + 1"
        return out

    def num_grad_outputs(self):
        n, extra = 0, []
        seen = []
        for name, _, _, _ in self.diff_inputs:
            if name in seen:
                continue
            seen.append(name)
            if self.names[name].type.is_list:
                extra.append("%s_size_" % name)
            else:
                n += 1
        return " + ".join([str(n)] + extra) if extra else str(n)

    def edge_args(self):
        seen, parts = [], []
        for name, _, _, _ in self.diff_inputs:
            if name in seen:
                continue
            seen.append(name)
            a = self.names[name]
            if a.type.is_list:
                parts.append(("list", name))
            elif a.type.optional:
                parts.append(("opt", name))
            else:
                parts.append(("one", name))
        return parts

    def requires_grad_expr(self):
        items = []
        for kind, name in self.edge_args():
            if kind == "list":
                items.append("compute_requires_grad(%s)" % name)
            elif kind == "opt":
                items.append("compute_requires_grad({%s.has_value() ? &*%s : nullptr})" % (name, name))
            else:
                items.append("compute_requires_grad({&%s})" % name)
        return " || ".join(items) if items else "false"

    def edges_code(self, var):
        lines = ["    edge_list next_edges;"]
        for kind, name in self.edge_args():
            if kind == "list":
                lines.append("    %s->%s_size_ = %s.size();" % (var, name, name))
                lines.append("    for (auto& e : collect_next_edges(%s)) next_edges.push_back(std::move(e));" % name)
            elif kind == "opt":
                lines.append("    next_edges.push_back(%s.has_value() && %s->defined() ? impl::gradient_edge(*%s) : Edge());" % (
                    name, name, name))
            else:
                lines.append("    next_edges.push_back(impl::gradient_edge(%s));" % name)
        lines.append("    %s->set_next_edges(std::move(next_edges));" % var)
        return lines

    def save_code(self, var, inplace):
        lines = []
        for kind, name, cpp, expr in self.saved():
            if kind == "tensor":
                a = self.names[name]
                if inplace and a.type.write:
                    # The value before the op, with history (a clone recorded
                    # by autograd), so second derivatives see it.
                    lines.append("    %s->%s_ = SavedVariable(%s.clone(), false);" % (var, name, name))
                elif a.type.optional:
                    lines.append("    if (%s.has_value()) %s->%s_ = SavedVariable(*%s, false);" % (name, var, name, name))
                else:
                    lines.append("    %s->%s_ = SavedVariable(%s, false);" % (var, name, name))
            elif kind == "tensorlist":
                lines.append("    for (const auto& t : %s) %s->%s_.emplace_back(t, false);" % (name, var, name))
            elif kind in ("attr", "value"):
                target = name if kind == "attr" else name + "_"
                lines.append("    %s->%s = %s;" % (var, target, expr))
        return lines

    def result_save_code(self, var, outs):
        lines = []
        for kind, name, _, idx in self.saved():
            if kind == "result":
                lines.append("    %s->%s_ = SavedVariable(%s, true);" % (var, name, outs[idx]))
        return lines


def kernel_params(op):
    return ", ".join("%s %s" % (gen_aten.arg_type(a.type), a.name) for a in op.args)


def call_args(op):
    return ", ".join(a.name for a in op.args)


def functional_kernel(g, op):
    r = gen_aten.ret_type(op)
    fn = "autograd_%s" % op.struct
    lines = ["%s %s(c10::DispatchKeySet ks%s) {" % (r, fn, (", " + kernel_params(op)) if op.args else "")]
    lines.append("  const bool requires_grad = %s;" % g.requires_grad_expr())
    lines.append("  std::shared_ptr<%s> grad_fn;" % g.node)
    lines.append("  if (requires_grad) {")
    lines.append("    grad_fn = make_node<%s>();" % g.node)
    lines.extend(g.edges_code("grad_fn"))
    lines.append('    if (AnomalyMode::is_enabled()) grad_fn->set_forward_trace("aten::%s");' % (
        op.name + ("." + op.overload if op.overload else "")))
    lines.extend(g.save_code("grad_fn", False))
    lines.append("  }")
    lines.append("  auto result = [&]() {")
    lines.append("    at::AutoDispatchBelowADInplaceOrView below;")
    lines.append("    return at::_ops::%s::redispatch(ks - c10::autograd_dispatch_keyset%s);" % (
        op.struct, (", " + call_args(op)) if op.args else ""))
    lines.append("  }();")
    # View ops (a result aliasing self, not written to): record the base
    # whether or not history is recorded. See Note [In-place on views] in
    # autograd/variable.cc. detach() is not a differentiable view.
    if op.returns and op.returns[0].alias and not op.returns[0].write and op.name != "detach":
        lines.append("  %s(result, %s);" % ("mark_views" if g.list_return else "mark_view",
                                            op.args[0].name))
    lines.append("  if (grad_fn) {")
    if g.list_return:
        outs = ["result"]
        lines.append("    for (const auto& t : result) set_history(t, grad_fn);")
    elif g.nret == 1:
        outs = ["result"]
        lines.append("    set_history(result, grad_fn);")
    else:
        outs = ["std::get<%d>(result)" % i for i in range(g.nret)]
        for i in range(g.nret):
            if g.output_diff[i]:
                lines.append("    set_history(%s, grad_fn);" % outs[i])
            else:
                lines.append("    grad_fn->add_input_metadata_undefined();")
    lines.extend(g.result_save_code("grad_fn", outs))
    lines.append("  }")
    lines.append("  return result;")
    lines.append("}")
    return fn, "\n".join(lines)


def inplace_kernel(g, op):
    r = gen_aten.ret_type(op)
    fn = "autograd_%s" % op.struct
    self_name = op.args[0].name
    lines = ["%s %s(c10::DispatchKeySet ks, %s) {" % (r, fn, kernel_params(op))]
    lines.append("  const bool requires_grad = %s;" % g.requires_grad_expr().replace(
        "compute_requires_grad({&%s})" % self_name, "compute_requires_grad({&%s})" % self_name))
    # rebase_history below keeps views right (CopySlices).
    lines.append("  check_inplace(%s, requires_grad, /*rebases_views=*/true);" % self_name)
    lines.append("  std::shared_ptr<%s> grad_fn;" % g.node)
    lines.append("  if (requires_grad) {")
    lines.append("    grad_fn = make_node<%s>();" % g.node)
    lines.extend(g.edges_code("grad_fn"))
    lines.append('    if (AnomalyMode::is_enabled()) grad_fn->set_forward_trace("aten::%s");' % (
        op.name + ("." + op.overload if op.overload else "")))
    lines.extend(g.save_code("grad_fn", True))
    lines.append("  }")
    lines.append("  {")
    lines.append("    at::AutoDispatchBelowADInplaceOrView below;")
    lines.append("    at::_ops::%s::redispatch(ks - c10::autograd_dispatch_keyset, %s);" % (
        op.struct, call_args(op)))
    lines.append("  }")
    lines.append("  if (grad_fn) {")
    lines.append("    rebase_history(%s, grad_fn);" % self_name)
    lines.extend(g.result_save_code("grad_fn", [self_name]))
    lines.append("  }")
    lines.append("  return %s;" % self_name)
    lines.append("}")
    return fn, "\n".join(lines)


def out_kernel(op):
    r = gen_aten.ret_type(op)
    fn = "autograd_%s" % op.struct
    # Index lists (Tensor?[]) are never differentiable.
    tensors = [a for a in op.args if a.type.base == "Tensor"
               and not (a.type.is_list and a.type.optional)]
    checks = []
    for a in tensors:
        if a.type.is_list:
            checks.append("compute_requires_grad(%s)" % a.name)
        elif a.type.optional:
            checks.append("compute_requires_grad({%s.has_value() ? &*%s : nullptr})" % (a.name, a.name))
        else:
            checks.append("compute_requires_grad({&%s})" % a.name)
    outs = [a.name for a in op.out_args]
    ret = outs[0] if len(outs) == 1 else "std::forward_as_tuple(%s)" % ", ".join(outs)
    lines = ["%s %s(c10::DispatchKeySet ks, %s) {" % (r, fn, kernel_params(op))]
    lines.append('  TORCH_CHECK(!(%s), "%s(): functions with out=... arguments don\'t support '
                 'automatic differentiation, but one of the arguments requires grad. Call '
                 'the functional form, or use torch::NoGradGuard.");' % (
                     " || ".join(checks) or "false", op.name))
    lines.append("  {")
    lines.append("    at::AutoDispatchBelowADInplaceOrView below;")
    lines.append("    at::_ops::%s::redispatch(ks - c10::autograd_dispatch_keyset, %s);" % (
        op.struct, call_args(op)))
    lines.append("  }")
    lines.append("  return %s;" % ret)
    lines.append("}")
    return fn, "\n".join(lines)


HEADER = "// Generated by bazel/codegen/gen_autograd.py from autograd/derivatives.txt.\n"


def main():
    args = sys.argv[1:]
    deriv = [a for a in args if a.endswith("derivatives.txt")][0]
    natives = sorted(a for a in args if a.endswith(".txt") and a != deriv)
    outputs = [a for a in args if not a.endswith(".txt")]
    ops = []
    for path in natives:
        with open(path) as f:
            for line in f:
                line = line.split("#", 1)[0].strip()
                if line:
                    ops.append(gen_aten.Op(line))
    by_struct = {op.name + ("." + op.overload if op.overload else ""): op for op in ops}
    entries = parse_derivatives(deriv)

    classes, applies, kernels, regs = [], [], [], []
    counts = {}
    covered = set()
    for e in entries:
        op = by_struct.get(e.name)
        if op is None:
            raise SystemExit("gen_autograd: derivatives.txt names unknown op '%s'" % e.name)
        if "nondifferentiable" in e.flags:
            regs.append('  m.impl("%s", torch::CppFunction::makeFallthrough());' % e.name)
            covered.add(e.name)
            continue
        base = op.name.rstrip("_")
        idx = counts.get(base, 0)
        counts[base] = idx + 1
        node = "%sBackward%d" % (camel(base), idx)
        g = Gen(e, op, node, by_struct)
        decl, body = g.node_class()
        classes.append(decl)
        applies.append(body)
        if op.name.endswith("_"):
            fn, code = inplace_kernel(g, op)
        else:
            fn, code = functional_kernel(g, op)
        kernels.append(code)
        regs.append('  m.impl("%s", TORCH_FN(%s));' % (e.name, fn))
        covered.add(e.name)
        inplace_name = op.name + "_" + ("." + op.overload if op.overload else "")
        ip = by_struct.get(inplace_name)
        same_args = ip is not None and [(a.name, a.type.base, a.type.is_list) for a in ip.args] == \
            [(a.name, a.type.base, a.type.is_list) for a in op.args]
        if same_args and inplace_name not in covered:
            gi = Gen(e, ip, node, by_struct)
            fn, code = inplace_kernel(gi, ip)
            kernels.append(code)
            regs.append('  m.impl("%s", TORCH_FN(%s));' % (inplace_name, fn))
            covered.add(inplace_name)
    for name, op in by_struct.items():
        if op.is_out and name not in covered:
            fn, code = out_kernel(op)
            kernels.append(code)
            regs.append('  m.impl("%s", TORCH_FN(%s));' % (name, fn))

    texts = {}
    texts["Functions.h"] = HEADER + """// The backward Nodes of the differentiable ops. See autograd/derivatives.txt.
#pragma once

#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "aten/Tensor.h"
#include "autograd/function.h"
#include "autograd/saved_variable.h"

namespace torch {
namespace autograd {
namespace generated {

%s

}  // namespace generated
}  // namespace autograd
}  // namespace torch
""" % "\n\n".join(classes)
    texts["VariableType.cc"] = HEADER + """// The Autograd-key kernels: record a Node, save what its backward needs,
// run the op below autograd, and set the outputs' history.
#include <tuple>

#include "aten/Functions.h"
#include "aten/Operators.h"
#include "aten/TensorOperators.h"
#include "autograd/FunctionsManual.h"
#include "autograd/anomaly_mode.h"
#include "autograd/functions/basic_ops.h"
#include "autograd/generated/Functions.h"
#include "autograd/variable.h"
#include "c10/core/impl/LocalDispatchKeySet.h"
#include "registration/library.h"

namespace torch {
namespace autograd {
namespace generated {

using namespace torch::autograd::generated::details;

%s

namespace {

%s

}  // namespace
}  // namespace generated
}  // namespace autograd
}  // namespace torch

namespace {
using namespace torch::autograd;
using namespace torch::autograd::generated;

TORCH_LIBRARY_IMPL(aten, Autograd, m) {
%s
}
}  // namespace
""" % ("\n\n".join(applies), "\n\n".join(kernels), "\n".join(regs))
    for path in outputs:
        with open(path, "w") as f:
            f.write(texts[os.path.basename(path)])


if __name__ == "__main__":
    main()
