// The evaluator's read-ahead worker (query/read_ahead.h): one thread, kept
// for the process, for every evaluation's batches, each evaluation's in the
// order asked, values and failures delivered.
#include "query/read_ahead.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace chipkg::query::internal {
namespace {

TEST(ReadAheadTest, RunsEveryTaskInOrderOnOneThreadOfItsOwn) {
  ReadAhead ahead;
  std::vector<int> order;  // written by the worker only
  std::vector<std::future<std::thread::id>> ran;
  for (int i = 0; i < 200; ++i) {
    ran.push_back(ahead.Submit([i, &order] {
      order.push_back(i);
      return std::this_thread::get_id();
    }));
  }
  std::set<std::thread::id> threads;
  for (auto& f : ran) threads.insert(f.get());
  ASSERT_EQ(threads.size(), 1u);
  EXPECT_NE(*threads.begin(), std::this_thread::get_id());
  ASSERT_EQ(order.size(), 200u);
  for (int i = 0; i < 200; ++i) EXPECT_EQ(order[static_cast<size_t>(i)], i);
}

TEST(ReadAheadTest, DeliversValuesAndExceptions) {
  ReadAhead ahead;
  auto value = ahead.Submit([] { return std::vector<int>{1, 2, 3}; });
  auto failure = ahead.Submit([]() -> int { throw std::runtime_error("disk gone"); });
  auto after = ahead.Submit([] { return 7; });
  EXPECT_EQ(value.get(), (std::vector<int>{1, 2, 3}));
  EXPECT_THROW(failure.get(), std::runtime_error);
  EXPECT_EQ(after.get(), 7) << "a failed task stops the worker";
}

// Destroyed with work queued (an evaluation that returned early): waits for
// the task running, drops the rest, and returns.
TEST(ReadAheadTest, DestructionWaitsForTheRunningTaskAndDropsTheRest) {
  std::atomic<int> finished{0};
  std::atomic<bool> started{false};
  std::future<int> dropped;
  {
    ReadAhead ahead;
    auto running = ahead.Submit([&] {
      started = true;
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
      return ++finished;
    });
    for (int i = 0; i < 10; ++i) dropped = ahead.Submit([&finished] { return ++finished; });
    while (!started) std::this_thread::yield();
  }
  EXPECT_EQ(finished.load(), 1);
  ASSERT_TRUE(dropped.valid());
  EXPECT_THROW(dropped.get(), std::future_error);
}

// Evaluations one after another and side by side share one thread that
// outlives them (a thread per evaluation left its heap, and the answer's
// blocks made on it, abandoned at every query).
TEST(ReadAheadTest, EveryEvaluationSharesOneLastingThread) {
  std::thread::id first;
  {
    ReadAhead ahead;
    first = ahead.Submit([] { return std::this_thread::get_id(); }).get();
  }
  ReadAhead a, b;
  EXPECT_EQ(a.Submit([] { return std::this_thread::get_id(); }).get(), first);
  EXPECT_EQ(b.Submit([] { return std::this_thread::get_id(); }).get(), first);
  EXPECT_NE(first, std::this_thread::get_id());
}

// One evaluation ending drops its own queued tasks only, and waits for its
// own running task only: another's task running meanwhile is not waited for,
// and another's queued tasks still run.
TEST(ReadAheadTest, DestroyingOneDropsOnlyItsOwnTasks) {
  ReadAhead keeper;
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::atomic<bool> started{false};
  // Keeper's task holds the thread until the other evaluation is gone.
  auto holding = keeper.Submit([&] {
    started = true;
    return released.wait_for(std::chrono::seconds(20)) == std::future_status::ready;
  });
  while (!started) std::this_thread::yield();
  std::future<int> dropped;
  {
    ReadAhead leaving;
    dropped = leaving.Submit([] { return 1; });
  }  // must not wait for keeper's task: it waits for this scope to end
  release.set_value();
  EXPECT_TRUE(holding.get()) << "the ending evaluation waited for another's task";
  EXPECT_THROW(dropped.get(), std::future_error);
  EXPECT_EQ(keeper.Submit([] { return 5; }).get(), 5);
}

// A process forked after the thread started has no such thread: it gets its own.
TEST(ReadAheadTest, AForkedChildGetsAThreadOfItsOwn) {
  {
    // The worker started before the fork. Its ReadAhead is gone before the
    // fork, which waits until the worker is done with the task, freeing
    // included: a child forked while another thread holds the allocator's
    // lock can hang in its first allocation, and with the task's freeing
    // still under way at the fork the child hung (a 300 s timeout in CI on
    // 2026-12-02; a lock held at the fork is the likely cause).
    ReadAhead parent;
    ASSERT_EQ(parent.Submit([] { return 1; }).get(), 1);
  }
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    ReadAhead ahead;
    std::future<int> f = ahead.Submit([] { return 42; });
    const bool ran = f.wait_for(std::chrono::seconds(10)) == std::future_status::ready && f.get() == 42;
    _exit(ran ? 0 : 3);
  }
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the child's task never ran";
}

}  // namespace
}  // namespace chipkg::query::internal
