// Reads a query evaluation asks for ahead of time, on a thread of its own.
//
// Large answers read the store in batches (the next 1,024 candidates of a
// find, the next 64 subjects of a conflicts pass) while the current batch is
// evaluated. A thread per batch (std::async) started 1,563 threads for one
// conflicts query at N=100,000: a clone, a stack and a heap arena each, and
// with allocators that give every thread a heap of its own, a heap abandoned
// per batch. A thread per evaluation still abandoned one heap per query, with
// the blocks the answer kept from it (rows made on it, facts read on it) in
// pages no thread would reuse: Q2 of the peer benchmark at N=100,000 took 321
// ms where it took 188 with the rows made on one thread, and 180 with them
// made on a thread kept for the process (tools/bench/HISTORY.md). So one
// worker, started on first use and kept for the process, serves every
// evaluation, each one's tasks in the order submitted.
#pragma once

#include <functional>
#include <future>
#include <memory>
#include <type_traits>
#include <utility>

namespace chipkg::query::internal {

class ReadAhead {
 public:
  ReadAhead() = default;
  ReadAhead(const ReadAhead&) = delete;
  ReadAhead& operator=(const ReadAhead&) = delete;
  // Waits for this one's task being run; its tasks not started are dropped
  // (their futures report a broken promise). Whatever tasks use must outlive this.
  ~ReadAhead();

  // Runs `task` after the tasks this one submitted before it (another
  // evaluation's may run in between). Unlike std::async's, the future does
  // not wait in its destructor.
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

  bool used_ = false;  // has submitted a task: the destructor has something to forget
};

}  // namespace chipkg::query::internal
