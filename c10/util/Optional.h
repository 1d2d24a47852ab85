// c10/util/Optional.h — c10::optional, c10::nullopt, c10::make_optional:
// the spellings of libtorch 1.x, which libtorch 2.x keeps as aliases of
// std::optional. Ember's own code uses std::optional; these exist so that
// programs written against libtorch compile unchanged.
//
//   c10::optional<int64_t> dim = c10::nullopt;
//   auto s = c10::make_optional<std::string>("mean");
#pragma once

#include <optional>

namespace c10 {
using std::bad_optional_access;
using std::make_optional;
using std::nullopt;
using std::nullopt_t;
using std::optional;
}  // namespace c10
