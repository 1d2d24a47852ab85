// See Note [RPC frame] in wire.h.
#include "distributed/rpc/wire.h"

#include <ATen/ATen.h>

#include <atomic>
#include <cstdint>
#include <cstring>
#include <limits>
#include <mutex>
#include <utility>

#include "c10/util/Exception.h"
#include "distributed/rpc/peer_memory.h"

namespace torch {
namespace distributed {
namespace rpc {
namespace wire {
namespace {

using ember::rpc::DType;

// The wire's dtype names against Ember's ScalarType (whose numbering is not
// a wire format). A dtype missing here fails the static_assert below.
struct DTypeEntry {
  c10::ScalarType scalar_type;
  DType wire;
};
constexpr DTypeEntry kDTypes[] = {
    {c10::ScalarType::Byte, ember::rpc::UINT8},
    {c10::ScalarType::Char, ember::rpc::INT8},
    {c10::ScalarType::Short, ember::rpc::INT16},
    {c10::ScalarType::Int, ember::rpc::INT32},
    {c10::ScalarType::Long, ember::rpc::INT64},
    {c10::ScalarType::Half, ember::rpc::FLOAT16},
    {c10::ScalarType::Float, ember::rpc::FLOAT32},
    {c10::ScalarType::Double, ember::rpc::FLOAT64},
    {c10::ScalarType::Bool, ember::rpc::BOOL},
    {c10::ScalarType::BFloat16, ember::rpc::BFLOAT16},
};
static_assert(sizeof(kDTypes) / sizeof(kDTypes[0]) ==
                  static_cast<size_t>(c10::ScalarType::Undefined),
              "wire.cc: every ScalarType needs a wire DType in kDTypes");

// See Note [Frames order memory] in wire.h.
std::atomic<uint64_t> g_frames_sent{0};

DType to_wire(c10::ScalarType t) {
  for (const auto& e : kDTypes) {
    if (e.scalar_type == t) return e.wire;
  }
  TORCH_CHECK(false, "rpc: cannot send a tensor of dtype ", t,
              "; it has no wire encoding.");
}

ember::rpc::DeviceKind device_to_wire(c10::DeviceType t) {
  switch (t) {
    case c10::DeviceType::CPU:
      return ember::rpc::CPU;
    case c10::DeviceType::CUDA:
      return ember::rpc::CUDA;
    case c10::DeviceType::PrivateUse1:
      return ember::rpc::PRIVATE_USE1;
  }
  TORCH_CHECK(false, "rpc: unknown device type ", static_cast<int>(t));
}

[[noreturn]] void bad(const std::string& what) {
  TORCH_CHECK(false, "rpc: bad message: ", what,
              ". The peer is not an Ember RPC agent of this version, or the "
              "bytes were damaged.");
}

// Reads the payload across gRPC's slices, never past the end.
class SliceReader {
 public:
  explicit SliceReader(const std::vector<grpc::Slice>& slices)
      : slices_(slices) {
    for (const auto& s : slices_) remaining_ += s.size();
  }
  size_t remaining() const { return remaining_; }

  void read(void* dst, size_t n) {
    if (n > remaining_) bad("a field runs past the end of the frame");
    auto* out = static_cast<uint8_t*>(dst);
    while (n > 0) {
      const grpc::Slice& s = slices_[index_];
      size_t take = std::min(n, s.size() - offset_);
      std::memcpy(out, s.begin() + offset_, take);
      out += take;
      n -= take;
      remaining_ -= take;
      offset_ += take;
      if (offset_ == s.size()) {
        ++index_;
        offset_ = 0;
      }
    }
    skip_empty();
  }

  // A pointer to the next n bytes when they lie in one slice, else nullptr.
  const uint8_t* contiguous(size_t n) {
    skip_empty();
    if (n > remaining_ || index_ >= slices_.size()) return nullptr;
    const grpc::Slice& s = slices_[index_];
    if (s.size() - offset_ < n) return nullptr;
    return s.begin() + offset_;
  }
  // The slice contiguous() pointed into.
  const grpc::Slice& current_slice() const { return slices_[index_]; }
  // Moves past n bytes (n <= remaining()).
  void advance(size_t n) {
    while (n > 0) {
      size_t take = std::min(n, slices_[index_].size() - offset_);
      offset_ += take;
      remaining_ -= take;
      n -= take;
      skip_empty();
    }
  }
  void skip(size_t n) {  // only after contiguous(n) returned non-null
    offset_ += n;
    remaining_ -= n;
    skip_empty();
  }

