// nn/serialize/safetensors.h — torch::safetensors: checkpoint files in the
// safetensors format (https://github.com/huggingface/safetensors), readable
// by Python's `safetensors` and by Ember.
//
//   torch::safetensors::save("model.safetensors",
//                            {{"fc.weight", w}, {"fc.bias", b}}, {{"epoch", "3"}});
//   torch::safetensors::File f = torch::safetensors::load("model.safetensors");
//   f.tensors[0].first;  // "fc.weight"
//
// Layout: an 8-byte little-endian header length N; N bytes of JSON
//   {"__metadata__":{"epoch":"3"},"fc.weight":{"dtype":"F32","shape":[10,784],
//    "data_offsets":[0,31360]},...}
// padded with spaces to a multiple of 8; then the tensors' bytes, little-
// endian, row-major, in the order given to save(), without gaps. Offsets
// count from the first byte after the header. Supported dtypes: F64 F32 F16
// BF16 I64 I32 I16 I8 U8 BOOL.
//
// Use it for weights and optimizer state that are tensors with string keys;
// it stores no modules, graphs or Python objects (that is the point).
// Thread safety: the functions share no state; saving two files at once is
// fine, saving to the same path from two threads leaves one of the two.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "aten/Tensor.h"

namespace torch {
namespace safetensors {

// torch::safetensors::save
//
// Writes `tensors` (name, tensor) and string `metadata` to `path`. Tensors
// must be defined, on the CPU, of a supported dtype, with unique non-empty
// names other than "__metadata__"; non-contiguous tensors are written as
// their contiguous copy. The file is written next to `path` under a temporary
// name, flushed to disk and renamed over `path` at the end, so `path` holds
// either its old content or the complete new file. Throws c10::Error naming
// the path on any failure.
void save(const std::string& path, const std::vector<std::pair<std::string, at::Tensor>>& tensors,
          const std::map<std::string, std::string>& metadata = {});

// torch::safetensors::File — what load() returns.
struct File {
  // In the header's order; each tensor is contiguous, owns its memory, and
  // does not require grad.
  std::vector<std::pair<std::string, at::Tensor>> tensors;
  std::map<std::string, std::string> metadata;
};

// torch::safetensors::load
//
// Reads a safetensors file. Everything is validated before any tensor is
// allocated: the header length against the file size, the JSON syntax (the
// error gives the byte position), each entry's dtype, shape and
// data_offsets, the offsets against the shapes, overlaps, gaps and the data
// size, duplicate names, metadata values being strings. Every error is a
// c10::Error that names the file.
File load(const std::string& path);

}  // namespace safetensors
}  // namespace torch
