// tests/registration/function_schema_test.cc — proves the behaviour of
// registration/FunctionSchema.h and registration/schema_parser.h: every field
// of real PyTorch schemas, canonical printing and its round trip, names, and
// every error path with its message and caret.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <sstream>
#include <string>
#include <unordered_set>
#include <variant>
#include <vector>

#include "c10/util/Exception.h"
#include "registration/FunctionSchema.h"
#include "registration/schema_parser.h"
#include "tests/support/error_of.h"

namespace {

using ember_test::errorOf;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;
using c10::BaseType;
using c10::DefaultValue;
using c10::TypeSpec;
using Kind = c10::DefaultValue::Kind;

std::string schemaError(const std::string& text) {
  return errorOf([&] { c10::parseSchema(text); });
}

// The shown text from the caret on: the message ends with "\n  <text>\n  
// <spaces>^", so this is what the caret points at.
std::string atCaret(const std::string& msg) {
  const size_t caret_line = msg.rfind('\n');
  const size_t text_line = msg.rfind('\n', caret_line - 1);
  if (caret_line == std::string::npos || text_line == std::string::npos) {
    return "<no caret in: " + msg + ">";
  }
  const std::string text = msg.substr(text_line + 3, caret_line - text_line - 3);
  const std::string caret = msg.substr(caret_line + 3);
  if (caret.empty() || caret.back() != '^') return "<bad caret line>";
  const size_t col = caret.size() - 1;
  return col <= text.size() ? text.substr(col) : "<caret past the text>";
}

// ---- Real schemas: text as PyTorch writes it, and our canonical print ----

struct Case {
  const char* text;
  const char* canonical;  // nullptr: same as text
};

const Case kPyTorchSchemas[] = {
    {"aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor", nullptr},
    {"aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)", nullptr},
    {"aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)", nullptr},
    {"aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)", nullptr},
    {"aten::conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, int[2] padding=0, int[2] dilation=1, int groups=1) -> Tensor",
     "aten::conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=[1, 1], int[2] padding=[0, 0], int[2] dilation=[1, 1], int groups=1) -> Tensor"},
    {"aten::batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool training, float momentum, float eps, bool cudnn_enabled) -> Tensor", nullptr},
    {"aten::layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, bool cudnn_enable=True) -> Tensor",
     "aten::layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1e-05, bool cudnn_enable=True) -> Tensor"},
    {"aten::nll_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean, SymInt ignore_index=-100) -> Tensor",
     "aten::nll_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, int ignore_index=-100) -> Tensor"},
    {"aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor", nullptr},
    {"aten::cat(Tensor[] tensors, int dim=0) -> Tensor", nullptr},
    {"aten::index.Tensor(Tensor self, Tensor?[] indices) -> Tensor", nullptr},
    {"aten::empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor",
     "aten::empty.memory_format(int[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor"},
    {"aten::split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]",
     "aten::split.Tensor(Tensor(a -> *) self, int split_size, int dim=0) -> Tensor(a)[]"},
    {"aten::div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor", nullptr},
    {"aten::_foreach_add_.Scalar(Tensor(a!)[] self, Scalar scalar) -> ()", nullptr},
    {"aten::_assert_async(Tensor self) -> ()", nullptr},
    {"aten::native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)", nullptr},
    {"aten::mse_loss(Tensor self, Tensor target, int reduction=Mean) -> Tensor",
     "aten::mse_loss(Tensor self, Tensor target, int reduction=1) -> Tensor"},
    {"aten::gelu(Tensor self, *, str approximate='none') -> Tensor",
     "aten::gelu(Tensor self, *, str approximate=\"none\") -> Tensor"},
    {"aten::view(Tensor(a) self, SymInt[] size) -> Tensor(a)",
     "aten::view(Tensor(a) self, int[] size) -> Tensor(a)"},
    {"aten::transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)", nullptr},
    {"aten::max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> Tensor",
     "aten::max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=[0, 0], int[2] dilation=[1, 1], bool ceil_mode=False) -> Tensor"},
    {"aten::to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)", nullptr},
    {"aten::contiguous(Tensor(a) self, *, MemoryFormat memory_format=contiguous_format) -> Tensor(a)", nullptr},
    {"aten::clamp(Tensor self, Scalar? min=None, Scalar? max=None) -> Tensor", nullptr},
    {"aten::sort.values_stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False, Tensor(a!) values, Tensor(b!) indices) -> (Tensor(a!) values, Tensor(b!) indices)", nullptr},
    {"aten::native_layer_norm_backward(Tensor grad_out, Tensor input, SymInt[] normalized_shape, Tensor mean, Tensor rstd, Tensor? weight, Tensor? bias, bool[3] output_mask) -> (Tensor, Tensor, Tensor)",
     "aten::native_layer_norm_backward(Tensor grad_out, Tensor input, int[] normalized_shape, Tensor mean, Tensor rstd, Tensor? weight, Tensor? bias, bool[3] output_mask) -> (Tensor, Tensor, Tensor)"},
    {"aten::bernoulli_.float(Tensor(a!) self, float p=0.5, *, Generator? generator=None) -> Tensor(a!)", nullptr},
    {"aten::upsample_bilinear2d.vec(Tensor input, SymInt[]? output_size, bool align_corners, float[]? scale_factors) -> Tensor",
     "aten::upsample_bilinear2d.vec(Tensor input, int[]? output_size, bool align_corners, float[]? scale_factors) -> Tensor"},
    {"aten::huber_loss(Tensor self, Tensor target, int reduction=Mean, float delta=1.0) -> Tensor",
     "aten::huber_loss(Tensor self, Tensor target, int reduction=1, float delta=1.0) -> Tensor"},
    {"aten::arange.start_step(Scalar start, Scalar end, Scalar step=1, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) -> Tensor", nullptr},
    {"aten::std.correction(Tensor self, int[1]? dim=None, *, Scalar? correction=None, bool keepdim=False) -> Tensor", nullptr},
    {"aten::leaky_relu(Tensor self, Scalar negative_slope=0.01) -> Tensor", nullptr},
    {"aten::scaled_dot_product_attention(Tensor query, Tensor key, Tensor value, Tensor? attn_mask=None, float dropout_p=0.0, bool is_causal=False, *, float? scale=None, bool enable_gqa=False) -> Tensor", nullptr},
    {"aten::sym_size.int(Tensor self, int dim) -> SymInt", "aten::sym_size.int(Tensor self, int dim) -> int"},
    {"aten::pdist(Tensor input, float p=2) -> Tensor", "aten::pdist(Tensor input, float p=2.0) -> Tensor"},
    {"aten::set_data(Tensor(a!) self, Tensor new_data) -> ()", nullptr},
};

TEST(SchemaParser, PrintsEveryPyTorchSchemaCanonicallyAndStably) {
  for (const Case& c : kPyTorchSchemas) {
    SCOPED_TRACE(c.text);
    const std::string canonical = c.canonical ? c.canonical : c.text;
    const c10::FunctionSchema parsed = c10::parseSchema(c.text);
    EXPECT_EQ(parsed.str(), canonical);
    // parse(print(s)) == s, and printing is idempotent.
    const c10::FunctionSchema reparsed = c10::parseSchema(parsed.str());
    EXPECT_EQ(reparsed, parsed);
    EXPECT_EQ(reparsed.str(), canonical);
    std::ostringstream os;
    os << parsed;
    EXPECT_EQ(os.str(), canonical);
  }
}

TEST(SchemaParser, AddTensorFields) {
  const auto s = c10::parseSchema(
      "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor");
  EXPECT_EQ(s.name(), "aten::add");
  EXPECT_EQ(s.overload_name(), "Tensor");
  EXPECT_EQ(s.operator_name(), (c10::OperatorName{"aten::add", "Tensor"}));
  ASSERT_EQ(s.arguments().size(), 3u);
  const auto& self = s.arguments()[0];
  EXPECT_EQ(self.name(), "self");
  EXPECT_EQ(self.type(), TypeSpec::tensor());
  EXPECT_FALSE(self.default_value().has_value());
  EXPECT_FALSE(self.kwarg_only());
  EXPECT_FALSE(self.alias_info().has_value());
  const auto& alpha = s.arguments()[2];
  EXPECT_EQ(alpha.type(), TypeSpec::scalar());
  EXPECT_TRUE(alpha.kwarg_only());
  ASSERT_TRUE(alpha.default_value().has_value());
  EXPECT_EQ(alpha.default_value()->kind, Kind::Int);
  EXPECT_EQ(alpha.default_value()->i, 1);
  EXPECT_FALSE(alpha.is_out());
  ASSERT_EQ(s.returns().size(), 1u);
  EXPECT_EQ(s.returns()[0].name(), "");
  EXPECT_EQ(s.returns()[0].type(), TypeSpec::tensor());
  EXPECT_FALSE(s.is_mutable());
  EXPECT_FALSE(s.is_vararg());
  EXPECT_FALSE(s.is_varret());
  EXPECT_FALSE(s.has_default(0));
  EXPECT_TRUE(s.has_default(2));
  EXPECT_EQ(s.argumentIndexWithName("other"), 1);
  EXPECT_EQ(s.argumentIndexWithName("beta"), std::nullopt);
}

TEST(SchemaParser, InPlaceAndOutVariantsCarryWriteAliases) {
  const auto inplace = c10::parseSchema(
      "aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)");
  EXPECT_TRUE(inplace.is_mutable());
  EXPECT_EQ(inplace.arguments()[0].alias_info(), (c10::AliasInfo{"a", true, ""}));
  EXPECT_FALSE(inplace.arguments()[0].is_out());  // positional, not an out
  EXPECT_EQ(inplace.returns()[0].alias_info(), (c10::AliasInfo{"a", true, ""}));

  const auto out = c10::parseSchema(
      "aten::add.out(Tensor self, Tensor other, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)");
  EXPECT_EQ(out.overload_name(), "out");
  const auto& arg = out.arguments()[3];
  EXPECT_EQ(arg.name(), "out");
  EXPECT_TRUE(arg.kwarg_only());
  EXPECT_TRUE(arg.is_out());
  EXPECT_FALSE(arg.default_value().has_value());
  EXPECT_TRUE(out.is_mutable());
}

TEST(SchemaParser, NamedAndUnnamedMultipleReturns) {
  const auto max = c10::parseSchema(
      "aten::max.dim(Tensor self, int dim, bool keepdim=False) -> (Tensor values, Tensor indices)");
  ASSERT_EQ(max.returns().size(), 2u);
  EXPECT_EQ(max.returns()[0].name(), "values");
  EXPECT_EQ(max.returns()[1].name(), "indices");
  EXPECT_EQ(max.arguments()[1].type(), TypeSpec::int_());
  EXPECT_EQ(*max.arguments()[2].default_value(), DefaultValue::bool_(false));

  const auto nbn = c10::parseSchema(
      "aten::native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, "
      "Tensor? running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)");
  ASSERT_EQ(nbn.returns().size(), 3u);
  for (const auto& r : nbn.returns()) EXPECT_EQ(r.name(), "");
  EXPECT_EQ(nbn.arguments()[1].type(), TypeSpec::optional(TypeSpec::tensor()));
  EXPECT_FALSE(nbn.arguments()[1].default_value().has_value());
}

TEST(SchemaParser, SingleValueDefaultOfFixedSizeListRepeats) {
  const auto s = c10::parseSchema(
      "aten::conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, "
      "int[2] padding=0, int[2] dilation=1, int groups=1) -> Tensor");
  EXPECT_EQ(s.name(), "aten::conv2d");
  EXPECT_EQ(s.overload_name(), "");
  EXPECT_EQ(*s.arguments()[2].default_value(), DefaultValue::none());
  const auto& stride = s.arguments()[3];
  EXPECT_EQ(stride.type(), TypeSpec::list_of(TypeSpec::int_(), 2));
  EXPECT_EQ(stride.type().fixed_size, 2);
  EXPECT_EQ(*stride.default_value(), DefaultValue::int_list({1, 1}));
  EXPECT_EQ(s.arguments()[4].default_value()->ints, (std::vector<int64_t>{0, 0}));
  EXPECT_EQ(stride.str(), "int[2] stride=[1, 1]");

  // An explicit list is kept as written, even when its length differs.
  const auto pool = c10::parseSchema(
      "aten::max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[]) -> Tensor");
  EXPECT_EQ(*pool.arguments()[2].default_value(), DefaultValue::int_list({}));
  EXPECT_EQ(c10::parseSchema("f(bool[3] m=True) -> ()").arguments()[0].default_value()->bools,
            (std::vector<bool>{true, true, true}));
}

TEST(SchemaParser, FloatAndReductionDefaults) {
  const auto ln = c10::parseSchema(
      "aten::layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight=None, "
      "Tensor? bias=None, float eps=1e-05, bool cudnn_enable=True) -> Tensor");
  EXPECT_EQ(ln.arguments()[1].type(), TypeSpec::list_of(TypeSpec::int_()));
  const auto& eps = *ln.arguments()[4].default_value();
  EXPECT_EQ(eps.kind, Kind::Float);
  EXPECT_EQ(eps.f, 1e-05);
  EXPECT_EQ(eps.str(), "1e-05");
  EXPECT_EQ(*ln.arguments()[5].default_value(), DefaultValue::bool_(true));

  const auto nll = c10::parseSchema(
      "aten::nll_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=Mean, "
      "SymInt ignore_index=-100) -> Tensor");
  EXPECT_EQ(*nll.arguments()[3].default_value(), DefaultValue::int_(1));  // Mean
  EXPECT_EQ(*nll.arguments()[4].default_value(), DefaultValue::int_(-100));
  EXPECT_EQ(nll.arguments()[4].type(), TypeSpec::int_());
  EXPECT_EQ(*c10::parseSchema("f(int r=Sum) -> ()").arguments()[0].default_value(),
            DefaultValue::int_(2));
  // An int literal for a float argument becomes a Float; a Scalar keeps Int.
  EXPECT_EQ(*c10::parseSchema("f(float p=2) -> ()").arguments()[0].default_value(),
            DefaultValue::float_(2.0));
  EXPECT_EQ(*c10::parseSchema("f(Scalar p=2) -> ()").arguments()[0].default_value(),
            DefaultValue::int_(2));
  EXPECT_EQ(*c10::parseSchema("f(Scalar p=True) -> ()").arguments()[0].default_value(),
            DefaultValue::bool_(true));
}

TEST(SchemaParser, OptionalListsAndKwargOnlyDtype) {
  const auto s = c10::parseSchema(
      "aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, "
      "ScalarType? dtype=None) -> Tensor");
  const TypeSpec dim = s.arguments()[1].type();
  EXPECT_TRUE(dim.is_list);
  EXPECT_EQ(dim.fixed_size, 1);
  EXPECT_TRUE(dim.list_optional);
  EXPECT_FALSE(dim.element_optional);
  EXPECT_TRUE(dim.is_optional());
  EXPECT_EQ(dim.str(), "int[1]?");
  EXPECT_FALSE(s.arguments()[2].kwarg_only());
  EXPECT_TRUE(s.arguments()[3].kwarg_only());
  EXPECT_EQ(s.arguments()[3].type(), TypeSpec::optional(TypeSpec::of(BaseType::ScalarType)));
}

TEST(SchemaParser, TensorListsAndOptionalElements) {
  const auto cat = c10::parseSchema("aten::cat(Tensor[] tensors, int dim=0) -> Tensor");
  EXPECT_EQ(cat.arguments()[0].type(), TypeSpec::list_of(TypeSpec::tensor()));
  EXPECT_EQ(*cat.arguments()[1].default_value(), DefaultValue::int_(0));

  const auto index = c10::parseSchema("aten::index.Tensor(Tensor self, Tensor?[] indices) -> Tensor");
  const TypeSpec t = index.arguments()[1].type();
  EXPECT_TRUE(t.is_list);
  EXPECT_TRUE(t.element_optional);
  EXPECT_FALSE(t.list_optional);
  EXPECT_FALSE(t.is_optional());  // the list itself is required
  EXPECT_EQ(t, TypeSpec::list_of(TypeSpec::optional(TypeSpec::tensor())));
  EXPECT_EQ(t.element_type(), TypeSpec::optional(TypeSpec::tensor()));
  EXPECT_EQ(t.str(), "Tensor?[]");
}

TEST(SchemaParser, FactoryKwargsAllOptional) {
  const auto s = c10::parseSchema(
      "aten::empty.memory_format(SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, "
      "Device? device=None, bool? pin_memory=None, MemoryFormat? memory_format=None) -> Tensor");
  const BaseType bases[] = {BaseType::ScalarType, BaseType::Layout, BaseType::Device,
                            BaseType::Bool, BaseType::MemoryFormat};
  ASSERT_EQ(s.arguments().size(), 6u);
  for (size_t k = 0; k < 5; ++k) {
    const auto& a = s.arguments()[k + 1];
    EXPECT_EQ(a.type(), TypeSpec::optional(TypeSpec::of(bases[k])));
    EXPECT_TRUE(a.kwarg_only());
    EXPECT_EQ(a.default_value()->kind, Kind::None);
  }
}

TEST(SchemaParser, ViewAliasesAndTensorListReturns) {
  const auto split = c10::parseSchema(
      "aten::split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]");
  EXPECT_EQ(split.arguments()[0].alias_info(), (c10::AliasInfo{"a", false, "*"}));
  EXPECT_FALSE(split.is_mutable());
  const auto& ret = split.returns()[0];
  EXPECT_EQ(ret.type(), TypeSpec::list_of(TypeSpec::tensor()));
  EXPECT_EQ(ret.alias_info(), (c10::AliasInfo{"a", false, ""}));
  EXPECT_EQ(ret.str(), "Tensor(a)[]");

  const auto fe = c10::parseSchema("f(Tensor(a!)[] self, Tensor(a|b) x, Tensor(*) y, Tensor(b!)? z) -> ()");
  EXPECT_EQ(fe.arguments()[0].str(), "Tensor(a!)[] self");
  EXPECT_EQ(fe.arguments()[1].alias_info()->set, "a|b");
  EXPECT_EQ(fe.arguments()[2].alias_info()->set, "*");
  EXPECT_EQ(fe.arguments()[3].str(), "Tensor(b!)? z");
}

TEST(SchemaParser, StringOptionalAndZeroReturns) {
  const auto div = c10::parseSchema(
      "aten::div.Tensor_mode(Tensor self, Tensor other, *, str? rounding_mode) -> Tensor");
  EXPECT_EQ(div.arguments()[2].type(), TypeSpec::optional(TypeSpec::string()));
  EXPECT_FALSE(div.arguments()[2].default_value().has_value());

  const auto none = c10::parseSchema("aten::_assert_async(Tensor self) -> ()");
  EXPECT_TRUE(none.returns().empty());
  EXPECT_EQ(none.str(), "aten::_assert_async(Tensor self) -> ()");
  // `-> (Tensor)` is one unnamed return; it prints bare.
  EXPECT_EQ(c10::parseSchema("f() -> (Tensor)").str(), "f() -> Tensor");
  // A single named return keeps its parentheses (Note [Printing returns]).
  EXPECT_EQ(c10::parseSchema("f() -> Tensor out").str(), "f() -> (Tensor out)");
}

TEST(SchemaParser, StringAndIdentifierDefaults) {
  const auto gelu = c10::parseSchema("aten::gelu(Tensor self, *, str approximate='none') -> Tensor");
  EXPECT_EQ(*gelu.arguments()[1].default_value(), DefaultValue::string("none"));
  const auto esc = c10::parseSchema(R"(f(str a='it\'s', str b="q\"\\\n") -> ())");
  EXPECT_EQ(esc.arguments()[0].default_value()->s, "it's");
  EXPECT_EQ(esc.arguments()[1].default_value()->s, "q\"\\\n");
  EXPECT_EQ(c10::parseSchema(esc.str()), esc);

