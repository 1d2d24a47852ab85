// distributed/c10d/ProcessGroupNCCL.cc — the NCCL process group: one
// communicator per group, made by the first collective; each operation on the
// group's stream, ordered after the caller's current stream.
#include "distributed/c10d/ProcessGroupNCCL.h"

#include <nccl.h>

#include <algorithm>
#include <cstring>
#include <mutex>
#include <optional>
#include <thread>
#include <utility>

#include <ATen/cuda/CUDAEvent.h>
#include <c10/cuda/CUDACachingAllocator.h>
#include <c10/cuda/CUDAGuard.h>
#include <c10/cuda/CUDAStream.h>

#include "aten/DeviceRuntime.h"
#include "aten/Functions.h"
#include "c10/util/Exception.h"
#include "distributed/c10d/distributed_c10d.h"

namespace c10d {

// Note [The NCCL group's streams]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Each collective runs on the group's own stream (one from the device's
// pool, taken when the communicator is made), after an event that orders it
// behind the work already queued on the caller's current stream; the
// tensors are recorded on the group's stream (record_stream) so that the
// caching allocator does not hand out their memory while NCCL still uses
// it. The caller's stream is not held back: backward goes on computing
// while a bucket's allreduce runs (DDP). An end event is recorded on the
// group's stream after the operation and the copies it needs (allgather's
// outputs, reduce_scatter's staged inputs, which run on the group's stream
// too). Work::wait() polls that event on the host: done, it makes the
// current stream wait on it and returns; an NCCL error reported by the
// communicator (ncclCommGetAsyncError), or the collective's timeout passing,
// aborts the communicator (ncclCommAbort: the peers' pending operations
// fail too instead of hanging) and throws. An aborted group refuses further
// calls. Collectives must be issued in the same order on every rank, as
// with any NCCL program; calls are issued under one lock.

namespace {

std::string nccl_error(ncclResult_t result, ncclComm_t comm) {
  std::string text = ncclGetErrorString(result);
  const char* last = comm != nullptr ? ncclGetLastError(comm) : nullptr;
  if (last != nullptr && last[0] != '\0') text += std::string(" (") + last + ")";
  return text;
}

void check_nccl(ncclResult_t result, const char* what, ncclComm_t comm = nullptr) {
  TORCH_CHECK(result == ncclSuccess, "ProcessGroupNCCL: ", what, " failed: NCCL error: ",
              nccl_error(result, comm), ".");
}

std::optional<ncclDataType_t> data_type(c10::ScalarType type) {
  switch (type) {
    case c10::kFloat: return ncclFloat32;
    case c10::kDouble: return ncclFloat64;
    case c10::kHalf: return ncclFloat16;
    case c10::kBFloat16: return ncclBfloat16;
    case c10::kInt: return ncclInt32;
    case c10::kLong: return ncclInt64;
    case c10::kChar: return ncclInt8;
    case c10::kByte: return ncclUint8;
    default: return std::nullopt;
  }
}

ncclRedOp_t red_op(ReduceOp op) {
  switch (static_cast<ReduceOp::RedOpType>(op)) {
    case ReduceOp::SUM: return ncclSum;
    case ReduceOp::AVG: return ncclAvg;
    case ReduceOp::PRODUCT: return ncclProd;
    case ReduceOp::MIN: return ncclMin;
    case ReduceOp::MAX: return ncclMax;
  }
  TORCH_CHECK(false, "ProcessGroupNCCL: unknown reduction ", static_cast<int>(op), ".");
}

size_t count_of(const at::Tensor& t) { return static_cast<size_t>(t.numel()); }

// The group's communicator on its device (Note [The NCCL group's streams]).
struct Comm {
  ncclComm_t comm = nullptr;
  c10::Device device{c10::kCUDA, 0};
  std::optional<c10::cuda::CUDAStream> stream;
  std::mutex mutex;
  bool aborted = false;      // under mutex
  std::string abort_reason;  // under mutex

