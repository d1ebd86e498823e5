// engine/small_vector.h: a vector whose first N elements live inside it.
//
// For what is small almost always and made by the million: a claim's
// qualifiers (none, or one such as format=fp16) are read where the claim is,
// instead of in a heap block of their own that a pass over claims misses in
// the cache. SmallVector keeps up to N elements in place and moves to the
// heap only past them. It offers the part of std::vector's interface used
// here (contiguous, so iterators are pointers); unlike std::vector, moving it
// moves the elements one by one when they are held in place.
#pragma once

#include <algorithm>
#include <compare>
#include <cstddef>
#include <initializer_list>
#include <memory>
#include <new>
#include <stdexcept>
#include <type_traits>
#include <utility>

namespace chipkg {

template <typename T, size_t N>
class SmallVector {
  static_assert(N >= 1, "a SmallVector holds at least one element in place");

 public:
  using value_type = T;
  using size_type = size_t;
  using difference_type = std::ptrdiff_t;
  using reference = T&;
  using const_reference = const T&;
  using pointer = T*;
  using const_pointer = const T*;
  using iterator = T*;
  using const_iterator = const T*;

  SmallVector() noexcept {}  // user-provided: `place_` stays raw, and a const one may still be made
  SmallVector(std::initializer_list<T> init) {
    reserve(init.size());
    for (const T& v : init) push_back(v);
  }
  SmallVector(const SmallVector& other) {
    reserve(other.size_);
    try {
      std::uninitialized_copy(other.begin(), other.end(), data_);
    } catch (...) {
      Release();
      throw;
    }
    size_ = other.size_;
  }
  SmallVector(SmallVector&& other) noexcept(std::is_nothrow_move_constructible_v<T>) { TakeFrom(other); }
  SmallVector& operator=(const SmallVector& other) {
    if (this != &other) {
      SmallVector copy(other);
      clear();
      Release();
      TakeFrom(copy);
    }
    return *this;
  }
  SmallVector& operator=(SmallVector&& other) noexcept(std::is_nothrow_move_constructible_v<T>) {
    if (this != &other) {
      clear();
      Release();
      TakeFrom(other);
    }
    return *this;
  }
  ~SmallVector() {
    clear();
    Release();
  }

  size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  size_t capacity() const noexcept { return capacity_; }

  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  iterator begin() noexcept { return data_; }
  iterator end() noexcept { return data_ + size_; }
  const_iterator begin() const noexcept { return data_; }
  const_iterator end() const noexcept { return data_ + size_; }

  T& operator[](size_t i) noexcept { return data_[i]; }
  const T& operator[](size_t i) const noexcept { return data_[i]; }
  T& front() noexcept { return data_[0]; }
  const T& front() const noexcept { return data_[0]; }
  T& back() noexcept { return data_[size_ - 1]; }
  const T& back() const noexcept { return data_[size_ - 1]; }

  void reserve(size_t wanted) {
    if (wanted <= capacity_) return;
    T* fresh = static_cast<T*>(::operator new(wanted * sizeof(T), std::align_val_t(alignof(T))));
    // Moved when moving cannot throw, else copied, so a failure leaves this as it was.
    if constexpr (std::is_nothrow_move_constructible_v<T> || !std::is_copy_constructible_v<T>) {
      std::uninitialized_move(begin(), end(), fresh);
    } else {
      try {
        std::uninitialized_copy(begin(), end(), fresh);
      } catch (...) {
        ::operator delete(fresh, std::align_val_t(alignof(T)));
        throw;
      }
    }
    std::destroy(begin(), end());
    Release();
    data_ = fresh;
    capacity_ = wanted;
  }

  // Constructs an element before `pos`, moving those after it up one.
  template <typename... Args>
  iterator emplace(const_iterator pos, Args&&... args) {
    const size_t at = static_cast<size_t>(pos - data_);
    emplace_back(std::forward<Args>(args)...);
    std::rotate(data_ + at, data_ + size_ - 1, data_ + size_);
    return data_ + at;
  }
  template <typename... Args>
  T& emplace_back(Args&&... args) {
    if (size_ == capacity_) {
      // Built before the elements move: `args` may refer to one of them.
      T value(std::forward<Args>(args)...);
      reserve(2 * capacity_);
      ::new (static_cast<void*>(data_ + size_)) T(std::move(value));
    } else {
      ::new (static_cast<void*>(data_ + size_)) T(std::forward<Args>(args)...);
    }
    return data_[size_++];
  }
  void push_back(const T& value) { emplace_back(value); }
  void push_back(T&& value) { emplace_back(std::move(value)); }
  iterator erase(const_iterator pos) {
    const size_t at = static_cast<size_t>(pos - data_);
    std::move(data_ + at + 1, data_ + size_, data_ + at);
    std::destroy_at(data_ + --size_);
    return data_ + at;
  }

  void clear() noexcept {
    std::destroy(begin(), end());
    size_ = 0;
  }

  friend bool operator==(const SmallVector& a, const SmallVector& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }
  friend auto operator<=>(const SmallVector& a, const SmallVector& b) {
    return std::lexicographical_compare_three_way(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  bool InPlace() const noexcept { return data_ == Place(); }
  T* Place() noexcept { return std::launder(reinterpret_cast<T*>(place_)); }
  const T* Place() const noexcept { return std::launder(reinterpret_cast<const T*>(place_)); }
  // Gives back a heap buffer (elements already destroyed); back to the place.
  void Release() noexcept {
    if (!InPlace()) ::operator delete(data_, std::align_val_t(alignof(T)));
    data_ = Place();
    capacity_ = N;
  }
  // Takes `other`'s elements, leaving it empty (this is empty and in place).
  void TakeFrom(SmallVector& other) noexcept(std::is_nothrow_move_constructible_v<T>) {
    if (other.InPlace()) {
      std::uninitialized_move(other.begin(), other.end(), data_);
      size_ = other.size_;
      other.clear();
      return;
    }
    data_ = other.data_;
    size_ = other.size_;
    capacity_ = other.capacity_;
    other.data_ = other.Place();
    other.size_ = 0;
    other.capacity_ = N;
  }

  alignas(T) unsigned char place_[N * sizeof(T)];
  T* data_ = Place();
  size_t size_ = 0;
  size_t capacity_ = N;
};

}  // namespace chipkg
