#include "registration/schema_parser.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "c10/util/Exception.h"
#include "c10/util/StringUtil.h"
#include "registration/schema_lexer.h"

namespace c10 {
namespace {

using schema_detail::throwAt;
using schema_detail::Tok;
using schema_detail::Token;

// ---- Default literals, before they are fitted to a type ----

struct Literal {
  enum class Kind { Int, Float, Bool, None, Str, Ident, List };
  Kind kind = Kind::None;
  int64_t i = 0;
  double f = 0.0;
  bool b = false;
  std::string s;  // Str: contents; Ident: the name
  std::vector<Literal> elems;
  size_t pos = 0;
  std::string raw;  // source text, for messages
};

// The names a type may be written as, in the order error messages list them.
struct TypeSpelling {
  std::string_view text;
  BaseType base;
};
constexpr TypeSpelling kTypeSpellings[] = {
#define C10_BASE_TYPE_SPELLING_(name, spelling) {spelling, BaseType::name},
    C10_FORALL_SCHEMA_BASE_TYPES(C10_BASE_TYPE_SPELLING_)
#undef C10_BASE_TYPE_SPELLING_
    {"SymInt", BaseType::Int},
};

// Case-insensitive edit distance, for "did you mean" hints.
size_t editDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t up = row[j];
      const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (same ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// `int[N] x=1` expands to N copies; a typo in N should not exhaust memory.
constexpr int64_t kMaxRepeatedDefault = 1024;

struct ParsedArgument {
  Argument argument;
  size_t name_pos;
};

class Parser {
 public:
  Parser(const char* where, const std::string& src)
      : where_(where), src_(src), toks_(schema_detail::tokenize(where, src)) {}

  bool atEnd() const { return peek().kind == Tok::End; }

  OperatorName parseOperatorName() {
    const Token& first = expect(Tok::Ident, "an operator name such as aten::add",
                                "A schema starts with the operator's name");
    OperatorName name{first.raw, ""};
    if (accept(Tok::ColonColon)) {
      if (peek().kind != Tok::Ident) {
      fail(peek(), c10::str("expected an operator name after '", first.raw,
                            "::', but found ", describe(peek())),
           "Write a namespaced name as ns::name, e.g. aten::add");
    }
    name.name += "::" + next().raw;
      if (peek().kind == Tok::ColonColon) {
        fail(peek(), c10::str("a second '::' in operator name '", name.name, "'"),
             "An operator name has at most one namespace, as in aten::add");
      }
    }
    if (accept(Tok::Dot)) {
      name.overload_name = expect(Tok::Ident, "an overload name after '.'",
                                  "Write the name as name.overload, e.g. "
                                  "aten::add.Tensor").raw;
    }
    return name;
  }

  void expectEnd(const char* what, const char* fix) {
    if (!atEnd()) fail(peek(), c10::str("unexpected ", describe(peek()), " ", what), fix);
  }

  // Everything after the operator name: '(' args ')' '->' returns.
  FunctionSchema parseSignature(OperatorName name) {
    if (peek().kind != Tok::LParen) {
      fail(peek(), c10::str("expected '(' after the operator name '", name.str(),
                            "', but found ", describe(peek())),
           "A schema looks like name(Type arg, ...) -> Return");
    }
    next();
    std::vector<Argument> args;
    std::unordered_map<std::string, size_t> seen;
    bool kwarg_only = false;
    bool vararg = false;
    if (!accept(Tok::RParen)) {
      while (true) {
        if (peek().kind == Tok::Star) {
          const Token& star = next();
          if (kwarg_only) {
            fail(star, "a second '*'", "Write '*' once, before the first "
                 "keyword-only argument");
          }
          kwarg_only = true;
          expect(Tok::Comma, "',' after '*'",
                 "'*' must be followed by at least one keyword-only argument");
          continue;
        }
        if (accept(Tok::Ellipsis)) {
          vararg = true;
          expect(Tok::RParen, "')' after '...'", "'...' must be the last argument");
          break;
        }
        ParsedArgument a = parseArgument(/*is_return=*/false, kwarg_only);
        checkUnique(seen, a, "argument");
        args.push_back(std::move(a.argument));
        if (accept(Tok::Comma)) continue;
        if (accept(Tok::RParen)) break;
        fail(peek(), c10::str("expected ',' or ')' after argument '",
             args.back().name(), "', but found ", describe(peek())),
             "Separate arguments with ',' and close the list with ')'");
      }
    }
    expect(Tok::Arrow, "'->' after the argument list",
           "Every schema declares its returns, e.g. '-> Tensor' or '-> ()'");
    bool varret = false;
    std::vector<Argument> rets = parseReturns(&varret);
    expectEnd("after the returns", "The schema ends after its returns");
    return FunctionSchema(std::move(name), std::move(args), std::move(rets),
                          vararg, varret);
  }

 private:
  // ---- Token access ----

  const Token& peek() const { return toks_[i_]; }
  const Token& next() {
    const Token& t = toks_[i_];
    if (t.kind != Tok::End) ++i_;
    return t;
  }
  bool accept(Tok kind) {
    if (peek().kind != kind) return false;
    next();
    return true;
  }
  // Consumes a token of `kind`, or fails with "expected <expected>, but
  // found ...". Both texts are literals, so the success path allocates
  // nothing.
  const Token& expect(Tok kind, const char* expected, const char* fix) {
    if (peek().kind != kind) {
      fail(peek(), c10::str("expected ", expected, ", but found ",
                            describe(peek())), fix);
    }
    return next();
  }
  static std::string describe(const Token& t) {
    return t.kind == Tok::End ? "the end of the text" : "'" + t.raw + "'";
  }
  [[noreturn]] void fail(const Token& at, const std::string& what,
                         const std::string& fix) const {
    failAt(at.pos, what, fix);
  }
  [[noreturn]] void failAt(size_t pos, const std::string& what,
                           const std::string& fix) const {
    throwAt(where_, src_, pos, what, fix);
  }

  void checkUnique(std::unordered_map<std::string, size_t>& seen,
                   const ParsedArgument& a, const char* noun) const {
    const std::string& name = a.argument.name();
    if (name.empty()) return;
    const auto [it, inserted] = seen.emplace(name, a.name_pos);
    if (!inserted) {
      failAt(a.name_pos, c10::str("duplicate ", noun, " name '", name,
             "' (first used at column ", it->second + 1, ")"),
             c10::str("Give every ", noun, " a distinct name"));
    }
  }

  // ---- Types ----

  std::pair<TypeSpec, std::optional<AliasInfo>> parseType() {
    const Token& t = peek();
    if (t.kind != Tok::Ident) {
      fail(t, c10::str("expected a type such as Tensor or int, but found ",
                       describe(t)), "Write each argument as 'Type name' and each return "
               "as 'Type' or 'Type name'");
    }
    TypeSpec type;
    if (!lookupType(t, &type.base)) unknownType(t);
    next();
    std::optional<AliasInfo> alias;
    if (peek().kind == Tok::LParen) {
      if (type.base != BaseType::Tensor) {
        fail(peek(), c10::str("alias annotation on type '", t.raw, "'"),
             "Only Tensor types carry alias annotations such as (a!)");
      }
      alias = parseAlias();
    }
    type.element_optional = accept(Tok::Question);
    if (accept(Tok::LBracket)) {
      type.is_list = true;
      if (peek().kind == Tok::Int) {
        const Token& n = next();
        const Literal size = parseInt(n);
        if (size.i <= 0) {
          fail(n, c10::str("list size ", n.raw, " is not positive"),
               "Write a positive size as in int[2], or none as in int[]");
        }
        type.fixed_size = size.i;
      }
      expect(Tok::RBracket, "']' to close the list type",
             "A list type is written T[] or T[N]");
      type.list_optional = accept(Tok::Question);
    }
    const Token& after = peek();
    if (after.kind == Tok::Question || after.kind == Tok::LBracket) {
      fail(after, c10::str("type '", type.str(), "' followed by ", describe(after)),
           "Nested lists and a second '?' are not supported");
    }
    if (after.kind == Tok::LParen && type.base == BaseType::Tensor) {
      fail(after, c10::str("alias annotation after '", type.str(), "'"),
           "Put it right after the base type, as in Tensor(a!)? or Tensor(a)[]");
    }
    return {type, alias};
  }

  bool lookupType(const Token& t, BaseType* out) const {
    for (const auto& [spelling, base] : kTypeSpellings) {
      if (t.raw == spelling) {
        *out = base;
        return true;
      }
    }
    return false;
  }

  [[noreturn]] void unknownType(const Token& t) const {
    std::string names;
    std::string best;
    size_t best_distance = 3;  // suggest only close matches
    for (const auto& [spelling, base] : kTypeSpellings) {
      if (!names.empty()) names += ", ";
      names += spelling;
      const size_t d = editDistance(t.raw, spelling);
      if (d < best_distance) {
        best_distance = d;
        best = std::string(spelling);
      }
    }
    fail(t, c10::str("unknown type '", t.raw, "'"),
         c10::str("Expected one of ", names,
                  best.empty() ? "" : c10::str("; did you mean '", best, "'?")));
  }

  // '(' set ['!'] ['->' set] ')'
  AliasInfo parseAlias() {
    next();  // '('
    AliasInfo alias;
    alias.set = parseAliasSet();
    alias.is_write = accept(Tok::Bang);
    if (accept(Tok::Arrow)) alias.after_set = parseAliasSet();
    expect(Tok::RParen, "')' to close the alias annotation",
           "Alias annotations look like (a), (a!) or (a -> *)");
    return alias;
  }

  std::string parseAliasSet() {
    if (accept(Tok::Star)) return "*";
    const char* kFix = "An alias set is a name such as a, names joined by |, or *";
    std::string set = expect(Tok::Ident, "an alias set name", kFix).raw;
    while (accept(Tok::Pipe)) {
      set += "|" + expect(Tok::Ident, "an alias set name after '|'", kFix).raw;
    }
    return set;
  }

  // ---- Arguments and returns ----

  ParsedArgument parseArgument(bool is_return, bool kwarg_only) {
    auto [type, alias] = parseType();
    std::string name;
    size_t name_pos = peek().pos;
    if (peek().kind == Tok::Ident) {
      name = next().raw;
    } else if (!is_return) {
      fail(peek(), c10::str("expected an argument name after type '",
                            type.str(), "', but found ", describe(peek())),
           "Write each argument as 'Type name', e.g. 'Tensor self'");
    }
    std::optional<DefaultValue> default_value;
    if (peek().kind == Tok::Equals) {
      if (is_return) {
        fail(peek(), "a default value on a return", "Only arguments take defaults");
      }
      next();
      default_value = fitDefault(type, parseLiteral(), name);
    }
    return {Argument(std::move(name), type, std::move(default_value), kwarg_only,
                     std::move(alias)),
            name_pos};
  }

  std::vector<Argument> parseReturns(bool* varret) {
    std::vector<Argument> rets;
    if (accept(Tok::Ellipsis)) {
      *varret = true;
      return rets;
    }
    if (!accept(Tok::LParen)) {
      rets.push_back(parseArgument(/*is_return=*/true, false).argument);
      return rets;
    }
    std::unordered_map<std::string, size_t> seen;
    if (accept(Tok::RParen)) return rets;
    while (true) {
      if (accept(Tok::Ellipsis)) {
        *varret = true;
        expect(Tok::RParen, "')' after '...'", "'...' must be the last return");
        return rets;
      }
      ParsedArgument r = parseArgument(/*is_return=*/true, false);
      checkUnique(seen, r, "return");
      rets.push_back(std::move(r.argument));
      if (accept(Tok::Comma)) continue;
      if (accept(Tok::RParen)) return rets;
      fail(peek(), c10::str("expected ',' or ')' after a return, but found ",
                            describe(peek())),
           "Write returns as (Type [name], ...)");
    }
  }

  // ---- Defaults ----

  Literal parseInt(const Token& t) const {
    Literal lit;
    lit.kind = Literal::Kind::Int;
    const auto res = std::from_chars(t.raw.data(), t.raw.data() + t.raw.size(), lit.i);
    if (res.ec != std::errc() || res.ptr != t.raw.data() + t.raw.size()) {
      fail(t, c10::str("integer ", t.raw, " does not fit in 64 bits"),
           "Use a value in [-9223372036854775808, 9223372036854775807]");
    }
    return lit;
  }

  Literal parseLiteral() {
    const Token& t = next();
    Literal lit;
    switch (t.kind) {
      case Tok::Int:
        lit = parseInt(t);
        break;
      case Tok::Float: {
        lit.kind = Literal::Kind::Float;
        if (t.raw == "-inf") {
          lit.f = -std::numeric_limits<double>::infinity();
          break;
        }
        const char* end = t.raw.data() + t.raw.size();
        const auto res = std::from_chars(t.raw.data(), end, lit.f);
        TORCH_INTERNAL_ASSERT(res.ptr == end || res.ec != std::errc(),
                              "parseSchema: the lexer passed float '", t.raw,
                              "' that from_chars reads only in part");
        if (res.ec == std::errc::result_out_of_range &&
            t.raw.find_first_of("eE") != std::string::npos &&
            t.raw[t.raw.find_first_of("eE") + 1] == '-') {
          // Too small for a double: it reads as zero, as in Python.
          lit.f = t.raw[0] == '-' ? -0.0 : 0.0;
        } else if (res.ec != std::errc()) {
          fail(t, c10::str("float ", t.raw, " is out of the range of a double"),
               "Use inf or -inf for infinite values");
        }
        break;
      }
      case Tok::String:
        lit.kind = Literal::Kind::Str;
        lit.s = t.value;
        break;
      case Tok::Ident:
        if (t.raw == "True" || t.raw == "False") {
          lit.kind = Literal::Kind::Bool;
          lit.b = t.raw == "True";
        } else if (t.raw == "None") {
          lit.kind = Literal::Kind::None;
        } else if (t.raw == "inf" || t.raw == "nan") {
          lit.kind = Literal::Kind::Float;
          lit.f = t.raw == "inf" ? std::numeric_limits<double>::infinity()
                                 : std::numeric_limits<double>::quiet_NaN();
        } else {
          lit.kind = Literal::Kind::Ident;
          lit.s = t.raw;
        }
        break;
      case Tok::LBracket:
        lit.kind = Literal::Kind::List;
        if (!accept(Tok::RBracket)) {
          while (true) {
            // Rejected here rather than when fitting, so that the recursion
            // is at most one level deep whatever the text.
            if (peek().kind == Tok::LBracket) {
              fail(peek(), "a list inside a list default",
                   "Defaults are flat lists such as [0, 1]");
            }
            lit.elems.push_back(parseLiteral());
            if (accept(Tok::Comma)) continue;
            expect(Tok::RBracket, "',' or ']' in a list default",
                   "Write lists as [1, 2]");
            break;
          }
        }
        break;
      default:
        fail(t, c10::str("expected a default value, but found ", describe(t)),
             "A default is a number, True, False, None, a quoted string, "
             "a name or a list such as [0, 1]");
    }
    // The literal spans from `t` to the last token consumed (`]` for a list).
    const Token& last = toks_[i_ - 1];
    lit.pos = t.pos;
    lit.raw = src_.substr(t.pos, last.pos + last.raw.size() - t.pos);
    return lit;
  }

  [[noreturn]] void mismatch(const Literal& lit, const TypeSpec& type,
                             const std::string& arg, const std::string& fix) const {
    failAt(lit.pos, c10::str("default ", lit.raw, " does not fit type '",
           type.str(), "' of argument '", arg, "'"), fix);
  }

  // See Note [Default value kinds].
  DefaultValue fitDefault(const TypeSpec& type, const Literal& lit,
                          const std::string& arg) const {
    if (lit.kind == Literal::Kind::None) {
      if (!type.is_optional()) {
        mismatch(lit, type, arg, c10::str("None needs an optional type such as '",
                 TypeSpec::optional(type).str(), "'"));
      }
      return DefaultValue::none();
    }
    if (!type.is_list) return fitScalar(type, lit, arg);
    const BaseType base = type.base;
    if (base != BaseType::Int && base != BaseType::Float && base != BaseType::Bool) {
      mismatch(lit, type, arg, "Only int[], float[] and bool[] take a list "
               "default; other lists take None (when optional) or nothing");
    }
    std::vector<DefaultValue> items;
    if (lit.kind == Literal::Kind::List) {
      for (const Literal& e : lit.elems) items.push_back(fitScalar(type, e, arg));
    } else if (type.fixed_size > 0) {
      // `int[2] stride=1` means [1, 1].
      if (type.fixed_size > kMaxRepeatedDefault) {
        mismatch(lit, type, arg, c10::str("A single value is repeated for at "
                 "most ", kMaxRepeatedDefault, " entries; write the list out"));
      }
      items.assign(static_cast<size_t>(type.fixed_size), fitScalar(type, lit, arg));
    } else {
      mismatch(lit, type, arg, "Write a list such as [0, 1]; a single value "
               "is only allowed for fixed-size lists such as int[2]");
    }
    DefaultValue out;
    out.kind = base == BaseType::Int     ? DefaultValue::Kind::IntList
               : base == BaseType::Float ? DefaultValue::Kind::FloatList
                                         : DefaultValue::Kind::BoolList;
    for (const DefaultValue& d : items) {
      out.ints.push_back(d.i);
      out.floats.push_back(d.f);
      out.bools.push_back(d.b);
    }
    if (base != BaseType::Int) out.ints.clear();
    if (base != BaseType::Float) out.floats.clear();
    if (base != BaseType::Bool) out.bools.clear();
    return out;
  }

  // A default for one value of `type`'s base type (the element, for lists).
  DefaultValue fitScalar(const TypeSpec& type, const Literal& lit,
                         const std::string& arg) const {
    using K = Literal::Kind;
    switch (type.base) {
      case BaseType::Int:
        if (lit.kind == K::Int) return DefaultValue::int_(lit.i);
        // at::Reduction: None = 0, Mean = 1, Sum = 2 (`None` is the None value).
        if (lit.kind == K::Ident && lit.s == "Mean") return DefaultValue::int_(1);
        if (lit.kind == K::Ident && lit.s == "Sum") return DefaultValue::int_(2);
        mismatch(lit, type, arg, "Write an integer such as 0 or -1, or Mean or "
                 "Sum for a reduction");
      case BaseType::Float:
        if (lit.kind == K::Int) return DefaultValue::float_(static_cast<double>(lit.i));
        if (lit.kind == K::Float) return DefaultValue::float_(lit.f);
        mismatch(lit, type, arg, "Write a number such as 1.0, 1e-05 or inf");
      case BaseType::Bool:
        if (lit.kind == K::Bool) return DefaultValue::bool_(lit.b);
        mismatch(lit, type, arg, "Write True or False");
      case BaseType::Str:
      case BaseType::Device:
        if (lit.kind == K::Str) return DefaultValue::string(lit.s);
        mismatch(lit, type, arg, "Write a quoted string such as \"mean\"");
      case BaseType::Scalar:
        if (lit.kind == K::Int) return DefaultValue::int_(lit.i);
        if (lit.kind == K::Float) return DefaultValue::float_(lit.f);
        if (lit.kind == K::Bool) return DefaultValue::bool_(lit.b);
        mismatch(lit, type, arg, "Write a number or True or False");
      case BaseType::ScalarType:
      case BaseType::Layout:
      case BaseType::MemoryFormat:
        if (lit.kind == K::Ident) return DefaultValue::identifier_name(lit.s);
        mismatch(lit, type, arg, "Write a name such as long, strided or "
                 "contiguous_format");
      case BaseType::Tensor:
      case BaseType::Generator:
        mismatch(lit, type, arg, c10::str("A ", toString(type.base),
                 " argument can only default to None, and only when its type "
                 "is optional"));
    }
    C10_THROW_ERROR(Error, "parseSchema: unhandled base type ",
                    toString(type.base), "; this is a bug in Ember.");
  }

  const char* where_;
  const std::string& src_;
  std::vector<Token> toks_;
  size_t i_ = 0;
};

}  // namespace

FunctionSchema parseSchema(const std::string& schema) {
  Parser p("parseSchema", schema);
  return p.parseSignature(p.parseOperatorName());
}

std::variant<OperatorName, FunctionSchema> parseSchemaOrName(
    const std::string& schema_or_name) {
  Parser p("parseSchemaOrName", schema_or_name);
  OperatorName name = p.parseOperatorName();
  if (p.atEnd()) return name;
  return p.parseSignature(std::move(name));
}

OperatorName parseName(const std::string& name) {
  Parser p("parseName", name);
  OperatorName out = p.parseOperatorName();
  p.expectEnd("after the operator name",
              "parseName takes only a name such as aten::add.Tensor; use "
              "parseSchema for a full schema");
  return out;
}

}  // namespace c10
