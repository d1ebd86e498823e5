#include "ingest/lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>

namespace chipkg {

namespace {

std::string ErrnoText(int err) { return std::error_code(err, std::generic_category()).message(); }

// The pid the holder wrote, or "" when it has not written it yet (it locks
// first and writes second) or the file holds something else.
std::string ReadHolderPid(int fd) {
  char buffer[32];
  ssize_t n = ::pread(fd, buffer, sizeof buffer - 1, 0);
  if (n <= 0) return "";
  std::string text(buffer, static_cast<size_t>(n));
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return "";
  return text;
}

}  // namespace

std::string RunLock::PathFor(const std::string& store_dir) {
  if (!store_dir.empty() && store_dir.back() == '/') return store_dir + "ingest.lock";
  return store_dir + "/ingest.lock";
}

std::string RunLock::HolderPid(const std::string& path) {
  // The kernel's list of locks says who holds the file's flock right now;
  // the pid written in the file may be a run killed before it could clear it.
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return "";
  std::ifstream locks("/proc/locks");
  if (!locks) return "";
  char device_inode[64];
  std::snprintf(device_inode, sizeof device_inode, "%02x:%02x:%llu", major(st.st_dev), minor(st.st_dev),
                static_cast<unsigned long long>(st.st_ino));
  // "1: FLOCK  ADVISORY  WRITE 12345 08:01:1234567 0 EOF"
  std::string line;
  while (std::getline(locks, line)) {
    std::istringstream fields(line);
    std::string id, type, mode, access, pid, where;
    if (!(fields >> id >> type)) continue;
    if (type == "->") fields >> type;  // a waiter, listed under the lock it waits for
    if (!(fields >> mode >> access >> pid >> where)) continue;
    if (type == "FLOCK" && access == "WRITE" && where == device_inode) return pid;
  }
  return "";
}

Result<RunLock> RunLock::Acquire(const std::string& path) {
  if (path.empty()) return Status::InvalidArgument("ingest lock: empty path");
  // O_CLOEXEC: a child that execs must not keep the run locked after we exit.
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return Status::IOError("ingest lock " + path + ": cannot open: " + ErrnoText(errno));
  int rc;
  do {
    rc = ::flock(fd, LOCK_EX | LOCK_NB);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) {
    int err = errno;
    std::string holder = err == EWOULDBLOCK ? ReadHolderPid(fd) : "";
    ::close(fd);
    if (err == EWOULDBLOCK) {
      return Status::Busy("ingest lock " + path + " is held by " +
                          (holder.empty() ? std::string("another process") : "pid " + holder) +
                          ": another ingest run is in progress");
    }
    return Status::IOError("ingest lock " + path + ": flock failed: " + ErrnoText(err));
  }
  // The pid is informative only; failing to write it does not undo the lock.
  std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) == 0) {
    ssize_t written = ::pwrite(fd, pid.data(), pid.size(), 0);
    (void)written;
  }
  return RunLock(fd, path, static_cast<int>(::getpid()));
}

RunLock::RunLock(RunLock&& other) noexcept
    : fd_(other.fd_), owner_pid_(other.owner_pid_), path_(std::move(other.path_)) {
  other.fd_ = -1;
}

RunLock& RunLock::operator=(RunLock&& other) noexcept {
  if (this != &other) {
    Release();
    fd_ = other.fd_;
    owner_pid_ = other.owner_pid_;
    path_ = std::move(other.path_);
    other.fd_ = -1;
  }
  return *this;
}

RunLock::~RunLock() { Release(); }

void RunLock::Release() {
  if (fd_ < 0) return;
  if (owner_pid_ == static_cast<int>(::getpid())) {
    // Clear our pid while still holding the lock so nobody reads a stale holder.
    // A failed truncate leaves a stale pid in the file, which is only cosmetic.
    if (::ftruncate(fd_, 0) != 0) errno = 0;
    ::flock(fd_, LOCK_UN);
  }
  ::close(fd_);
  fd_ = -1;
}

}  // namespace chipkg
