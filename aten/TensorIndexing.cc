// libtorch's C++ indexing on top of the view ops and index / index_put_.
// See Note [How a TensorIndex list applies] in aten/TensorIndexing.h.
#include "aten/TensorIndexing.h"

#include <sstream>
#include <string>
#include <string_view>
#include <utility>

#include "aten/Functions.h"

namespace at::indexing {

TensorIndex::TensorIndex(const char* str) : type_(TensorIndexType::Ellipsis) {
  TORCH_CHECK_VALUE(str != nullptr && std::string_view(str) == "...",
                    "TensorIndex: the only string index is \"...\" (Ellipsis), but got \"",
                    str == nullptr ? "(null)" : str,
                    "\". Use Ellipsis, None, an integer, a bool, a Slice or a tensor.");
}

namespace {

void print_bound(std::ostream& out, int64_t v) {
  if (v == INDEX_MAX || v == INDEX_MIN) {
    out << "None";
  } else {
    out << v;
  }
}

}  // namespace

std::ostream& operator<<(std::ostream& out, const Slice& slice) {
  print_bound(out, slice.start());
  out << ':';
  print_bound(out, slice.stop());
  out << ':' << slice.step();
  return out;
}

std::ostream& operator<<(std::ostream& out, const TensorIndex& index) {
  switch (index.type()) {
    case TensorIndexType::None:
      return out << "None";
    case TensorIndexType::Ellipsis:
      return out << "...";
    case TensorIndexType::Integer:
      return out << index.integer();
    case TensorIndexType::Boolean:
      return out << (index.boolean() ? "True" : "False");
    case TensorIndexType::Slice:
      return out << index.slice();
    case TensorIndexType::Tensor:
      if (!index.tensor().defined()) return out << "Tensor(undefined)";
      return out << "Tensor" << index.tensor().sizes() << ' '
                 << index.tensor().scalar_type();
  }
  return out;
}

std::ostream& operator<<(std::ostream& out, const std::vector<TensorIndex>& indices) {
  out << '(';
  for (size_t i = 0; i < indices.size(); ++i) {
    if (i > 0) out << ", ";
    out << indices[i];
  }
  return out << ')';
}

namespace {

std::string describe(ArrayRef<TensorIndex> indices) {
  std::ostringstream out;
  out << std::vector<TensorIndex>(indices.begin(), indices.end());
  return out.str();
}

bool is_mask(const Tensor& t) {
  return t.scalar_type() == ScalarType::Bool || t.scalar_type() == ScalarType::Byte;
}

// The dims of self that one index names (masks: as many as they have).
int64_t dims_named(const TensorIndex& index) {
  switch (index.type()) {
    case TensorIndexType::Integer:
    case TensorIndexType::Slice:
      return 1;
    case TensorIndexType::Tensor:
      if (!index.tensor().defined()) return 1;
      return is_mask(index.tensor()) ? index.tensor().dim() : 1;
    default:
      return 0;
  }
}

// The basic indices applied (a view of self), and the advanced ones left
// for at::index / at::index_put_: one entry per dim of `view`, a mask
// standing for as many dims as it has (See Note [Advanced indexing] in
// backends/cpu/indexing_advanced.cc); trailing whole dims are left out.
struct Sliced {
  Tensor view;
  std::vector<std::optional<Tensor>> advanced;
  int64_t covered = 0;  // the dims of `view` that `advanced` spans

  void record(int64_t dim, Tensor index, int64_t span) {
    while (covered < dim) {
      advanced.emplace_back();
      ++covered;
    }
    advanced.emplace_back(std::move(index));
    covered += span;
  }
};

class Slicer {
 public:
  Slicer(const Tensor& self, ArrayRef<TensorIndex> indices, const char* op)
      : self_(self), indices_(indices), op_(op) {}

