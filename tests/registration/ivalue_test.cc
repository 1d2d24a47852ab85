// tests/registration/ivalue_test.cc — proves the behaviour of c10::IValue
// (registration/IValue.h), the Stack helpers (registration/Stack.h) and the
// at::Generator handle (c10/core/GeneratorImpl.h): every constructor and
// accessor, the wrong-kind messages, reference counts of shared payloads,
// to<T>, printing, and the checked stack operations.
#include "registration/IValue.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "c10/core/CPUAllocator.h"
#include "c10/core/GeneratorImpl.h"
#include "c10/core/TensorImpl.h"
#include "registration/Stack.h"
#include "tests/support/error_of.h"

namespace {

using c10::IValue;
using ember_test::errorOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

c10::intrusive_ptr<c10::TensorImpl> cpuTensor(std::vector<int64_t> sizes,
                                              c10::ScalarType dtype = c10::kFloat) {
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  auto t = c10::make_intrusive<c10::TensorImpl>(
      c10::Storage(c10::make_intrusive<c10::StorageImpl>(
          c10::StorageImpl::use_byte_size_t(),
          static_cast<size_t>(numel) * c10::elementSize(dtype),
          c10::GetCPUAllocator(), /*resizable=*/true)),
      c10::DispatchKeySet(c10::DispatchKey::CPU), dtype);
  t->set_sizes_contiguous(sizes);
  return t;
}

at::TensorBase makeTensor(std::vector<int64_t> sizes,
                          c10::ScalarType dtype = c10::kFloat) {
  return at::TensorBase(cpuTensor(std::move(sizes), dtype));
}

// Stands in for at::Tensor, which derives from TensorBase in aten/.
class DerivedTensor : public at::TensorBase {
 public:
  DerivedTensor() = default;
  explicit DerivedTensor(at::TensorBase base) : TensorBase(std::move(base)) {}
};

// The trivial engine the brief asks for: the seed is the whole state.
class FakeGenerator final : public c10::GeneratorImpl {
 public:
  FakeGenerator()
      : GeneratorImpl(c10::Device(c10::kCPU),
                      c10::DispatchKeySet(c10::DispatchKey::CPU)) {}
  void set_current_seed(uint64_t seed) override { seed_ = seed; }
  uint64_t current_seed() const override { return seed_; }
  uint64_t seed() override { return seed_ = 12345; }