  // Aborts once; returns the reason the communicator was aborted with.
  std::string abort(const std::string& reason) {
    std::lock_guard<std::mutex> lock(mutex);
    if (!aborted) {
      aborted = true;
      abort_reason = reason;
      if (comm != nullptr) (void)ncclCommAbort(comm);
    }
    return abort_reason;
  }
  std::optional<std::string> aborted_because() {
    std::lock_guard<std::mutex> lock(mutex);
    if (!aborted) return std::nullopt;
    return abort_reason;
  }
  // The communicator's asynchronous error (ncclSuccess once aborted: an
  // aborted communicator is freed and must not be asked).
  ncclResult_t async_error() {
    std::lock_guard<std::mutex> lock(mutex);
    ncclResult_t async = ncclSuccess;
    if (aborted || comm == nullptr || ncclCommGetAsyncError(comm, &async) != ncclSuccess) {
      return ncclSuccess;
    }
    return async;
  }
  ~Comm() {
    if (comm != nullptr && !aborted) (void)ncclCommDestroy(comm);
  }
};

class WorkNCCL final : public Work {
 public:
  WorkNCCL(std::string name, std::shared_ptr<Comm> comm, std::chrono::milliseconds timeout,
           std::vector<at::Tensor> outputs)
      : Work(std::move(name)),
        comm_(std::move(comm)),
        timeout_(timeout),
        started_(std::chrono::steady_clock::now()) {
    outputs_ = std::move(outputs);
  }

  at::cuda::CUDAEvent end;

  bool isCompleted() override { return poll(); }
  bool isSuccess() override { return poll() && !exception(); }

  bool wait(std::chrono::milliseconds timeout) override {
    const auto now = std::chrono::steady_clock::now();
    const auto op_deadline = started_ + timeout_;
    const auto wait_deadline = timeout.count() > 0 ? now + timeout : op_deadline;
    while (!poll()) {
      const auto t = std::chrono::steady_clock::now();
      if (t >= op_deadline) {
        fail(comm_->abort(name_ + " did not finish within its timeout of " +
                          std::to_string(timeout_.count()) +
                          " ms; the communicator was aborted (a peer may be gone or late)"));
        break;
      }
      TORCH_CHECK(t < wait_deadline, "c10d: NCCL ", name_, " did not finish within the ",
                  timeout.count(), " ms given to wait(); it goes on until its own timeout.");
      std::this_thread::sleep_for(std::chrono::microseconds(20));
    }
    const std::exception_ptr error = exception();
    if (error) std::rethrow_exception(error);
    end.block(c10::cuda::getCurrentCUDAStream(comm_->device.index()));
    return true;
  }

 private:
  // Whether the operation ended (done or failed); records a failure.
  bool poll() {
    if (exception()) return true;
    if (end.query()) return true;
    if (const auto reason = comm_->aborted_because()) {
      fail(*reason);
      return true;
    }
    const ncclResult_t async = comm_->async_error();
    if (async != ncclSuccess && async != ncclInProgress) {
      fail(comm_->abort(std::string("NCCL reported ") + ncclGetErrorString(async)));
      return true;
    }
    return false;
  }

  void fail(const std::string& reason) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (error_) return;
    try {
      TORCH_CHECK(false, "ProcessGroupNCCL: ", name_, " failed: ", reason, ".");
    } catch (const c10::Error&) {
      error_ = std::current_exception();
    }
    completed_ = true;
  }

  std::shared_ptr<Comm> comm_;
  const std::chrono::milliseconds timeout_;
  const std::chrono::steady_clock::time_point started_;
};

}  // namespace

struct ProcessGroupNCCL::Impl {
  c10::intrusive_ptr<Store> store;
  int rank = 0;
  int size = 1;
  std::chrono::milliseconds timeout;
  std::mutex issue_mutex;  // calls are issued one at a time
  std::shared_ptr<Comm> comm;  // under issue_mutex; made by the first call

  std::shared_ptr<Comm> comm_for(c10::Device device, const char* what) {
    if (comm) {
      TORCH_CHECK(comm->device == device, "ProcessGroupNCCL: ", what, ": the group's "
                  "communicator is on ", comm->device, " but the tensors are on ", device,
                  "; a process uses one device per group.");
      const auto reason = comm->aborted_because();
      TORCH_CHECK(!reason, "ProcessGroupNCCL: ", what, ": the group was aborted (", *reason,
                  "); make a new group.");
      return comm;
    }
    ncclUniqueId id;
    const std::string key = "ProcessGroupNCCL/uniqueId";
    if (rank == 0) {
      check_nccl(ncclGetUniqueId(&id), "ncclGetUniqueId");
      const auto* bytes = reinterpret_cast<const uint8_t*>(&id);
      store->set(key, std::vector<uint8_t>(bytes, bytes + sizeof(id)));
    } else {
      const std::vector<uint8_t> bytes = store->get(key);
      TORCH_CHECK(bytes.size() == sizeof(id), "ProcessGroupNCCL: rank 0's NCCL id in the store "
                  "has ", bytes.size(), " bytes, expected ", sizeof(id), " (another program "
                  "using the same store key?).");
      std::memcpy(&id, bytes.data(), sizeof(id));
    }
    auto made = std::make_shared<Comm>();
    made->device = device;
    c10::cuda::CUDAGuard guard(device);
    check_nccl(ncclCommInitRank(&made->comm, size, id, rank), "ncclCommInitRank");
    made->stream = c10::cuda::getStreamFromPool(false, device.index());
    comm = made;
    return comm;
  }

