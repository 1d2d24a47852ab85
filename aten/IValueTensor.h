// aten/IValueTensor.h — the c10::IValue accessors that return at::Tensor
// (toTensor, toTensorVector, toTensorList), defined where at::Tensor is
// complete. aten/Tensor.h includes this header, so include that one.
//
//   at::Tensor self = (*stack)[0].toTensor();          // a boxed kernel
//   std::vector<at::Tensor> ts = iv.toTensorVector();
//
// See Note [IValue accessors returning at::Tensor] in registration/IValue.h.
#pragma once

#include <iterator>
#include <utility>
#include <vector>

#include "aten/Tensor.h"
#include "registration/IValue.h"

namespace c10 {

inline at::Tensor IValue::toTensor() const& {
  checkTag(Tag::Tensor, "toTensor");
  return at::Tensor(
      c10::intrusive_ptr<c10::TensorImpl>::reclaim_copy(payload_.as_tensor));
}

inline at::Tensor IValue::toTensor() && {
  checkTag(Tag::Tensor, "toTensor");
  c10::TensorImpl* impl = payload_.as_tensor;
  clearToNone();
  return at::Tensor(c10::intrusive_ptr<c10::TensorImpl>::reclaim(impl));
}

inline std::vector<at::Tensor> IValue::toTensorVector() const& {
  const std::vector<at::TensorBase>& bases =
      listRef<at::TensorBase>(Tag::TensorList, "toTensorVector");
  std::vector<at::Tensor> out;
  out.reserve(bases.size());
  for (const at::TensorBase& b : bases) out.emplace_back(b);
  return out;
}

inline std::vector<at::Tensor> IValue::toTensorVector() && {
  std::vector<at::TensorBase> bases =
      takeList<at::TensorBase>(Tag::TensorList, "toTensorVector");
  std::vector<at::Tensor> out;
  out.reserve(bases.size());
  for (at::TensorBase& b : bases) out.emplace_back(std::move(b));
  return out;
}

inline std::vector<at::Tensor> IValue::toTensorList() const& {
  checkTag(Tag::TensorList, "toTensorList");
  return toTensorVector();
}

inline std::vector<at::Tensor> IValue::toTensorList() && {
  checkTag(Tag::TensorList, "toTensorList");
  return std::move(*this).toTensorVector();
}

}  // namespace c10
