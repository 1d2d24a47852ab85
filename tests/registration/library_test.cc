// torch::Library and the TORCH_LIBRARY macros: what each registration does
// and every mistake's message.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <torch/library.h>

#include "tests/registration/test_tensors.h"

#include "tests/support/error_of.h"

using at::TensorBase;
using c10::DispatchKey;
using ember_test::makeTensor;
using ::testing::HasSubstr;
using torch::Library;

namespace {

using ember_test::errorOf;

TensorBase identity(const TensorBase& a) { return a; }
TensorBase twoArgs(const TensorBase& a, const TensorBase&) { return a; }
int64_t returnsInt(const TensorBase&) { return 7; }
std::tuple<TensorBase, TensorBase> twoReturns(const TensorBase& a) { return {a, a}; }
TensorBase takesInt(const TensorBase& a, int64_t) { return a; }

}  // namespace

// The macros, at namespace scope as users write them.
TORCH_LIBRARY(lt_macro, m) {
  m.def("unary(Tensor self) -> Tensor");
  m.def("inferred", &identity);  // schema inferred from the C++ signature
}
TORCH_LIBRARY_FRAGMENT(lt_macro, m) { m.def("more(Tensor self) -> Tensor"); }
TORCH_LIBRARY_IMPL(lt_macro, CPU, m) {
  m.impl("unary", &identity);
  m.impl("lt_macro::more", TORCH_FN(identity));
}

