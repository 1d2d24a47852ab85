// float32 convolution through oneDNN (See Note [Convolution geometry]).
//
// Each call is the fixed sequence of oneDNN's examples: memory descriptors
// (`any` for the primitive, so that it picks its fastest blocked layout),
// primitive descriptor, primitive, reorders between the user's tensors and
// the primitive's layouts, argument map, execute. Primitives and reorders
// are cached per thread and shape: creating them costs far more than
// running a small convolution. User buffers are wrapped, never copied,
// unless the primitive wants another layout.
#include <cstring>
#include <unordered_map>
#include <vector>

#include <dnnl.hpp>

#include "backends/cpu/conv_impl.h"
#include "backends/cpu/onednn.h"
#include "backends/cpu/parallel.h"
#include "backends/cpu/tensor_utils.h"
#include "c10/util/Exception.h"
#include "registration/record_function.h"

namespace ember::cpu::conv_detail {
namespace {

using dims = dnnl::memory::dims;
using dt = dnnl::memory::data_type;
using tag = dnnl::memory::format_tag;

dnnl::stream& stream() {
  thread_local dnnl::stream s(onednn_engine());
  return s;
}

enum class Kind : int64_t { kForward, kBackwardData, kBackwardWeights };

struct Key {
  int64_t v[32];
  bool operator==(const Key& o) const { return std::memcmp(v, o.v, sizeof(v)) == 0; }
};
struct KeyHash {
  size_t operator()(const Key& k) const {
    size_t h = 1469598103934665603ull;
    for (int64_t x : k.v) h = (h ^ static_cast<size_t>(x)) * 1099511628211ull;
    return h;
  }
};

Key make_key(Kind kind, const ConvGeometry& g, const at::Tensor& a, const at::Tensor& b,
             bool with_bias) {
  Key key{};
  int64_t* k = key.v;
  *k++ = static_cast<int64_t>(kind);
  for (int64_t x : {g.N, g.G, g.Cx, g.Hx, g.Wx, g.Cy, g.Hy, g.Wy, g.KH, g.KW, g.sh, g.sw,
                    g.ph, g.pw, g.dh, g.dw}) {
    *k++ = x;
  }
  for (int64_t d = 0; d < 4; ++d) *k++ = a.stride(d);
  for (int64_t d = 0; d < 4; ++d) *k++ = b.stride(d);
  *k++ = with_bias;
  return key;
}

// A 4-d activation tensor as it lies in memory.
dnnl::memory::desc user_md(const at::Tensor& t) {
  return dnnl::memory::desc(dims(t.sizes().begin(), t.sizes().end()), dt::f32,
                            dims(t.strides().begin(), t.strides().end()));
}

dims weight_dims(const ConvGeometry& g) {
  if (g.G == 1) return {g.Cy, g.Cx, g.KH, g.KW};
  return {g.G, g.Cy / g.G, g.Cx / g.G, g.KH, g.KW};
}

// The contiguous [Cy, Cx/G, KH, KW] weight, split by groups when G > 1.
dnnl::memory::desc user_weight_md(const ConvGeometry& g) {
  return dnnl::memory::desc(weight_dims(g), dt::f32, g.G == 1 ? tag::oihw : tag::goihw);
}

dnnl::memory::desc any_md(dims d) { return dnnl::memory::desc(d, dt::f32, tag::any); }

// One reorder between a user tensor and the layout a primitive uses;
// `needed` is false when the two agree and the user buffer is used as is.
struct Step {
  dnnl::memory::desc from, to;
  bool needed = false;
  dnnl::reorder prim;
};

Step make_step(const dnnl::memory::desc& from, const dnnl::memory::desc& to) {
  Step s;
  s.from = from;
  s.to = to;
  s.needed = from != to;
  if (s.needed) {
    s.prim =
        dnnl::reorder(dnnl::reorder::primitive_desc(onednn_engine(), from, onednn_engine(), to));
  }
  return s;
}

// Note [oneDNN temporaries from Ember's allocator]
// ~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
// The blocked-layout copies of a call's inputs and output live only for the
// call. Made by dnnl::memory(desc, engine) they came from oneDNN's malloc,
// which hands a freed multi-megabyte buffer back to the kernel: every call
// paid the page faults of its temporaries again (conv1 of the MNIST CNN,
// whose 5.5 MB output is reordered from oneDNN's layout: 24% of its time in
// the kernel). Taken from Ember's CPU allocator instead, they reuse its
// cached large blocks (Note [Large CPU blocks] in c10/core/CPUAllocator.cc).
// A Scratch holds them until the call's primitives have run.
class Scratch {
 public:
  dnnl::memory make(const dnnl::memory::desc& md) {
    at::Tensor t = empty_cpu({static_cast<int64_t>(md.get_size())}, c10::ScalarType::Byte,
                             "conv2d");
    dnnl::memory m(md, onednn_engine(), t.data_ptr());
    keep_.push_back(std::move(t));
    return m;
  }

