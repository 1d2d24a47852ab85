// distributed/c10d/ProcessGroupGloo.cc — each collective as one call of
// Gloo's options API on the group's worker thread.
#include "distributed/c10d/ProcessGroupGloo.h"

#include <gloo/allgather.h>
#include <gloo/allreduce.h>
#include <gloo/barrier.h>
#include <gloo/broadcast.h>
#include <gloo/math.h>
#include <gloo/rendezvous/context.h>
#include <gloo/rendezvous/store.h>
#include <gloo/transport/tcp/device.h>
#include <gloo/types.h>

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <utility>

#include "aten/Functions.h"
#include "c10/util/Exception.h"

namespace c10d {

namespace {

// Gloo's rendezvous store over a c10d::Store.
class GlooStore : public gloo::rendezvous::Store {
 public:
  explicit GlooStore(c10::intrusive_ptr<c10d::Store> store) : store_(std::move(store)) {}
  void set(const std::string& key, const std::vector<char>& data) override {
    store_->set(key, std::vector<uint8_t>(data.begin(), data.end()));
  }
  std::vector<char> get(const std::string& key) override {
    const std::vector<uint8_t> v = store_->get(key);
    return std::vector<char>(v.begin(), v.end());
  }
  void wait(const std::vector<std::string>& keys) override { store_->wait(keys); }
  void wait(const std::vector<std::string>& keys, const std::chrono::milliseconds& timeout) override {
    store_->wait(keys, timeout);
  }