 private:
  uint64_t seed_ = 0;
};

class OtherGenerator final : public c10::GeneratorImpl {
 public:
  OtherGenerator()
      : GeneratorImpl(c10::Device(c10::kCPU),
                      c10::DispatchKeySet(c10::DispatchKey::CPU)) {}
  void set_current_seed(uint64_t) override {}
  uint64_t current_seed() const override { return 0; }
  uint64_t seed() override { return 0; }
};

std::string printed(const IValue& v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

// ---- construction picks the kind ----

static_assert(!std::is_constructible<IValue, int*>::value,
              "a pointer must not become a Bool");
static_assert(!std::is_constructible<IValue, std::nullptr_t>::value,
              "IValue(nullptr) must not compile");
static_assert(std::is_nothrow_move_constructible<IValue>::value, "");

TEST(IValue, DefaultAndNulloptAreNone) {
  EXPECT_TRUE(IValue().isNone());
  EXPECT_TRUE(IValue(std::nullopt).isNone());
  EXPECT_TRUE(IValue(std::optional<int64_t>()).isNone());
  EXPECT_TRUE(IValue(std::optional<at::TensorBase>()).isNone());
  EXPECT_EQ(IValue().tagKind(), "None");
  EXPECT_EQ(IValue().use_count(), 1u);
}

TEST(IValue, NumbersGetDoubleIntOrBoolByCppType) {
  EXPECT_TRUE(IValue(2.5).isDouble());
  EXPECT_TRUE(IValue(2.5f).isDouble());
  EXPECT_EQ(IValue(c10::Half(1.5f)).toDouble(), 1.5);
  EXPECT_EQ(IValue(c10::BFloat16(2.0f)).toDouble(), 2.0);
  EXPECT_EQ(IValue(3).toInt(), 3);
  EXPECT_TRUE(IValue(0).isInt());  // not a null const char*
  EXPECT_EQ(IValue(0L).toInt(), 0);
  EXPECT_EQ(IValue(char{'a'}).toInt(), 97);
  EXPECT_EQ(IValue(int64_t{-7}).toInt(), -7);
  EXPECT_EQ(IValue(uint8_t{200}).toInt(), 200);
  EXPECT_EQ(IValue(size_t{5}).toInt(), 5);
  EXPECT_EQ(IValue(std::numeric_limits<int64_t>::min()).toInt(),
            std::numeric_limits<int64_t>::min());
  EXPECT_TRUE(IValue(true).isBool());
  EXPECT_FALSE(IValue(true).isInt());
  EXPECT_FALSE(IValue(false).toBool());
  EXPECT_EQ(IValue(2.5).tagKind(), "Double");
  EXPECT_EQ(IValue(3).tagKind(), "Int");
  EXPECT_EQ(IValue(true).tagKind(), "Bool");
}

TEST(IValue, UnsignedAboveInt64MaxThrows) {
  EXPECT_THAT(errorOf([] { IValue v(std::numeric_limits<uint64_t>::max()); }),
              HasSubstr("IValue: the unsigned value 18446744073709551615 does "
                        "not fit in int64_t"));
}

TEST(IValue, ScalarIsStoredByItsKindAndRoundTrips) {
  IValue i(c10::Scalar(4));
  IValue d(c10::Scalar(0.25));
  IValue b(c10::Scalar(true));
  EXPECT_TRUE(i.isInt());
  EXPECT_TRUE(d.isDouble());
  EXPECT_TRUE(b.isBool());
  EXPECT_TRUE(i.isScalar() && d.isScalar() && b.isScalar());
  EXPECT_TRUE(i.toScalar().equal(4));
  EXPECT_TRUE(i.toScalar().isIntegral(false));
  EXPECT_TRUE(d.toScalar().equal(0.25));
  EXPECT_TRUE(b.toScalar().isBoolean());
  EXPECT_TRUE(b.toScalar().equal(true));
  EXPECT_FALSE(IValue("x").isScalar());
  EXPECT_THAT(errorOf([] { IValue("x").toScalar(); }),
              HasSubstr("IValue::toScalar: expected a Scalar (an int, a double "
                        "or a bool) but got a string."));
}

TEST(IValue, ScalarTypeIsStoredAsIntAndRoundTrips) {
  IValue v(c10::kBFloat16);
  EXPECT_TRUE(v.isInt());
  EXPECT_EQ(v.toInt(), static_cast<int64_t>(c10::kBFloat16));
  EXPECT_EQ(v.toScalarType(), c10::kBFloat16);
  EXPECT_EQ(IValue(c10::kByte).to<c10::ScalarType>(), c10::kByte);
}

TEST(IValue, ScalarTypeOutOfRangeThrows) {
  EXPECT_THAT(errorOf([] { IValue(42).toScalarType(); }),
              HasSubstr("IValue::toScalarType: 42 is not a dtype; a ScalarType "
                        "is stored as an int in [0, 9] (Byte to BFloat16)."));
  EXPECT_THAT(errorOf([] { IValue(-1).toScalarType(); }),
              HasSubstr("-1 is not a dtype"));
  EXPECT_THAT(
      errorOf([] { IValue(static_cast<int64_t>(c10::ScalarType::Undefined))
                       .toScalarType(); }),
      HasSubstr("is not a dtype"));
  EXPECT_THAT(errorOf([] { IValue(1.0).toScalarType(); }),
              HasSubstr("IValue::toScalarType: expected an int but got a "
                        "double."));
}

TEST(IValue, DeviceRoundTrips) {
  IValue v(c10::Device(c10::kCUDA, 1));
  EXPECT_TRUE(v.isDevice());
  EXPECT_EQ(v.toDevice(), c10::Device(c10::kCUDA, 1));
  EXPECT_EQ(IValue(c10::Device(c10::kCPU)).toDevice(), c10::Device(c10::kCPU));
  EXPECT_EQ(IValue(c10::kCPU).toDevice().index(), -1);
  EXPECT_EQ(v.tagKind(), "Device");
}

TEST(IValue, StringsFromEverySpellingShareOnCopy) {
  IValue a(std::string("abc"));
  IValue b("def");
  IValue c(std::string_view("ghi"));
  EXPECT_TRUE(a.isString() && b.isString() && c.isString());
  EXPECT_EQ(a.toStringRef(), "abc");
  EXPECT_EQ(b.toStringView(), "def");
  EXPECT_EQ(c.to<std::string>(), "ghi");
  EXPECT_EQ(a.use_count(), 1u);
  IValue copy = a;
  EXPECT_EQ(a.use_count(), 2u);
  EXPECT_EQ(&copy.toStringRef(), &a.toStringRef());
  auto holder = a.toString();
  EXPECT_EQ(a.use_count(), 3u);
  IValue from_holder(holder);
  EXPECT_TRUE(from_holder.isSameIdentity(a));
  EXPECT_FALSE(IValue("abc").isSameIdentity(a));
  EXPECT_THAT(errorOf([] { IValue(static_cast<const char*>(nullptr)); }),
              HasSubstr("IValue: got a null const char*"));
}

// ---- tensors and their reference counts ----

TEST(IValue, TensorCopyRetainsAndDestructionReleases) {
  at::TensorBase t = makeTensor({2, 3});
  EXPECT_EQ(t.use_count(), 1u);
  {
    IValue v(t);
    EXPECT_TRUE(v.isTensor());
    EXPECT_EQ(t.use_count(), 2u);
    EXPECT_EQ(v.use_count(), 2u);
    {
      IValue copy = v;
      EXPECT_EQ(t.use_count(), 3u);
      at::TensorBase back = copy.toTensorBase();
      EXPECT_TRUE(back.is_same(t));
      EXPECT_EQ(t.use_count(), 4u);
    }
    EXPECT_EQ(t.use_count(), 2u);
    EXPECT_EQ(v.unsafeToTensorImpl(), t.unsafeGetTensorImpl());
  }
  EXPECT_EQ(t.use_count(), 1u);
}

TEST(IValue, TensorMovesDoNotTouchTheCount) {
  at::TensorBase t = makeTensor({4});
  IValue v{at::TensorBase(t)};  // rvalue: takes the temporary's reference
  EXPECT_EQ(t.use_count(), 2u);
  IValue moved = std::move(v);
  EXPECT_TRUE(v.isNone());  // NOLINT(bugprone-use-after-move): specified
  EXPECT_EQ(t.use_count(), 2u);
  at::TensorBase out = std::move(moved).toTensorBase();
  EXPECT_TRUE(moved.isNone());  // NOLINT(bugprone-use-after-move)
  EXPECT_TRUE(out.is_same(t));
  EXPECT_EQ(t.use_count(), 2u);
}

TEST(IValue, AssignmentReleasesTheOldPayload) {
  at::TensorBase a = makeTensor({1});
  at::TensorBase b = makeTensor({1});
  IValue v(a);
  IValue w(b);
  v = w;
  EXPECT_EQ(a.use_count(), 1u);
  EXPECT_EQ(b.use_count(), 3u);
  IValue& alias = v;
  v = alias;  // self-assignment keeps the value
  EXPECT_TRUE(v.toTensorBase().is_same(b));
  v = 3;
  EXPECT_EQ(b.use_count(), 2u);
  w = std::move(v);
  EXPECT_EQ(b.use_count(), 1u);
  EXPECT_EQ(w.toInt(), 3);
}

TEST(IValue, UndefinedTensorKeepsTheTensorTag) {
  IValue v{at::TensorBase()};
  EXPECT_TRUE(v.isTensor());
  EXPECT_FALSE(v.isNone());
  EXPECT_FALSE(v.toTensorBase().defined());
  EXPECT_EQ(v.unsafeToTensorImpl(), nullptr);
  EXPECT_EQ(v.use_count(), 0u);
  IValue copy = v;
  EXPECT_TRUE(copy.isSameIdentity(v));
  EXPECT_EQ(printed(v), "Tensor(undefined)");
}

TEST(IValue, DerivedTensorHandlesBoxAndUnbox) {
  DerivedTensor d(makeTensor({2}));
  IValue v(d);
  EXPECT_EQ(d.use_count(), 2u);
  DerivedTensor back = v.to<DerivedTensor>();
  EXPECT_TRUE(back.is_same(d));
  std::vector<DerivedTensor> list{d, d};
  IValue lv(list);
  EXPECT_TRUE(lv.isTensorList());
  auto unboxed = lv.to<std::vector<DerivedTensor>>();
  ASSERT_EQ(unboxed.size(), 2u);
  EXPECT_TRUE(unboxed[1].is_same(d));
  IValue from_ref{c10::ArrayRef<DerivedTensor>(list)};
  EXPECT_EQ(from_ref.toTensorBaseVector().size(), 2u);
  std::vector<std::optional<DerivedTensor>> opt{d, std::nullopt};
  auto opt_back = IValue(opt).to<std::vector<std::optional<DerivedTensor>>>();
  ASSERT_EQ(opt_back.size(), 2u);
  EXPECT_TRUE(opt_back[0]->is_same(d));
  EXPECT_FALSE(opt_back[1].has_value());
}

// ---- lists ----

TEST(IValue, ListsRoundTrip) {
  IValue ints(std::vector<int64_t>{2, 3, 4});
  EXPECT_TRUE(ints.isIntList());
  EXPECT_THAT(ints.toIntVector(), ElementsAre(2, 3, 4));
  EXPECT_THAT(ints.toIntList().vec(), ElementsAre(2, 3, 4));
  const int64_t raw[] = {5, 6};
  EXPECT_THAT(IValue(c10::IntArrayRef(raw)).toIntVector(), ElementsAre(5, 6));
  EXPECT_THAT(IValue(std::vector<double>{0.5, 1.5}).toDoubleVector(),
              ElementsAre(0.5, 1.5));
  EXPECT_THAT(IValue(std::vector<bool>{true, false}).toBoolVector(),
              ElementsAre(true, false));
  EXPECT_TRUE(IValue(std::vector<int64_t>{}).toIntVector().empty());
  EXPECT_EQ(ints.tagKind(), "IntList");
  EXPECT_EQ(IValue(std::vector<double>{}).tagKind(), "DoubleList");
  EXPECT_EQ(IValue(std::vector<bool>{}).tagKind(), "BoolList");
}

TEST(IValue, ListsAreSharedOnCopy) {
  IValue a(std::vector<int64_t>{1, 2});
  IValue b = a;
  EXPECT_EQ(a.use_count(), 2u);
  EXPECT_EQ(a.toIntList().data(), b.toIntList().data());
  EXPECT_TRUE(a.isSameIdentity(b));
  EXPECT_FALSE(a.isSameIdentity(IValue(std::vector<int64_t>{1, 2})));
}

TEST(IValue, RvalueListAccessCopiesWhenSharedAndMovesWhenSole) {
  IValue a(std::vector<int64_t>{1, 2});
  IValue b = a;
  std::vector<int64_t> taken = std::move(a).toIntVector();
  EXPECT_THAT(taken, ElementsAre(1, 2));
  EXPECT_TRUE(a.isNone());  // NOLINT(bugprone-use-after-move)
  EXPECT_THAT(b.toIntVector(), ElementsAre(1, 2));  // untouched
  EXPECT_EQ(b.use_count(), 1u);
  const int64_t* data = b.toIntList().data();
  taken = std::move(b).toIntVector();
  EXPECT_EQ(taken.data(), data);  // the sole owner's buffer moved out
}

TEST(IValue, TensorListsHoldReferences) {
  at::TensorBase t = makeTensor({3});
  {
    IValue v(std::vector<at::TensorBase>{t, t});
    EXPECT_EQ(t.use_count(), 3u);
    IValue copy = v;
    EXPECT_EQ(t.use_count(), 3u);  // the list is shared, not copied
    std::vector<at::TensorBase> out = v.toTensorBaseVector();
    EXPECT_EQ(t.use_count(), 5u);
  }
  EXPECT_EQ(t.use_count(), 1u);
  IValue v(std::vector<at::TensorBase>{t});
  auto moved = std::move(v).toTensorBaseVector();
  EXPECT_EQ(t.use_count(), 2u);
}

TEST(IValue, OptionalTensorListsKeepTheirNones) {
  at::TensorBase t = makeTensor({1});
  IValue v(std::vector<std::optional<at::TensorBase>>{t, std::nullopt});
  EXPECT_TRUE(v.isOptionalTensorList());
  auto out = v.toOptionalTensorVector();
  ASSERT_EQ(out.size(), 2u);
  EXPECT_TRUE(out[0]->is_same(t));
  EXPECT_FALSE(out[1].has_value());
  EXPECT_EQ(v.tagKind(), "OptionalTensorList");
  out.clear();
  auto moved = std::move(v).toOptionalTensorVector();
  EXPECT_EQ(t.use_count(), 2u);
}

// ---- optionals and to<T> ----

TEST(IValue, OptionalOfAnyKindIsNoneOrTheValue) {
  EXPECT_EQ(IValue(std::optional<int64_t>(5)).toInt(), 5);
  EXPECT_EQ(IValue(std::optional<std::string>("s")).toStringRef(), "s");
  EXPECT_TRUE(
      IValue(std::optional<std::vector<int64_t>>(std::vector<int64_t>{1}))
          .isIntList());
  EXPECT_TRUE(IValue(std::optional<c10::ScalarType>(c10::kFloat)).isInt());
  at::TensorBase t = makeTensor({1});
  IValue some_tensor{std::optional<at::TensorBase>(t)};
  EXPECT_TRUE(some_tensor.isTensor());
  EXPECT_EQ(t.use_count(), 2u);
  EXPECT_EQ(IValue().toOptional<int64_t>(), std::nullopt);
  EXPECT_EQ(IValue(3).toOptional<int64_t>(), std::optional<int64_t>(3));
  EXPECT_EQ(IValue().to<std::optional<c10::ScalarType>>(), std::nullopt);
  EXPECT_THAT(errorOf([] { IValue(1.5).toOptional<int64_t>(); }),
              HasSubstr("IValue::toInt: expected an int but got a double."));
}

TEST(IValue, ToDispatchesOnTheRequestedType) {
  at::TensorBase t = makeTensor({2});
  IValue tv(t);
  EXPECT_TRUE(tv.to<at::TensorBase>().is_same(t));
  EXPECT_EQ(IValue(2.0).to<double>(), 2.0);
  EXPECT_EQ(IValue(7).to<int64_t>(), 7);
  EXPECT_EQ(IValue(7).to<long long>(), 7);
  EXPECT_TRUE(IValue(true).to<bool>());
  IValue s("str");
  EXPECT_EQ(s.to<std::string_view>(), "str");
  IValue ints(std::vector<int64_t>{1});
  EXPECT_THAT(ints.to<c10::IntArrayRef>().vec(), ElementsAre(1));
  EXPECT_THAT(ints.to<std::vector<int64_t>>(), ElementsAre(1));
  EXPECT_THAT(IValue(std::vector<double>{1.5}).to<std::vector<double>>(),
              ElementsAre(1.5));
  EXPECT_THAT(IValue(std::vector<bool>{true}).to<std::vector<bool>>(),
              ElementsAre(true));
  EXPECT_EQ(IValue(std::vector<at::TensorBase>{t})
                .to<std::vector<at::TensorBase>>()
                .size(),
            1u);
  EXPECT_TRUE(IValue(3).to<c10::Scalar>().equal(3));
  EXPECT_EQ(IValue(c10::Device(c10::kCPU)).to<c10::Device>(),
            c10::Device(c10::kCPU));
  EXPECT_TRUE(IValue(5).to<IValue>().isInt());
  EXPECT_FALSE(IValue().to<std::optional<at::TensorBase>>().has_value());
  EXPECT_TRUE(tv.to<std::optional<at::TensorBase>>()->is_same(t));
  // The rvalue form moves the tensor out.
  at::TensorBase moved = std::move(tv).to<at::TensorBase>();
  EXPECT_TRUE(tv.isNone());  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(t.use_count(), 2u);
}

// ---- wrong kinds ----

TEST(IValue, WrongKindAccessNamesBothKinds) {
  at::TensorBase t = makeTensor({1});
  IValue tensor(t);
  EXPECT_THAT(errorOf([&] { tensor.toInt(); }),
              HasSubstr("IValue::toInt: expected an int but got a Tensor. "
                        "Check isInt() before reading"));
  EXPECT_THAT(errorOf([] { IValue(1).toDouble(); }),
              HasSubstr("IValue::toDouble: expected a double but got an int."));
  EXPECT_THAT(errorOf([] { IValue(1).toBool(); }),
              HasSubstr("IValue::toBool: expected a bool but got an int."));
  EXPECT_THAT(errorOf([] { IValue(true).toInt(); }),
              HasSubstr("IValue::toInt: expected an int but got a bool."));
  EXPECT_THAT(errorOf([] { IValue().toTensorBase(); }),
              HasSubstr("IValue::toTensorBase: expected a Tensor but got "
                        "None."));
  EXPECT_THAT(errorOf([] { IValue(1).toTensorBase(); }),
              HasSubstr("expected a Tensor but got an int."));
  EXPECT_THAT(errorOf([] { IValue(1).unsafeToTensorImpl(); }),
              HasSubstr("IValue::unsafeToTensorImpl: expected a Tensor"));
  EXPECT_THAT(errorOf([] { IValue(1).toStringRef(); }),
              HasSubstr("IValue::toStringRef: expected a string but got an "
                        "int."));
  EXPECT_THAT(errorOf([] { IValue(1).toString(); }),
              HasSubstr("IValue::toString: expected a string"));
  EXPECT_THAT(
      errorOf([] { IValue(std::vector<double>{1.0}).toIntVector(); }),
      HasSubstr("IValue::toIntVector: expected an int list but got a double "
                "list."));
  EXPECT_THAT(errorOf([] { IValue(std::vector<int64_t>{}).toIntList(); }),
              HasSubstr("<no error>"));
  EXPECT_THAT(errorOf([] { IValue(1).toIntList(); }),
              HasSubstr("IValue::toIntList: expected an int list"));
  EXPECT_THAT(errorOf([] { IValue(1).toDoubleVector(); }),
              HasSubstr("expected a double list but got an int."));
  EXPECT_THAT(errorOf([] { IValue(1).toBoolVector(); }),
              HasSubstr("expected a bool list but got an int."));
  EXPECT_THAT(errorOf([] { IValue(std::vector<int64_t>{1}).toTensorBaseVector(); }),
              HasSubstr("IValue::toTensorBaseVector: expected a Tensor list but "
                        "got an int list."));
  EXPECT_THAT(errorOf([] { IValue(1).toOptionalTensorVector(); }),
              HasSubstr("expected an optional-Tensor list but got an int."));
  EXPECT_THAT(errorOf([] { IValue(1).toDevice(); }),
              HasSubstr("IValue::toDevice: expected a Device but got an int."));
  EXPECT_THAT(errorOf([] { IValue(1).toGenerator(); }),
              HasSubstr("IValue::toGenerator: expected a Generator but got "
                        "an int."));
  // The rvalue forms check before they take anything.
  IValue list(std::vector<int64_t>{1});
  EXPECT_THAT(errorOf([&] { std::move(list).toTensorBaseVector(); }),
              HasSubstr("expected a Tensor list but got an int list."));
  EXPECT_TRUE(list.isIntList());  // NOLINT(bugprone-use-after-move)
  EXPECT_THAT(errorOf([&] { std::move(list).toTensorBase(); }),
              HasSubstr("expected a Tensor but got an int list."));
  EXPECT_TRUE(list.isIntList());  // NOLINT(bugprone-use-after-move)
}

// ---- generators ----

TEST(Generator, HandleForwardsToTheEngineAndChecksCasts) {
  at::Generator gen = at::make_generator<FakeGenerator>();
  ASSERT_TRUE(gen.defined());
  {
    std::lock_guard<std::mutex> lock(gen.mutex());
    gen.set_current_seed(7);
  }
  EXPECT_EQ(gen.current_seed(), 7u);
  EXPECT_EQ(gen.seed(), 12345u);
  EXPECT_EQ(gen->current_seed(), 12345u);
  EXPECT_EQ(gen.device(), c10::Device(c10::kCPU));
  EXPECT_TRUE(gen.key_set().has(c10::DispatchKey::CPU));
  EXPECT_EQ(gen.get<FakeGenerator>(), gen.unsafeGetGeneratorImpl());
  EXPECT_THAT(errorOf([&] { gen.get<OtherGenerator>(); }),
              HasSubstr("Generator::get: the generator is a "
                        "(anonymous namespace)::FakeGenerator on device cpu, "
                        "not the requested "
                        "(anonymous namespace)::OtherGenerator."));
  at::Generator copy = gen;
  EXPECT_TRUE(copy == gen);
  EXPECT_EQ(gen.getIntrusivePtr().use_count(), 2u);
}

TEST(Generator, UndefinedHandleThrows) {
  at::Generator gen;
  EXPECT_FALSE(gen.defined());
  EXPECT_THAT(errorOf([&] { gen.current_seed(); }),
              HasSubstr("Generator::current_seed: this generator is undefined"));
  EXPECT_THAT(errorOf([&] { gen.get<FakeGenerator>(); }),
              HasSubstr("Generator::get: this generator is undefined"));
  EXPECT_THAT(errorOf([] { at::Generator(nullptr); }),
              HasSubstr("Generator: got a null GeneratorImpl"));
}

TEST(IValue, GeneratorRoundTripsAndShares) {
  at::Generator gen = at::make_generator<FakeGenerator>();
  IValue v(gen);
  EXPECT_TRUE(v.isGenerator());
  EXPECT_EQ(v.tagKind(), "Generator");
  EXPECT_EQ(gen.getIntrusivePtr().use_count(), 2u);
  EXPECT_EQ(v.use_count(), 2u);
  at::Generator back = v.toGenerator();
  EXPECT_TRUE(back == gen);
  EXPECT_EQ(gen.getIntrusivePtr().use_count(), 3u);
  at::Generator moved = std::move(v).to<at::Generator>();
  EXPECT_TRUE(v.isNone());  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(gen.getIntrusivePtr().use_count(), 3u);
  EXPECT_EQ(printed(IValue(gen)), "Generator(device=cpu)");
  IValue undefined{at::Generator()};
  EXPECT_TRUE(undefined.isGenerator());
  EXPECT_FALSE(undefined.toGenerator().defined());
  EXPECT_EQ(undefined.use_count(), 0u);
  EXPECT_EQ(IValue().toOptional<at::Generator>(), std::nullopt);
}

// ---- printing and identity ----

TEST(IValue, PrintsAShortForm) {
  EXPECT_EQ(printed(IValue()), "None");
  EXPECT_EQ(printed(IValue(makeTensor({2, 3}))), "Tensor[2, 3] Float");
  EXPECT_EQ(printed(IValue(makeTensor({}, c10::kLong))), "Tensor[] Long");
  EXPECT_EQ(printed(IValue(3)), "3");
  EXPECT_EQ(printed(IValue(2.5)), "2.5");
  EXPECT_EQ(printed(IValue(2.0)), "2.0");
  EXPECT_EQ(printed(IValue(-3.0)), "-3.0");
  EXPECT_EQ(printed(IValue(true)), "True");
  EXPECT_EQ(printed(IValue("a\"b")), "\"a\\\"b\"");
  EXPECT_EQ(printed(IValue(std::vector<int64_t>{1, 2})), "[1, 2]");
  EXPECT_EQ(printed(IValue(std::vector<double>{1.0, 0.5})), "[1.0, 0.5]");
  EXPECT_EQ(printed(IValue(std::vector<bool>{false})), "[False]");
  EXPECT_EQ(printed(IValue(std::vector<at::TensorBase>{makeTensor({1}),
                                                       at::TensorBase()})),
            "[Tensor[1] Float, Tensor(undefined)]");
  EXPECT_EQ(printed(IValue(std::vector<std::optional<at::TensorBase>>{
                std::nullopt, makeTensor({2}, c10::kDouble)})),
            "[None, Tensor[2] Double]");
  EXPECT_EQ(printed(IValue(c10::Device(c10::kCUDA, 1))), "cuda:1");
}

TEST(IValue, SameIdentityComparesReferencesAndInlineValues) {
  at::TensorBase t = makeTensor({1});
  EXPECT_TRUE(IValue(t).isSameIdentity(IValue(t)));
  EXPECT_FALSE(IValue(t).isSameIdentity(IValue(makeTensor({1}))));
  EXPECT_TRUE(IValue(3).isSameIdentity(IValue(3)));
  EXPECT_FALSE(IValue(3).isSameIdentity(IValue(3.0)));
  EXPECT_TRUE(IValue().isSameIdentity(IValue()));
  EXPECT_TRUE(IValue(c10::kCPU).isSameIdentity(IValue(c10::kCPU)));
}

// ---- Stack ----

TEST(Stack, PushPopPeekDropAndLast) {
  at::TensorBase t = makeTensor({2});
  torch::jit::Stack stack;
  torch::jit::push(stack, t, 2, 0.5, "s");
  ASSERT_EQ(stack.size(), 4u);
  EXPECT_EQ(t.use_count(), 2u);
  EXPECT_EQ(torch::jit::peek(stack, 0, 3).toInt(), 2);
  EXPECT_EQ(torch::jit::peek(stack, 2, 3).toStringRef(), "s");
  const torch::jit::Stack& cstack = stack;
  EXPECT_EQ(torch::jit::peek(cstack, 1, 3).toDouble(), 0.5);
  c10::ArrayRef<IValue> top = torch::jit::last(stack, 2);
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0].toDouble(), 0.5);
  EXPECT_EQ(torch::jit::pop(stack).toStringRef(), "s");
  std::vector<IValue> two = torch::jit::pop(stack, 2);
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0].toInt(), 2);
  EXPECT_EQ(two[1].toDouble(), 0.5);
  torch::jit::drop(stack, 1);
  EXPECT_TRUE(stack.empty());
  EXPECT_EQ(t.use_count(), 1u);
  c10::Stack same_type = stack;  // c10::Stack names the same type
  EXPECT_TRUE(same_type.empty());
}