  const auto contig = c10::parseSchema(
      "aten::contiguous(Tensor(a) self, *, MemoryFormat memory_format=contiguous_format) -> Tensor(a)");
  const DefaultValue& d = *contig.arguments()[1].default_value();
  EXPECT_EQ(d.kind, Kind::Str);
  EXPECT_TRUE(d.identifier);
  EXPECT_EQ(d.s, "contiguous_format");
  EXPECT_EQ(d, DefaultValue::identifier_name("contiguous_format"));
  EXPECT_NE(d, DefaultValue::string("contiguous_format"));
  EXPECT_EQ(d.str(), "contiguous_format");
  EXPECT_EQ(c10::parseSchema("f(ScalarType t=long, Layout l=strided, Device d=\"cpu\") -> ()").str(),
            "f(ScalarType t=long, Layout l=strided, Device d=\"cpu\") -> ()");
}

TEST(SchemaParser, ListDefaults) {
  const auto s = c10::parseSchema(
      "f(int[] a=[0, -1], float[] b=[1, 2.5], bool[2] c=[True,False], int[]? d=None, float[] e=[]) -> ()");
  EXPECT_EQ(*s.arguments()[0].default_value(), DefaultValue::int_list({0, -1}));
  EXPECT_EQ(*s.arguments()[1].default_value(), DefaultValue::float_list({1.0, 2.5}));
  EXPECT_EQ(*s.arguments()[2].default_value(), DefaultValue::bool_list({true, false}));
  EXPECT_EQ(*s.arguments()[3].default_value(), DefaultValue::none());
  EXPECT_EQ(*s.arguments()[4].default_value(), DefaultValue::float_list({}));
  EXPECT_EQ(s.str(), "f(int[] a=[0, -1], float[] b=[1.0, 2.5], bool[2] c=[True, False], "
                     "int[]? d=None, float[] e=[]) -> ()");
}

