#include "engine/status.h"

namespace chipkg {

namespace {
const char* CodeName(Status::Code code) {
  switch (code) {
    case Status::Code::kOk: return "OK";
    case Status::Code::kNotFound: return "NotFound";
    case Status::Code::kInvalidArgument: return "InvalidArgument";
    case Status::Code::kCorruption: return "Corruption";
    case Status::Code::kIOError: return "IOError";
    case Status::Code::kBusy: return "Busy";
    case Status::Code::kFormatMismatch: return "FormatMismatch";
    case Status::Code::kAborted: return "Aborted";
  }
  return "Unknown";
}
}  // namespace

std::string Status::ToString() const {
  if (ok()) return "OK";
  std::string out = CodeName(code_);
  if (!message_.empty()) {
    out += ": ";
    out += message_;
  }
  return out;
}

}  // namespace chipkg
