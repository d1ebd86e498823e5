// engine/flat_map.h: a few string keys mapped to strings, sorted, in place.
//
// What a claim's qualifiers are: none, or one or two words (format=fp16).
// As a std::map each was a heap node of its own, which every pass over
// claims (a conflicts pass makes 1.5 million) reached through a cache miss,
// allocated and freed. FlatStringMap keeps its pairs sorted by key in a
// SmallVector (the first in place) and offers the part of std::map's
// interface this codebase uses, with the same semantics: unique keys,
// iteration and comparison in key order, emplace keeps an existing value.
// Unlike std::map, inserting or erasing moves the pairs after it, so
// iterators and references do not survive a change.
#pragma once

#include <algorithm>
#include <compare>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>

#include "engine/small_vector.h"

namespace chipkg {

class FlatStringMap {
 public:
  using key_type = std::string;
  using mapped_type = std::string;
  using value_type = std::pair<std::string, std::string>;
  using size_type = size_t;
  using iterator = value_type*;
  using const_iterator = const value_type*;

  FlatStringMap() = default;
  FlatStringMap(std::initializer_list<value_type> init) { insert(init.begin(), init.end()); }
  template <typename It>
  FlatStringMap(It first, It last) {
    insert(first, last);
  }

  size_t size() const noexcept { return pairs_.size(); }
  bool empty() const noexcept { return pairs_.empty(); }
  iterator begin() noexcept { return pairs_.begin(); }
  iterator end() noexcept { return pairs_.end(); }
  const_iterator begin() const noexcept { return pairs_.begin(); }
  const_iterator end() const noexcept { return pairs_.end(); }
  void clear() noexcept { pairs_.clear(); }

  // The first pair whose key is not less than `key`.
  iterator lower_bound(std::string_view key) noexcept {
    return std::partition_point(begin(), end(), [key](const value_type& p) { return std::string_view(p.first) < key; });
  }
  const_iterator lower_bound(std::string_view key) const noexcept {
    return std::partition_point(begin(), end(), [key](const value_type& p) { return std::string_view(p.first) < key; });
  }
  iterator find(std::string_view key) noexcept {
    iterator it = lower_bound(key);
    return it != end() && it->first == key ? it : end();
  }
  const_iterator find(std::string_view key) const noexcept {
    const_iterator it = lower_bound(key);
    return it != end() && it->first == key ? it : end();
  }
  size_t count(std::string_view key) const noexcept { return find(key) != end() ? 1 : 0; }
  bool contains(std::string_view key) const noexcept { return find(key) != end(); }
  std::string& at(std::string_view key) {
    iterator it = find(key);
    if (it == end()) throw std::out_of_range("FlatStringMap::at: no key " + std::string(key));
    return it->second;
  }
  const std::string& at(std::string_view key) const {
    const_iterator it = find(key);
    if (it == end()) throw std::out_of_range("FlatStringMap::at: no key " + std::string(key));
    return it->second;
  }
  std::string& operator[](std::string_view key) { return try_emplace(key).first->second; }

  // Inserts (key, value) unless `key` is there; the pair with `key`, and whether it was inserted.
  template <typename K, typename... V>
  std::pair<iterator, bool> try_emplace(K&& key, V&&... value) {
    iterator it = lower_bound(key);
    if (it != end() && it->first == std::string_view(key)) return {it, false};
    it = pairs_.emplace(it, std::piecewise_construct, std::forward_as_tuple(std::forward<K>(key)),
                        std::forward_as_tuple(std::forward<V>(value)...));
    return {it, true};
  }
  // `hint`: where the pair likely goes; pairs arriving in key order go to the end without a search.
  template <typename K, typename V>
  iterator emplace_hint(const_iterator hint, K&& key, V&& value) {
    if (hint == end() && (empty() || std::string_view(pairs_.back().first) < std::string_view(key))) {
      return &pairs_.emplace_back(std::piecewise_construct, std::forward_as_tuple(std::forward<K>(key)),
                                  std::forward_as_tuple(std::forward<V>(value)));
    }
    return try_emplace(std::forward<K>(key), std::forward<V>(value)).first;
  }
  template <typename K, typename V>
  std::pair<iterator, bool> emplace(K&& key, V&& value) {
    return try_emplace(std::forward<K>(key), std::forward<V>(value));
  }
  std::pair<iterator, bool> insert(const value_type& pair) { return try_emplace(pair.first, pair.second); }
  std::pair<iterator, bool> insert(value_type&& pair) { return try_emplace(std::move(pair.first), std::move(pair.second)); }
  template <typename It>
  void insert(It first, It last) {
    for (; first != last; ++first) try_emplace(first->first, first->second);
  }
  template <typename K, typename V>
  std::pair<iterator, bool> insert_or_assign(K&& key, V&& value) {
    auto [it, inserted] = try_emplace(std::forward<K>(key), std::forward<V>(value));
    if (!inserted) it->second = std::forward<V>(value);
    return {it, inserted};
  }
  size_t erase(std::string_view key) {
    const_iterator it = find(key);
    if (it == end()) return 0;
    pairs_.erase(it);
    return 1;
  }
  iterator erase(const_iterator pos) { return pairs_.erase(pos); }

  friend bool operator==(const FlatStringMap& a, const FlatStringMap& b) { return a.pairs_ == b.pairs_; }
  friend std::strong_ordering operator<=>(const FlatStringMap& a, const FlatStringMap& b) {
    return a.pairs_ <=> b.pairs_;
  }

 private:
  SmallVector<value_type, 1> pairs_;
};

}  // namespace chipkg
