// nn/data/datasets/idx_reader.h — the IDX files of MNIST, one at a time
// (private to //nn/data; the fuzz targets under tests/fuzz call these).
//
//   at::Tensor images = read_idx_images(path, /*limit=*/100);  // float [<=100, 1, 28, 28]
//   at::Tensor labels = read_idx_labels(lpath, images_in_file, 100, path);
#pragma once

#include <cstdint>
#include <string>

#include "aten/Tensor.h"

namespace torch {
namespace data {
namespace datasets {
namespace detail {

// An IDX images file (magic 2051, 28x28) as float32 [N, 1, 28, 28] in
// [0, 1], N = min(count, limit) (limit 0: all). `*count_in_file`, if given,
// receives the header's count. With N < count, decoding stops after N images
// and the rest of the file is not checked. See Note [Dataset file limits].
at::Tensor read_idx_images(const std::string& path, int64_t limit = 0,
                           int64_t* count_in_file = nullptr);

// An IDX labels file (magic 2049) whose count must equal `expected_count`
// (the images file's, named by `images_path`), as int64 [min(count, limit)]
// in [0, 9].
at::Tensor read_idx_labels(const std::string& path, int64_t expected_count, int64_t limit,
                           const std::string& images_path);

}  // namespace detail
}  // namespace datasets
}  // namespace data
}  // namespace torch