  // Issues `op(comm, stream)` on the group's stream behind the current
  // stream (Note [The NCCL group's streams]); `used` are recorded there.
  template <typename Op>
  c10::intrusive_ptr<Work> run(const char* what, c10::Device device,
                               std::chrono::milliseconds call_timeout,
                               const std::vector<at::Tensor>& used,
                               std::vector<at::Tensor> outputs, Op&& op) {
    std::lock_guard<std::mutex> lock(issue_mutex);
    std::shared_ptr<Comm> c = comm_for(device, what);
    c10::cuda::CUDAGuard guard(device);
    const c10::cuda::CUDAStream current = c10::cuda::getCurrentCUDAStream(device.index());
    at::cuda::CUDAEvent ready;
    ready.record(current);
    ready.block(*c->stream);
    auto work = c10::make_intrusive<WorkNCCL>(std::string(what), c,
                                              call_timeout.count() > 0 ? call_timeout : timeout,
                                              std::move(outputs));
    {
      c10::cuda::CUDAStreamGuard on_group_stream(c->stream->unwrap());
      op(c->comm, c->stream->stream());
    }
    for (const at::Tensor& t : used) {
      c10::cuda::CUDACachingAllocator::recordStream(t.storage().data_ptr(), *c->stream);
    }
    work->end.record(*c->stream);
    return work;
  }
};

namespace nccl {

void check_tensors(const std::vector<at::Tensor>& tensors, const char* what) {
  TORCH_CHECK(tensors.size() == 1, "ProcessGroupNCCL: ", what, " takes one tensor per call, got ",
              tensors.size(), ".");
  const at::Tensor& t = tensors[0];
  TORCH_CHECK(t.defined(), "ProcessGroupNCCL: ", what, ": the tensor is undefined.");
  TORCH_CHECK(t.device().is_cuda(), "ProcessGroupNCCL: ", what, ": the tensor is on ", t.device(),
              "; NCCL works on CUDA tensors (use the Gloo group for CPU tensors, or .cuda()).");
  TORCH_CHECK(data_type(t.scalar_type()).has_value(), "ProcessGroupNCCL: ", what, ": dtype ",
              t.scalar_type(), " is not supported; NCCL has Float, Double, Half, BFloat16, Int, "
              "Long, Char and Byte.");
  TORCH_CHECK(t.is_contiguous(), "ProcessGroupNCCL: ", what, ": the tensor must be contiguous, "
              "but has sizes ", t.sizes(), " and strides ", t.strides(), "; pass t.contiguous().");
}

void check_reduce(ReduceOp op, c10::ScalarType type, const char* what) {
  TORCH_CHECK(op != ReduceOp::AVG || c10::isFloatingType(type), "ProcessGroupNCCL: ", what,
              " with AVG needs floating-point tensors, got ", type, ".");
}

int version() {
  int v = 0;
  check_nccl(ncclGetVersion(&v), "ncclGetVersion");
  return v;
}

}  // namespace nccl

namespace {

// Tensors of one list against a reference: same dtype and sizes.
void check_same(const std::vector<at::Tensor>& list, const at::Tensor& like, const char* what) {
  for (size_t i = 0; i < list.size(); ++i) {
    nccl::check_tensors({list[i]}, what);
    TORCH_CHECK(list[i].scalar_type() == like.scalar_type() && list[i].sizes() == like.sizes() &&
                    list[i].device() == like.device(),
                "ProcessGroupNCCL: ", what, ": tensor ", i, " is ", list[i].scalar_type(), " ",
                list[i].sizes(), " on ", list[i].device(), " but the call's tensor is ",
                like.scalar_type(), " ", like.sizes(), " on ", like.device(),
                "; they must match.");
  }
}

}  // namespace

ProcessGroupNCCL::ProcessGroupNCCL(const c10::intrusive_ptr<Store>& store, int rank, int size,
                                   Options options)
    : ProcessGroup(rank, size), options_(options), impl_(std::make_unique<Impl>()) {
  TORCH_CHECK(store, "ProcessGroupNCCL: the store is undefined.");
  if (at::device_count(c10::kCUDA) == 0) {
    std::string reason;
    try {
      reason = c10::cuda::impl::cudaRuntime().unavailableReason();
    } catch (const c10::Error& e) {
      reason = e.what_without_backtrace();
    }
    TORCH_CHECK(false, "ProcessGroupNCCL: no CUDA device: ", reason,
                ". The NCCL group needs a CUDA device per process; use the \"gloo\" group for "
                "CPU tensors.");
  }
  impl_->store = store;
  impl_->rank = rank;
  impl_->size = size;
  impl_->timeout = options.timeout;
}

