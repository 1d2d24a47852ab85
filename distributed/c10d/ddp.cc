// distributed/c10d/ddp.cc — DistributedDataParallel's reducer: buckets,
// the AccumulateGrad hooks that fill them, the allreduces, and the write
// back at the end of backward.
#include "distributed/c10d/ddp.h"

#include <algorithm>
#include <map>
#include <mutex>
#include <string>
#include <unordered_set>
#include <utility>

#include "aten/Functions.h"
#include "autograd/engine.h"
#include "autograd/function.h"
#include "autograd/grad_mode.h"
#include "autograd/variable.h"
#include "c10/util/Exception.h"
#include "distributed/c10d/distributed_c10d.h"

namespace torch {
namespace nn {
namespace parallel {

// Note [DDP buckets]
// ~~~~~~~~~~~~~~~~~~
// Parameters are assigned to buckets in reverse order (backward produces
// the last layer's gradients first), one dtype per bucket, a new bucket when
// the next parameter would pass bucket_cap_mb. Each bucket owns one flat
// tensor. When a parameter's AccumulateGrad has run, its post hook copies
// the gradient into the bucket; the bucket whose last gradient arrives is
// ready. Ready buckets are launched strictly in bucket order (an allreduce
// of the bucket divided by the group size), since every rank must issue the
// same collectives in the same order even when their gradients arrive in a
// different order. The first hook of a backward pass queues a final
// callback on the engine: it launches what is left (zeros for parameters
// that got no gradient, with find_unused_parameters; an error naming them
// without), waits for every bucket and copies the averages back into the
// parameters' .grad.
struct DistributedDataParallel::Impl : std::enable_shared_from_this<DistributedDataParallel::Impl> {
  struct Bucket {
    std::vector<size_t> params;
    std::vector<int64_t> offsets;  // into flat, per param
    at::Tensor flat;
    size_t pending = 0;
    std::vector<bool> ready;  // per param of the bucket
    c10::intrusive_ptr<c10d::Work> work;
  };

  std::shared_ptr<Module> module;
  std::function<at::Tensor(const at::Tensor&)> forward;
  Options options;
  c10::intrusive_ptr<c10d::ProcessGroup> pg;
  std::vector<at::Tensor> params;
  std::vector<std::pair<size_t, size_t>> where;  // per param: (bucket, slot)
  std::vector<Bucket> buckets;
  std::vector<std::shared_ptr<torch::autograd::Node>> accumulators;  // keep the hooks alive

  std::mutex mutex;
  // find_unused_parameters: the parameters the last forward's output does
  // not depend on (Note [Unused parameters]).
  std::vector<size_t> unused_in_forward;
  bool sync = true;            // false under no_sync
  bool in_backward = false;    // a final callback is queued
  size_t next_to_launch = 0;
  std::function<void(size_t)> on_launch;

  void reset_buckets() {
    for (Bucket& b : buckets) {
      b.pending = b.params.size();
      b.ready.assign(b.params.size(), false);
      b.work.reset();
    }
    next_to_launch = 0;
  }

  // Under mutex: starts every consecutive complete bucket from next_to_launch.
  void launch_ready() {
    while (next_to_launch < buckets.size() && buckets[next_to_launch].pending == 0) {
      Bucket& b = buckets[next_to_launch];
      b.flat.div_(static_cast<double>(pg->getSize()));
      std::vector<at::Tensor> t = {b.flat};
      b.work = pg->allreduce(t);
      if (on_launch) on_launch(next_to_launch);
      ++next_to_launch;
    }
  }

  void mark_ready(size_t index) {
    std::lock_guard<std::mutex> lock(mutex);
    if (!sync) return;
    if (!in_backward) {
      in_backward = true;
      reset_buckets();
      // Holds the reducer until the pass ends, even if the DDP object goes.
      torch::autograd::Engine::get_default_engine().queue_callback(
          [self = shared_from_this()] { self->finalize(); });
      for (size_t unused : unused_in_forward) mark_one(unused, /*zeros=*/true);
    }
    mark_one(index, /*zeros=*/false);
    launch_ready();
  }