 private:
  void skip_empty() {
    while (index_ < slices_.size() && offset_ == slices_[index_].size()) {
      ++index_;
      offset_ = 0;
    }
  }
  const std::vector<grpc::Slice>& slices_;
  size_t index_ = 0;
  size_t offset_ = 0;
  size_t remaining_ = 0;
};

// A slice's reference to its tensor is made on the sending thread and
// dropped on one of gRPC's threads, ordered by gRPC's synchronization that
// TSan cannot see; this mutex, taken on both sides, orders them visibly
// (See Note [TSan and gRPC] in transport.h). Uncontended, once per slice.
std::mutex g_slice_refs;

void destroy_tensor_ref(void* p) {
  { std::lock_guard<std::mutex> g(g_slice_refs); }
  delete static_cast<at::TensorBase*>(p);
}

class ValueDecoder {
 public:
  ValueDecoder(SliceReader& reader, const RemoteSource* source)
      : reader_(reader), source_(source) {}

  c10::IValue decode(const ember::rpc::Value& v, int index) {
    using V = ember::rpc::Value;
    switch (v.kind_case()) {
      case V::kNone:
        return c10::IValue();
      case V::kTensor:
        return c10::IValue(tensor(v.tensor()));
      case V::kDoubleValue:
        return c10::IValue(v.double_value());
      case V::kIntValue:
        return c10::IValue(static_cast<int64_t>(v.int_value()));
      case V::kBoolValue:
        return c10::IValue(v.bool_value());
      case V::kDevice:
        return c10::IValue(device(v.device()));
      case V::kStringValue:
        return c10::IValue(v.string_value());
      case V::kIntList:
        return c10::IValue(std::vector<int64_t>(v.int_list().values().begin(),
                                                v.int_list().values().end()));
      case V::kDoubleList:
        return c10::IValue(std::vector<double>(
            v.double_list().values().begin(), v.double_list().values().end()));
      case V::kBoolList:
        return c10::IValue(std::vector<bool>(v.bool_list().values().begin(),
                                             v.bool_list().values().end()));
      case V::kTensorList: {
        std::vector<at::TensorBase> ts;
        ts.reserve(v.tensor_list().tensors_size());
        for (const auto& m : v.tensor_list().tensors()) ts.push_back(tensor(m));
        return c10::IValue(std::move(ts));
      }
      case V::kOptionalTensorList: {
        std::vector<std::optional<at::TensorBase>> ts;
        ts.reserve(v.optional_tensor_list().tensors_size());
        for (const auto& o : v.optional_tensor_list().tensors()) {
          if (o.present()) {
            ts.emplace_back(tensor(o.tensor()));
          } else {
            ts.emplace_back(std::nullopt);
          }
        }
        return c10::IValue(std::move(ts));
      }
      case V::kRref:
        return c10::IValue();  // the caller resolves it
      case V::KIND_NOT_SET:
        break;
    }
    bad("value " + std::to_string(index) + " has no kind");
  }

 private:
  c10::Device device(const ember::rpc::DeviceValue& d) {
    c10::DeviceType type;
    switch (d.type()) {
      case ember::rpc::CPU:
        type = c10::DeviceType::CPU;
        break;
      case ember::rpc::CUDA:
        type = c10::DeviceType::CUDA;
        break;
      case ember::rpc::PRIVATE_USE1:
        type = c10::DeviceType::PrivateUse1;
        break;
      default:
        bad("unknown device type " + std::to_string(d.type()));
    }
    if (d.index() < -1 ||
        d.index() > std::numeric_limits<c10::DeviceIndex>::max()) {
      bad("device index " + std::to_string(d.index()) + " out of range");
    }
    if (type == c10::DeviceType::CPU && d.index() > 0) {
      bad("cpu device index " + std::to_string(d.index()) +
          " (a CPU device index is -1 or 0)");
    }
    return c10::Device(type, static_cast<c10::DeviceIndex>(d.index()));
  }

