// tools/train/plot.h — pictures drawn by external programs: --plot (loss and
// accuracy per epoch, by gnuplot: Debian's gnuplot-nox) and --graph=*.png
// (the autograd graph, by Graphviz's dot: Debian's graphviz); ./bazelw
// installs both.
#pragma once

#include <string>
#include <vector>

#include "tools/train/trainer.h"

namespace tools {
namespace train {

// Writes `png`; throws c10::Error if gnuplot is missing or fails.
void plot_png(const std::string& png, const std::vector<EpochStats>& epochs);

// Writes `png` from the Graphviz DOT text `dot`; throws c10::Error if dot
// is missing or fails.
void render_dot_png(const std::string& png, const std::string& dot);

}  // namespace train
}  // namespace tools
