// registration/schema_parser.h — reading PyTorch's schema syntax into a
// c10::FunctionSchema or c10::OperatorName.
//
//   c10::FunctionSchema s = c10::parseSchema(
//       "aten::max.dim(Tensor self, int dim, bool keepdim=False) "
//       "-> (Tensor values, Tensor indices)");
//   c10::OperatorName n = c10::parseName("aten::add.Tensor");
//
// The grammar, as PyTorch writes it:
//
//   schema    := name ['.' overload] '(' [args] ')' '->' returns
//   name      := [namespace '::'] identifier
//   args      := arg (',' arg)* , where one '*' may stand in place of an arg
//                (what follows is keyword-only) and '...' may end the list
//   arg       := type name ['=' default]
//   type      := base ['(' alias ')'] ['?'] ['[' [N] ']' ['?']]
//   alias     := set ['!'] ['->' set] , set := '*' | ident ('|' ident)*
//   returns   := ret | '(' [ret (',' ret)*] ')' | '...' , where '...' may
//                also end the parenthesized list ; ret := type [name]
//   default   := integer | float | inf | nan | True | False | None
//              | 'string' | "string" | identifier | '[' [default (',' default)*] ']'
//
// Base types are those of c10::BaseType, plus `SymInt` read as `int` (and
// printed back as `int`). Alias annotations sit right after the base type
// (`Tensor(a!)?`, `Tensor(a)[]`) and only on Tensor. How defaults are fitted
// to types is in Note [Default value kinds] (registration/FunctionSchema.h).
// Whitespace between tokens is ignored. Lists nest at most once: no `int[][]`,
// no `[[0]]`.
//
// Every function throws c10::Error on malformed text. The first line names
// the problem (the expected and the found token, or the type a default does
// not fit), the 1-based byte column and a fix; then come the text on one line
// (line breaks and tabs shown as spaces) and a caret under that column:
//
//   parseSchema: expected ',' or ')' after argument 'self', but found 'Tensor'
//   at column 23. Separate arguments with ',' and close the list with ')'.
//     aten::foo(Tensor self Tensor other) -> Tensor
//                           ^
//
// (The first line is one line in the message; it is wrapped here.) Semantic
// mistakes are reported the same way: unknown type names (with the list of
// known ones and a "did you mean"), duplicate argument or return names, and
// defaults that do not fit their type (`int x=True`, `bool b=1.5`).
//
// Parsing keeps no state between calls; any thread may call these
// concurrently.
#pragma once

#include <string>
#include <variant>

#include "registration/FunctionSchema.h"

namespace c10 {

// c10::parseSchema
//
// A full schema, returns included.
FunctionSchema parseSchema(const std::string& schema);

// c10::parseSchemaOrName
//
// A full schema, or just an operator name ("aten::add.Tensor") if the text
// ends after the name, as `m.def` accepts either.
std::variant<OperatorName, FunctionSchema> parseSchemaOrName(
    const std::string& schema_or_name);

// c10::parseName
//
// An operator name alone: "aten::add", "aten::add.Tensor", "myop".
OperatorName parseName(const std::string& name);

}  // namespace c10
