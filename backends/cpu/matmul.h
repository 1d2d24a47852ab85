// backends/cpu/matmul.h — which implementation the CPU plugin's matrix
// products (mm, mm.out, bmm, addmm) ran. Internal to the CPU plugin; read by
// tests that check which inputs take which path.
//
//   const int64_t before = ember::cpu::matmul_runs(ember::cpu::MatmulPath::kPlainLoop);
//   at::mm(a.to(at::kDouble), b.to(at::kDouble));
//   // matmul_runs(kPlainLoop) == before + 1
#pragma once

#include <cstdint>

namespace ember::cpu {

// ember::cpu::MatmulPath
//
// The implementations (see backends/cpu/matmul.cc): oneDNN's matmul
// primitive (float32, and float16/bfloat16 computed in float32), oneDNN's
// sgemm (large float32 products, Note [Large products through sgemm]), and
// the plain loop (float64 and the integer dtypes).
enum class MatmulPath { kOneDnnMatmul = 0, kOneDnnSgemm = 1, kPlainLoop = 2 };

// ember::cpu::matmul_runs
//
// How many products `path` has computed in this process, on any thread (a
// batched product counts once). Empty products (a zero-size output or inner
// dimension) run no path. Costs the kernels one relaxed increment per
// product.
int64_t matmul_runs(MatmulPath path);

}  // namespace ember::cpu
