#include "query/read_ahead.h"

#include <unistd.h>

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace chipkg::query::internal {
namespace {

// The process's read-ahead thread and its queue of every evaluation's tasks.
class SharedWorker {
 public:
  void Enqueue(const void* owner, std::function<void()> run) {
    {
      std::lock_guard lock(mu_);
      tasks_.push_back(Task{owner, std::move(run)});
      if (!started_) {
        started_ = true;
        // Never joined: it waits for work until the process ends (the worker
        // is never destroyed, so the thread object is never destroyed joinable).
        thread_ = std::thread([this] { Work(); });
      }
    }
    wake_.notify_one();
  }

  // Drops `owner`'s tasks not started and waits for its task being run.
  void Forget(const void* owner) {
    std::unique_lock lock(mu_);
    std::erase_if(tasks_, [owner](const Task& t) { return t.owner == owner; });
    idle_.wait(lock, [&] { return running_ != owner; });
  }

 private:
  struct Task {
    const void* owner = nullptr;
    std::function<void()> run;
  };

  void Work() {
    for (;;) {
      Task task;
      {
        std::unique_lock lock(mu_);
        wake_.wait(lock, [this] { return !tasks_.empty(); });
        task = std::move(tasks_.front());
        tasks_.pop_front();
        running_ = task.owner;
      }
      task.run();  // a packaged task: what it throws goes to its future
      task.run = nullptr;
      {
        std::lock_guard lock(mu_);
        running_ = nullptr;
      }
      idle_.notify_all();
    }
  }

  std::mutex mu_;
  std::condition_variable wake_;  // a task was queued
  std::condition_variable idle_;  // a task finished
  std::deque<Task> tasks_;
  const void* running_ = nullptr;  // owner of the task being run
  bool started_ = false;
  std::thread thread_;
};

// Made on first use and never destroyed (see read_ahead.h). A child forked
// after the worker started has no such thread: it gets a worker of its own.
SharedWorker& Worker() {
  static std::mutex mu;
  static SharedWorker* worker = nullptr;
  static pid_t made_in = 0;
  std::lock_guard lock(mu);
  if (worker == nullptr || made_in != getpid()) {
    worker = new SharedWorker();
    made_in = getpid();
  }
  return *worker;
}

}  // namespace

ReadAhead::~ReadAhead() {
  if (used_) Worker().Forget(this);
}

void ReadAhead::Enqueue(std::function<void()> run) {
  used_ = true;
  Worker().Enqueue(this, std::move(run));
}

}  // namespace chipkg::query::internal