 private:
  c10::intrusive_ptr<c10d::Store> store_;
};

// Point-to-point slots: Gloo's collectives build theirs from small
// prefixes; this one is Ember's.
constexpr uint8_t kSendRecvSlotPrefix = 0x7e;

using ReduceFn = void (*)(void*, const void*, const void*, size_t);

template <typename T>
ReduceFn reduce_fn(ReduceOp op) {
  switch (static_cast<ReduceOp::RedOpType>(op)) {
    case ReduceOp::SUM:
    case ReduceOp::AVG:
      return static_cast<ReduceFn>(&gloo::sum<T>);
    case ReduceOp::PRODUCT:
      return static_cast<ReduceFn>(&gloo::product<T>);
    case ReduceOp::MIN:
      return static_cast<ReduceFn>(&gloo::min<T>);
    case ReduceOp::MAX:
      return static_cast<ReduceFn>(&gloo::max<T>);
  }
  TORCH_CHECK(false, "ProcessGroupGloo: unknown reduction ", static_cast<int>(op));
  return nullptr;
}

// Calls f(T{}) with the Gloo element type of `type`.
template <typename F>
void dispatch(c10::ScalarType type, const char* what, F&& f) {
  switch (type) {
    case c10::ScalarType::Float:
      return f(float{});
    case c10::ScalarType::Double:
      return f(double{});
    case c10::ScalarType::Half:
      return f(gloo::float16{});
    case c10::ScalarType::Int:
      return f(int32_t{});
    case c10::ScalarType::Long:
      return f(int64_t{});
    case c10::ScalarType::Char:
      return f(int8_t{});
    case c10::ScalarType::Byte:
      return f(uint8_t{});
    default:
      TORCH_CHECK(false, "ProcessGroupGloo: ", what, " does not support dtype ",
                  c10::toString(type),
                  "; use Float, Double, Half, Int, Long, Char or Byte (convert with .to()).");
  }
}

// "[ip]:port" out of a Gloo device's description, or the description.
std::string address_of(const std::string& description) {
  const size_t open = description.find('[');
  const size_t close = description.find("]:", open == std::string::npos ? 0 : open);
  if (open == std::string::npos || close == std::string::npos) return description;
  size_t end = close + 2;
  while (end < description.size() && description[end] >= '0' && description[end] <= '9') ++end;
  return description.substr(open, end - open);
}

template <typename T>
T* data_of(const at::Tensor& t) {
  return static_cast<T*>(t.data_ptr());
}

// Contiguous tensors to hand to Gloo, and the copies back into the caller's
// non-contiguous ones afterwards.
struct Staged {
  std::vector<at::Tensor> user;
  std::vector<at::Tensor> flat;
  explicit Staged(const std::vector<at::Tensor>& tensors) : user(tensors) {
    for (const at::Tensor& t : tensors) flat.push_back(t.is_contiguous() ? t : t.contiguous());
  }
  void copy_back() {
    for (size_t i = 0; i < user.size(); ++i) {
      if (!user[i].is_same(flat[i])) user[i].copy_(flat[i]);
    }
  }
};

void check_tensors(const std::vector<at::Tensor>& tensors, const char* what) {
  TORCH_CHECK(!tensors.empty(), "ProcessGroupGloo: ", what, " needs at least one tensor, got none.");
  const at::Tensor& first = tensors[0];
  for (size_t i = 0; i < tensors.size(); ++i) {
    const at::Tensor& t = tensors[i];
    TORCH_CHECK(t.defined(), "ProcessGroupGloo: ", what, ": tensor ", i, " is undefined.");
    TORCH_CHECK(t.device().is_cpu(), "ProcessGroupGloo: ", what, ": tensor ", i, " is on ",
                t.device(), "; Gloo works on CPU tensors (use the NCCL group for CUDA, or "
                ".cpu()).");
    TORCH_CHECK(t.scalar_type() == first.scalar_type() && t.sizes() == first.sizes(),
                "ProcessGroupGloo: ", what, ": tensor ", i, " is ", c10::toString(t.scalar_type()),
                " ", t.sizes(), " but tensor 0 is ", c10::toString(first.scalar_type()), " ",
                first.sizes(), "; every tensor of one call must match.");
  }
}

}  // namespace

// Note [The Gloo group's worker]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Collectives must run in the same order on every rank, and a Gloo context
// runs one collective at a time. So each call is queued with the tag it
// got in issue order, and one thread at a time (the runner) takes the
// queue's front and runs it; its Work completes there (or fails with the
// error, rethrown by wait()). The runner is the group's worker thread, or a
// thread that waits for a Work whose collective has not started: that one
// runs the queue up to and including its own collective and hands the rest
// back to the worker (See Note [Running a collective on its waiter]).
// Point to point operations are posted at once on the caller's thread:
// Gloo's unbound buffers need no ordering with the collectives, and posting
// a send before the matching receive (both ranks exchanging) must not
// deadlock.
//
// Note [Running a collective on its waiter]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// Handing a collective to the worker and back costs two thread wake-ups,
// which the worker used to hide by polling 200 us for the next call, taking
// a core from whatever ran next on a 2-vCPU VM. A thread that calls wait()
// would only sleep until the worker is done, so it runs the collective
// itself when nothing runs yet (the worker, woken by the issue, finds the
// runner taken and sleeps again), and the worker does not poll (it would
// race the waiter for the call the waiter is about to wait for). Measured
// (docs/distributed.md): the same time per call as before, ~45 us over Gloo
// called directly for small ones (the worker's wake-up at each issue), and
// a DDP MLP epoch 3-11% shorter. DDP's bucket allreduces, issued during
// backward and waited for after it, still start at once on the worker. A
// wait() with a timeout shorter than the collective's does not take it
// over: it must be able to give up first.
struct ProcessGroupGloo::Impl {
  std::shared_ptr<gloo::rendezvous::Context> context;
  std::chrono::milliseconds timeout;
  int rank = 0;
  int size = 0;
  // Per rank, the address ("[ip]:port") of its end of the connection to
  // this rank, to name the rank behind a failed connection in error
  // messages. See Note [Naming a lost peer].
  std::vector<std::string> addresses;

  // The queue outlives the group while a Work that may run from it lives.
  struct Queue {
    std::mutex mutex;
    std::condition_variable cv;  // the worker's: jobs to run, or stopping
    struct Job {
      c10::intrusive_ptr<Work> work;
      std::function<std::vector<at::Tensor>()> run;
      uint64_t seq = 0;
    };
    std::deque<Job> jobs;  // under mutex, in seq order
    bool running = false;  // under mutex: a thread runs a job
    bool stopping = false;  // under mutex
    uint64_t next_seq = 0;  // under mutex; Gloo's tag is its low 32 bits
    int64_t run_on_waiters = 0;  // under mutex

    // Runs the front job with the lock released; `lock` holds mutex.
    void run_front(std::unique_lock<std::mutex>& lock);
    // The worker's loop; returns once stopping and everything ran.
    void loop();
    // The waiter's part: runs the jobs up to `seq` unless a runner exists.
    void run_through(uint64_t seq);
  };
  std::shared_ptr<Queue> queue = std::make_shared<Queue>();
  std::thread worker;