ProcessGroupNCCL::~ProcessGroupNCCL() {
  std::lock_guard<std::mutex> lock(impl_->issue_mutex);
  if (impl_->comm && impl_->comm->stream && !impl_->comm->aborted_because()) {
    try {
      impl_->comm->stream->synchronize();
    } catch (const c10::Error&) {
      // The device failed: destroying the communicator is all that is left.
    }
  }
}

c10::intrusive_ptr<Work> ProcessGroupNCCL::allreduce(std::vector<at::Tensor>& tensors,
                                                     const AllreduceOptions& opts) {
  nccl::check_tensors(tensors, "allreduce");
  const at::Tensor t = tensors[0];
  nccl::check_reduce(opts.reduceOp, t.scalar_type(), "allreduce");
  const ncclRedOp_t op = red_op(opts.reduceOp);
  const ncclDataType_t type = *data_type(t.scalar_type());
  return impl_->run("allreduce", t.device(), opts.timeout, {t}, {t},
                    [&](ncclComm_t comm, cudaStream_t stream) {
                      check_nccl(ncclAllReduce(t.data_ptr(), t.data_ptr(), count_of(t), type, op,
                                               comm, stream),
                                 "ncclAllReduce", comm);
                    });
}

c10::intrusive_ptr<Work> ProcessGroupNCCL::broadcast(std::vector<at::Tensor>& tensors,
                                                     const BroadcastOptions& opts) {
  nccl::check_tensors(tensors, "broadcast");
  TORCH_CHECK(opts.rootRank >= 0 && opts.rootRank < size_ && opts.rootTensor == 0,
              "ProcessGroupNCCL: broadcast: root rank ", opts.rootRank, " (tensor ",
              opts.rootTensor, ") is outside the group of size ", size_, ".");
  const at::Tensor t = tensors[0];
  const ncclDataType_t type = *data_type(t.scalar_type());
  const int root = static_cast<int>(opts.rootRank);
  return impl_->run("broadcast", t.device(), opts.timeout, {t}, {t},
                    [&](ncclComm_t comm, cudaStream_t stream) {
                      check_nccl(ncclBroadcast(t.data_ptr(), t.data_ptr(), count_of(t), type, root,
                                               comm, stream),
                                 "ncclBroadcast", comm);
                    });
}

c10::intrusive_ptr<Work> ProcessGroupNCCL::allgather(
    std::vector<std::vector<at::Tensor>>& outputTensors, std::vector<at::Tensor>& inputTensors,
    const AllgatherOptions& opts) {
  nccl::check_tensors(inputTensors, "allgather");
  TORCH_CHECK(outputTensors.size() == 1 && outputTensors[0].size() == static_cast<size_t>(size_),
              "ProcessGroupNCCL: allgather needs one list of one output tensor per rank (", size_,
              "), got ", outputTensors.size(), " lists of ",
              outputTensors.empty() ? 0 : outputTensors[0].size(), ".");
  const at::Tensor in = inputTensors[0];
  const std::vector<at::Tensor> outs = outputTensors[0];
  check_same(outs, in, "allgather (outputs against the input)");
  const ncclDataType_t type = *data_type(in.scalar_type());
  std::vector<at::Tensor> used = outs;
  used.push_back(in);
  return impl_->run("allgather", in.device(), opts.timeout, used, outs,
                    [&](ncclComm_t comm, cudaStream_t stream) {
                      std::vector<int64_t> sizes = {size_};
                      for (int64_t s : in.sizes()) sizes.push_back(s);
                      const at::Tensor flat = at::empty(sizes, in.options());  // group's stream
                      check_nccl(ncclAllGather(in.data_ptr(), flat.data_ptr(), count_of(in), type,
                                               comm, stream),
                                 "ncclAllGather", comm);
                      for (int r = 0; r < size_; ++r) outs[r].copy_(flat.select(0, r));
                    });
}

