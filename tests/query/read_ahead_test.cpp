// The evaluator's read-ahead worker (query/read_ahead.h): one thread for
// every batch, in the order asked, values and failures delivered.
#include "query/read_ahead.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace chipkg::query::internal
