// npu_device.h — what the npu plugin's two sources share: its memory, the
// host view through which its kernels reach that memory, and its random
// number generators.
//
// The "npu" is a pretend accelerator whose memory is host memory, so that
// this example runs anywhere: a real backend would launch kernels on its
// device where these call the CPU's on a host view.
//
//   at::Tensor t = at::empty({2, 3}, at::TensorOptions("npu"));
//   at::Tensor h = npu::host_view(t);   // a CPU tensor over t's memory
//   h.fill_(1);                         // writes t
#pragma once

#include <optional>

#include <ATen/ATen.h>

namespace npu {

// npu::allocator — the device's c10::Allocator (npu_device.cc): host memory,
// poisoned with 0xCB when freed, counted by npu_bytes_in_use().
c10::Allocator* allocator();

// npu::host_view — a CPU tensor over `t`'s memory with its sizes, strides and
// dtype, that keeps `t`'s storage alive; `t` itself if it is on the CPU.
at::Tensor host_view(const at::Tensor& t);

// npu::host_engine — the CPU generator that draws the numbers of `gen`, an
// npu generator, or of the npu's default generator when `gen` is empty.
// Throws c10::Error (naming both types) if `gen` is not an npu generator.
at::Generator host_engine(const std::optional<at::Generator>& gen);

}  // namespace npu

// The allocator's counters, for tests: live bytes and blocks.
extern "C" int64_t npu_bytes_in_use();
extern "C" int64_t npu_blocks_in_use();