  std::chrono::milliseconds timeout_of(std::chrono::milliseconds requested) const {
    return requested.count() >= 0 ? requested : timeout;
  }

  c10::intrusive_ptr<Work> enqueue(const std::string& name, std::chrono::milliseconds timeout,
                                   std::function<std::vector<at::Tensor>(uint32_t tag)> run);

  // Note [Naming a lost peer]
  // ~~~~~~~~~~~~~~~~~~~~~~~~~~
  // Gloo reports a failed connection by the address of the peer's end of it
  // ("Connection closed by peer [127.0.0.1]:26519"; each pair of ranks has
  // its own connection, with its own port on either side). After
  // connecting, every rank publishes the address each of its pairs listens
  // on in the store, and reads its peers' for its own pairs, so the message
  // can say which rank that is (see below for the accepting side).
  std::string peer_named_in(const std::string& what) const {
    for (int r = 0; r < static_cast<int>(addresses.size()); ++r) {
      if (r != rank && !addresses[r].empty() && what.find(addresses[r]) != std::string::npos) {
        return " (" + addresses[r] + " is rank " + std::to_string(r) +
               ": it exited, crashed or lost its connection)";
      }
    }
    // The published addresses are the ends each rank's pairs listen on. Of
    // each pair one side connects to the other's, and the side that accepted
    // sees the peer by its ephemeral connecting port, which nobody publishes
    // (which side connects depends on the ports: a 2-rank test under ASan
    // met it). With a single peer, that peer is the one.
    if (size == 2 && what.find("peer") != std::string::npos) {
      return " (the peer is rank " + std::to_string(1 - rank) +
             ": it exited, crashed or lost its connection)";
    }
    return std::string();
  }

  std::exception_ptr wrap(const std::string& name, const std::exception& e) const {
    try {
      TORCH_CHECK(false, "ProcessGroupGloo: ", name, " failed on rank ", rank, " of ", size, ": ",
                  e.what(), peer_named_in(e.what()),
                  ". A peer process may have exited or be stuck; check every rank's log.");
    } catch (...) {
      return std::current_exception();
    }
    return nullptr;
  }
};

void ProcessGroupGloo::Impl::Queue::run_front(std::unique_lock<std::mutex>& lock) {
  Job job = std::move(jobs.front());
  jobs.pop_front();
  running = true;
  lock.unlock();
  try {
    job.work->finish(job.run());
  } catch (const c10::Error&) {
    job.work->finishWithException(std::current_exception());
  }
  job = Job();  // the tensors go before the lock is taken again
  lock.lock();
  running = false;
}

void ProcessGroupGloo::Impl::Queue::loop() {
  std::unique_lock<std::mutex> lock(mutex);
  for (;;) {
    cv.wait(lock, [this] { return !running && (stopping || !jobs.empty()); });
    if (jobs.empty()) return;  // stopping, and everything ran
    run_front(lock);
  }
}

void ProcessGroupGloo::Impl::Queue::run_through(uint64_t seq) {
  std::unique_lock<std::mutex> lock(mutex);
  bool ran = false;
  while (!running && !jobs.empty() && jobs.front().seq <= seq) {
    run_front(lock);
    ran = true;
    ++run_on_waiters;
  }
  // Jobs issued meanwhile, or the destructor waiting for the runner.
  const bool wake = ran && (stopping || !jobs.empty());
  lock.unlock();
  if (wake) cv.notify_one();
}

namespace {

// A collective's Work: its waiter may run it (See Note [Running a
// collective on its waiter]).
class CollectiveWork : public Work {
 public:
  CollectiveWork(std::string name, std::shared_ptr<ProcessGroupGloo::Impl::Queue> queue,
                 uint64_t seq, std::chrono::milliseconds timeout)
      : Work(std::move(name)), queue_(std::move(queue)), seq_(seq), timeout_(timeout) {}

  bool wait(std::chrono::milliseconds timeout) override {
    if (!done_.load(std::memory_order_acquire) &&
        (timeout.count() <= 0 || timeout >= timeout_)) {
      queue_->run_through(seq_);
    }
    return Work::wait(timeout);
  }

