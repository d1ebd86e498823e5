// Reads a query evaluation asks for ahead of time, on one thread of its own.
//
// Large answers read the store in batches (the next 1,024 candidates of a
// find, the next 64 subjects of a conflicts pass) while the current batch is
// evaluated. A thread per batch (std::async) started 1,563 threads for one
// conflicts query at N=100,000: a clone, a stack and a heap arena each, and
// with allocators that give every thread a heap of its own, a heap abandoned
// per batch. One worker serves every batch of an evaluation, in order.
#pragma once

#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <type_traits>
#include <utility>

namespace chipkg::query::internal {

class ReadAhead {
 public:
  ReadAhead() = default;
  ReadAhead(const ReadAhead&) = delete;
  ReadAhead& operator=(const ReadAhead&) = delete;
  // Waits for the task being run; tasks not started are dropped (their
  // futures report a broken promise). Whatever tasks use must outlive this.
  ~ReadAhead();

  // Runs `task` after the tasks submitted before it. The worker starts on the
  // first call. Unlike std::async's, the future does not wait in its destructor.
  template <typename Task>
  std::future<std::invoke_result_t<Task>> Submit(Task task) {
    using Value = std::invoke_result_t<Task>;
    auto packaged = std::make_shared<std::packaged_task<Value()>>(std::move(task));
    std::future<Value> future = packaged->get_future();
    Enqueue([packaged] { (*packaged)(); });
    return future;
  }

 private:
  void Enqueue(std::function<void()> run);
  void Work();

  std::mutex mu_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> tasks_;
  bool stopping_ = false;
  std::thread worker_;
};

}  // namespace chipkg::query::internal
