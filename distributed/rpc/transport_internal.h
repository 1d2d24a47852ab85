// distributed/rpc/transport_internal.h — what the transport's files share:
// the method names, the stream header, gRPC's setup. Internal to
// :transport_impl (distributed/rpc/transport*.cc);
// compiled like them (See Note [TSan and gRPC] in transport.h).
#pragma once

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>

namespace torch {
namespace distributed {
namespace rpc {
namespace transport {
namespace detail {

inline constexpr char kMethod[] = "/ember.rpc.RpcAgent/Call";
inline constexpr char kStreamMethod[] = "/ember.rpc.RpcAgent/Stream";
// Requests up to this size take the peer's stream; larger ones a unary call
// of their own (See Note [One stream per peer] in
// transport.cc).
inline constexpr size_t kStreamMaxBytes = 64 << 10;

std::chrono::system_clock::time_point deadline_after(double seconds);

// Channel arguments for tensors of megabytes, on both ends of a
// connection: HTTP/2 frames and socket reads of up to 4 MiB instead of
// 16 KiB frames and reads that start at 8 KiB, and a 16 MiB window so that
// a large message is not held up by flow-control round trips. Small calls
// are unaffected.
template <class Set>
void set_bulk_args(Set&& set) {
  set(GRPC_ARG_HTTP2_MAX_FRAME_SIZE, 4 << 20);
  set(GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES, 16 << 20);
  set(GRPC_ARG_HTTP2_WRITE_BUFFER_SIZE, 16 << 20);
  set(GRPC_ARG_TCP_MIN_READ_CHUNK_SIZE, 256 << 10);
  set(GRPC_ARG_TCP_MAX_READ_CHUNK_SIZE, 4 << 20);
  // The window is fixed (above), so no BDP probing: its pings shared
  // gRPC 1.51's ping state with keepalive's and, under load, left the
  // keepalive watchdog running after its ack ("keepalive_ping_end state
  // error"), which closed healthy connections.
  set(GRPC_ARG_HTTP2_BDP_PROBE, 0);
}

// See Note [gRPC stays initialized] in transport.cc.
void keep_grpc_initialized();

// The integer in environment variable `name`, clamped to [lo, hi];
// `fallback` when it is unset or not an integer.
int64_t env_int(const char* name, int64_t fallback, int64_t lo, int64_t hi);

// The 16-byte stream header (See Note [One stream per peer] in
// transport.cc).
constexpr size_t kHeaderBytes = 16;

// [id][code][0] then `body`'s slices (not copied), or `message`'s bytes.
grpc::ByteBuffer with_header(uint64_t id, uint32_t code, const grpc::ByteBuffer* body,
                             const std::string& message);

// Splits a stream message into its header fields and body (the same
// slices, no copy). False when it is shorter than a header or the header's
// reserved word is not 0.
bool split_header(const grpc::ByteBuffer& message, uint64_t* id, uint32_t* code,
                  grpc::ByteBuffer* body);

// A body's bytes as text (an error message).
std::string body_text(const grpc::ByteBuffer& body);

}  // namespace detail
}  // namespace transport
}  // namespace rpc
}  // namespace distributed
}  // namespace torch