TEST(SchemaParser, VarargsAndVarrets) {
  const auto p = c10::parseSchema("prim::Print(...) -> ()");
  EXPECT_TRUE(p.is_vararg());
  EXPECT_TRUE(p.arguments().empty());
  EXPECT_EQ(p.str(), "prim::Print(...) -> ()");
  const auto f = c10::parseSchema("aten::format(str self, ...) -> str");
  EXPECT_TRUE(f.is_vararg());
  EXPECT_EQ(f.str(), "aten::format(str self, ...) -> str");
  const auto t = c10::parseSchema("prim::TupleUnpack(Tensor t) -> ...");
  EXPECT_TRUE(t.is_varret());
  EXPECT_EQ(t.str(), "prim::TupleUnpack(Tensor t) -> ...");
  const auto r = c10::parseSchema("f(Tensor t) -> (Tensor, ...)");
  EXPECT_EQ(r.returns().size(), 1u);
  EXPECT_EQ(r.str(), "f(Tensor t) -> (Tensor, ...)");
  EXPECT_EQ(c10::parseSchema(r.str()), r);
}

TEST(SchemaParser, WhitespaceIsInsignificant) {
  EXPECT_EQ(c10::parseSchema("  aten::add.Tensor (\n  Tensor  self ,\tTensor other,*,Scalar alpha = 1 )->Tensor  "),
            c10::parseSchema("aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor"));
}

