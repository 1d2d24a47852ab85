// nn/nn.h — the umbrella header of torch::nn: modules, containers, losses,
// init and functional (libtorch's <torch/nn.h>).
//
//   #include "nn/nn.h"
//   namespace F = torch::nn::functional;
//   torch::nn::Sequential net(torch::nn::Linear(4, 8), torch::nn::ReLU(),
//                             torch::nn::Linear(8, 2));
//   auto loss = F::cross_entropy(net->forward(x), labels);
//
// See docs/nn.md for what exists and how it differs from libtorch.
#pragma once

#include "nn/enum.h"
#include "nn/expanding_array.h"
#include "nn/functional.h"
#include "nn/init.h"
#include "nn/loss_options.h"
#include "nn/cloneable.h"
#include "nn/module.h"
#include "nn/modules/activation.h"
#include "nn/modules/attention.h"
#include "nn/modules/clip_grad.h"
#include "nn/modules/any.h"
#include "nn/modules/conv.h"
#include "nn/modules/conv_transpose.h"
#include "nn/modules/embedding.h"
#include "nn/modules/functional_module.h"
#include "nn/modules/linear.h"
#include "nn/modules/loss.h"
#include "nn/modules/loss_regression.h"
#include "nn/modules/norm_pool.h"
#include "nn/modules/normalization.h"
#include "nn/modules/pooling.h"
#include "nn/modules/rectifiers.h"
#include "nn/modules/resample.h"
#include "nn/modules/rnn.h"
#include "nn/modules/sequential.h"
#include "nn/modules/transformer.h"
#include "nn/options.h"
#include "nn/ordered_dict.h"
#include "nn/pimpl.h"