 private:
  std::vector<at::Tensor> keep_;
};

// The primitive's view of an input that lives at `ptr` in the user layout.
dnnl::memory input(const Step& s, const void* ptr, Scratch& scratch) {
  dnnl::memory user(s.from, onednn_engine(), const_cast<void*>(ptr));
  if (!s.needed) return user;
  dnnl::memory m = scratch.make(s.to);
  s.prim.execute(stream(), user, m);
  return m;
}

struct Entry {
  dnnl::primitive prim;
  Step in0, in1, out;            // two inputs and the output (`out`: prim -> user)
  dnnl::memory::desc extra_md;   // the bias or its gradient ([Cy], plain), if any
};

struct Strides {
  dims strides, dilates, pad_l, pad_r;
};

// oneDNN counts dilation from 0. The right padding is the left one: with
// it, oneDNN's output size (rounded down) is PyTorch's.
Strides strides_of(const ConvGeometry& g) {
  return {{g.sh, g.sw}, {g.dh - 1, g.dw - 1}, {g.ph, g.pw}, {g.ph, g.pw}};
}

dnnl::convolution_forward::primitive_desc forward_pd(const ConvGeometry& g, bool with_bias) {
  const Strides s = strides_of(g);
  const auto x_md = any_md({g.N, g.Cx, g.Hx, g.Wx});
  const auto y_md = any_md({g.N, g.Cy, g.Hy, g.Wy});
  const auto w_md = any_md(weight_dims(g));
  const auto pk = dnnl::prop_kind::forward_training;
  const auto alg = dnnl::algorithm::convolution_direct;
  if (with_bias) {
    const dnnl::memory::desc b_md({g.Cy}, dt::f32, tag::x);
    return {dnnl::convolution_forward::desc(pk, alg, x_md, w_md, b_md, y_md, s.strides,
                                            s.dilates, s.pad_l, s.pad_r),
            onednn_engine()};
  }
  return {dnnl::convolution_forward::desc(pk, alg, x_md, w_md, y_md, s.strides, s.dilates,
                                          s.pad_l, s.pad_r),
          onednn_engine()};
}

using Cache = std::unordered_map<Key, Entry, KeyHash>;

// Every convolution looks its primitives up here, on the thread that then
// creates and runs them: so this applies at::get_num_threads() to that
// thread's OpenMP setting first, which oneDNN's teams follow from creation
// on (See Note [One thread count for every loop] in parallel_loops.h).
Entry& cached(Cache& cache, const Key& key) {
  ember::cpu::num_threads();
  // Bounded: a program cycling through many shapes rebuilds, never grows.
  if (cache.size() > 256 && cache.find(key) == cache.end()) cache.clear();
  return cache[key];
}

// Runs a cached primitive on two prepared inputs (see input()); writes
// `out` (and `extra`, the bias or its gradient, when given) in the user's
// layout.
void run(Entry& e, int in0_arg, const dnnl::memory& in0, int in1_arg,
         const dnnl::memory& in1, int out_arg, void* out, int extra_arg, void* extra,
         Scratch& scratch) {
  std::unordered_map<int, dnnl::memory> args{{in0_arg, in0}, {in1_arg, in1}};
  dnnl::memory user_out(e.out.to, onednn_engine(), out);
  dnnl::memory prim_out = e.out.needed ? scratch.make(e.out.from) : user_out;
  args.emplace(out_arg, prim_out);
  if (extra != nullptr) args.emplace(extra_arg, dnnl::memory(e.extra_md, onednn_engine(), extra));
  e.prim.execute(stream(), args);
  if (e.out.needed) e.out.prim.execute(stream(), prim_out, user_out);
  stream().wait();
}

dnnl::memory::desc bias_md(const ConvGeometry& g) {
  return dnnl::memory::desc({g.Cy}, dt::f32, tag::x);
}

// ---- cached primitives, one cache per kind and thread -----------------------------

Entry& forward_entry(const ConvGeometry& g, const at::Tensor& x, const at::Tensor& y,
                     bool with_bias) {
  thread_local Cache cache;
  Entry& e = cached(cache, make_key(Kind::kForward, g, x, y, with_bias));
  if (!e.prim) {
    RECORD_BACKEND_SCOPE("oneDNN::create convolution_forward");
    const auto pd = forward_pd(g, with_bias);
    e.in0 = make_step(user_md(x), pd.src_desc());
    e.in1 = make_step(user_weight_md(g), pd.weights_desc());
    e.out = make_step(pd.dst_desc(), user_md(y));
    e.extra_md = bias_md(g);
    e.prim = dnnl::convolution_forward(pd);
  }
  return e;
}

Entry& data_entry(const ConvGeometry& g, const at::Tensor& dy, const at::Tensor& dx) {
  thread_local Cache cache;
  Entry& e = cached(cache, make_key(Kind::kBackwardData, g, dy, dx, false));
  if (!e.prim) {
    RECORD_BACKEND_SCOPE("oneDNN::create convolution_backward_data");
    const Strides s = strides_of(g);
    const dnnl::convolution_backward_data::desc d(
        dnnl::algorithm::convolution_direct, any_md({g.N, g.Cx, g.Hx, g.Wx}),
        any_md(weight_dims(g)), any_md({g.N, g.Cy, g.Hy, g.Wy}), s.strides, s.dilates,
        s.pad_l, s.pad_r);
    const dnnl::convolution_backward_data::primitive_desc pd(d, onednn_engine(),
                                                             forward_pd(g, false));
    e.in0 = make_step(user_md(dy), pd.diff_dst_desc());
    e.in1 = make_step(user_weight_md(g), pd.weights_desc());
    e.out = make_step(pd.diff_src_desc(), user_md(dx));
    e.prim = dnnl::convolution_backward_data(pd);
  }
  return e;
}

Entry& weights_entry(const ConvGeometry& g, const at::Tensor& x, const at::Tensor& dy,
                     bool with_bias) {
  thread_local Cache cache;
  Entry& e = cached(cache, make_key(Kind::kBackwardWeights, g, x, dy, with_bias));
  if (!e.prim) {
    RECORD_BACKEND_SCOPE("oneDNN::create convolution_backward_weights");
    const Strides s = strides_of(g);
    const auto alg = dnnl::algorithm::convolution_direct;
    const auto x_md = any_md({g.N, g.Cx, g.Hx, g.Wx});
    const auto y_md = any_md({g.N, g.Cy, g.Hy, g.Wy});
    const auto w_md = any_md(weight_dims(g));
    const auto d = with_bias
        ? dnnl::convolution_backward_weights::desc(alg, x_md, w_md, bias_md(g), y_md,
                                                   s.strides, s.dilates, s.pad_l, s.pad_r)
        : dnnl::convolution_backward_weights::desc(alg, x_md, w_md, y_md, s.strides,
                                                   s.dilates, s.pad_l, s.pad_r);
    const dnnl::convolution_backward_weights::primitive_desc pd(d, onednn_engine(),
                                                                forward_pd(g, with_bias));
    e.in0 = make_step(user_md(x), pd.src_desc());
    e.in1 = make_step(user_md(dy), pd.diff_dst_desc());
    e.out = make_step(pd.diff_weights_desc(), user_weight_md(g));
    e.extra_md = bias_md(g);
    e.prim = dnnl::convolution_backward_weights(pd);
  }
  return e;
}

}  // namespace

// Note [oneDNN refusals]
// ~~~~~~~~~~~~~~~~~~~~~~
// oneDNN may have no implementation for a configuration (it throws
// dnnl::error while creating the primitive). The functions then return
// false, leave their outputs unwritten, and the caller runs the plain loops.
// A refused configuration is retried on the next call (its cache entry has
// no primitive); that is slow but correct, and not expected in practice.
bool onednn_forward(const ConvGeometry& g, const at::Tensor& x, const at::Tensor& w,
                    const at::Tensor& bias, const at::Tensor& y) {
  try {
    const bool with_bias = bias.defined();
    Entry& e = forward_entry(g, x, y, with_bias);
    Scratch scratch;
    run(e, DNNL_ARG_SRC, input(e.in0, x.data_ptr(), scratch), DNNL_ARG_WEIGHTS,
        input(e.in1, w.data_ptr(), scratch), DNNL_ARG_DST, y.data_ptr(), DNNL_ARG_BIAS,
        with_bias ? bias.data_ptr() : nullptr, scratch);
  } catch (const dnnl::error&) {
    return false;  // See Note [oneDNN refusals]
  }
  return true;
}

bool onednn_backward_data(const ConvGeometry& g, const at::Tensor& dy,
                          const at::Tensor& w, const at::Tensor& dx) {
  try {
    Entry& e = data_entry(g, dy, dx);
    Scratch scratch;
    run(e, DNNL_ARG_DIFF_DST, input(e.in0, dy.data_ptr(), scratch), DNNL_ARG_WEIGHTS,
        input(e.in1, w.data_ptr(), scratch), DNNL_ARG_DIFF_SRC, dx.data_ptr(), 0, nullptr,
        scratch);
  } catch (const dnnl::error&) {
    return false;  // See Note [oneDNN refusals]
  }
  return true;
}

bool onednn_backward_weights(const ConvGeometry& g, const at::Tensor& x,
                             const at::Tensor& dy, const at::Tensor& dw,
                             const at::Tensor& dbias) {
  try {
    const bool with_bias = dbias.defined();
    Entry& e = weights_entry(g, x, dy, with_bias);
    Scratch scratch;
    run(e, DNNL_ARG_SRC, input(e.in0, x.data_ptr(), scratch), DNNL_ARG_DIFF_DST,
        input(e.in1, dy.data_ptr(), scratch), DNNL_ARG_DIFF_WEIGHTS, dw.data_ptr(),
        DNNL_ARG_DIFF_BIAS, with_bias ? dbias.data_ptr() : nullptr, scratch);
  } catch (const dnnl::error&) {
    return false;  // See Note [oneDNN refusals]
  }
  return true;
}

bool onednn_backward(const ConvGeometry& g, const at::Tensor& x, const at::Tensor& dy,
                     const at::Tensor& w, const at::Tensor& dx, const at::Tensor& dw,
                     const at::Tensor& dbias) {
  try {
    const bool with_bias = dbias.defined();
    Entry& ed = data_entry(g, dy, dx);
    Entry& ew = weights_entry(g, x, dy, with_bias);
    // dy is read by both primitives: reordered once when they agree on its
    // layout (they usually do).
    Scratch scratch;
    const dnnl::memory dy_data = input(ed.in0, dy.data_ptr(), scratch);
    const dnnl::memory dy_weights =
        ew.in1.to == ed.in0.to ? dy_data : input(ew.in1, dy.data_ptr(), scratch);
    run(ed, DNNL_ARG_DIFF_DST, dy_data, DNNL_ARG_WEIGHTS,
        input(ed.in1, w.data_ptr(), scratch), DNNL_ARG_DIFF_SRC, dx.data_ptr(), 0, nullptr,
        scratch);
    run(ew, DNNL_ARG_SRC, input(ew.in0, x.data_ptr(), scratch), DNNL_ARG_DIFF_DST, dy_weights,
        DNNL_ARG_DIFF_WEIGHTS, dw.data_ptr(), DNNL_ARG_DIFF_BIAS,
        with_bias ? dbias.data_ptr() : nullptr, scratch);
  } catch (const dnnl::error&) {
    return false;  // See Note [oneDNN refusals]
  }
  return true;
}

}  // namespace ember::cpu::conv_detail