// ---- Float defaults print as Python's repr and read back exactly ----

TEST(DefaultValue, FloatsPrintShortestAndRoundTrip) {
  const std::pair<double, const char*> cases[] = {
      {1e-05, "1e-05"}, {0.5, "0.5"}, {1.0, "1.0"}, {2.0, "2.0"}, {0.1, "0.1"},
      {-0.5, "-0.5"}, {0.0001, "0.0001"}, {1e16, "1e+16"}, {1e15, "1000000000000000.0"},
      {123.456, "123.456"}, {1.5e-07, "1.5e-07"}, {-0.0, "-0.0"}, {1.0 / 3, "0.3333333333333333"},
      {std::numeric_limits<double>::max(), "1.7976931348623157e+308"},
      {std::numeric_limits<double>::denorm_min(), "5e-324"},
      {std::numeric_limits<double>::infinity(), "inf"},
      {-std::numeric_limits<double>::infinity(), "-inf"}};
  for (const auto& [value, text] : cases) {
    SCOPED_TRACE(text);
    EXPECT_EQ(DefaultValue::float_(value).str(), text);
    const double back =
        c10::parseSchema(std::string("f(float x=") + text + ") -> ()").arguments()[0].default_value()->f;
    EXPECT_EQ(std::memcmp(&back, &value, sizeof(double)), 0);  // bit-exact, sign of zero included
  }
  const auto nan = c10::parseSchema("f(float x=nan) -> ()").arguments()[0].default_value();
  EXPECT_TRUE(std::isnan(nan->f));
  EXPECT_EQ(nan->str(), "nan");
  EXPECT_EQ(*nan, DefaultValue::float_(std::nan("")));  // NaN equals NaN here
}