 private:
  const std::shared_ptr<ProcessGroupGloo::Impl::Queue> queue_;
  const uint64_t seq_;  // its place in the queue
  const std::chrono::milliseconds timeout_;
};

}  // namespace

c10::intrusive_ptr<Work> ProcessGroupGloo::Impl::enqueue(
    const std::string& name, std::chrono::milliseconds collective_timeout,
    std::function<std::vector<at::Tensor>(uint32_t tag)> run) {
  c10::intrusive_ptr<Work> work;
  bool wake;
  {
    std::lock_guard<std::mutex> lock(queue->mutex);
    TORCH_CHECK(!queue->stopping, "ProcessGroupGloo: ", name, " after the group was destroyed.");
    const uint64_t seq = queue->next_seq++;
    work = c10::make_intrusive<CollectiveWork>("ProcessGroupGloo " + name, queue, seq,
                                               collective_timeout);
    auto job = [this, run = std::move(run), tag = static_cast<uint32_t>(seq)] {
      try {
        return run(tag);
      } catch (const c10::Error&) {
        throw;
      } catch (const std::exception& e) {
        std::rethrow_exception(wrap("collective", e));
      }
    };
    queue->jobs.push_back(Queue::Job{work, std::move(job), seq});
    wake = !queue->running;  // a runner takes it after its own
  }
  if (wake) queue->cv.notify_one();
  return work;
}

namespace {

// A posted send or receive: wait() waits for Gloo's buffer.
class PointToPointWork : public Work {
 public:
  PointToPointWork(std::string name, std::unique_ptr<gloo::transport::UnboundBuffer> buffer,
                   bool is_send, at::Tensor user, at::Tensor staged,
                   std::chrono::milliseconds timeout, int rank)
      : Work(std::move(name)),
        buffer_(std::move(buffer)),
        is_send_(is_send),
        user_(std::move(user)),
        staged_(std::move(staged)),
        timeout_(timeout),
        rank_(rank) {}

  bool wait(std::chrono::milliseconds timeout) override {
    std::lock_guard<std::mutex> once(wait_mutex_);
    if (!isCompleted()) {
      const auto limit = timeout.count() > 0 ? std::min(timeout, timeout_) : timeout_;
      try {
        const bool done = is_send_ ? buffer_->waitSend(limit) : buffer_->waitRecv(limit);
        TORCH_CHECK(done, "ProcessGroupGloo: ", name_, " on rank ", rank_, " was aborted.");
        if (!is_send_ && !user_.is_same(staged_)) user_.copy_(staged_);
        finish({user_});
      } catch (const c10::Error&) {
        finishWithException(std::current_exception());
      } catch (const std::exception& e) {
        try {
          TORCH_CHECK(false, "ProcessGroupGloo: ", name_, " failed on rank ", rank_, ": ",
                      e.what(), ". Is the peer running and did it post the matching call?");
        } catch (...) {
          finishWithException(std::current_exception());
        }
      }
    }
    return Work::wait(kNoTimeout);
  }