TEST(Stack, ReadingPastTheBottomThrows) {
  torch::jit::Stack stack;
  EXPECT_THAT(errorOf([&] { torch::jit::pop(stack); }),
              HasSubstr("torch::jit::pop: the stack is empty."));
  torch::jit::push(stack, 1, 2);
  EXPECT_THAT(errorOf([&] { torch::jit::pop(stack, 3); }),
              HasSubstr("torch::jit::pop: cannot pop 3 values from a stack "
                        "of 2."));
  EXPECT_THAT(errorOf([&] { torch::jit::drop(stack, 3); }),
              HasSubstr("torch::jit::drop: cannot drop 3 values from a stack "
                        "of 2."));
  EXPECT_THAT(errorOf([&] { torch::jit::peek(stack, 0, 3); }),
              HasSubstr("torch::jit::peek: cannot read value 0 of the last 3 "
                        "on a stack of 2."));
  EXPECT_THAT(errorOf([&] { torch::jit::peek(stack, 2, 2); }),
              HasSubstr("cannot read value 2 of the last 2"));
  EXPECT_THAT(errorOf([&] { torch::jit::last(stack, 3); }),
              HasSubstr("torch::jit::last: cannot view the last 3 values of "
                        "a stack of 2."));
  EXPECT_EQ(stack.size(), 2u);  // failed calls change nothing
  EXPECT_TRUE(torch::jit::pop(stack, 0).empty());
  EXPECT_TRUE(torch::jit::last(stack, 0).empty());
}

}  // namespace