TEST(DefaultValue, AcceptsPythonFloatSpellings) {
  const std::pair<const char*, double> cases[] = {
      {"2.", 2.0}, {".5", 0.5}, {"-.5", -0.5}, {"1E3", 1000.0}, {"1e+3", 1000.0},
      {"-1e-05", -1e-05}, {"1e-400", 0.0}};
  for (const auto& [text, value] : cases) {
    SCOPED_TRACE(text);
    EXPECT_EQ(c10::parseSchema(std::string("f(float x=") + text + ") -> ()")
                  .arguments()[0].default_value()->f,
              value);
  }
}

// ---- TypeSpec, OperatorName, Argument, FunctionSchema built in code ----

TEST(TypeSpec, PrintsAndBuildsEverySuffixForm) {
  EXPECT_EQ(TypeSpec::tensor().str(), "Tensor");
  EXPECT_EQ(TypeSpec::optional(TypeSpec::float_()).str(), "float?");
  EXPECT_EQ(TypeSpec::list_of(TypeSpec::bool_(), 3).str(), "bool[3]");
  EXPECT_EQ(TypeSpec::optional(TypeSpec::list_of(TypeSpec::int_(), 2)).str(), "int[2]?");
  EXPECT_EQ(TypeSpec::optional(TypeSpec::list_of(TypeSpec::optional(TypeSpec::tensor()))).str(),
            "Tensor?[]?");
  EXPECT_EQ(TypeSpec{BaseType::Int}, TypeSpec::int_());
  EXPECT_NE(TypeSpec::list_of(TypeSpec::int_(), 2), TypeSpec::list_of(TypeSpec::int_()));
  EXPECT_EQ(TypeSpec::optional(TypeSpec::optional(TypeSpec::int_())), TypeSpec::optional(TypeSpec::int_()));
  EXPECT_TRUE(TypeSpec::optional(TypeSpec::int_()).is_optional());
  std::ostringstream os;
  os << TypeSpec::of(BaseType::MemoryFormat) << " " << BaseType::Generator;
  EXPECT_EQ(os.str(), "MemoryFormat Generator");
  EXPECT_THAT(errorOf([] { TypeSpec::list_of(TypeSpec::list_of(TypeSpec::int_())); }),
              HasSubstr("TypeSpec::list_of: the element type int[] is already a list"));
  EXPECT_THAT(errorOf([] { TypeSpec::list_of(TypeSpec::int_(), 0); }),
              HasSubstr("fixed_size must be -1 (any length) or positive, but got 0"));
}