c10::intrusive_ptr<Work> ProcessGroupNCCL::reduce_scatter(
    std::vector<at::Tensor>& outputTensors, std::vector<std::vector<at::Tensor>>& inputTensors,
    const ReduceScatterOptions& opts) {
  nccl::check_tensors(outputTensors, "reduce_scatter");
  TORCH_CHECK(inputTensors.size() == 1 && inputTensors[0].size() == static_cast<size_t>(size_),
              "ProcessGroupNCCL: reduce_scatter needs one list of one input tensor per rank (",
              size_, "), got ", inputTensors.size(), " lists of ",
              inputTensors.empty() ? 0 : inputTensors[0].size(), ".");
  const at::Tensor out = outputTensors[0];
  const std::vector<at::Tensor> ins = inputTensors[0];
  check_same(ins, out, "reduce_scatter (inputs against the output)");
  nccl::check_reduce(opts.reduceOp, out.scalar_type(), "reduce_scatter");
  const ncclRedOp_t op = red_op(opts.reduceOp);
  const ncclDataType_t type = *data_type(out.scalar_type());
  std::vector<at::Tensor> used = ins;
  used.push_back(out);
  return impl_->run("reduce_scatter", out.device(), opts.timeout, used, {out},
                    [&](ncclComm_t comm, cudaStream_t stream) {
                      const at::Tensor flat = at::stack(ins);  // on the group's stream
                      check_nccl(ncclReduceScatter(flat.data_ptr(), out.data_ptr(), count_of(out),
                                                   type, op, comm, stream),
                                 "ncclReduceScatter", comm);
                    });
}

c10::intrusive_ptr<Work> ProcessGroupNCCL::barrier(const BarrierOptions& opts) {
  const c10::Device device(c10::kCUDA, c10::cuda::impl::cudaRuntime().getDevice().index());
  at::Tensor one = at::zeros({1}, at::TensorOptions().dtype(c10::kFloat).device(device));
  std::vector<at::Tensor> tensors = {one};
  AllreduceOptions o;
  o.timeout = opts.timeout;
  c10::intrusive_ptr<Work> work = allreduce(tensors, o);
  work->wait();
  return work;
}

namespace {
void check_peer(int peer, int self, int size, int tag, const char* what) {
  TORCH_CHECK(peer >= 0 && peer < size && peer != self, "ProcessGroupNCCL: ", what, ": rank ",
              peer, " is not another rank of the group of size ", size, " (this is rank ", self,
              ").");
  TORCH_CHECK(tag == 0, "ProcessGroupNCCL: ", what, ": NCCL has no tags, got tag ", tag,
              "; pass 0 (messages between two ranks match in issue order).");
}

// send and recv: the one tensor of `tensors` to or from `peer`, by
// `transfer` (ncclSend or ncclRecv, named `nccl_name` in errors).
template <typename Transfer>
c10::intrusive_ptr<Work> point_to_point(ProcessGroupNCCL::Impl& impl,
                                        std::vector<at::Tensor>& tensors, int peer, int self,
                                        int size, int tag, const char* what,
                                        const char* nccl_name, Transfer transfer) {
  nccl::check_tensors(tensors, what);
  check_peer(peer, self, size, tag, what);
  const at::Tensor t = tensors[0];
  const ncclDataType_t type = *data_type(t.scalar_type());
  return impl.run(what, t.device(), kUnsetTimeout, {t}, {t},
                  [&](ncclComm_t comm, cudaStream_t stream) {
                    check_nccl(transfer(t.data_ptr(), count_of(t), type, peer, comm, stream),
                               nccl_name, comm);
                  });
}
}  // namespace

c10::intrusive_ptr<Work> ProcessGroupNCCL::send(std::vector<at::Tensor>& tensors, int dstRank,
                                                int tag) {
  return point_to_point(*impl_, tensors, dstRank, rank_, size_, tag, "send", "ncclSend",
                        ncclSend);
}

c10::intrusive_ptr<Work> ProcessGroupNCCL::recv(std::vector<at::Tensor>& tensors, int srcRank,
                                                int tag) {
  return point_to_point(*impl_, tensors, srcRank, rank_, size_, tag, "recv", "ncclRecv",
                        ncclRecv);
}

namespace {
// init_process_group("nccl") in programs that link this library.
[[maybe_unused]] const bool registered = [] {
  torch::distributed::register_process_group_backend(
      "nccl", [](const c10::intrusive_ptr<Store>& store, int rank, int size,
                 std::chrono::milliseconds timeout) -> c10::intrusive_ptr<ProcessGroup> {
        ProcessGroupNCCL::Options options;
        options.timeout = timeout;
        return c10::make_intrusive<ProcessGroupNCCL>(store, rank, size, options);
      });
  return true;
}();
}  // namespace

}  // namespace c10d