  // Under mutex: notes parameter `index`'s gradient (zeros when it has none,
  // or when `zeros`: a parameter unused in this pass).
  void mark_one(size_t index, bool zeros) {
    auto [bi, slot] = where[index];
    Bucket& b = buckets[bi];
    if (b.ready[slot]) return;  // a second gradient for it in this pass: already counted
    const at::Tensor& grad = params[index].grad();
    at::Tensor dst = b.flat.narrow(0, b.offsets[slot], params[index].numel());
    if (grad.defined() && !zeros) {
      dst.copy_(grad.reshape({-1}));
    } else {
      dst.zero_();
    }
    b.ready[slot] = true;
    --b.pending;
  }

  // Note [Unused parameters]
  // ~~~~~~~~~~~~~~~~~~~~~~~~
  // With find_unused_parameters, forward() walks the output's graph for the
  // AccumulateGrad Nodes it reaches; the parameters it does not reach get no
  // gradient in the coming backward, so they count as ready (zeros) when
  // that backward starts, and their buckets need not wait for its end. A
  // parameter the walk reached that still gets no gradient (backward from
  // another output) is zeroed at the end, as before.
  void find_unused(const at::Tensor& output) {
    std::vector<const torch::autograd::Node*> stack;
    std::unordered_set<const torch::autograd::Node*> seen;
    if (const auto& fn = torch::autograd::impl::grad_fn(output)) stack.push_back(fn.get());
    while (!stack.empty()) {
      const torch::autograd::Node* n = stack.back();
      stack.pop_back();
      if (!seen.insert(n).second) continue;
      for (const auto& e : n->next_edges()) {
        if (e.is_valid()) stack.push_back(e.function.get());
      }
    }
    std::lock_guard<std::mutex> lock(mutex);
    unused_in_forward.clear();
    for (size_t k = 0; k < accumulators.size(); ++k) {
      if (seen.count(accumulators[k].get()) == 0) unused_in_forward.push_back(k);
    }
  }

