// torch::serialize::json: strict parsing (every error with its byte offset),
// escapes and surrogates, numbers, and writing.
#include "nn/serialize/json.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <string>

#include "tests/support/error_of.h"

namespace {

using ember_test::errorOf;
using ::testing::HasSubstr;
namespace json = torch::serialize::json;

TEST(Json, ParsesEveryKindInDocumentOrder) {
  json::Value v = json::parse(
      " {\"b\": [1, -2, 3.5, 1e3, -0.25E-2], \"a\": {\"t\": true, \"f\": false, \"n\": null},"
      " \"s\": \"x\"}\n");
  ASSERT_EQ(v.kind(), json::Value::Kind::kObject);
  ASSERT_EQ(v.members().size(), 3u);
  EXPECT_EQ(v.members()[0].first, "b");  // document order, not sorted
  const auto& b = v.at("b").items();
  EXPECT_EQ(b[0].as_int(), 1);
  EXPECT_EQ(b[1].as_int(), -2);
  EXPECT_FALSE(b[2].is_integer());
  EXPECT_DOUBLE_EQ(b[2].as_double(), 3.5);
  EXPECT_DOUBLE_EQ(b[3].as_double(), 1000.0);
  EXPECT_DOUBLE_EQ(b[4].as_double(), -0.0025);
  EXPECT_TRUE(v.at("a").at("t").as_bool());
  EXPECT_FALSE(v.at("a").at("f").as_bool());
  EXPECT_EQ(v.at("a").at("n").kind(), json::Value::Kind::kNull);
  EXPECT_EQ(v.at("s").as_string(), "x");
  EXPECT_EQ(v.find("zz"), nullptr);
}

TEST(Json, IntegersKeepInt64Precision) {
  EXPECT_EQ(json::parse("9223372036854775807").as_int(), std::numeric_limits<int64_t>::max());
  EXPECT_EQ(json::parse("-9223372036854775808").as_int(), std::numeric_limits<int64_t>::min());
  json::Value big = json::parse("9223372036854775808");
  EXPECT_FALSE(big.is_integer());
  EXPECT_DOUBLE_EQ(big.as_double(), 9223372036854775808.0);
  EXPECT_THAT(errorOf([&] { big.as_int(); }), HasSubstr("JSON: expected an integer"));
}

TEST(Json, StringEscapesAndSurrogatePairs) {
  EXPECT_EQ(json::parse(R"("a\"b\\c\/d\b\f\n\r\t")").as_string(), "a\"b\\c/d\b\f\n\r\t");
  EXPECT_EQ(json::parse(R"("\u00e9\u4e2d\ud83d\ude00")").as_string(),
            "\xc3\xa9\xe4\xb8\xad\xf0\x9f\x98\x80");
  EXPECT_EQ(json::parse("\"caf\xc3\xa9\"").as_string(), "caf\xc3\xa9");
}

TEST(Json, SyntaxErrorsGiveTheirByteOffset) {
  const std::pair<const char*, const char*> cases[] = {
      {"", "unexpected end of input, expected a value at byte 0"},
      {"[1,]", "unexpected ']', expected a value at byte 3"},
      {"{\"a\":1,}", "expected a string key, got '}' at byte 7"},
      {"{\"a\" 1}", "expected ':' after a key at byte 5"},
      {"{\"a\":1 \"b\":2}", "expected ',' or '}', got '\"' at byte 7"},
      {"[1 2]", "expected ',' or ']', got '2' at byte 3"},
      {"[1", "unexpected end of input, expected ',' or ']' at byte 2"},
      {"01", "leading zero in a number at byte 1"},
      {"-", "expected a digit at byte 1"},
      {"1.", "expected a digit after the decimal point at byte 2"},
      {"1e+", "expected a digit in the exponent at byte 3"},
      {"1e999", "number 1e999 is out of double's range at byte 0"},
      {"\"abc", "unterminated string at byte 4"},
      {"\"a\nb\"", "control character \\x0a in a string (escape it) at byte 2"},
      {"\"\\x\"", "invalid escape '\\x' at byte 2"},
      {"\"\\u12g4\"", "invalid hex digit 'g' in a \\u escape at byte 5"},
      {"\"\\udc00\"", "lone low surrogate in a \\u escape at byte 1"},
      {"\"\\ud83d x\"", "high surrogate not followed by a low surrogate at byte 1"},
      {"{\"k\":1,\"k\":2}", "duplicate key \"k\" at byte 7"},
      {"tru", "invalid literal (expected \"true\") at byte 0"},
      {"nul", "invalid literal (expected \"null\") at byte 0"},
      {"{} x", "unexpected 'x' after the document at byte 3"},
      {"'a'", "unexpected ''', expected a value at byte 0"},
  };
  for (const auto& c : cases) {
    const std::string& text = c.first;  // lambdas cannot capture structured bindings in C++17
    EXPECT_THAT(errorOf([&] { json::parse(text); }), HasSubstr(std::string("JSON: ") + c.second))
        << text;
  }
  std::string deep(65, '[');
  deep += std::string(65, ']');
  EXPECT_THAT(errorOf([&] { json::parse(deep); }),
              HasSubstr("JSON: nesting deeper than 64 levels at byte 64"));
  std::string ok(64, '[');
  ok += std::string(64, ']');
  EXPECT_EQ(json::parse(ok).kind(), json::Value::Kind::kArray);
}

TEST(Json, AccessorsCheckTheKind) {
  json::Value v = json::parse("[1]");
  EXPECT_THAT(errorOf([&] { v.as_string(); }), HasSubstr("JSON: expected a string, got an array"));
  EXPECT_THAT(errorOf([&] { v.at("x"); }), HasSubstr("JSON: expected an object, got an array"));
  EXPECT_THAT(errorOf([&] { json::parse("{}").at("x"); }),
              HasSubstr("JSON: the object has no member \"x\""));
  EXPECT_THAT(errorOf([&] { json::Value().as_bool(); }),
              HasSubstr("JSON: expected a boolean, got null"));
}

TEST(Json, DumpIsCompactAndEscapesLikePython) {
  json::Value v = json::Value::object(
      {{"s", json::Value::string("q\" b\\ t\t n\n \x01 caf\xc3\xa9")},
       {"a", json::Value::array({json::Value::integer(-3), json::Value::number(0.5),
                                 json::Value::boolean(true), json::Value()})},
       {"o", json::Value::object({})}});
  const std::string text = json::dump(v);
  EXPECT_EQ(text,
            "{\"s\":\"q\\\" b\\\\ t\\t n\\n \\u0001 caf\xc3\xa9\",\"a\":[-3,0.5,true,null],"
            "\"o\":{}}");
  EXPECT_EQ(json::dump(json::parse(text)), text);
  EXPECT_THAT(errorOf([] { json::dump(json::Value::number(std::nan(""))); }),
              HasSubstr("JSON: cannot write the non-finite number"));
}

// Issue 22: a checkpoint header is untrusted input of up to 100 MB. See
// Note [JSON reader limits].
TEST(JsonLimits, DuplicateKeysInAHugeObjectAreFoundInNLogN) {
  // 300,000 keys: comparing every pair would be 4.5e10 comparisons (minutes);
  // sorting once takes well under a second.
  constexpr int kKeys = 300000;
  std::string text = "{";
  for (int i = 0; i < kKeys; ++i) text += "\"k" + std::to_string(i) + "\":0,";
  const size_t repeated_at = text.size();
  text += "\"k123456\":1,\"k7\":2}";
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THAT(errorOf([&] { json::parse(text); }),
              HasSubstr("duplicate key \"k123456\" at byte " + std::to_string(repeated_at)));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // The quadratic check took minutes; the bound leaves room for a sanitized
  // build on a loaded machine (CI runs two tests per core).
  EXPECT_LT(seconds, 30.0);
  text.resize(repeated_at);
  text += "\"x\":1,\"y\":2}";
  EXPECT_EQ(json::parse(text).members().size(), kKeys + 2u);
}

TEST(Json, IntegralDoublesKeepTheirKindAndSign) {
  // Found by //tests/fuzz:json_fuzz: -0.25E-1111 underflows to -0.0, which
  // was written "-0" and read back as the integer 0.
  EXPECT_EQ(json::dump(json::Value::number(-0.0)), "-0.0");
  EXPECT_EQ(json::dump(json::Value::number(3.0)), "3.0");
  EXPECT_EQ(json::dump(json::Value::number(1e20)), "1e+20");
  const std::string text = json::dump(json::parse("[-0.25E-1111,3.0,-0]"));
  EXPECT_EQ(text, "[-0.0,3.0,0]");
  EXPECT_EQ(json::dump(json::parse(text)), text);
  EXPECT_TRUE(std::signbit(json::parse("-0.0").as_double()));
}

TEST(JsonLimits, AValueIsSixteenBytesAndContainersAreTrimmed) {
  // 2 bytes of text per value ("0,") may cost at most 8x in memory.
  EXPECT_EQ(sizeof(json::Value), 16u);
  std::string text = "[";
  for (int i = 0; i < 1000; ++i) text += "0,";
  text += "0]";
  const json::Value v = json::parse(text);
  EXPECT_EQ(v.items().size(), 1001u);
  EXPECT_EQ(v.items().capacity(), 1001u);
  // Copies are deep and moves leave null behind.
  json::Value copy = v;
  json::Value moved = std::move(copy);
  EXPECT_EQ(copy.kind(), json::Value::Kind::kNull);  // NOLINT(bugprone-use-after-move)
  EXPECT_EQ(moved.items().size(), 1001u);
  EXPECT_EQ(json::dump(json::parse("{\"a\":[\"s\",1.5,true,null,{}]}")),
            "{\"a\":[\"s\",1.5,true,null,{}]}");
}

TEST(JsonLimits, NestingDeeperThan64LevelsIsRefused) {
  EXPECT_NO_THROW(json::parse(std::string(64, '[') + std::string(64, ']')));
  EXPECT_THAT(errorOf([] { json::parse(std::string(100000, '[')); }),
              HasSubstr("nesting deeper than 64 levels at byte 64"));
}

TEST(JsonLimits, ControlCharactersInADuplicateKeyAreEscapedInTheMessage) {
  EXPECT_THAT(errorOf([] { json::parse("{\"a\\u0000b\":1,\"a\\u0000b\":2}"); }),
              HasSubstr("duplicate key \"a\\u0000b\" at byte 14"));
}

}  // namespace
