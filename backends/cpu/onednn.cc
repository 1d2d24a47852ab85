#include "backends/cpu/onednn.h"

namespace ember::cpu {

dnnl::engine& onednn_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

}  // namespace ember::cpu
