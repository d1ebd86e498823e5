#include "query/read_ahead.h"

namespace chipkg::query::internal {

ReadAhead::~ReadAhead() {
  {
    std::lock_guard lock(mu_);
    stopping_ = true;
    tasks_.clear();
  }
  wake_.notify_one();
  if (worker_.joinable()) worker_.join();
}

void ReadAhead::Enqueue(std::function<void()> run) {
  {
    std::lock_guard lock(mu_);
    tasks_.push_back(std::move(run));
    if (!worker_.joinable()) worker_ = std::thread([this] { Work(); });
  }
  wake_.notify_one();
}

void ReadAhead::Work() {
  for (;;) {
    std::function<void()> run;
    {
      std::unique_lock lock(mu_);
      wake_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
      if (stopping_) return;
      run = std::move(tasks_.front());
      tasks_.pop_front();
    }
    run();
  }
}

}  // namespace chipkg::query::internal
