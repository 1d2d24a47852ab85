// tools/train/plot.h — --plot: loss and accuracy per epoch as a PNG, drawn by
// gnuplot (Debian's gnuplot-nox, installed by ./bazelw).
#pragma once

#include <string>
#include <vector>

#include "tools/train/trainer.h"

namespace tools {
namespace train {

// Writes `png`; throws c10::Error if gnuplot is missing or fails.
void plot_png(const std::string& png, const std::vector<EpochStats>& epochs);

}  // namespace train
}  // namespace tools
