// backends/cpu/onednn.h — the one oneDNN CPU engine the plugin's oneDNN
// kernels (matmul, convolution, eltwise) create their primitives on.
#pragma once

#include <dnnl.hpp>

namespace ember::cpu {

// ember::cpu::onednn_engine
//
// Made on first use and kept for the process. A dnnl::engine may be used
// from several threads at once.
dnnl::engine& onednn_engine();

}  // namespace ember::cpu