  Sliced run() {
    TORCH_CHECK(self_.defined(), op_, ": cannot index an undefined tensor.");
    const int64_t self_dim = self_.dim();
    int64_t named = 0;
    int ellipses = 0;
    for (const TensorIndex& index : indices_) {
      named += dims_named(index);
      if (index.is_ellipsis()) ++ellipses;
    }
    TORCH_CHECK_INDEX(ellipses <= 1, op_, ": an index can only have a single ellipsis "
                      "('...'), but ", describe(indices_), " has ", ellipses, ".");
    TORCH_CHECK_INDEX(named <= self_dim, op_, ": too many indices for tensor of dimension ",
                      self_dim, ": ", describe(indices_), " names ", named,
                      " dims. Index fewer dims (None adds a dim without naming one).");
    Sliced s{self_, {}, 0};
    int64_t dim = 0;       // in s.view
    int64_t self_at = 0;   // the dim of self that dim stands for, for messages
    for (size_t k = 0; k < indices_.size(); ++k) {
      const TensorIndex& index = indices_[k];
      switch (index.type()) {
        case TensorIndexType::None:
          s.view = s.view.unsqueeze(dim);
          ++dim;
          break;
        case TensorIndexType::Ellipsis:
          dim += self_dim - named;
          self_at += self_dim - named;
          break;
        case TensorIndexType::Integer:
          s.view = select(s.view, dim, self_at, index.integer(), k);
          ++self_at;
          break;
        case TensorIndexType::Slice: {
          const Slice& slice = index.slice();
          TORCH_CHECK_VALUE(slice.step() > 0, op_, ": slice step must be positive, but "
                            "index ", k, " of ", describe(indices_), " has step ",
                            slice.step(), ". Reverse a dim with flip() instead.");
          s.view = s.view.slice(dim, slice.start(), slice.stop(), slice.step());
          ++dim;
          ++self_at;
          break;
        }
        case TensorIndexType::Boolean:
          s.view = s.view.unsqueeze(dim);
          s.record(dim, bool_index(index.boolean()), 1);
          ++dim;
          break;
        case TensorIndexType::Tensor:
          apply_tensor(s, index.tensor(), k, dim, self_at);
          break;
      }
    }
    return s;
  }

 private:
  Tensor select(const Tensor& view, int64_t dim, int64_t self_at, int64_t i, size_t k) {
    const int64_t size = view.size(dim);
    TORCH_CHECK_INDEX(i >= -size && i < size, op_, ": index ", i,
                      " is out of bounds for dimension ", self_at, " with size ", size,
                      " (index ", k, " of ", describe(indices_), ").");
    return view.select(dim, i);
  }

  // true: an index of [0] into a new dim of size 1 (keep it); false: an
  // empty index (drop everything).
  Tensor bool_index(bool value) const {
    const TensorOptions long_on_self = TensorOptions().dtype(kLong).device(self_.device());
    return value ? at::zeros({1}, long_on_self) : at::empty({0}, long_on_self);
  }

  void apply_tensor(Sliced& s, const Tensor& t, size_t k, int64_t& dim, int64_t& self_at) {
    TORCH_CHECK_INDEX(t.defined(), op_, ": index ", k, " of ", describe(indices_),
                      " is an undefined tensor. Use Slice() for a whole dim or None "
                      "for a new one.");
    if (t.dim() == 0 && isIntegralType(t.scalar_type(), /*includeBool=*/true)) {
      if (!is_mask(t)) {  // a 0-d integer tensor is an integer
        s.view = select(s.view, dim, self_at, t.item<int64_t>(), k);
        ++self_at;
        return;
      }
      s.view = s.view.unsqueeze(dim);  // a 0-d mask is a bool
      s.record(dim, bool_index(t.item<int64_t>() != 0), 1);
      ++dim;
      return;
    }
    const int64_t span = is_mask(t) ? t.dim() : 1;
    s.record(dim, t, span);
    dim += span;
    self_at += span;
  }

