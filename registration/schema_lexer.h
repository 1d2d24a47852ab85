// registration/schema_lexer.h — tokens of PyTorch's schema syntax and the
// error format of the schema parser. Private to registration/schema_parser.cc;
// use registration/schema_parser.h.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace c10 {
namespace schema_detail {

// Throws c10::Error "<where>: <what> at column <c>. <fix>." followed by the
// text on one line and a caret under byte `pos` (0-based; the text's size
// means "after the last character"). `where` names the public entry point.
[[noreturn]] void throwAt(const char* where, const std::string& source,
                          size_t pos, const std::string& what,
                          const std::string& fix);

enum class Tok {
  Ident, Int, Float, String,
  LParen, RParen, LBracket, RBracket, Comma, Star, Question, Bang, Equals,
  Pipe, Arrow, ColonColon, Dot, Ellipsis, End
};

struct Token {
  Tok kind;
  std::string raw;    // the source text of the token
  std::string value;  // String: the unescaped contents
  size_t pos;         // byte offset in the source
};

// The tokens of `src`, ending with one Tok::End at src.size(). Whitespace
// separates tokens and is dropped. Throws (via throwAt) on a character no
// token starts with, a malformed number or an unterminated string. `-inf` is
// one Float token; other numbers carry their sign when `-` touches a digit.
std::vector<Token> tokenize(const char* where, const std::string& src);

}  // namespace schema_detail
}  // namespace c10