namespace {

TEST(Library, MacrosRegisterDefsAndKernels) {
  auto& d = c10::Dispatcher::singleton();
  auto unary = d.findSchemaOrThrow("lt_macro::unary", "");
  EXPECT_EQ(unary.schema().str(), "lt_macro::unary(Tensor self) -> Tensor");
  EXPECT_TRUE(unary.hasKernelForDispatchKey(DispatchKey::CPU));
  EXPECT_THAT(unary.debug(), HasSubstr("library_test.cc"));
  auto inferred = d.findSchemaOrThrow("lt_macro::inferred", "");
  EXPECT_EQ(inferred.schema().str(), "lt_macro::inferred(Tensor _0) -> Tensor");
  const TensorBase t = makeTensor({2});
  EXPECT_TRUE(inferred.typed<TensorBase(const TensorBase&)>().call(t).is_same(t));
  EXPECT_TRUE(d.findSchemaOrThrow("lt_macro::more", "")
                  .typed<TensorBase(const TensorBase&)>()
                  .call(t)
                  .is_same(t));
}

TEST(Library, SecondTorchLibraryForANamespaceNamesBothPlaces) {
  Library first(Library::DEF, "lt1", std::nullopt, "first.cc", 10);
  EXPECT_THAT(errorOf([] { Library(Library::DEF, "lt1", std::nullopt, "second.cc", 20); }),
              HasSubstr("namespace 'lt1' is defined twice: first registered at "
                        "first.cc:10, then registered at second.cc:20"));
  // A fragment is fine.
  Library fragment(Library::FRAGMENT, "lt1", std::nullopt, "third.cc", 30);
  fragment.def("ok(Tensor self) -> Tensor");
}

TEST(Library, SameOpDefinedTwiceNamesBothPlaces) {
  Library a(Library::DEF, "lt2", std::nullopt, "a.cc", 1);
  a.def("op(Tensor self) -> Tensor");
  Library b(Library::FRAGMENT, "lt2", std::nullopt, "b.cc", 2);
  const std::string msg = errorOf([&] { b.def("op(Tensor self, int x) -> Tensor"); });
  EXPECT_THAT(msg, HasSubstr("operator lt2::op is defined twice: first registered "
                             "at a.cc:1"));
  EXPECT_THAT(msg, HasSubstr("then registered at b.cc:2"));
  // Another overload is a different operator.
  b.def("op.other(Tensor self, int x) -> Tensor");
}

TEST(Library, DefInsideAnImplBlockIsRejected) {
  Library impl(Library::IMPL, "lt3", DispatchKey::CPU, "impl.cc", 5);
  EXPECT_THAT(errorOf([&] { impl.def("op(Tensor self) -> Tensor"); }),
              HasSubstr("cannot define lt3::op inside a TORCH_LIBRARY_IMPL block "
                        "(at impl.cc:5)"));
}

TEST(Library, NamespaceMustMatchTheBlock) {
  Library def(Library::DEF, "lt4", std::nullopt, "def.cc", 1);
  EXPECT_THAT(errorOf([&] { def.def("other::op(Tensor self) -> Tensor"); }),
              HasSubstr("operator other::op is in namespace 'other' but this "
                        "TORCH_LIBRARY block (at def.cc:1) is for namespace 'lt4'"));
  Library impl(Library::IMPL, "lt4", DispatchKey::CPU, "impl.cc", 2);
  EXPECT_THAT(errorOf([&] { impl.impl("other::op", &identity); }),
              HasSubstr("is in namespace 'other' but this TORCH_LIBRARY_IMPL "
                        "block (at impl.cc:2) is for namespace 'lt4'"));
}

TEST(Library, DispatchKeyMustMatchTheBlock) {
  Library def(Library::DEF, "lt5", std::nullopt, __FILE__, __LINE__);
  def.def("op(Tensor self) -> Tensor");
  Library impl(Library::IMPL, "lt5", DispatchKey::CPU, "impl.cc", 3);
  EXPECT_THAT(errorOf([&] {
                impl.impl("op", torch::dispatch(DispatchKey::CUDA, &identity));
              }),
              HasSubstr("registered with torch::dispatch(CUDA, …) inside a "
                        "TORCH_LIBRARY_IMPL block for CPU (at impl.cc:3)"));
  // torch::dispatch in a DEF block picks the key.
  def.impl("op", torch::dispatch(c10::kCUDA, &identity));
  EXPECT_TRUE(c10::Dispatcher::singleton()
                  .findSchemaOrThrow("lt5::op", "")
                  .hasKernelForDispatchKey(DispatchKey::CUDA));
}

TEST(Library, ImplMustMatchTheSchemaAndSaysWhereItDiffers) {
  Library def(Library::DEF, "lt6", std::nullopt, "def.cc", 1);
  def.def("op(Tensor self, Tensor other) -> Tensor");
  def.def("one(Tensor self) -> Tensor");
  def.def("scalar(Tensor self, float x) -> Tensor");
  Library impl(Library::IMPL, "lt6", DispatchKey::CPU, "impl.cc", 9);
  const std::string count = errorOf([&] { impl.impl("op", &identity); });
  EXPECT_THAT(count, HasSubstr("argument count differs: the kernel takes 1 "
                               "arguments but the schema declares 2"));
  EXPECT_THAT(count, HasSubstr("registered at impl.cc:9"));
  EXPECT_THAT(count, HasSubstr("registered at def.cc:1"));
  EXPECT_THAT(errorOf([&] { impl.impl("scalar", &takesInt); }),
              HasSubstr("argument 1 ('x') has type int in the kernel but float "
                        "in the schema"));
  EXPECT_THAT(errorOf([&] { impl.impl("one", &twoReturns); }),
              HasSubstr("return count differs: the kernel returns 2 values but "
                        "the schema declares 1"));
  EXPECT_THAT(errorOf([&] { impl.impl("one", &returnsInt); }),
              HasSubstr("return 0 has type int in the kernel but Tensor in the schema"));
  impl.impl("op", &twoArgs);  // the right one is accepted
}

TEST(Library, ImplBeforeDefIsCheckedWhenTheDefArrives) {
  Library impl(Library::IMPL, "lt7", DispatchKey::CPU, "impl.cc", 4);
  impl.impl("op", &identity);
  Library def(Library::DEF, "lt7", std::nullopt, "def.cc", 8);
  EXPECT_THAT(errorOf([&] { def.def("op(Tensor self, Tensor other) -> Tensor"); }),
              HasSubstr("argument count differs"));
  def.def("op(Tensor self) -> Tensor");
}

// See Note [Kernels for operators that do not exist] in Dispatcher.cc.
TEST(Library, ImplOfAnOpTheDefinedNamespaceLacksNamesTheFileAndLine) {
  Library def(Library::DEF, "lt10", std::nullopt, "def.cc", 3);
  def.def("scale.Tensor(Tensor self, Tensor other) -> Tensor");
  def.def("shift(Tensor self) -> Tensor");
  Library impl(Library::IMPL, "lt10", DispatchKey::CPU, "backend.cc", 17);
  const std::string msg = errorOf([&] { impl.impl("_copy_from", &twoArgs); });
  EXPECT_THAT(msg, HasSubstr("impl: a kernel for lt10::_copy_from is registered at "
                             "backend.cc:17, but no operator lt10::_copy_from exists: "
                             "namespace 'lt10' is defined (registered at def.cc:3) "
                             "without it. Check the name and overload"));
  // A misspelt name or overload gets the nearest ones.
  EXPECT_THAT(errorOf([&] { impl.impl("scale.Tensr", &twoArgs); }),
              HasSubstr("Did you mean lt10::scale.Tensor?"));
  EXPECT_THAT(errorOf([&] { impl.impl("shfit", &identity); }),
              HasSubstr("Did you mean lt10::shift?"));
  // The real op is accepted.
  impl.impl("shift", &identity);
}

TEST(Library, SecondFallbackForAKeyIsRejected) {
  // The core's autograd package holds the Autograd keys' fallback.
  Library second(Library::IMPL, "_", DispatchKey::AutogradPrivateUse1, "f2.cc", 2);
  EXPECT_THAT(errorOf([&] { second.fallback(torch::CppFunction::makeFallthrough()); }),
              HasSubstr("a second backend fallback for AutogradPrivateUse1 "
                        "registered at f2.cc:2; the first was registered at "
                        "autograd/fallback.cc"));
  Library not_fallback(Library::IMPL, "lt8", DispatchKey::CPU, "x.cc", 3);
  EXPECT_THAT(errorOf([&] { not_fallback.fallback(torch::CppFunction::makeFallthrough()); }),
              HasSubstr("can only be registered in TORCH_LIBRARY_IMPL(_, Key, m)"));
}

TEST(Library, UnknownKeyNameInAnImplBlockNamesTheBlock) {
  const std::string msg = errorOf([] {
    torch::detail::TorchLibraryInit init(
        Library::IMPL, +[](Library&) {}, "lt9", "Cpu", "blk.cc", 42);
  });
  EXPECT_THAT(msg, HasSubstr("TORCH_LIBRARY_IMPL at blk.cc:42: "));
  EXPECT_THAT(msg, HasSubstr("unknown dispatch key \"Cpu\""));
}

TEST(Library, FailingBlockUndoesWhatItRegistered) {
  EXPECT_THROW(torch::detail::TorchLibraryInit(
                   Library::DEF,
                   +[](Library& m) {
                     m.def("kept(Tensor self) -> Tensor");
                     m.def("bad(Tensr self) -> Tensor");
                   },
                   "lt10", nullptr, "blk.cc", 1),
               c10::Error);
  EXPECT_FALSE(c10::Dispatcher::singleton()
                   .findSchema(c10::OperatorName{"lt10::kept", ""})
                   .has_value());
  // The namespace is free again.
  Library again(Library::DEF, "lt10", std::nullopt, __FILE__, __LINE__);
}

TEST(Library, DefWithABoxedKernelNeedsASchema) {
  Library def(Library::DEF, "lt11", std::nullopt, "d.cc", 1);
  EXPECT_THAT(errorOf([&] {
                def.def("op", torch::CppFunction::makeFallthrough());
              }),
              HasSubstr("cannot infer a schema for lt11::op (at d.cc:1) from a boxed "
                        "kernel"));
}

}  // namespace
