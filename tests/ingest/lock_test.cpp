// RunLock tests: real flock(2) on a real file, across real processes (fork).
#include "ingest/lock.h"

#include <gtest/gtest.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace chipkg {
namespace {

class RunLockTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (std::filesystem::temp_directory_path() / "chipkg-lock-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    path_ = RunLock::PathFor(dir_);
  }
  void TearDown() override {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  std::string FileContent() const {
    std::ifstream in(path_);
    std::stringstream content;
    content << in.rdbuf();
    return content.str();
  }

  // Waits for a child and returns its exit code (or -signal).
  static int WaitChild(pid_t pid) {
    int status = 0;
    if (::waitpid(pid, &status, 0) != pid) return -1000;
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    if (WIFSIGNALED(status)) return -WTERMSIG(status);
    return -1001;
  }

  std::string dir_;
  std::string path_;
};

TEST_F(RunLockTest, PathForNamesTheStoreLockFile) {
  EXPECT_EQ(RunLock::PathFor("/var/lib/chipkg"), "/var/lib/chipkg/ingest.lock");
  EXPECT_EQ(RunLock::PathFor("/var/lib/chipkg/"), "/var/lib/chipkg/ingest.lock");
}

TEST_F(RunLockTest, SecondAcquireIsBusyUntilReleased) {
  Result<RunLock> first = RunLock::Acquire(path_);
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_TRUE(first->held());
  EXPECT_EQ(FileContent(), std::to_string(::getpid()) + "\n");

  Result<RunLock> second = RunLock::Acquire(path_);
  ASSERT_FALSE(second.ok());
  EXPECT_TRUE(second.status().IsBusy());
  EXPECT_EQ(second.status().message(), "ingest lock " + path_ + " is held by pid " + std::to_string(::getpid()) +
                                           ": another ingest run is in progress");

  first->Release();
  EXPECT_FALSE(first->held());
  EXPECT_EQ(FileContent(), "");  // no stale pid left behind
  EXPECT_TRUE(std::filesystem::exists(path_));
  Result<RunLock> third = RunLock::Acquire(path_);
  EXPECT_TRUE(third.ok()) << third.status().message();
}

TEST_F(RunLockTest, DestructionReleasesAndMoveKeepsHolding) {
  {
    Result<RunLock> acquired = RunLock::Acquire(path_);
    ASSERT_TRUE(acquired.ok());
    RunLock moved = std::move(acquired).value();
    EXPECT_TRUE(moved.held());
    EXPECT_EQ(moved.path(), path_);
    // `acquired` still holds the emptied, moved-from RunLock; it must not
    // release what `moved` now holds.
    EXPECT_TRUE(RunLock::Acquire(path_).status().IsBusy());
  }
  EXPECT_TRUE(RunLock::Acquire(path_).ok());
}

TEST_F(RunLockTest, MoveAssignmentReleasesTheOverwrittenLock) {
  std::string other_path = dir_ + "/other.lock";
  Result<RunLock> a = RunLock::Acquire(path_);
  Result<RunLock> b = RunLock::Acquire(other_path);
  ASSERT_TRUE(a.ok());
  ASSERT_TRUE(b.ok());
  *a = std::move(*b);  // a's lock on path_ is released, other_path now held by a
  EXPECT_EQ(a->path(), other_path);
  EXPECT_TRUE(RunLock::Acquire(path_).ok());
  EXPECT_TRUE(RunLock::Acquire(other_path).status().IsBusy());
}

TEST_F(RunLockTest, AnotherProcessIsRefusedAndToldOurPid) {
  Result<RunLock> held = RunLock::Acquire(path_);
  ASSERT_TRUE(held.ok());
  std::string expected = "held by pid " + std::to_string(::getpid());
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    Result<RunLock> attempt = RunLock::Acquire(path_);
    int code = 0;
    if (attempt.ok()) code = 1;
    else if (!attempt.status().IsBusy()) code = 2;
    else if (attempt.status().message().find(expected) == std::string::npos) code = 3;
    ::_exit(code);
  }
  EXPECT_EQ(WaitChild(child), 0) << "1: child got the lock, 2: not Busy, 3: message lacks our pid";
}

TEST_F(RunLockTest, HolderDeathReleasesTheLock) {
  int ready[2];
  ASSERT_EQ(::pipe(ready), 0);
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ::close(ready[0]);
    Result<RunLock> lock = RunLock::Acquire(path_);
    char byte = lock.ok() ? 'y' : 'n';
    ssize_t n = ::write(ready[1], &byte, 1);
    (void)n;
    // Hold the lock until killed, like a run that crashes mid-way.
    for (;;) ::pause();
  }
  ::close(ready[1]);
  char byte = 0;
  pollfd fd = {ready[0], POLLIN, 0};
  ASSERT_EQ(::poll(&fd, 1, 5000), 1);
  ASSERT_EQ(::read(ready[0], &byte, 1), 1);
  ::close(ready[0]);
  ASSERT_EQ(byte, 'y');

  Result<RunLock> refused = RunLock::Acquire(path_);
  ASSERT_FALSE(refused.ok());
  EXPECT_TRUE(refused.status().IsBusy());
  EXPECT_NE(refused.status().message().find("pid " + std::to_string(child)), std::string::npos)
      << refused.status().message();

  ::kill(child, SIGKILL);
  EXPECT_EQ(WaitChild(child), -SIGKILL);
  Result<RunLock> after = RunLock::Acquire(path_);
  EXPECT_TRUE(after.ok()) << after.status().message();
}

TEST_F(RunLockTest, ForkedChildDroppingItsCopyDoesNotReleaseTheParent) {
  Result<RunLock> held = RunLock::Acquire(path_);
  ASSERT_TRUE(held.ok());
  pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    // The child inherited the descriptor (same open file description); its
    // copy of the RunLock going away must leave the parent's lock alone.
    held->Release();
    ::_exit(0);
  }
  ASSERT_EQ(WaitChild(child), 0);
  EXPECT_TRUE(RunLock::Acquire(path_).status().IsBusy());
  EXPECT_EQ(FileContent(), std::to_string(::getpid()) + "\n");
}

TEST_F(RunLockTest, MissingDirectoryIsAnIOError) {
  Result<RunLock> lock = RunLock::Acquire(dir_ + "/no/such/dir/ingest.lock");
  ASSERT_FALSE(lock.ok());
  EXPECT_TRUE(lock.status().IsIOError());
  EXPECT_NE(lock.status().message().find("No such file or directory"), std::string::npos)
      << lock.status().message();
  EXPECT_TRUE(RunLock::Acquire("").status().IsInvalidArgument());
}

}  // namespace
}  // namespace chipkg