TEST(OperatorName, NamespaceAndPrinting) {
  c10::OperatorName n{"add", "Tensor"};
  EXPECT_EQ(n.getNamespace(), std::nullopt);
  EXPECT_TRUE(n.setNamespaceIfNotSet("aten"));
  EXPECT_EQ(n.str(), "aten::add.Tensor");
  EXPECT_EQ(n.getNamespace(), std::optional<std::string_view>("aten"));
  EXPECT_FALSE(n.setNamespaceIfNotSet("other"));
  EXPECT_EQ(n.name, "aten::add");
  EXPECT_EQ((c10::OperatorName{"aten::relu", ""}).str(), "aten::relu");
  std::unordered_set<c10::OperatorName> set{{"aten::add", "Tensor"}, {"aten::add", ""},
                                           {"aten::add", "Tensor"}};
  EXPECT_EQ(set.size(), 2u);
}

TEST(SchemaParser, ParseNameAndParseSchemaOrName) {
  EXPECT_EQ(c10::parseName("aten::add.Tensor"), (c10::OperatorName{"aten::add", "Tensor"}));
  EXPECT_EQ(c10::parseName("myop"), (c10::OperatorName{"myop", ""}));
  EXPECT_EQ(c10::parseName("aten::__and__.Scalar").str(), "aten::__and__.Scalar");

  auto name = c10::parseSchemaOrName("aten::add.Tensor");
  ASSERT_TRUE(std::holds_alternative<c10::OperatorName>(name));
  EXPECT_EQ(std::get<c10::OperatorName>(name), (c10::OperatorName{"aten::add", "Tensor"}));
  auto schema = c10::parseSchemaOrName("aten::relu(Tensor self) -> Tensor");
  ASSERT_TRUE(std::holds_alternative<c10::FunctionSchema>(schema));
  EXPECT_EQ(std::get<c10::FunctionSchema>(schema).name(), "aten::relu");

  auto mine = c10::parseSchema("relu(Tensor self) -> Tensor");
  EXPECT_TRUE(mine.setNamespaceIfNotSet("myns"));
  EXPECT_EQ(mine.str(), "myns::relu(Tensor self) -> Tensor");
  const auto clone = mine.cloneWithName("myns::relu2", "out");
  EXPECT_EQ(clone.str(), "myns::relu2.out(Tensor self) -> Tensor");
  EXPECT_NE(clone, mine);
}

TEST(FunctionSchema, BuiltInCodeMatchesParsed) {
  const c10::FunctionSchema built(
      "aten::add", "out",
      {c10::Argument("self", TypeSpec::tensor()),
       c10::Argument("alpha", TypeSpec::scalar(), DefaultValue::int_(1), /*kwarg_only=*/true),
       c10::Argument("out", TypeSpec::tensor(), std::nullopt, true, c10::AliasInfo{"a", true, ""})},
      {c10::Argument("", TypeSpec::tensor(), std::nullopt, false, c10::AliasInfo{"a", true, ""})});
  EXPECT_EQ(built.str(), "aten::add.out(Tensor self, *, Scalar alpha=1, Tensor(a!) out) -> Tensor(a!)");
  EXPECT_EQ(built, c10::parseSchema(built.str()));
  // An unnamed schema, as infer_schema builds one.
  const c10::FunctionSchema anon("", "", {c10::Argument("_0", TypeSpec::tensor())}, {});
  EXPECT_EQ(anon.str(), "(Tensor _0) -> ()");
}

TEST(FunctionSchema, ConstructorRejectsInconsistentSignatures) {
  const auto t = TypeSpec::tensor();
  EXPECT_THAT(errorOf([&] { c10::FunctionSchema("f", "", {c10::Argument("x", t), c10::Argument("x", t)}, {}); }),
              HasSubstr("FunctionSchema: f has two arguments named 'x'. Give every argument a distinct name."));
  EXPECT_THAT(errorOf([&] {
                c10::FunctionSchema("f", "", {c10::Argument("a", t, std::nullopt, true), c10::Argument("b", t)}, {});
              }),
              HasSubstr("positional argument 'b' follows a keyword-only argument"));
  EXPECT_THAT(errorOf([&] {
                c10::FunctionSchema("f", "", {}, {c10::Argument("r", TypeSpec::int_(), DefaultValue::int_(1))});
              }),
              HasSubstr("return 'int r=1' has a default or is keyword-only"));
  EXPECT_THAT(errorOf([&] { c10::FunctionSchema("f", "", {}, {c10::Argument("r", t), c10::Argument("r", t)}); }),
              HasSubstr("has two returns named 'r'"));
  const auto s = c10::parseSchema("f(Tensor a) -> ()");
  EXPECT_THAT(errorOf([&] { s.has_default(1); }),
              HasSubstr("FunctionSchema::has_default: index 1 is out of range for f, which has 1 arguments."));
}

TEST(Argument, ConstructorChecksDefaultsAndAliases) {
  EXPECT_THAT(errorOf([] { c10::Argument("x", TypeSpec::int_(), DefaultValue::bool_(true)); }),
              HasSubstr("Argument: default True does not fit type int of 'x'"));
  EXPECT_THAT(errorOf([] { c10::Argument("x", TypeSpec::int_(), DefaultValue::none()); }),
              HasSubstr("None needs an optional type"));
  EXPECT_THAT(errorOf([] { c10::Argument("x", TypeSpec::of(BaseType::Layout), DefaultValue::string("strided")); }),
              HasSubstr("expected an identifier such as contiguous_format"));
  EXPECT_THAT(errorOf([] { c10::Argument("x", TypeSpec::int_(), std::nullopt, false, c10::AliasInfo{"a", true, ""}); }),
              HasSubstr("Argument: 'x' of type int has alias annotation (a!); only Tensor types carry one."));
  EXPECT_EQ(c10::Argument("x", TypeSpec::float_(), DefaultValue::float_(0.5)).str(), "float x=0.5");
}

