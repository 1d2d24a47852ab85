// tools/train/output.h — the files //tools:train writes (--metrics, --plot,
// --save's folder), checked before training and written so that a failure
// can never leave a silently empty or partial file.
//
//   check_output_path("--metrics", path);        // before training: fails fast
//   write_file_atomically("--metrics", path, csv);
//
// Note [Training outputs]
// ~~~~~~~~~~~~~~~~~~~~~~~
// Every output is written by a c10::AtomicFileWriter (See Note [Opening and
// writing files] in c10/util/FileIO.h): a temporary beside the target, every
// write, the fsync and the close checked, then renamed over the target; any
// failure throws, so the program exits non-zero. A target that exists and is
// not a regular file (/dev/full, a FIFO, a directory) is refused, since
// renaming over it would replace it. An output with no bytes is an error.
#pragma once

#include <string>

namespace tools {
namespace train {

// Throws c10::Error naming `flag` and `path` unless a file can be created in
// the folder of `path` and `path` is not something other than a regular file.
void check_output_path(const char* flag, const std::string& path);

// Writes `bytes` to `path` through a c10::AtomicFileWriter; an empty output
// is an error.
void write_file_atomically(const char* flag, const std::string& path, const std::string& bytes);

}  // namespace train
}  // namespace tools
