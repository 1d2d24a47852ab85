// tools/train/progress.cc — see progress.h.
#include "tools/train/progress.h"

#include <algorithm>
#include <cstdio>
#include <ostream>
#include <string>

namespace tools {
namespace train {

namespace {
constexpr int kBarWidth = 24;
}  // namespace

ProgressBar::ProgressBar(std::ostream& out, int64_t epoch, int64_t epochs, int64_t batches,
                         bool enabled)
    : out_(out),
      epoch_(epoch),
      epochs_(epochs),
      batches_(std::max<int64_t>(batches, 1)),
      enabled_(enabled),
      start_(std::chrono::steady_clock::now()),
      last_draw_(start_) {}

void ProgressBar::update(int64_t batches_done, int64_t samples_done, double running_loss) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  if (batches_done < batches_ && drawn_ && now - last_draw_ < std::chrono::milliseconds(100)) {
    return;
  }
  last_draw_ = now;
  draw(batches_done, samples_done, running_loss);
}

void ProgressBar::draw(int64_t batches_done, int64_t samples_done, double running_loss) {
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  const double fraction = static_cast<double>(batches_done) / static_cast<double>(batches_);
  const int filled = static_cast<int>(fraction * kBarWidth);
  std::string bar(kBarWidth, ' ');
  for (int i = 0; i < filled && i < kBarWidth; ++i) bar[i] = '=';
  if (filled < kBarWidth) bar[filled] = '>';
  const double rate = elapsed > 0 ? static_cast<double>(samples_done) / elapsed : 0.0;
  const double left = fraction > 0 ? elapsed * (1 - fraction) / fraction : 0.0;
  char line[192];
  std::snprintf(line, sizeof(line),
                "\repoch %lld/%lld [%s] %lld/%lld batches  %.0f samples/s  loss %.4f  %.0fs left ",
                static_cast<long long>(epoch_), static_cast<long long>(epochs_), bar.c_str(),
                static_cast<long long>(batches_done), static_cast<long long>(batches_), rate,
                running_loss, left);
  out_ << line << std::flush;
  drawn_ = true;
}

void ProgressBar::finish() {
  if (!enabled_ || !drawn_) return;
  out_ << "\r\033[K" << std::flush;  // carriage return, clear to end of line
  drawn_ = false;
}

}  // namespace train
}  // namespace tools