// ---- Error paths: message and caret ----

TEST(SchemaParserErrors, MissingCommaPointsAtNextArgument) {
  const std::string msg = schemaError("aten::foo(Tensor self Tensor other) -> Tensor");
  EXPECT_THAT(msg, StartsWith("parseSchema: expected ',' or ')' after argument 'self', but found "
                              "'Tensor' at column 23. Separate arguments with ','"));
  EXPECT_THAT(msg, HasSubstr("\n  aten::foo(Tensor self Tensor other) -> Tensor\n  " +
                             std::string(22, ' ') + "^"));
  EXPECT_EQ(atCaret(msg), "Tensor other) -> Tensor");
}

TEST(SchemaParserErrors, UnknownTypeListsKnownTypesAndSuggests) {
  const std::string msg = schemaError("aten::foo(Tensr self) -> Tensor");
  EXPECT_THAT(msg, HasSubstr("parseSchema: unknown type 'Tensr' at column 11. Expected one of Tensor, "
                             "int, float, bool, str, Scalar, ScalarType, Device, Layout, "
                             "MemoryFormat, Generator, SymInt; did you mean 'Tensor'?"));
  EXPECT_EQ(atCaret(msg), "Tensr self) -> Tensor");
  const std::string far = schemaError("f(Banana b) -> ()");
  EXPECT_THAT(far, HasSubstr("unknown type 'Banana'"));
  EXPECT_THAT(far, Not(HasSubstr("did you mean")));
  EXPECT_THAT(schemaError("f() -> tensor"), HasSubstr("did you mean 'Tensor'?"));
}

TEST(SchemaParserErrors, DuplicateNames) {
  const std::string msg = schemaError("f(Tensor x, int x) -> Tensor");
  EXPECT_THAT(msg, StartsWith("parseSchema: duplicate argument name 'x' (first used at column 10) "
                              "at column 17. Give every argument a distinct name."));
  EXPECT_EQ(atCaret(msg), "x) -> Tensor");
  const std::string ret = schemaError("f() -> (Tensor a, Tensor a)");
  EXPECT_THAT(ret, HasSubstr("duplicate return name 'a'"));
  EXPECT_EQ(atCaret(ret), "a)");
}

TEST(SchemaParserErrors, DefaultsThatDoNotFitTheirType) {
  struct E {
    const char* schema;
    const char* message;
    const char* caret;
  };
  const E cases[] = {
      {"f(int x=True) -> ()", "default True does not fit type 'int' of argument 'x' at column 9. "
                              "Write an integer", "True) -> ()"},
      {"f(bool b=1.5) -> ()", "default 1.5 does not fit type 'bool' of argument 'b' at column 10. "
                              "Write True or False.", "1.5) -> ()"},
      {"f(float x='a') -> ()", "default 'a' does not fit type 'float'", "'a') -> ()"},
      {"f(int x=None) -> ()", "None needs an optional type such as 'int?'", "None) -> ()"},
      {"f(int[] x=None) -> ()", "None needs an optional type such as 'int[]?'", "None) -> ()"},
      {"f(int[] x=1) -> ()", "a single value is only allowed for fixed-size lists", "1) -> ()"},
      {"f(int[] x=[1, True]) -> ()", "default True does not fit type 'int[]'", "True]) -> ()"},

      {"f(Tensor x=1) -> ()", "A Tensor argument can only default to None", "1) -> ()"},
      {"f(Generator? g=[]) -> ()", "A Generator argument can only default to None", "[]) -> ()"},
      {"f(Tensor[] x=[]) -> ()", "Only int[], float[] and bool[] take a list default", "[]) -> ()"},
      {"f(str s=mean) -> ()", "Write a quoted string such as \"mean\"", "mean) -> ()"},
      {"f(ScalarType t=1) -> ()", "Write a name such as long, strided or contiguous_format", "1) -> ()"},
      {"f(Scalar s='x') -> ()", "Write a number or True or False", "'x') -> ()"},
      {"f(int x=Average) -> ()", "or Mean or Sum for a reduction", "Average) -> ()"},
      {"f(int[2000] x=0) -> ()", "A single value is repeated for at most 1024 entries", "0) -> ()"},
  };
  for (const E& c : cases) {
    SCOPED_TRACE(c.schema);
    const std::string msg = schemaError(c.schema);
    EXPECT_THAT(msg, HasSubstr(c.message));
    EXPECT_EQ(atCaret(msg), c.caret);
  }
}

