// RunLock: keeps two ingest runs from writing the same store at once.
//
// An exclusive flock(2) on a lock file (conventionally STORE/ingest.lock).
// The kernel drops the lock when the holder exits or crashes, so a stale file
// never blocks the next run. The holder's pid is written into the file so a
// refused run can say who holds it.
#pragma once

#include <string>
#include <utility>

#include "engine/status.h"

namespace chipkg {

class RunLock {
 public:
  // Takes the lock without waiting. Busy (naming the path and the holder's
  // pid when known) if another RunLock holds it, in this or another process;
  // IOError if the file cannot be opened (e.g. its directory is missing).
  // Creates the file if needed; never deletes it (deleting a lock file lets two
  // processes lock two different files of the same name).
  static Result<RunLock> Acquire(const std::string& path);

  // "<store_dir>/ingest.lock".
  static std::string PathFor(const std::string& store_dir);

  // The pid of the process holding the lock at `path` now, from the kernel's
  // list of locks (/proc/locks), without taking the lock (taking it, even
  // for a moment, could refuse a run starting then); "" when nobody holds it.
  static std::string HolderPid(const std::string& path);

  RunLock(RunLock&& other) noexcept;
  RunLock& operator=(RunLock&& other) noexcept;
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;
  ~RunLock();  // releases the lock (in the process that acquired it)

  // Releases early; the destructor is then a no-op. In a forked child this
  // only closes the child's copy of the descriptor.
  void Release();
  bool held() const { return fd_ >= 0; }
  const std::string& path() const { return path_; }

 private:
  RunLock(int fd, std::string path, int owner_pid) : fd_(fd), owner_pid_(owner_pid), path_(std::move(path)) {}
  int fd_ = -1;
  // A forked child shares the lock's open file description; only the process
  // that took the lock may unlock it, or a child's exit would free the parent's run.
  int owner_pid_ = -1;
  std::string path_;
};

}  // namespace chipkg