  at::TensorBase tensor(const ember::rpc::TensorMeta& m) {
    if (!m.defined()) return at::TensorBase();
    c10::ScalarType st = c10::ScalarType::Undefined;
    for (const auto& e : kDTypes) {
      if (e.wire == m.dtype()) st = e.scalar_type;
    }
    if (st == c10::ScalarType::Undefined) {
      bad("unknown dtype " + std::to_string(m.dtype()));
    }
    if (m.sizes_size() > 64) {
      bad("a tensor with " + std::to_string(m.sizes_size()) + " dimensions");
    }
    // numel * itemsize must equal nbytes, which must fit in what is left
    // (or, shared, be plausible): an overflowing or lying product is refused
    // before anything is allocated.
    const bool shared = m.remote_address() != 0;
    if (shared && source_ == nullptr) {
      bad("a tensor in the sender's memory (remote_address set) where none "
          "may be: this receiver did not say it can read the sender's memory");
    }
    const uint64_t itemsize = c10::elementSize(st);
    const uint64_t limit =
        shared ? peer_memory::kMaxSharedTensorBytes : reader_.remaining();
    uint64_t numel = 1;
    bool zero = false;
    for (int64_t s : m.sizes()) {
      if (s < 0) bad("negative size " + std::to_string(s));
      if (s == 0) zero = true;
    }
    if (!zero) {
      for (int64_t s : m.sizes()) {
        if (static_cast<uint64_t>(s) > limit / (numel * itemsize) + 1) {
          bad("a tensor larger than the frame");
        }
        numel *= static_cast<uint64_t>(s);
        if (numel * itemsize > limit) bad("a tensor larger than the frame");
      }
    } else {
      numel = 0;
    }
    if (m.nbytes() != numel * itemsize) {
      bad("tensor nbytes " + std::to_string(m.nbytes()) + " but its sizes and "
          "dtype need " + std::to_string(numel * itemsize));
    }
    std::vector<int64_t> sizes(m.sizes().begin(), m.sizes().end());
    at::Tensor t;
    const uint8_t* in_place = !shared && m.nbytes() >= kZeroCopyMinBytes
                                  ? reader_.contiguous(m.nbytes())
                                  : nullptr;
    if (in_place != nullptr &&
        reinterpret_cast<uintptr_t>(in_place) % kZeroCopyAlignment == 0) {
      // The bytes lie in one received slice, aligned: the tensor is built
      // over them and keeps the slice (a reference count) alive.
      grpc::Slice keep = reader_.current_slice();
      t = at::from_blob(const_cast<uint8_t*>(in_place), sizes,
                        [keep](void*) {}, at::TensorOptions().dtype(st));
      reader_.skip(m.nbytes());
    } else if (shared) {
      t = at::empty(sizes, at::TensorOptions().dtype(st));
      if (m.nbytes() > 0) {
        peer_memory::read(source_->pid, m.remote_address(), t.data_ptr(),
                          m.nbytes());
      }
    } else {
      t = at::empty(sizes, at::TensorOptions().dtype(st));
      if (m.nbytes() > 0) reader_.read(t.data_ptr(), m.nbytes());
    }
    if (st == c10::ScalarType::Bool) {
      const auto* p = static_cast<const uint8_t*>(t.data_ptr());
      for (uint64_t i = 0; i < m.nbytes(); ++i) {
        if (p[i] > 1) bad("a bool tensor holds a byte other than 0 or 1");
      }
    }
    return std::move(t);
  }

