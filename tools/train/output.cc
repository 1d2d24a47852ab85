// tools/train/output.cc — see output.h.
#include "tools/train/output.h"

#include <string>

#include "c10/util/Exception.h"
#include "c10/util/FileIO.h"

namespace tools {
namespace train {

void check_output_path(const char *flag, const std::string &path) {
  TORCH_CHECK(!path.empty() && path.back() != '/', "train: ", flag, " '", path,
              "' names no file; give the path of a file to write");
  // Refuses a special file and creates (and, unused, removes) a temporary.
  c10::AtomicFileWriter probe(std::string("train: ") + flag, path);
}

void write_file_atomically(const char *flag, const std::string &path, const std::string &bytes) {
  c10::AtomicFileWriter out(std::string("train: ") + flag, path);
  out.write(bytes);
  out.commit(/*require_bytes=*/true);
}

}  // namespace train
}  // namespace tools
