// Status and Result<T>: the error convention at every chipkg module boundary.
//
// No exception crosses a module boundary. A function that can fail returns a
// Status (or a Result<T> holding either a value or a non-OK Status). The
// message says what failed and where (file, line, key, URL), in words a user
// can act on; callers add context by wrapping, never by discarding.
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace chipkg {

class [[nodiscard]] Status {
 public:
  enum class Code {
    kOk = 0,
    kNotFound,
    kInvalidArgument,  // bad input from a caller or a user: a malformed query, a wrong flag
    kCorruption,       // stored or input bytes that cannot be decoded
    kIOError,          // file system, network
    kBusy,             // another process holds a lock
    kFormatMismatch,   // a store written by another storage-format version
    kAborted,          // the operation was abandoned and nothing was written
  };

  Status() = default;
  static Status OK() { return Status(); }
  static Status NotFound(std::string msg) { return Status(Code::kNotFound, std::move(msg)); }
  static Status InvalidArgument(std::string msg) { return Status(Code::kInvalidArgument, std::move(msg)); }
  static Status Corruption(std::string msg) { return Status(Code::kCorruption, std::move(msg)); }
  static Status IOError(std::string msg) { return Status(Code::kIOError, std::move(msg)); }
  static Status Busy(std::string msg) { return Status(Code::kBusy, std::move(msg)); }
  static Status FormatMismatch(std::string msg) { return Status(Code::kFormatMismatch, std::move(msg)); }
  static Status Aborted(std::string msg) { return Status(Code::kAborted, std::move(msg)); }

  bool ok() const { return code_ == Code::kOk; }
  bool IsNotFound() const { return code_ == Code::kNotFound; }
  bool IsInvalidArgument() const { return code_ == Code::kInvalidArgument; }
  bool IsCorruption() const { return code_ == Code::kCorruption; }
  bool IsIOError() const { return code_ == Code::kIOError; }
  bool IsBusy() const { return code_ == Code::kBusy; }
  bool IsFormatMismatch() const { return code_ == Code::kFormatMismatch; }
  Code code() const { return code_; }
  const std::string& message() const { return message_; }

  // "context: message", keeping the code. Used to say where an error happened.
  Status WithContext(const std::string& context) const {
    if (ok()) return *this;
    return Status(code_, context + ": " + message_);
  }
  // The same code with another message (a shortened one).
  Status WithMessage(std::string message) const {
    if (ok()) return *this;
    return Status(code_, std::move(message));
  }
  std::string ToString() const;

 private:
  Status(Code code, std::string msg) : code_(code), message_(std::move(msg)) {}
  Code code_ = Code::kOk;
  std::string message_;
};

// Either a T or a non-OK Status. Accessing value() of an error is a bug (asserts).
template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  Result(Status status) : v_(std::move(status)) { assert(!std::get<Status>(v_).ok()); }  // NOLINT

  bool ok() const { return std::holds_alternative<T>(v_); }
  const Status& status() const {
    static const Status kOk;
    return ok() ? kOk : std::get<Status>(v_);
  }
  T& value() & { assert(ok()); return std::get<T>(v_); }
  const T& value() const& { assert(ok()); return std::get<T>(v_); }
  T&& value() && { assert(ok()); return std::get<T>(std::move(v_)); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace chipkg

// Returns early from the enclosing function if `expr` (a Status) is not OK.
#define CHIPKG_RETURN_IF_ERROR(expr)          \
  do {                                        \
    ::chipkg::Status chipkg_status_ = (expr); \
    if (!chipkg_status_.ok()) return chipkg_status_; \
  } while (0)
