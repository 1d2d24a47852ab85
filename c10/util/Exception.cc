#include "c10/util/Exception.h"

#include <iostream>

namespace c10 {

std::ostream& operator<<(std::ostream& out, const SourceLocation& loc) {
  return out << loc.function << " at " << loc.file << ":" << loc.line;
}

Error::Error(SourceLocation location, std::string msg)
    : location_(location), msg_(std::move(msg)) {
  refresh_what();
}

Error::~Error() = default;

void Error::add_context(const std::string& context) {
  msg_ = context + msg_;
  refresh_what();
}

void Error::refresh_what() {
  what_ = c10::str(msg_, "\nException raised from ", location_);
}

void WarningHandler::process(const Warning& warning) {
  std::cerr << "Warning: " << warning.msg() << " ("
            << warning.source_location() << ")\n";
}

namespace {
WarningHandler* default_warning_handler() {
  static WarningHandler handler;
  return &handler;
}
thread_local WarningHandler* tls_warning_handler = nullptr;
}  // namespace

namespace WarningUtils {
void set_warning_handler(WarningHandler* handler) noexcept {
  tls_warning_handler = handler;
}
WarningHandler* get_warning_handler() noexcept {
  return tls_warning_handler ? tls_warning_handler : default_warning_handler();
}
}  // namespace WarningUtils

void warn(const Warning& warning) {
  WarningUtils::get_warning_handler()->process(warning);
}

namespace detail {

void torchCheckFail(const char* func, const char* file, uint32_t line,
                    const std::string& msg) {
  throw Error(SourceLocation{func, file, line}, msg);
}
void torchCheckFailValue(const char* func, const char* file, uint32_t line,
                         const std::string& msg) {
  throw ValueError(SourceLocation{func, file, line}, msg);
}
void torchCheckFailIndex(const char* func, const char* file, uint32_t line,
                         const std::string& msg) {
  throw IndexError(SourceLocation{func, file, line}, msg);
}
void torchCheckFailType(const char* func, const char* file, uint32_t line,
                        const std::string& msg) {
  throw TypeError(SourceLocation{func, file, line}, msg);
}
void torchCheckFailNotImplemented(const char* func, const char* file,
                                  uint32_t line, const std::string& msg) {
  throw NotImplementedError(SourceLocation{func, file, line}, msg);
}
void torchInternalAssertFail(const char* func, const char* file, uint32_t line,
                             const char* condition, const std::string& msg) {
  throw Error(SourceLocation{func, file, line},
              c10::str("INTERNAL ASSERT FAILED at ", file, ":", line,
                       ", please report a bug to Ember. Condition: ",
                       condition, (msg.empty() ? "" : ". "), msg));
}

}  // namespace detail
}  // namespace c10
