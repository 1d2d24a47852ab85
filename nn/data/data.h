// nn/data/data.h — torch::data: datasets, transforms, samplers and data
// loaders, libtorch 1.13's API (see docs/data.md for the differences).
//
//   auto train = torch::data::datasets::MNIST(root)
//                    .map(torch::data::transforms::Normalize<>(0.2860, 0.3530))
//                    .map(torch::data::transforms::Stack<>());
//   auto loader = torch::data::make_data_loader(
//       std::move(train), torch::data::DataLoaderOptions().batch_size(128).workers(1));
//   for (auto& batch : *loader) { /* batch.data [B,1,28,28], batch.target [B] */ }
#pragma once

#include "nn/data/dataloader/iterator.h"          // IWYU pragma: export
#include "nn/data/dataloader/make_data_loader.h"  // IWYU pragma: export
#include "nn/data/dataloader/stateless.h"         // IWYU pragma: export
#include "nn/data/dataloader_options.h"           // IWYU pragma: export
#include "nn/data/datasets/base.h"                // IWYU pragma: export
#include "nn/data/datasets/cifar.h"               // IWYU pragma: export
#include "nn/data/datasets/map.h"                 // IWYU pragma: export
#include "nn/data/datasets/mnist.h"               // IWYU pragma: export
#include "nn/data/datasets/tensor.h"              // IWYU pragma: export
#include "nn/data/example.h"                      // IWYU pragma: export
#include "nn/data/samplers/base.h"                // IWYU pragma: export
#include "nn/data/samplers/random.h"              // IWYU pragma: export
#include "nn/data/samplers/sequential.h"          // IWYU pragma: export
#include "nn/data/transforms/base.h"              // IWYU pragma: export
#include "nn/data/transforms/stack.h"             // IWYU pragma: export
#include "nn/data/transforms/tensor.h"            // IWYU pragma: export