TEST(SchemaParserErrors, StructuralMistakes) {
  struct E {
    const char* schema;
    const char* message;
    const char* caret;
  };
  const E cases[] = {
      {"f(Tensor x)", "expected '->' after the argument list, but found the end of the text at "
                      "column 12. Every schema declares its returns", ""},
      {"f(Tensor) -> Tensor", "expected an argument name after type 'Tensor', but found ')'",
       ") -> Tensor"},
      {"f(Tensor x,) -> ()", "expected a type such as Tensor or int, but found ')'", ") -> ()"},
      {"f() -> Tensor x y", "unexpected 'y' after the returns", "y"},
      {"f() -> Tensor x=1", "a default value on a return", "=1"},
      {"f() -> (Tensor a Tensor b)", "expected ',' or ')' after a return, but found 'Tensor'",
       "Tensor b)"},
      {"f(*, int a, *, int b) -> ()", "a second '*'", "*, int b) -> ()"},
      {"f(int a, *) -> ()", "expected ',' after '*', but found ')'", ") -> ()"},
      {"f(int a, ..., int b) -> ()", "expected ')' after '...', but found ','", ", int b) -> ()"},
      {"f() -> (..., Tensor)", "'...' must be the last return", ", Tensor)"},
      {"f(int(a) x) -> ()", "alias annotation on type 'int'", "(a) x) -> ()"},
      {"f(Tensor?(a!) x) -> ()", "alias annotation after 'Tensor?' at column 10. Put it right after",
       "(a!) x) -> ()"},
      {"f(Tensor(a! x) -> ()", "expected ')' to close the alias annotation, but found 'x'", "x) -> ()"},
      {"f(Tensor(!) x) -> ()", "expected an alias set name, but found '!'", "!) x) -> ()"},
      {"f(int[][] x) -> ()", "type 'int[]' followed by '[' at column 8. Nested lists", "[] x) -> ()"},
      {"f(int?? x) -> ()", "type 'int?' followed by '?'", "? x) -> ()"},
      {"f(int[0] x) -> ()", "list size 0 is not positive", "0] x) -> ()"},
      {"f(int[2 x) -> ()", "expected ']' to close the list type, but found 'x'", "x) -> ()"},
      {"f(int[] x=[1 2]) -> ()", "expected ',' or ']' in a list default, but found '2'", "2]) -> ()"},
      {"f(int x=) -> ()", "expected a default value, but found ')'", ") -> ()"},
      {"f(int[] x=[[1]]) -> ()", "a list inside a list default", "[1]]) -> ()"},
      {"aten::add -> Tensor", "expected '(' after the operator name 'aten::add', but found '->'",
       "-> Tensor"},
      {"a::b::c() -> ()", "a second '::' in operator name 'a::b'", "::c() -> ()"},
      {"aten::(Tensor x) -> ()", "expected an operator name after 'aten::', but found '('",
       "(Tensor x) -> ()"},
      {"aten::add.(Tensor x) -> ()", "expected an overload name after '.', but found '('",
       "(Tensor x) -> ()"},
      {"(Tensor x) -> ()", "expected an operator name such as aten::add, but found '('",
       "(Tensor x) -> ()"},
      {"", "expected an operator name such as aten::add, but found the end of the text at column 1",
       ""},
  };
  for (const E& c : cases) {
    SCOPED_TRACE(c.schema);
    const std::string msg = schemaError(c.schema);
    EXPECT_THAT(msg, StartsWith("parseSchema: "));
    EXPECT_THAT(msg, HasSubstr(c.message));
    EXPECT_EQ(atCaret(msg), c.caret);
  }
}

TEST(SchemaParserErrors, LexicalMistakes) {
  struct E {
    const char* schema;
    const char* message;
    const char* caret;
  };
  const E cases[] = {
      {"f(Tensor @x) -> ()", "unexpected character '@' at column 10", "@x) -> ()"},
      {"f(str s=\"abc) -> ()", "unterminated string at column 9. Close it with a matching double quote.",
       "\"abc) -> ()"},
      {"f(str s='a\\qb') -> ()", "unknown escape '\\q'", "\\qb') -> ()"},
      {"f(float x=1e) -> ()", "malformed number '1e': the exponent has no digits", "1e) -> ()"},
      {"f(int x=2x) -> ()", "malformed number '2x'", "2x) -> ()"},
      {"f(int x=99999999999999999999) -> ()", "integer 99999999999999999999 does not fit in 64 bits",
       "99999999999999999999) -> ()"},
      {"f(float x=1e999) -> ()", "float 1e999 is out of the range of a double", "1e999) -> ()"},
      {"f(a:b x) -> ()", "unexpected character ':'", ":b x) -> ()"},
  };
  for (const E& c : cases) {
    SCOPED_TRACE(c.schema);
    const std::string msg = schemaError(c.schema);
    EXPECT_THAT(msg, HasSubstr(c.message));
    EXPECT_EQ(atCaret(msg), c.caret);
  }
}

TEST(SchemaParserErrors, MultiLineSchemaShowsOneLineWithAlignedCaret) {
  const std::string msg = schemaError("f(Tensor a,\n\tTensr b) -> ()");
  EXPECT_THAT(msg, HasSubstr("unknown type 'Tensr' at column 14"));
  EXPECT_THAT(msg, HasSubstr("\n  f(Tensor a,  Tensr b) -> ()\n  "));
  EXPECT_EQ(atCaret(msg), "Tensr b) -> ()");
}

TEST(SchemaParserErrors, ParseNameRejectsSchemasAndBadNames) {
  const std::string msg = errorOf([] { c10::parseName("aten::add.Tensor(Tensor a) -> ()"); });
  EXPECT_THAT(msg, StartsWith("parseName: unexpected '(' after the operator name at column 17. "
                              "parseName takes only a name such as aten::add.Tensor; use parseSchema "
                              "for a full schema."));
  EXPECT_EQ(atCaret(msg), "(Tensor a) -> ()");
  EXPECT_THAT(errorOf([] { c10::parseName(""); }),
              StartsWith("parseName: expected an operator name such as aten::add, but found the end"));
  EXPECT_THAT(errorOf([] { c10::parseName("aten::add.Tensor extra"); }),
              HasSubstr("unexpected 'extra' after the operator name"));
  const std::string either = errorOf([] { c10::parseSchemaOrName("aten::add.Tensor("); });
  EXPECT_THAT(either, StartsWith("parseSchemaOrName: expected a type such as Tensor or int, but found "
                                 "the end of the text at column 18."));
  EXPECT_EQ(atCaret(either), "");
}

}  // namespace
