// Printing follows libtorch's format (Note [Print format] in
// aten/TensorPrint.cc): one format chosen from all finite values, scale
// lines, scientific notation, column blocks, headers of higher dims.
#include <gtest/gtest.h>

#include <limits>
#include <sstream>

#include <torch/autograd.h>
#include <torch/types.h>

namespace {

std::string printed(const at::Tensor& t) {
  std::ostringstream out;
  out << t;
  EXPECT_EQ(out.str(), t.toString());
  return out.str();
}

at::Tensor doubles(std::initializer_list<double> v) { return at::tensor(v); }

TEST(Print, FixedFourDecimalsWidenedByTheLargestExponent) {
  EXPECT_EQ(printed(doubles({0.5, 1.25})), " 0.5000\n 1.2500\n[ CPUDoubleType{2} ]");
  EXPECT_EQ(printed(doubles({123.25, 1.5})), " 123.2500\n   1.5000\n[ CPUDoubleType{2} ]");
  EXPECT_EQ(printed(doubles({0.25, 0.125})), " 0.2500\n 0.1250\n[ CPUDoubleType{2} ]");
}

TEST(Print, ScaleLineForVerySmallOrLargeValues) {
  EXPECT_EQ(printed(doubles({0.001, 0.0025})), "0.001 *\n 1.0000\n 2.5000\n[ CPUDoubleType{2} ]");
  EXPECT_EQ(printed(doubles({150000.5, 200000.0})),
            "100000 *\n 1.5000\n 2.0000\n[ CPUDoubleType{2} ]");
}

TEST(Print, ScientificWhenMagnitudesSpreadWidely) {
  EXPECT_EQ(printed(doubles({1e-5, 10.0})), " 1.0000e-05\n 1.0000e+01\n[ CPUDoubleType{2} ]");
}

TEST(Print, IntegralValuesWithoutDecimals) {
  EXPECT_EQ(printed(at::tensor({int64_t{1}, int64_t{20}, int64_t{300}})),
            "   1\n  20\n 300\n[ CPULongType{3} ]");
  EXPECT_EQ(printed(at::arange(4, at::kFloat).view({2, 2})), " 0  1\n 2  3\n[ CPUFloatType{2,2} ]");
  EXPECT_EQ(printed(at::tensor({true, false})), " 1\n 0\n[ CPUBoolType{2} ]");
}

TEST(Print, NonFiniteValuesDoNotChangeTheFormat) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  EXPECT_EQ(printed(doubles({1.5, nan, inf})), " 1.5000\n    nan\n    inf\n[ CPUDoubleType{3} ]");
}

TEST(Print, HigherDimensionsPrintEachMatrixUnderAHeader) {
  EXPECT_EQ(printed(at::ones({2, 1, 2})),
            "(1,.,.) = \n  1  1\n\n(2,.,.) = \n  1  1\n[ CPUFloatType{2,1,2} ]");
  const std::string four = printed(at::zeros({1, 2, 1, 1}));
  EXPECT_EQ(four, "(1,1,.,.) = \n  0\n\n(1,2,.,.) = \n  0\n[ CPUFloatType{1,2,1,1} ]");
}

TEST(Print, WideRowsSplitIntoColumnBlocks) {
  std::string row26 = " 0";
  for (int i = 1; i < 26; ++i) row26 += "  0";
  const std::string expected = "Columns 1 to 26\n" + row26 + "\n" + row26 +
                               "\n\nColumns 27 to 30\n 0  0  0  0\n 0  0  0  0\n"
                               "[ CPUFloatType{2,30} ]";
  EXPECT_EQ(printed(at::zeros({2, 30})), expected);
}

TEST(Print, ZeroDimEmptyAndUndefined) {
  EXPECT_EQ(printed(at::scalar_tensor(3.5)), "3.5\n[ CPUFloatType{} ]");
  EXPECT_EQ(printed(at::empty({0})), "[ CPUFloatType{0} ]");
  EXPECT_EQ(printed(at::empty({2, 0, 3})), "[ CPUFloatType{2,0,3} ]");
  EXPECT_EQ(printed(at::Tensor()), "[ Tensor (undefined) ]");
}

TEST(Print, NonContiguousTensorsPrintTheirLogicalOrder) {
  const at::Tensor t = at::arange(6, at::kLong).view({2, 3}).t();
  EXPECT_EQ(printed(t), " 0  3\n 1  4\n 2  5\n[ CPULongType{3,2} ]");
}

}  // namespace