  void finalize() {
    std::unique_lock<std::mutex> lock(mutex);
    in_backward = false;
    std::vector<size_t> unused;
    for (Bucket& b : buckets) {
      for (size_t s = 0; s < b.params.size(); ++s) {
        if (!b.ready[s]) unused.push_back(b.params[s]);
      }
    }
    if (!unused.empty() && !options.find_unused_parameters) {
      std::sort(unused.begin(), unused.end());
      std::string list;
      for (size_t i : unused) list += (list.empty() ? "" : " ") + std::to_string(i);
      // Launched buckets are waited for, so the group stays in step.
      for (Bucket& b : buckets) {
        if (b.work) b.work->wait();
      }
      TORCH_CHECK(false,
                  "DistributedDataParallel: expected every parameter to receive a gradient in "
                  "this backward pass, but rank ", pg->getRank(),
                  " got none for parameter indices (into module()->parameters()): ", list,
                  ". This error indicates that your module has parameters that were not used "
                  "in producing loss. You can enable unused parameter detection by setting "
                  "Options::find_unused_parameters = true, or make sure every parameter "
                  "takes part in the loss.");
    }
    for (size_t i : unused) mark_one(i, /*zeros=*/true);  // find_unused_parameters
    launch_ready();
    for (Bucket& b : buckets) b.work->wait();
    at::NoGradGuard no_grad;
    for (Bucket& b : buckets) {
      for (size_t s = 0; s < b.params.size(); ++s) {
        at::Tensor& p = params[b.params[s]];
        at::Tensor avg = b.flat.narrow(0, b.offsets[s], p.numel()).view(p.sizes());
        at::Tensor& grad = p.mutable_grad();
        if (grad.defined()) {
          grad.copy_(avg);
        } else {
          grad = avg.clone();
        }
      }
    }
  }
};

namespace {

struct ReadyHook : torch::autograd::FunctionPostHook {
  ReadyHook(std::weak_ptr<DistributedDataParallel::Impl> impl, size_t index)
      : impl_(std::move(impl)), index_(index) {}
  torch::autograd::variable_list operator()(const torch::autograd::variable_list& outputs,
                                            const torch::autograd::variable_list&) override {
    if (auto impl = impl_.lock()) impl->mark_ready(index_);
    return outputs;
  }
  std::weak_ptr<DistributedDataParallel::Impl> impl_;
  size_t index_;
};

// Every rank must wrap the same model: a different count, shape or dtype of
// parameters would pair gradients of different tensors (or hang in a
// collective of another size). One allgather of two numbers per rank (the
// count, and a hash of every parameter's dtype and sizes) lets every rank
// see the same mismatch and throw the same error.
void check_same_model(DistributedDataParallel::Impl& s) {
  uint64_t hash = 1469598103934665603ull;  // FNV-1a over dtypes and sizes
  auto mix = [&hash](int64_t v) {
    for (int k = 0; k < 8; ++k) {
      hash ^= static_cast<uint64_t>(v >> (8 * k)) & 0xff;
      hash *= 1099511628211ull;
    }
  };
  for (const at::Tensor& p : s.params) {
    mix(static_cast<int64_t>(p.scalar_type()));
    mix(p.dim());
    for (int64_t d : p.sizes()) mix(d);
  }
  // On the parameters' device: a CUDA model's group (NCCL) takes CUDA tensors.
  const at::TensorOptions on = at::TensorOptions().dtype(at::kLong).device(s.params[0].device());
  at::Tensor counted = at::empty({2}, at::kLong);
  counted.data_ptr<int64_t>()[0] = static_cast<int64_t>(s.params.size());
  counted.data_ptr<int64_t>()[1] = static_cast<int64_t>(hash);
  const int world = s.pg->getSize();
  std::vector<std::vector<at::Tensor>> all(1);
  for (int r = 0; r < world; ++r) all[0].push_back(at::empty({2}, on));
  std::vector<at::Tensor> in = {counted.to(on.device())};
  s.pg->allgather(all, in)->wait();
  for (at::Tensor& t : all[0]) t = t.cpu();
  for (int r = 1; r < world; ++r) {
    const int64_t count0 = all[0][0][0].item<int64_t>(), count = all[0][r][0].item<int64_t>();
    TORCH_CHECK(count0 == count && all[0][0][1].item<int64_t>() == all[0][r][1].item<int64_t>(),
                "DistributedDataParallel: rank ", r, "'s model has ", count,
                " parameters that require grad", count == count0 ? " of other shapes or dtypes" : "",
                " than rank 0's (", count0, "); every rank must build the same model.");
  }
}

}  // namespace

DistributedDataParallel::DistributedDataParallel(
    std::shared_ptr<Module> module, std::function<at::Tensor(const at::Tensor&)> forward,
    Options options)
    : impl_(std::make_shared<Impl>()) {
  TORCH_CHECK(module, "DistributedDataParallel: expected a module, got none.");
  TORCH_CHECK(options.bucket_cap_mb > 0, "DistributedDataParallel: bucket_cap_mb must be "
              "positive, got ", options.bucket_cap_mb, ".");
  Impl& s = *impl_;
  s.module = std::move(module);
  s.forward = std::move(forward);
  s.options = options;
  s.pg = options.process_group ? options.process_group : torch::distributed::default_pg();
  for (const at::Tensor& p : s.module->parameters()) {
    if (p.requires_grad()) s.params.push_back(p);
  }
  TORCH_CHECK(!s.params.empty(), "DistributedDataParallel: the module has no parameter that "
              "requires grad; there is nothing to synchronize.");
  for (const at::Tensor& p : s.params) {
    TORCH_CHECK(p.device().is_cpu(), "DistributedDataParallel: parameter on ", p.device(),
                "; the Gloo group works on CPU parameters.");
  }

  check_same_model(s);

  // Rank 0's parameters and buffers everywhere.
  {
    at::NoGradGuard no_grad;
    std::vector<at::Tensor> all = s.params;
    for (const at::Tensor& b : s.module->buffers()) all.push_back(b);
    std::vector<c10::intrusive_ptr<c10d::Work>> works;
    for (at::Tensor& t : all) {
      std::vector<at::Tensor> one = {t};
      works.push_back(s.pg->broadcast(one));
    }
    for (auto& w : works) w->wait();
  }

  // Buckets (Note [DDP buckets]).
  const int64_t cap = static_cast<int64_t>(options.bucket_cap_mb * 1024 * 1024);
  s.where.resize(s.params.size());
  std::map<c10::ScalarType, size_t> open;  // dtype -> its bucket being filled
  std::vector<int64_t> bytes;
  for (size_t k = s.params.size(); k-- > 0;) {
    const at::Tensor& p = s.params[k];
    auto it = open.find(p.scalar_type());
    if (it == open.end() || (bytes[it->second] > 0 && bytes[it->second] + static_cast<int64_t>(p.nbytes()) > cap)) {
      s.buckets.emplace_back();
      bytes.push_back(0);
      it = open.insert_or_assign(p.scalar_type(), s.buckets.size() - 1).first;
    }
    Impl::Bucket& b = s.buckets[it->second];
    s.where[k] = {it->second, b.params.size()};
    b.offsets.push_back(b.params.empty() ? 0 : b.offsets.back() + s.params[b.params.back()].numel());
    b.params.push_back(k);
    bytes[it->second] += static_cast<int64_t>(p.nbytes());
  }
  for (Impl::Bucket& b : s.buckets) {
    const at::Tensor& last = s.params[b.params.back()];
    b.flat = at::zeros({b.offsets.back() + last.numel()}, last.options().requires_grad(false));
  }
  s.reset_buckets();

  std::weak_ptr<Impl> weak = impl_;
  for (size_t k = 0; k < s.params.size(); ++k) {
    std::shared_ptr<torch::autograd::Node> acc = torch::autograd::impl::grad_accumulator(s.params[k]);
    acc->add_post_hook(std::make_unique<ReadyHook>(weak, k));
    s.accumulators.push_back(std::move(acc));
  }
}

DistributedDataParallel::~DistributedDataParallel() = default;

at::Tensor DistributedDataParallel::forward(const at::Tensor& input) {
  Impl& s = *impl_;
  if (s.options.broadcast_buffers) {
    const std::vector<at::Tensor> buffers = s.module->buffers();
    if (!buffers.empty()) {
      at::NoGradGuard no_grad;
      std::vector<c10::intrusive_ptr<c10d::Work>> works;
      for (const at::Tensor& b : buffers) {
        std::vector<at::Tensor> one = {b};
        works.push_back(s.pg->broadcast(one));
      }
      for (auto& w : works) w->wait();
    }
  }
  at::Tensor output = s.forward(input);
  if (s.options.find_unused_parameters && output.requires_grad()) s.find_unused(output);
  return output;
}

const std::shared_ptr<Module>& DistributedDataParallel::module() const { return impl_->module; }

const c10::intrusive_ptr<c10d::ProcessGroup>& DistributedDataParallel::process_group() const {
  return impl_->pg;
}

DistributedDataParallel::NoSyncGuard::NoSyncGuard(DistributedDataParallel& ddp) : ddp_(ddp) {
  std::lock_guard<std::mutex> lock(ddp_.impl_->mutex);
  previous_ = ddp_.impl_->sync;
  ddp_.impl_->sync = false;
}

DistributedDataParallel::NoSyncGuard::~NoSyncGuard() {
  std::lock_guard<std::mutex> lock(ddp_.impl_->mutex);
  ddp_.impl_->sync = previous_;
}

std::vector<std::vector<size_t>> DistributedDataParallel::bucket_indices() const {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  std::vector<std::vector<size_t>> out;
  for (const Impl::Bucket& b : impl_->buckets) out.push_back(b.params);
  return out;
}

void DistributedDataParallel::set_bucket_launch_callback(std::function<void(size_t)> callback) {
  std::lock_guard<std::mutex> lock(impl_->mutex);
  impl_->on_launch = std::move(callback);
}

}  // namespace parallel
}  // namespace nn
}  // namespace torch
