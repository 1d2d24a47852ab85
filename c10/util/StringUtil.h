// c10/util/StringUtil.h — building messages from heterogeneous parts.
//
// `c10::str(a, b, c)` streams each argument into one std::string. It is what
// TORCH_CHECK uses for its message parts, so anything with an `operator<<`
// can appear in an error message. Not meant for hot paths: it allocates.
#pragma once

#include <sstream>
#include <string>
#include <string_view>
#include <utility>

namespace c10 {

// c10::string_view — PyTorch's name for the view type of `str` arguments.
using string_view = std::string_view;

namespace detail {

inline void stream_all(std::ostream&) {}

template <typename T, typename... Rest>
void stream_all(std::ostream& os, const T& first, const Rest&... rest) {
  os << first;
  stream_all(os, rest...);
}

}  // namespace detail

// c10::str
//
// Concatenates the streamed form of every argument. `str()` is "" and
// `str(s)` of a single string returns it without going through a stream.
template <typename... Args>
std::string str(const Args&... args) {
  std::ostringstream os;
  detail::stream_all(os, args...);
  return os.str();
}

inline std::string str() { return std::string(); }
inline std::string str(const std::string& s) { return s; }
inline std::string str(const char* s) { return s; }

}  // namespace c10