 private:
  std::mutex wait_mutex_;
  std::unique_ptr<gloo::transport::UnboundBuffer> buffer_;
  const bool is_send_;
  at::Tensor user_, staged_;
  const std::chrono::milliseconds timeout_;
  const int rank_;
};

}  // namespace

ProcessGroupGloo::ProcessGroupGloo(const c10::intrusive_ptr<Store>& store, int rank, int size,
                                   Options options)
    : ProcessGroup(rank, size), options_(std::move(options)), impl_(std::make_unique<Impl>()) {
  TORCH_CHECK(store, "ProcessGroupGloo: expected a store to meet through, got none.");
  TORCH_CHECK(options_.timeout.count() > 0, "ProcessGroupGloo: expected a positive timeout, got ",
              options_.timeout.count(), " ms.");
  impl_->rank = rank;
  impl_->size = size;
  impl_->timeout = options_.timeout;
  gloo::transport::tcp::attr attr;
  attr.hostname = options_.hostname;
  attr.iface = options_.iface;
  std::shared_ptr<gloo::transport::Device> device;
  try {
    device = gloo::transport::tcp::CreateDevice(attr);
  } catch (const std::exception& e) {
    TORCH_CHECK(false, "ProcessGroupGloo: cannot open a Gloo device on '",
                options_.iface.empty() ? options_.hostname : "interface " + options_.iface,
                "': ", e.what(),
                ". Set Options::hostname to an address of this machine (or iface to one of its "
                "network interfaces).");
  }
  impl_->context = std::make_shared<gloo::rendezvous::Context>(rank, size);
  impl_->context->setTimeout(options_.timeout);
  GlooStore gloo_store(store);
  try {
    impl_->context->connectFullMesh(gloo_store, device);
  } catch (const c10::Error& e) {
    TORCH_CHECK(false, "ProcessGroupGloo: rank ", rank, " of ", size,
                " could not connect the group: ", e.what_without_backtrace());
  } catch (const std::exception& e) {
    TORCH_CHECK(false, "ProcessGroupGloo: rank ", rank, " of ", size,
                " could not connect the group: ", e.what());
  }
  // See Note [Naming a lost peer]: "ember.gloo.pair/<from>/<to>" is the
  // address of rank from's end of its connection to rank to.
  const std::string pair_key = "ember.gloo.pair/";
  for (int r = 0; r < size; ++r) {
    if (r == rank) continue;
    store->set(pair_key + std::to_string(rank) + "/" + std::to_string(r),
               address_of(impl_->context->getPair(r)->address().str()));
  }
  impl_->addresses.resize(static_cast<size_t>(size));
  for (int r = 0; r < size; ++r) {
    if (r == rank) continue;
    const std::vector<uint8_t> a =
        store->get(pair_key + std::to_string(r) + "/" + std::to_string(rank));
    impl_->addresses[static_cast<size_t>(r)].assign(a.begin(), a.end());
  }
  impl_->worker = std::thread([queue = impl_->queue.get()] { queue->loop(); });
}

int64_t ProcessGroupGloo::collectives_run_on_waiters() const {
  std::lock_guard<std::mutex> lock(impl_->queue->mutex);
  return impl_->queue->run_on_waiters;
}

ProcessGroupGloo::~ProcessGroupGloo() {
  {
    std::lock_guard<std::mutex> lock(impl_->queue->mutex);
    impl_->queue->stopping = true;
  }
  impl_->queue->cv.notify_all();
  if (impl_->worker.joinable()) impl_->worker.join();
}

c10::intrusive_ptr<Work> ProcessGroupGloo::allreduce(std::vector<at::Tensor>& tensors,
                                                     const AllreduceOptions& opts) {
  check_tensors(tensors, "allreduce");
  const ReduceOp op = opts.reduceOp;
  TORCH_CHECK(op != ReduceOp::AVG || c10::isFloatingType(tensors[0].scalar_type()),
              "ProcessGroupGloo: allreduce with AVG needs floating-point tensors, got ",
              c10::toString(tensors[0].scalar_type()), "; use SUM and divide.");
  dispatch(tensors[0].scalar_type(), "allreduce", [](auto) {});
  auto impl = impl_.get();
  const auto timeout = impl->timeout_of(opts.timeout);
  return impl->enqueue("allreduce", timeout, [impl, tensors, op, timeout](uint32_t tag) {
    Staged staged(tensors);
    const size_t n = static_cast<size_t>(tensors[0].numel());
    if (n > 0) {
      dispatch(tensors[0].scalar_type(), "allreduce", [&](auto zero) {
        using T = decltype(zero);
        std::vector<T*> ptrs;
        for (const at::Tensor& t : staged.flat) ptrs.push_back(data_of<T>(t));
        gloo::AllreduceOptions o(impl->context);
        o.setOutputs(ptrs, n);
        o.setReduceFunction(reduce_fn<T>(op));
        o.setTag(tag);
        o.setTimeout(timeout);
        gloo::allreduce(o);
      });
      if (op == ReduceOp::AVG) {
        for (at::Tensor& t : staged.flat) t.div_(static_cast<double>(impl->size));
      }
    }
    staged.copy_back();
    return staged.user;
  });
}

c10::intrusive_ptr<Work> ProcessGroupGloo::broadcast(std::vector<at::Tensor>& tensors,
                                                     const BroadcastOptions& opts) {
  check_tensors(tensors, "broadcast");
  TORCH_CHECK(opts.rootRank >= 0 && opts.rootRank < size_, "ProcessGroupGloo: broadcast: rootRank ",
              opts.rootRank, " is outside the group of size ", size_, ".");
  TORCH_CHECK(opts.rootTensor >= 0 && opts.rootTensor < static_cast<int64_t>(tensors.size()),
              "ProcessGroupGloo: broadcast: rootTensor ", opts.rootTensor, " is not one of the ",
              tensors.size(), " tensors.");
  dispatch(tensors[0].scalar_type(), "broadcast", [](auto) {});
  auto impl = impl_.get();
  const auto timeout = impl->timeout_of(opts.timeout);
  const int root = static_cast<int>(opts.rootRank);
  const size_t root_tensor = static_cast<size_t>(opts.rootTensor);
  return impl->enqueue("broadcast", timeout, [impl, tensors, root, root_tensor, timeout](uint32_t tag) {
    Staged staged(tensors);
    at::Tensor& main = staged.flat[root_tensor];
    const size_t n = static_cast<size_t>(main.numel());
    if (n > 0) {
      dispatch(main.scalar_type(), "broadcast", [&](auto zero) {
        using T = decltype(zero);
        gloo::BroadcastOptions o(impl->context);
        o.setRoot(root);
        if (impl->rank == root) o.setInput(data_of<T>(main), n);
        o.setOutput(data_of<T>(main), n);
        o.setTag(tag);
        o.setTimeout(timeout);
        gloo::broadcast(o);
      });
    }
    for (size_t i = 0; i < staged.flat.size(); ++i) {
      if (i != root_tensor) staged.flat[i].copy_(main);
    }
    staged.copy_back();
    return staged.user;
  });
}

c10::intrusive_ptr<Work> ProcessGroupGloo::allgather(
    std::vector<std::vector<at::Tensor>>& outputTensors, std::vector<at::Tensor>& inputTensors,
    const AllgatherOptions& opts) {
  TORCH_CHECK(inputTensors.size() == 1 && outputTensors.size() == 1,
              "ProcessGroupGloo: allgather takes one input tensor and one list of outputs, got ",
              inputTensors.size(), " and ", outputTensors.size(), ".");
  check_tensors(inputTensors, "allgather");
  TORCH_CHECK(outputTensors[0].size() == static_cast<size_t>(size_),
              "ProcessGroupGloo: allgather needs one output tensor per rank (", size_, "), got ",
              outputTensors[0].size(), ".");
  std::vector<at::Tensor> all = outputTensors[0];
  all.push_back(inputTensors[0]);
  check_tensors(all, "allgather (outputs against the input)");
  dispatch(inputTensors[0].scalar_type(), "allgather", [](auto) {});
  auto impl = impl_.get();
  const auto timeout = impl->timeout_of(opts.timeout);
  at::Tensor input = inputTensors[0];
  std::vector<at::Tensor> outputs = outputTensors[0];
  return impl->enqueue("allgather", timeout, [impl, input, outputs, timeout](uint32_t tag) {
    const at::Tensor in = input.contiguous();
    const size_t n = static_cast<size_t>(in.numel());
    std::vector<int64_t> flat_sizes = {static_cast<int64_t>(impl->size)};
    for (int64_t s : in.sizes()) flat_sizes.push_back(s);
    at::Tensor flat = at::empty(flat_sizes, in.options());
    if (n > 0) {
      dispatch(in.scalar_type(), "allgather", [&](auto zero) {
        using T = decltype(zero);
        gloo::AllgatherOptions o(impl->context);
        o.setInput(data_of<T>(in), n);
        o.setOutput(data_of<T>(flat), n * static_cast<size_t>(impl->size));
        o.setTag(tag);
        o.setTimeout(timeout);
        gloo::allgather(o);
      });
    }
    for (int r = 0; r < impl->size; ++r) outputs[r].copy_(flat.select(0, r));
    return outputs;
  });
}

c10::intrusive_ptr<Work> ProcessGroupGloo::reduce_scatter(
    std::vector<at::Tensor>& outputTensors, std::vector<std::vector<at::Tensor>>& inputTensors,
    const ReduceScatterOptions& opts) {
  TORCH_CHECK(outputTensors.size() == 1 && inputTensors.size() == 1,
              "ProcessGroupGloo: reduce_scatter takes one output tensor and one list of inputs, "
              "got ", outputTensors.size(), " and ", inputTensors.size(), ".");
  check_tensors(outputTensors, "reduce_scatter");
  TORCH_CHECK(inputTensors[0].size() == static_cast<size_t>(size_),
              "ProcessGroupGloo: reduce_scatter needs one input tensor per rank (", size_,
              "), got ", inputTensors[0].size(), ".");
  std::vector<at::Tensor> all = inputTensors[0];
  all.push_back(outputTensors[0]);
  check_tensors(all, "reduce_scatter (inputs against the output)");
  const ReduceOp op = opts.reduceOp;
  TORCH_CHECK(op != ReduceOp::AVG || c10::isFloatingType(outputTensors[0].scalar_type()),
              "ProcessGroupGloo: reduce_scatter with AVG needs floating-point tensors.");
  dispatch(outputTensors[0].scalar_type(), "reduce_scatter", [](auto) {});
  auto impl = impl_.get();
  const auto timeout = impl->timeout_of(opts.timeout);
  at::Tensor output = outputTensors[0];
  std::vector<at::Tensor> inputs = inputTensors[0];
  return impl->enqueue("reduce_scatter", timeout, [impl, output, inputs, op, timeout](uint32_t tag) {
    at::Tensor flat = at::stack(inputs, 0).contiguous();
    const size_t n = static_cast<size_t>(flat.numel());
    if (n > 0) {
      dispatch(flat.scalar_type(), "reduce_scatter", [&](auto zero) {
        using T = decltype(zero);
        gloo::AllreduceOptions o(impl->context);
        o.setOutput(data_of<T>(flat), n);
        o.setReduceFunction(reduce_fn<T>(op));
        o.setTag(tag);
        o.setTimeout(timeout);
        gloo::allreduce(o);
      });
    }
    at::Tensor mine = flat.select(0, impl->rank);
    if (op == ReduceOp::AVG) mine.div_(static_cast<double>(impl->size));
    at::Tensor out = output;
    out.copy_(mine);
    return std::vector<at::Tensor>{output};
  });
}

c10::intrusive_ptr<Work> ProcessGroupGloo::barrier(const BarrierOptions& opts) {
  auto impl = impl_.get();
  const auto timeout = impl->timeout_of(opts.timeout);
  return impl->enqueue("barrier", timeout, [impl, timeout](uint32_t tag) {
    gloo::BarrierOptions o(impl->context);
    o.setTag(tag);
    o.setTimeout(timeout);
    gloo::barrier(o);
    return std::vector<at::Tensor>{};
  });
}

namespace {

c10::intrusive_ptr<Work> post(ProcessGroupGloo::Impl* impl, std::vector<at::Tensor>& tensors,
                              int peer, int tag, bool is_send, int size) {
  const char* what = is_send ? "send" : "recv";
  TORCH_CHECK(tensors.size() == 1, "ProcessGroupGloo: ", what, " takes one tensor, got ",
              tensors.size(), ".");
  check_tensors(tensors, what);
  TORCH_CHECK(peer >= 0 && peer < size && peer != impl->rank, "ProcessGroupGloo: ", what,
              ": rank ", peer, " is not another rank of the group of size ", size, ".");
  TORCH_CHECK(tag >= 0, "ProcessGroupGloo: ", what, ": expected a tag >= 0, got ", tag, ".");
  const at::Tensor& user = tensors[0];
  at::Tensor staged = user.is_contiguous() ? user : user.contiguous();
  auto buffer = impl->context->createUnboundBuffer(staged.data_ptr(), staged.nbytes());
  const uint64_t slot = gloo::Slot::build(kSendRecvSlotPrefix, static_cast<uint32_t>(tag));
  if (is_send) {
    buffer->send(peer, slot);
  } else {
    buffer->recv(peer, slot);
  }
  const std::string name = std::string(what) + (is_send ? " to rank " : " from rank ") +
                           std::to_string(peer) + " (tag " + std::to_string(tag) + ")";
  return c10::make_intrusive<PointToPointWork>(name, std::move(buffer), is_send, user, staged,
                                               impl->timeout, impl->rank);
}

}  // namespace

c10::intrusive_ptr<Work> ProcessGroupGloo::send(std::vector<at::Tensor>& tensors, int dstRank,
                                                int tag) {
  return post(impl_.get(), tensors, dstRank, tag, /*is_send=*/true, size_);
}

c10::intrusive_ptr<Work> ProcessGroupGloo::recv(std::vector<at::Tensor>& tensors, int srcRank,
                                                int tag) {
  return post(impl_.get(), tensors, srcRank, tag, /*is_send=*/false, size_);
}

}  // namespace c10d
