// distributed/rpc/wire.h — frames of the RPC agent: an Envelope (protobuf)
// plus the raw bytes of its tensors, as a grpc::ByteBuffer. Internal to
// //distributed/rpc; the format is described in rpc.proto.
//
//   wire::Encoder enc;
//   ember::rpc::Envelope env;
//   env.set_kind(ember::rpc::OP_CALL);
//   enc.add_value(env.add_values(), c10::IValue(tensor));
//   grpc::ByteBuffer frame = enc.finish(env);   // tensor bytes not copied
//
//   wire::Decoded d = wire::decode(frame);      // throws c10::Error on bad bytes
//   d.values[0].toTensorBase();
//
// Note [RPC frame]
// ~~~~~~~~~~~~~~~~
// [u32 LE header length H][H bytes Envelope][payload]. The payload holds the
// bytes of each defined tensor of the Envelope's values, depth first, each
// TensorMeta.nbytes long. On send, tensors of kZeroCopyMinBytes or more
// become slices over their own memory (the slice keeps the tensor, and so
// its storage, alive until gRPC releases it); smaller ones are copied beside
// the header, which is cheaper than a slice's bookkeeping. On receipt every
// size is checked against the frame before anything is allocated: the header
// length against the frame, each tensor's nbytes against numel * element
// size and the bytes left, and the payload must be consumed exactly. A large
// tensor whose bytes lie in one received slice, 64-byte aligned, is built
// over that slice (which it keeps alive); any other is copied once, from
// gRPC's slices into a new CPU tensor. Bool tensors must hold only 0 and 1.
// A shared tensor (TensorMeta.remote_address set; See Note [Shared tensors]
// in peer_memory.h) has no payload bytes: it is read from the sender's
// memory, and only when the decoder is given the sender's pid.
//
// Note [Frames order memory]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~
// A frame read in this process may be caused by one this process sent: a
// worker replies to to_here() with a parameter's bytes, the caller then asks
// it to step its optimizer, and a worker thread writes the parameter. The
// order is real but runs through another process, where ThreadSanitizer
// cannot follow it (it saw the reply's read of the bytes and the step's write
// as a race: CI, dist_autograd_test). So every Encoder::finish ends with a
// release on one process-wide counter and every decode_header starts with an
// acquire of it: whatever this process did before sending a frame happens
// before whatever it does after receiving any later one. It costs one atomic
// add a frame and orders nothing the program did not already order.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include <grpcpp/support/byte_buffer.h>
#include <grpcpp/support/slice.h>

#include "distributed/rpc/rpc.pb.h"
#include "registration/IValue.h"

namespace torch {
namespace distributed {
namespace rpc {
namespace wire {

constexpr size_t kZeroCopyMinBytes = 4096;
// A received tensor of kZeroCopyMinBytes or more whose bytes lie in one of
// gRPC's slices at an address aligned to this is not copied.
constexpr size_t kZeroCopyAlignment = 64;

// wire::Encoder
//
// Collects the tensors of the values added to an Envelope; finish() lays
// out the frame. One Encoder per frame; not thread safe.
class Encoder {
 public:
  // Describes `value` in `out` and queues its tensors. Throws c10::Error
  // for a kind that cannot be sent (Generator) or a non-CPU tensor.
  void add_value(ember::rpc::Value* out, const c10::IValue& value);

  grpc::ByteBuffer finish(const ember::rpc::Envelope& envelope);

  // Whether finish_sharing would share a tensor (one of
  // peer_memory::kSharedMinBytes or more was added).
  bool has_shareable() const;
  // Like finish(), but each tensor of kSharedMinBytes or more is described
  // by its address (TensorMeta.remote_address in `envelope`) instead of
  // being sent, and appended to *shared: the caller keeps those alive until
  // the receiver has read them.
  grpc::ByteBuffer finish_sharing(ember::rpc::Envelope& envelope,
                                  std::vector<at::TensorBase>* shared);

 private:
  void add_tensor(ember::rpc::TensorMeta* meta, const at::TensorBase& t);
  std::vector<at::TensorBase> tensors_;  // contiguous, in payload order
  std::vector<ember::rpc::TensorMeta*> metas_;  // tensors_[i]'s header
};

// Where a frame's shared tensors are read from: the sender's process.
struct RemoteSource {
  int64_t pid = 0;
};

struct Decoded {
  ember::rpc::Envelope envelope;
  // One per envelope.values(); an RRef argument decodes to None here (read
  // envelope.values(i).rref()). Empty after decode_header().
  std::vector<c10::IValue> values;

  // decode_header() keeps the payload here for decode_values().
  std::vector<grpc::Slice> payload;
  size_t payload_offset = 0;
};

// wire::decode
//
// Parses a frame. Throws c10::Error whose message starts "rpc: bad message"
// for anything malformed; never reads past the frame. Shared tensors are
// read from `source`; without one they are refused.
Decoded decode(const grpc::ByteBuffer& frame,
               const RemoteSource* source = nullptr);

// decode() in two steps: the Envelope alone (so that the token can be
// checked before anything is allocated or read from a peer), then its
// values. decode_values() runs once per decode_header().
Decoded decode_header(const grpc::ByteBuffer& frame);
void decode_values(Decoded& msg, const RemoteSource* source);

// Frames with no values (acks, pings, errors).
grpc::ByteBuffer encode_plain(const ember::rpc::Envelope& envelope);

}  // namespace wire
}  // namespace rpc
}  // namespace distributed
}  // namespace torch
