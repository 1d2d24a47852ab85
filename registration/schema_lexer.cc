#include "registration/schema_lexer.h"

#include <algorithm>
#include <cctype>
#include <utility>

#include "c10/util/Exception.h"
#include "c10/util/StringUtil.h"

namespace c10 {
namespace schema_detail {

void throwAt(const char* where, const std::string& source, size_t pos,
             const std::string& what, const std::string& fix) {
  std::string line = source;
  // Line breaks and tabs would misplace the caret; show them as spaces.
  std::replace_if(line.begin(), line.end(),
                  [](char c) { return c == '\n' || c == '\r' || c == '\t'; },
                  ' ');
  std::string sentence = fix;
  if (!sentence.empty() && sentence.back() != '.' && sentence.back() != '?') {
    sentence += '.';
  }
  C10_THROW_ERROR(Error, where, ": ", what, " at column ", pos + 1,
                  sentence.empty() ? "." : ". ", sentence, "\n  ", line,
                  "\n  ", std::string(pos, ' '), "^");
}

namespace {

bool isIdentStart(char c) {
  return std::isalpha(static_cast<unsigned char>(c)) || c == '_';
}
bool isIdentChar(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}
bool isDigit(char c) { return c >= '0' && c <= '9'; }

class Lexer {
 public:
  Lexer(const char* where, const std::string& src) : where_(where), src_(src) {}

  std::vector<Token> tokenize() {
    std::vector<Token> out;
    while (true) {
      while (i_ < src_.size() && std::isspace(static_cast<unsigned char>(src_[i_]))) ++i_;
      if (i_ >= src_.size()) break;
      out.push_back(next());
    }
    out.push_back(Token{Tok::End, "", "", src_.size()});
    return out;
  }

 private:
  char at(size_t k) const { return k < src_.size() ? src_[k] : '\0'; }

  Token make(Tok kind, size_t start) {
    return Token{kind, src_.substr(start, i_ - start), "", start};
  }

  Token next() {
    const size_t start = i_;
    const char c = src_[i_];
    if (isIdentStart(c)) {
      while (isIdentChar(at(i_))) ++i_;
      return make(Tok::Ident, start);
    }
    if (isDigit(c) || (c == '.' && isDigit(at(i_ + 1))) ||
        (c == '-' && (isDigit(at(i_ + 1)) ||
                      (at(i_ + 1) == '.' && isDigit(at(i_ + 2)))))) {
      return number();
    }
    if (c == '-' && src_.compare(i_, 4, "-inf") == 0 && !isIdentChar(at(i_ + 4))) {
      i_ += 4;
      return make(Tok::Float, start);
    }
    if (c == '"' || c == '\'') return string();
    const std::pair<const char*, Tok> kPunct[] = {
        {"...", Tok::Ellipsis}, {"->", Tok::Arrow}, {"::", Tok::ColonColon},
        {"(", Tok::LParen},     {")", Tok::RParen}, {"[", Tok::LBracket},
        {"]", Tok::RBracket},   {",", Tok::Comma},  {"*", Tok::Star},
        {"?", Tok::Question},   {"!", Tok::Bang},   {"=", Tok::Equals},
        {"|", Tok::Pipe},       {".", Tok::Dot}};
    for (const auto& [text, kind] : kPunct) {
      const size_t n = std::char_traits<char>::length(text);
      if (src_.compare(i_, n, text) == 0) {
        i_ += n;
        return make(kind, start);
      }
    }
    throwAt(where_, src_, start, c10::str("unexpected character '", c, "'"),
            "A schema holds names, numbers, quoted strings and the symbols "
            "( ) [ ] , * ? ! = | -> :: . and ...");
  }

  // [-] digits [. digits] [(e|E) [+|-] digits]; a '.' or exponent makes it
  // a Float. `2.` is a Float, as in Python.
  Token number() {
    const size_t start = i_;
    if (at(i_) == '-') ++i_;
    bool is_float = false;
    while (isDigit(at(i_))) ++i_;
    if (at(i_) == '.' && at(i_ + 1) != '.') {
      is_float = true;
      ++i_;
      while (isDigit(at(i_))) ++i_;
    }
    if (at(i_) == 'e' || at(i_) == 'E') {
      size_t j = i_ + 1;
      if (at(j) == '+' || at(j) == '-') ++j;
      if (!isDigit(at(j))) {
        throwAt(where_, src_, start, c10::str("malformed number '",
                src_.substr(start, j - start), "': the exponent has no digits"),
                "Write an exponent with digits, e.g. 1e-05");
      }
      i_ = j;
      while (isDigit(at(i_))) ++i_;
      is_float = true;
    }
    if (isIdentChar(at(i_))) {
      size_t end = i_;
      while (isIdentChar(at(end))) ++end;
      throwAt(where_, src_, start, c10::str("malformed number '",
              src_.substr(start, end - start), "'"),
              "A number is digits with an optional fraction and exponent, "
              "e.g. 2, -1, 0.5 or 1e-05");
    }
    return make(is_float ? Tok::Float : Tok::Int, start);
  }

  Token string() {
    const size_t start = i_;
    const char quote = src_[i_++];
    std::string value;
    while (true) {
      if (i_ >= src_.size()) {
        throwAt(where_, src_, start, "unterminated string",
                c10::str("Close it with a matching ",
                         quote == '"' ? "double" : "single", " quote"));
      }
      const char c = src_[i_++];
      if (c == quote) break;
      if (c != '\\') {
        value += c;
        continue;
      }
      const char e = at(i_++);
      switch (e) {
        case 'n': value += '\n'; break;
        case 't': value += '\t'; break;
        case '\\': case '\'': case '"': value += e; break;
        default:
          throwAt(where_, src_, i_ - 2, c10::str("unknown escape '\\", e, "'"),
                  "Strings support the escapes \\n \\t \\\\ \\' and \\\"");
      }
    }
    Token t = make(Tok::String, start);
    t.value = std::move(value);
    return t;
  }

  const char* where_;
  const std::string& src_;
  size_t i_ = 0;
};

}  // namespace

std::vector<Token> tokenize(const char* where, const std::string& src) {
  return Lexer(where, src).tokenize();
}

}  // namespace schema_detail
}  // namespace c10