  SliceReader& reader_;
  const RemoteSource* source_;
};

}  // namespace

void Encoder::add_tensor(ember::rpc::TensorMeta* meta,
                         const at::TensorBase& base) {
  if (!base.defined()) {
    meta->set_defined(false);
    return;
  }
  TORCH_CHECK(base.is_cpu(),
              "rpc: only CPU tensors can be sent, but got a tensor on ",
              base.device(), "; move it to the CPU first (.cpu()).");
  at::Tensor t(base);
  if (!t.is_contiguous()) t = t.contiguous();
  meta->set_defined(true);
  meta->set_dtype(to_wire(t.scalar_type()));
  for (int64_t s : t.sizes()) meta->add_sizes(s);
  meta->set_nbytes(t.nbytes());
  if (t.nbytes() > 0) {
    tensors_.push_back(std::move(t));
    metas_.push_back(meta);
  }
}

void Encoder::add_value(ember::rpc::Value* out, const c10::IValue& v) {
  using Tag = c10::IValue::Tag;
  if (v.isNone()) {
    out->set_none(true);
  } else if (v.isTensor()) {
    add_tensor(out->mutable_tensor(), v.toTensorBase());
  } else if (v.isDouble()) {
    out->set_double_value(v.toDouble());
  } else if (v.isInt()) {
    out->set_int_value(v.toInt());
  } else if (v.isBool()) {
    out->set_bool_value(v.toBool());
  } else if (v.isDevice()) {
    c10::Device d = v.toDevice();
    out->mutable_device()->set_type(device_to_wire(d.type()));
    out->mutable_device()->set_index(d.index());
  } else if (v.isString()) {
    out->set_string_value(v.toStringRef());
  } else if (v.isIntList()) {
    for (int64_t x : v.toIntList()) out->mutable_int_list()->add_values(x);
  } else if (v.isDoubleList()) {
    out->mutable_double_list();
    for (double x : v.toDoubleVector()) {
      out->mutable_double_list()->add_values(x);
    }
  } else if (v.isBoolList()) {
    out->mutable_bool_list();
    for (bool x : v.toBoolVector()) out->mutable_bool_list()->add_values(x);
  } else if (v.isTensorList()) {
    auto* list = out->mutable_tensor_list();
    for (const auto& t : v.toTensorVector()) add_tensor(list->add_tensors(), t);
  } else if (v.isOptionalTensorList()) {
    auto* list = out->mutable_optional_tensor_list();
    for (const auto& t : v.toOptionalTensorVector()) {
      auto* o = list->add_tensors();
      o->set_present(t.has_value());
      if (t.has_value()) add_tensor(o->mutable_tensor(), *t);
    }
  } else {
    static_assert(static_cast<int>(Tag::Generator) == 12,
                  "wire.cc: a new IValue kind needs an encoding here");
    TORCH_CHECK(false, "rpc: cannot send ", v.tagKind(),
                " (an IValue of this kind has no wire encoding); send what "
                "it stands for instead (e.g. a seed for a Generator).");
  }
  if (v.isIntList()) out->mutable_int_list();  // an empty list is still a list
}

grpc::ByteBuffer Encoder::finish(const ember::rpc::Envelope& envelope) {
  const size_t header = envelope.ByteSizeLong();
  TORCH_CHECK(header <= std::numeric_limits<uint32_t>::max(),
              "rpc: message header of ", header, " bytes is too large");
  // The leading small tensors ride in the header's slice; large ones get
  // their own (See Note [RPC frame]).
  size_t inline_bytes = 0;
  for (const auto& t : tensors_) {
    if (t.nbytes() >= kZeroCopyMinBytes) break;
    inline_bytes += t.nbytes();
  }
  std::vector<grpc::Slice> slices;
  slices.reserve(tensors_.size() + 2);
  grpc::Slice first(4 + header + inline_bytes);
  auto* p = const_cast<uint8_t*>(first.begin());
  const uint32_t h = static_cast<uint32_t>(header);
  p[0] = h & 0xff;
  p[1] = (h >> 8) & 0xff;
  p[2] = (h >> 16) & 0xff;
  p[3] = (h >> 24) & 0xff;
  envelope.SerializeWithCachedSizesToArray(p + 4);
  // Payload order is tensor order: after the first large tensor, runs of
  // small ones get a copied slice of their own.
  size_t i = 0;
  uint8_t* w = p + 4 + header;
  for (; i < tensors_.size() && tensors_[i].nbytes() < kZeroCopyMinBytes;
       ++i) {
    std::memcpy(w, tensors_[i].data_ptr(), tensors_[i].nbytes());
    w += tensors_[i].nbytes();
  }
  slices.push_back(std::move(first));
  std::string small;
  for (; i < tensors_.size(); ++i) {
    const at::TensorBase& t = tensors_[i];
    if (t.nbytes() < kZeroCopyMinBytes) {
      small.append(static_cast<const char*>(t.data_ptr()), t.nbytes());
      continue;
    }
    if (!small.empty()) {
      slices.emplace_back(small);
      small.clear();
    }
    // The slice owns a reference to the tensor: its storage outlives every
    // use gRPC makes of the bytes.
    slices.emplace_back(t.data_ptr(), t.nbytes(), &destroy_tensor_ref,
                        new at::TensorBase(t));
  }
  if (!small.empty()) slices.emplace_back(small);
  if (!tensors_.empty()) {
    std::lock_guard<std::mutex> g(g_slice_refs);  // publishes the references
  }
  tensors_.clear();
  metas_.clear();
  g_frames_sent.fetch_add(1, std::memory_order_release);
  return grpc::ByteBuffer(slices.data(), slices.size());
}

bool Encoder::has_shareable() const {
  for (const auto& t : tensors_) {
    if (t.nbytes() >= peer_memory::kSharedMinBytes) return true;
  }
  return false;
}

grpc::ByteBuffer Encoder::finish_sharing(ember::rpc::Envelope& envelope,
                                         std::vector<at::TensorBase>* shared) {
  // The headers point into `envelope` (add_value wrote them there).
  size_t kept = 0;
  for (size_t i = 0; i < tensors_.size(); ++i) {
    if (tensors_[i].nbytes() >= peer_memory::kSharedMinBytes) {
      metas_[i]->set_remote_address(
          reinterpret_cast<uintptr_t>(tensors_[i].data_ptr()));
      shared->push_back(std::move(tensors_[i]));
      peer_memory::stats().sent.fetch_add(1, std::memory_order_relaxed);
    } else {
      tensors_[kept] = std::move(tensors_[i]);
      metas_[kept] = metas_[i];
      ++kept;
    }
  }
  tensors_.resize(kept);
  metas_.resize(kept);
  return finish(envelope);
}

grpc::ByteBuffer encode_plain(const ember::rpc::Envelope& envelope) {
  Encoder enc;
  return enc.finish(envelope);
}

Decoded decode_header(const grpc::ByteBuffer& frame) {
  g_frames_sent.load(std::memory_order_acquire);  // Note [Frames order memory]
  Decoded out;
  if (!frame.Dump(&out.payload).ok()) bad("the frame could not be read");
  SliceReader reader(out.payload);
  uint8_t len[4];
  if (reader.remaining() < 4) bad("a frame shorter than its 4-byte header");
  reader.read(len, 4);
  const size_t header = static_cast<size_t>(len[0]) |
                        (static_cast<size_t>(len[1]) << 8) |
                        (static_cast<size_t>(len[2]) << 16) |
                        (static_cast<size_t>(len[3]) << 24);
  if (header > reader.remaining()) {
    bad("header length " + std::to_string(header) + " but only " +
        std::to_string(reader.remaining()) + " bytes follow");
  }
  bool parsed;
  if (const uint8_t* p = reader.contiguous(header)) {
    parsed = out.envelope.ParseFromArray(p, static_cast<int>(header));
    reader.skip(header);
  } else {
    std::string copy(header, '\0');
    reader.read(copy.data(), header);
    parsed = out.envelope.ParseFromString(copy);
  }
  if (!parsed) bad("the header is not a valid Envelope");
  out.payload_offset = 4 + header;
  return out;
}

void decode_values(Decoded& msg, const RemoteSource* source) {
  SliceReader reader(msg.payload);
  reader.advance(msg.payload_offset);
  ValueDecoder values(reader, source);
  msg.values.clear();
  msg.values.reserve(msg.envelope.values_size());
  for (int i = 0; i < msg.envelope.values_size(); ++i) {
    msg.values.push_back(values.decode(msg.envelope.values(i), i));
  }
  if (reader.remaining() != 0) {
    bad(std::to_string(reader.remaining()) +
        " payload bytes left over after the last tensor");
  }
  // The payload's slices now live on in the tensors built over them, if
  // any; the frame's other bytes are not needed again.
  msg.payload.clear();
  msg.payload_offset = 0;
}

Decoded decode(const grpc::ByteBuffer& frame, const RemoteSource* source) {
  Decoded out = decode_header(frame);
  decode_values(out, source);
  return out;
}

}  // namespace wire
}  // namespace rpc
}  // namespace distributed
}  // namespace torch