  const Tensor& self_;
  ArrayRef<TensorIndex> indices_;
  const char* op_;
};

// The value as a copy into a view takes it: leading size-1 dims dropped
// (Python's `x[0] = y[None]` works), then broadcast to `shape` (copy_
// converts the dtype).
Tensor value_for(const Tensor& value, IntArrayRef shape, const char* op) {
  TORCH_CHECK(value.defined(), op, ": the value to write is an undefined tensor.");
  Tensor v = value;
  if (v.sizes() == shape) return v;
  int64_t lead = 0;
  while (lead < v.dim() && v.size(lead) == 1) ++lead;
  if (lead > 0) v = v.view(v.sizes().slice(static_cast<size_t>(lead)));
  bool fits = static_cast<size_t>(v.dim()) <= shape.size();
  for (int64_t i = 0; fits && i < v.dim(); ++i) {
    const int64_t want = shape[shape.size() - static_cast<size_t>(v.dim() - i)];
    fits = v.size(i) == want || v.size(i) == 1;
  }
  TORCH_CHECK_VALUE(fits, op, ": shape mismatch: value tensor of shape ", value.sizes(),
                    " cannot be broadcast to indexing result of shape ", shape, ".");
  return v;
}

}  // namespace

Tensor get_item(const Tensor& self, ArrayRef<TensorIndex> indices) {
  Sliced s = Slicer(self, indices, "index").run();
  if (!s.advanced.empty()) return at::index(s.view, s.advanced);
  // x.index({"..."}) is a new view of x's memory, as Python's x[...].
  return s.view.is_same(self) ? self.alias() : s.view;
}

void set_item(const Tensor& self, ArrayRef<TensorIndex> indices, const Tensor& value) {
  const char* op = "index_put_";
  Sliced s = Slicer(self, indices, op).run();
  if (s.advanced.empty()) {
    Tensor v = value_for(value, s.view.sizes(), op);
    s.view.copy_(v.sizes() == s.view.sizes() ? v : v.expand(s.view.sizes()));
    return;
  }
  // The kernel drops leading 1s, broadcasts against the result's shape and,
  // as libtorch's, requires the value to have self's dtype.
  TORCH_CHECK(value.defined(), op, ": the value to write is an undefined tensor.");
  at::index_put_(s.view, s.advanced, value);
}

void set_item(const Tensor& self, ArrayRef<TensorIndex> indices, const Scalar& value) {
  Sliced s = Slicer(self, indices, "index_put_").run();
  if (s.advanced.empty()) {
    s.view.fill_(value);
    return;
  }
  at::index_put_(s.view, s.advanced, at::full({}, value, self.options()));
}

}  // namespace at::indexing

namespace at {

using indexing::TensorIndex;

Tensor Tensor::index(ArrayRef<TensorIndex> indices) const {
  return indexing::get_item(*this, indices);
}

Tensor Tensor::index(std::initializer_list<TensorIndex> indices) const {
  return indexing::get_item(*this, ArrayRef<TensorIndex>(indices));
}

Tensor& Tensor::index_put_(ArrayRef<TensorIndex> indices, const Tensor& rhs) const {
  indexing::set_item(*this, indices, rhs);
  return const_cast<Tensor&>(*this);
}

Tensor& Tensor::index_put_(ArrayRef<TensorIndex> indices, const Scalar& v) const {
  indexing::set_item(*this, indices, v);
  return const_cast<Tensor&>(*this);
}

Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices, const Tensor& rhs) const {
  return index_put_(ArrayRef<TensorIndex>(indices), rhs);
}

Tensor& Tensor::index_put_(std::initializer_list<TensorIndex> indices, const Scalar& v) const {
  return index_put_(ArrayRef<TensorIndex>(indices), v);
}

Tensor Tensor::operator[](const Scalar& index) const {
  TORCH_CHECK_INDEX(index.isIntegral(/*includeBool=*/false), "operator[]: expected an "
                    "integer index, but got ", index, ". Use index({...}) for other "
                    "kinds of index.");
  return (*this)[index.toLong()];
}

Tensor Tensor::operator[](const Tensor& index) const {
  return this->index({index});
}

}  // namespace at
