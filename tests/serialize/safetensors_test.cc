// torch::safetensors: a file from an independent writer (testdata/
// make_reference.py) read value by value and reproduced byte for byte; round
// trips of every dtype, 0-dim, empty and non-contiguous tensors; atomic
// replacement; every save and load error by message.
#include "nn/serialize/safetensors.h"

#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <torch/torch.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "tests/support/error_of.h"

namespace {

using ember_test::errorOf;
using ::testing::AllOf;
using ::testing::HasSubstr;
using Named = std::vector<std::pair<std::string, at::Tensor>>;

constexpr char kReference[] = "tests/serialize/testdata/reference.safetensors";

std::string tmp_dir() {
  const char* tmp = std::getenv("TEST_TMPDIR");
  return tmp != nullptr ? tmp : "/tmp";
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

template <typename T>
at::Tensor make(std::vector<int64_t> shape, c10::ScalarType dtype, std::vector<T> values) {
  at::Tensor t = at::empty(shape, at::TensorOptions().dtype(dtype));
  EXPECT_EQ(static_cast<size_t>(t.numel()), values.size());
  if (!values.empty()) std::memcpy(t.data_ptr(), values.data(), values.size() * sizeof(T));
  return t;
}

// The tensors of make_reference.py, built independently here.
Named reference_tensors() {
  return {
      {"f64", make<double>({2, 3}, at::kDouble, {0.5, -1.25, 3.0, 1e300, -0.0, 2.5})},
      {"f32", make<float>({3}, at::kFloat, {1.5f, -2.0f, 3.25f})},
      {"f16",
       make<c10::Half>({2, 2}, at::kHalf,
                       {c10::Half(1.0f), c10::Half(-2.5f), c10::Half(0.5f), c10::Half(65504.0f)})},
      {"bf16",
       make<c10::BFloat16>({3}, at::kBFloat16,
                           {c10::BFloat16(1.0f), c10::BFloat16(-3.5f), c10::BFloat16(256.0f)})},
      {"i64", make<int64_t>({2}, at::kLong, {-9007199254740993LL, INT64_MAX})},
      {"i32", make<int32_t>({2, 1}, at::kInt, {INT32_MIN, 7})},
      {"i16", make<int16_t>({3}, at::kShort, {-32768, 0, 32767})},
      {"i8", make<int8_t>({4}, at::kChar, {-128, -1, 0, 127})},
      {"u8", make<uint8_t>({2}, at::kByte, {0, 255})},
      {"bool", make<uint8_t>({3}, at::kBool, {1, 0, 1})},
      {"scalar", make<float>({}, at::kFloat, {42.0f})},
      {"empty", make<float>({0, 4}, at::kFloat, {})},
  };
}

const std::map<std::string, std::string> kReferenceMetadata = {
    {"format", "pt"}, {"note", "quote \" backslash \\ tab\t end"}};

void expect_same(const Named& actual, const Named& expected) {
  ASSERT_EQ(actual.size(), expected.size());
  for (size_t i = 0; i < actual.size(); ++i) {
    const auto& [name, t] = actual[i];
    EXPECT_EQ(name, expected[i].first);
    const at::Tensor e = expected[i].second.contiguous();
    EXPECT_EQ(t.scalar_type(), e.scalar_type()) << name;
    EXPECT_EQ(t.sizes(), e.sizes()) << name;
    EXPECT_TRUE(t.is_contiguous()) << name;
    ASSERT_EQ(t.numel(), e.numel()) << name;
    // Bitwise: -0.0, 1e300 and bf16 bits must survive exactly.
    if (t.numel() > 0) {
      EXPECT_EQ(std::memcmp(t.data_ptr(), e.data_ptr(), t.numel() * t.element_size()), 0) << name;
    }
  }
}

TEST(Safetensors, ReadsTheIndependentReference) {
  torch::safetensors::File f = torch::safetensors::load(kReference);
  EXPECT_EQ(f.metadata, kReferenceMetadata);
  expect_same(f.tensors, reference_tensors());
  // A few values through the tensor API too.
  EXPECT_EQ(f.tensors[0].second[1][1].item<double>(), -0.0);
  EXPECT_EQ(f.tensors[2].second[1][1].item<float>(), 65504.0f);
  EXPECT_EQ(f.tensors[3].second[1].item<float>(), -3.5f);
  EXPECT_EQ(f.tensors[4].second[0].item<int64_t>(), -9007199254740993LL);
  EXPECT_EQ(f.tensors[9].second[1].item<bool>(), false);
  EXPECT_EQ(f.tensors[10].second.dim(), 0);
  EXPECT_EQ(f.tensors[10].second.item<float>(), 42.0f);
}

TEST(Safetensors, WritesTheReferenceByteForByte) {
  const std::string path = tmp_dir() + "/ours.safetensors";
  torch::safetensors::save(path, reference_tensors(), kReferenceMetadata);
  const std::string ours = read_bytes(path);
  const std::string theirs = read_bytes(kReference);
  ASSERT_FALSE(theirs.empty());
  EXPECT_EQ(ours.size(), theirs.size());
  EXPECT_TRUE(ours == theirs);
  EXPECT_EQ(ours.substr(8, 64), theirs.substr(8, 64));
}

TEST(Safetensors, RoundTripsNonContiguousTensorsWithoutMetadata) {
  at::Tensor base = at::arange(24, at::kFloat).view({4, 6});
  Named in = {
      {"transposed", base.t()},
      {"strided", base.slice(1, 0, 6, 2)},
      {"row", base[2]},
      {"expanded", at::arange(3, at::kLong).view({3, 1}).expand({3, 4})},
      {"half_t", base.to(at::kHalf).t()},
      {"flags", base.gt(10.0).t()},
  };
  for (auto& [name, t] : in) ASSERT_TRUE(name == "row" || !t.is_contiguous()) << name;
  const std::string path = tmp_dir() + "/strided.safetensors";
  torch::safetensors::save(path, in);
  const std::string bytes = read_bytes(path);
  EXPECT_EQ(bytes.find("__metadata__"), std::string::npos);
  uint64_t header = 0;
  for (int i = 7; i >= 0; --i) header = (header << 8) | static_cast<unsigned char>(bytes[i]);
  EXPECT_EQ(header % 8, 0u);
  // The data: every element once, at its contiguous size.
  EXPECT_EQ(bytes.size() - 8 - header, 24u * 4 + 12 * 4 + 6 * 4 + 12 * 8 + 24 * 2 + 24);
  torch::safetensors::File f = torch::safetensors::load(path);
  EXPECT_TRUE(f.metadata.empty());
  expect_same(f.tensors, in);
  EXPECT_TRUE(at::equal(f.tensors[0].second, base.t()));
}

TEST(Safetensors, EmptyFileOfNoTensors) {
  const std::string path = tmp_dir() + "/nothing.safetensors";
  torch::safetensors::save(path, {});
  EXPECT_EQ(read_bytes(path), std::string("\x08\0\0\0\0\0\0\0{}      ", 16));
  EXPECT_TRUE(torch::safetensors::load(path).tensors.empty());
}

std::vector<std::string> files_in(const std::string& dir) {
  std::vector<std::string> names;
  DIR* d = opendir(dir.c_str());
  while (dirent* e = d != nullptr ? readdir(d) : nullptr) {
    if (e->d_name[0] != '.') names.push_back(e->d_name);
  }
  if (d != nullptr) closedir(d);
  return names;
}

TEST(Safetensors, FailedSaveLeavesTheOldFileAndNoTemporary) {
  const std::string dir = tmp_dir() + "/atomic";
  ASSERT_EQ(std::system(("rm -rf '" + dir + "' && mkdir -p '" + dir + "'").c_str()), 0);
  const std::string path = dir + "/model.safetensors";
  torch::safetensors::save(path, {{"w", at::ones({2})}});
  const std::string before = read_bytes(path);
  EXPECT_THAT(errorOf([&] {
                torch::safetensors::save(path, {{"w", at::Tensor()}});
              }),
              HasSubstr("safetensors::save: " + path + ": tensor \"w\" is undefined"));
  EXPECT_EQ(read_bytes(path), before);
  EXPECT_EQ(files_in(dir), std::vector<std::string>{"model.safetensors"});
  torch::safetensors::save(path, {{"w", at::zeros({3})}});  // replaces
  EXPECT_EQ(torch::safetensors::load(path).tensors[0].second.numel(), 3);
  EXPECT_EQ(files_in(dir), std::vector<std::string>{"model.safetensors"});
}

TEST(Safetensors, SaveErrors) {
  const std::string path = tmp_dir() + "/bad.safetensors";
  EXPECT_THAT(errorOf([&] {
                torch::safetensors::save(path, {{"a", at::ones({1})}, {"a", at::ones({1})}});
              }),
              HasSubstr("duplicate tensor name \"a\"; names must be unique"));
  EXPECT_THAT(errorOf([&] {
                torch::safetensors::save(path, {{"", at::ones({1})}});
              }),
              HasSubstr("a tensor has an empty name"));
  EXPECT_THAT(errorOf([&] {
                torch::safetensors::save(path, {{"__metadata__", at::ones({1})}});
              }),
              HasSubstr("the name \"__metadata__\" is reserved for the metadata"));
  EXPECT_THAT(
      errorOf([&] {
        torch::safetensors::save("/nonexistent-dir/x.safetensors", {{"a", at::ones({1})}});
      }),
      AllOf(HasSubstr("cannot create a temporary file next to '/nonexistent-dir/x.safetensors'"),
            HasSubstr("No such file or directory")));
}

// A file with `header` (unpadded) and `data`.
std::string with_header(const std::string& name, const std::string& header,
                        const std::string& data) {
  std::string bytes(8, '\0');
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<char>((header.size() >> (8 * i)) & 0xff);
  const std::string path = tmp_dir() + "/" + name + ".safetensors";
  write_bytes(path, bytes + header + data);
  return path;
}

std::string load_error(const std::string& name, const std::string& header,
                       const std::string& data) {
  const std::string path = with_header(name, header, data);
  return errorOf([&] { torch::safetensors::load(path); });
}

TEST(Safetensors, LoadErrorsNameTheFile) {
  EXPECT_THAT(errorOf([] { torch::safetensors::load("/nonexistent.safetensors"); }),
              HasSubstr("safetensors::load: cannot open /nonexistent.safetensors: No such file"));
  const std::string tiny = tmp_dir() + "/tiny.safetensors";
  write_bytes(tiny, "abc");
  EXPECT_THAT(errorOf([&] { torch::safetensors::load(tiny); }),
              HasSubstr("safetensors::load: " + tiny +
                        ": the file is truncated: expected at least 8 bytes (the header length), "
                        "got 3"));
  const std::string path = with_header("long_header", "{}", "");
  std::string bytes = read_bytes(path);
  bytes[0] = 50;
  write_bytes(path, bytes);
  EXPECT_THAT(errorOf([&] { torch::safetensors::load(path); }),
              HasSubstr(path + ": the file is truncated: the header length is 50 bytes but only "
                               "2 bytes follow it"));
  bytes[0] = 0;
  bytes[5] = 1;  // 2^40
  write_bytes(path, bytes);
  EXPECT_THAT(errorOf([&] { torch::safetensors::load(path); }),
              HasSubstr("the header length 1099511627776 is larger than the limit"));
}

TEST(Safetensors, LoadRejectsBadHeaders) {
  const std::string f4 = "\"dtype\":\"F32\",\"shape\":[2]";
  const std::string data8(8, '\1');
  EXPECT_THAT(
      load_error("syntax", "{\"a\":{\"dtype\":\"F32\" \"shape\":[2]}}", data8),
      AllOf(
          HasSubstr("syntax.safetensors: invalid header: JSON: expected ',' or '}', "
                    "got '\"' at byte 20 (counted from the start of the header, at file offset 8)"),
          HasSubstr("syntax.safetensors")));
  EXPECT_THAT(load_error("array", "[1]", ""),
              HasSubstr("array.safetensors: the header is an array, expected an object"));
  EXPECT_THAT(
      load_error("dtype", "{\"a\":{\"dtype\":\"U16\",\"shape\":[2],\"data_offsets\":[0,4]}}",
                 "1234"),
      HasSubstr("tensor \"a\" has the unknown dtype \"U16\"; Ember reads F64, F32, F16, "
                "BF16, I64, I32, I16, I8, U8, BOOL"));
  EXPECT_THAT(load_error("mismatch", "{\"a\":{" + f4 + ",\"data_offsets\":[0,4]}}", "1234"),
              HasSubstr("tensor \"a\" of shape [2] and dtype F32 needs 8 bytes, but its "
                        "data_offsets [0, 4] hold 4"));
  EXPECT_THAT(load_error("reversed", "{\"a\":{" + f4 + ",\"data_offsets\":[8,0]}}", data8),
              HasSubstr("tensor \"a\" has data_offsets [8, 0] that end before they begin"));
  EXPECT_THAT(load_error("range", "{\"a\":{" + f4 + ",\"data_offsets\":[4,12]}}", data8),
              HasSubstr("tensor \"a\" has data_offsets [4, 12] beyond the 8 bytes of data"));
  EXPECT_THAT(load_error("overlap",
                         "{\"a\":{" + f4 + ",\"data_offsets\":[0,8]},\"b\":{" + f4 +
                             ",\"data_offsets\":[4,12]}}",
                         data8 + "1234"),
              HasSubstr("tensors \"a\" and \"b\" overlap: data_offsets [0, 8] and [4, 12]"));
  EXPECT_THAT(load_error("gap", "{\"a\":{" + f4 + ",\"data_offsets\":[4,12]}}", data8 + "1234"),
              HasSubstr("bytes [0, 4) of the data belong to no tensor"));
  EXPECT_THAT(load_error("trailing", "{\"a\":{" + f4 + ",\"data_offsets\":[0,8]}}", data8 + "x"),
              HasSubstr("the header describes 8 bytes of data but 9 follow it"));
  EXPECT_THAT(load_error("duplicate",
                         "{\"a\":{" + f4 + ",\"data_offsets\":[0,8]},\"a\":{" + f4 +
                             ",\"data_offsets\":[8,16]}}",
                         data8 + data8),
              HasSubstr("invalid header: JSON: duplicate key \"a\" at byte 54 (counted from the "
                        "start of the header"));
  EXPECT_THAT(load_error("meta", "{\"__metadata__\":{\"k\":1}}", ""),
              HasSubstr("metadata \"k\" is a number, expected a string"));
  EXPECT_THAT(load_error("meta_kind", "{\"__metadata__\":[]}", ""),
              HasSubstr("__metadata__ is an array, expected an object of strings"));
  EXPECT_THAT(load_error("field", "{\"a\":{" + f4 + ",\"data_offsets\":[0,8],\"x\":1}}", data8),
              HasSubstr("tensor \"a\" has an unknown field \"x\""));
  EXPECT_THAT(load_error("missing", "{\"a\":{\"dtype\":\"F32\",\"data_offsets\":[0,8]}}", data8),
              HasSubstr("tensor \"a\" lacks shape"));
  EXPECT_THAT(load_error("negative",
                         "{\"a\":{\"dtype\":\"F32\",\"shape\":[-2],"
                         "\"data_offsets\":[0,8]}}",
                         data8),
              HasSubstr("tensor \"a\" has a shape entry that is not a non-negative integer"));
  EXPECT_THAT(load_error("offsets", "{\"a\":{" + f4 + ",\"data_offsets\":[0]}}", data8),
              HasSubstr("data_offsets that are not an array [begin, end]"));
  // Found by safetensors_fuzz (CI, 2026-12-06): save() refuses it.
  EXPECT_THAT(load_error("unnamed", "{\"\":{" + f4 + ",\"data_offsets\":[0,8]}}", data8),
              HasSubstr("unnamed.safetensors: a tensor has an empty name; every tensor of a "
                        "safetensors file needs one."));
  EXPECT_THAT(load_error("entry", "{\"a\":3}", ""),
              HasSubstr("the entry of tensor \"a\" is a number, expected an object"));
  EXPECT_THAT(load_error("huge",
                         "{\"a\":{\"dtype\":\"F64\",\"shape\":[4294967296,4294967296],"
                         "\"data_offsets\":[0,8]}}",
                         data8),
              HasSubstr("needs more than 2^63 bytes"));
}

TEST(Safetensors, TruncatedDataIsReported) {
  const std::string path = tmp_dir() + "/cut.safetensors";
  torch::safetensors::save(path, {{"w", at::ones({4, 4})}});
  std::string bytes = read_bytes(path);
  bytes.resize(bytes.size() - 5);
  write_bytes(path, bytes);
  EXPECT_THAT(errorOf([&] { torch::safetensors::load(path); }),
              AllOf(HasSubstr("safetensors::load: " + path),
                    HasSubstr("tensor \"w\" has data_offsets [0, 64] beyond the 59 bytes of data; "
                              "the file is truncated")));
}

// Issue 22: special files, names with control characters, empty tensors of
// impossible shapes.
TEST(SafetensorsHostile, SpecialFilesAreRefusedWithoutBlocking) {
  const std::string fifo = tmp_dir() + "/fifo.safetensors";
  ::unlink(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0644), 0);
  EXPECT_THAT(errorOf([&] { torch::safetensors::load(fifo); }),
              HasSubstr("safetensors::load: cannot open " + fifo +
                        ": it is a FIFO (named pipe), not a regular file"));
  EXPECT_THAT(errorOf([&] { torch::safetensors::load(tmp_dir()); }),
              HasSubstr("safetensors::load: cannot open " + tmp_dir() +
                        ": it is a directory, not a regular file"));
  const std::string loop = tmp_dir() + "/loop.safetensors";
  ::unlink(loop.c_str());
  ASSERT_EQ(symlink("loop.safetensors", loop.c_str()), 0);
  EXPECT_THAT(errorOf([&] { torch::safetensors::load(loop); }),
              HasSubstr("safetensors::load: cannot open " + loop + ": it is a symbolic link loop"));
}

TEST(SafetensorsHostile, ANulInATensorNameIsShownEscaped) {
  const std::string data8(8, '\0');
  const std::string message =
      load_error("nul", "{\"a\\u0000b\":{\"dtype\":\"F32\",\"shape\":[3],"
                        "\"data_offsets\":[0,8]}}", data8);
  EXPECT_THAT(message, HasSubstr("tensor \"a\\u0000b\" of shape [3] and dtype F32 needs 12 "
                                 "bytes"));
  EXPECT_EQ(message.find('\0'), std::string::npos);
}

TEST(SafetensorsHostile, EmptyTensorOfAnImpossibleShapeNamesTheFile) {
  const std::string message =
      load_error("zero", "{\"z\":{\"dtype\":\"F32\",\"shape\":[4611686018427387904,0,4],"
                         "\"data_offsets\":[0,0]}}", "");
  EXPECT_THAT(message, AllOf(HasSubstr("zero.safetensors"),
                             HasSubstr("tensor \"z\" has the shape [4611686018427387904,0,4], "
                                       "whose non-zero sizes multiply to more than 2^63")));
  // A plain empty tensor still loads.
  const std::string path = tmp_dir() + "/empty.safetensors";
  torch::safetensors::save(path, {{"e", at::empty({0, 5})}});
  EXPECT_EQ(torch::safetensors::load(path).tensors[0].second.sizes(),
            (std::vector<int64_t>{0, 5}));
}

TEST(SafetensorsHostile, TooManyDimensionsAreRefused) {
  std::string shape = "[";
  for (int i = 0; i < 65; ++i) shape += i == 0 ? "1" : ",1";
  shape += "]";
  EXPECT_THAT(load_error("dims", "{\"d\":{\"dtype\":\"U8\",\"shape\":" + shape +
                                     ",\"data_offsets\":[0,1]}}", std::string(8, '\0')),
              HasSubstr("tensor \"d\" has 65 dimensions, more than the limit of 64"));
}

}  // namespace
