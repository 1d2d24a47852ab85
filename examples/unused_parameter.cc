// A program as users write them: it has an unused parameter and an unused
// variable, which -Wall -Wextra -Werror would refuse. Ember applies those
// flags to its own packages only (.bazelrc, --per_file_copt), so a user's
// package inside the workspace builds with the compiler's defaults: if this
// target stops building, the project's warning flags leaked into user code.
#include <torch/torch.h>

static torch::Tensor scale(const torch::Tensor& x, double unused_factor) {
  int unused_count = 0;
  return x * 2;
}

int main(int argc, char** argv) {
  return scale(torch::ones({1}), 1.0).item<double>() == 2.0 ? 0 : 1;
}
