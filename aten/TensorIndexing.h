// aten/TensorIndexing.h — libtorch's C++ indexing: Tensor::index and
// Tensor::index_put_ with a list of TensorIndex, the C++ spelling of
// Python's `t[...]` and `t[...] = v`.
//
//   using namespace torch::indexing;
//   at::Tensor x = at::arange(24).view({2, 3, 4});
//   at::Tensor a = x.index({Slice(), 0});               // x[:, 0]    -> [2, 4], a view
//   at::Tensor b = x.index({"...", Slice(None, None, 2)}); // x[..., ::2] -> [2, 3, 2]
//   at::Tensor c = x.index({x > 10});                   // x[x > 10]  -> [13], a copy
//   x.index_put_({0, Slice(1, None)}, 7);               // x[0, 1:] = 7
//   x[1][2] = 0;                                        // assignment through a view
//
// aten/Tensor.h includes this header, so include that one (or <ATen/ATen.h>,
// <torch/torch.h>). torch::indexing names this namespace (torch:: sees at::).
//
// Note [How a TensorIndex list applies]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// The list is read left to right against a running dim d of the result:
//   an integer i        select(d, i): the dim goes away;
//   Slice(a, b, s)      slice(d, a, b, s), Python's clamping, s > 0; d += 1;
//   None                unsqueeze(d); d += 1;
//   Ellipsis / "..."    d skips every dim no index names (at most one);
//   true / false        unsqueeze(d), then an advanced index of [0] / [] on it;
//   a tensor            an advanced index on dim d (a bool/byte mask of m
//                       dims covers m dims); a 0-d integer tensor is an integer.
// The basic indices make a view. If any advanced index was met, the view is
// then passed with the advanced indices to at::index / at::index_put_ (so the
// result is a copy; See Note [Advanced indexing] in the CPU plugin for the
// shape rule). Otherwise index() returns the view and index_put_ copies or
// fills the value into it. Errors name the index list and position.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <ostream>
#include <type_traits>
#include <vector>

#include "aten/Tensor.h"

namespace at::indexing {

// at::indexing::INDEX_MIN / INDEX_MAX — the open ends of a Slice.
constexpr int64_t INDEX_MIN = INT64_MIN;
constexpr int64_t INDEX_MAX = INT64_MAX;

// at::indexing::EllipsisIndexType / Ellipsis — `...`: every dim no other
// index names.
struct EllipsisIndexType final {
  EllipsisIndexType() = default;
};
inline constexpr EllipsisIndexType Ellipsis{};

// at::indexing::None — a new dim of size 1 (Python's None); also an open
// end of a Slice: Slice(None, 2).
inline constexpr std::nullopt_t None = std::nullopt;

// at::indexing::Slice — Python's start:stop:step. Missing bounds are open;
// negative bounds count from the end; bounds past the end are clamped. The
// step must be positive (as PyTorch's tensors; checked where it applies).
class Slice final {
 public:
  Slice(std::optional<int64_t> start = std::nullopt,
        std::optional<int64_t> stop = std::nullopt,
        std::optional<int64_t> step = std::nullopt)
      : step_(step.value_or(1)),
        start_(start.value_or(step_ < 0 ? INDEX_MAX : 0)),
        stop_(stop.value_or(step_ < 0 ? INDEX_MIN : INDEX_MAX)) {}

  int64_t start() const { return start_; }
  int64_t stop() const { return stop_; }
  int64_t step() const { return step_; }

 private:
  int64_t step_;
  int64_t start_;
  int64_t stop_;
};

std::ostream& operator<<(std::ostream& out, const Slice& slice);

enum class TensorIndexType { None, Ellipsis, Integer, Boolean, Slice, Tensor };

// at::indexing::TensorIndex — one entry of an index list: None, Ellipsis
// (or the string "..."), an integer, a bool, a Slice or a Tensor.
class TensorIndex final {
 public:
  TensorIndex(std::nullopt_t) : type_(TensorIndexType::None) {}
  TensorIndex(EllipsisIndexType) : type_(TensorIndexType::Ellipsis) {}
  // Only "..." is accepted; any other string throws.
  TensorIndex(const char* str);
  TensorIndex(int64_t integer) : integer_(integer), type_(TensorIndexType::Integer) {}
  TensorIndex(int integer) : TensorIndex(static_cast<int64_t>(integer)) {}
  // bool only (a template, so that integers and pointers do not convert).
  template <class T, class = std::enable_if_t<std::is_same_v<T, bool>>>
  TensorIndex(T boolean) : boolean_(boolean), type_(TensorIndexType::Boolean) {}
  TensorIndex(Slice slice) : slice_(slice), type_(TensorIndexType::Slice) {}
  TensorIndex(Tensor tensor) : tensor_(std::move(tensor)), type_(TensorIndexType::Tensor) {}

  TensorIndexType type() const { return type_; }
  bool is_none() const { return type_ == TensorIndexType::None; }
  bool is_ellipsis() const { return type_ == TensorIndexType::Ellipsis; }
  bool is_integer() const { return type_ == TensorIndexType::Integer; }
  bool is_boolean() const { return type_ == TensorIndexType::Boolean; }
  bool is_slice() const { return type_ == TensorIndexType::Slice; }
  bool is_tensor() const { return type_ == TensorIndexType::Tensor; }
  int64_t integer() const { return integer_; }
  bool boolean() const { return boolean_; }
  const Slice& slice() const { return slice_; }
  const Tensor& tensor() const { return tensor_; }

 private:
  int64_t integer_ = 0;
  bool boolean_ = false;
  Slice slice_;
  Tensor tensor_;
  TensorIndexType type_;
};

// Prints as Python would write the index: None, ..., 3, True, 1:None:2,
// Tensor[2, 3] of its sizes.
std::ostream& operator<<(std::ostream& out, const TensorIndex& index);
std::ostream& operator<<(std::ostream& out, const std::vector<TensorIndex>& indices);

// at::indexing::get_item / set_item — what Tensor::index / index_put_ call.
Tensor get_item(const Tensor& self, ArrayRef<TensorIndex> indices);
void set_item(const Tensor& self, ArrayRef<TensorIndex> indices, const Tensor& value);
void set_item(const Tensor& self, ArrayRef<TensorIndex> indices, const Scalar& value);

}  // namespace at::indexing
