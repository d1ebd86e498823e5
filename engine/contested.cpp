#include "engine/contested.h"

namespace chipkg::internal {

bool SameStatedContent(const codec::CoreRecord& a, const codec::CoreRecord& b) {
  if (a.kind != b.kind || a.qualifiers != b.qualifiers) return false;
  switch (a.kind) {
    case ValueKind::kQuantity: return a.number == b.number && a.dimension == b.dimension;
    case ValueKind::kDate: return a.date == b.date;
    case ValueKind::kEntity: return a.entity == b.entity;
    case ValueKind::kText: return a.text == b.text;
    case ValueKind::kBool: return (a.number != 0) == (b.number != 0);
    case ValueKind::kNotPublished: return true;
  }
  return false;
}

Result<bool> RecordsDisagree(const std::vector<std::string_view>& cores) {
  if (cores.size() < 2) return false;
  codec::CoreRecord first, other;
  if (!codec::DecodeCore(cores[0], &first)) return Status::Corruption("a fact record cannot be decoded");
  for (size_t i = 1; i < cores.size(); ++i) {
    if (!codec::DecodeCore(cores[i], &other)) return Status::Corruption("a fact record cannot be decoded");
    if (!SameStatedContent(first, other)) return true;
  }
  return false;
}

ContestedSplitter::ContestedSplitter(OrderedSink* spo, OrderedSink* contested, StoredLookup stored)
    : spo_(spo), contested_(contested), stored_(std::move(stored)) {}

Status ContestedSplitter::Put(std::string_view key, std::string_view value) {
  CHIPKG_RETURN_IF_ERROR(spo_->Put(key, value));
  if (key.size() < 8) return Status::Corruption("an spo key of " + std::to_string(key.size()) + " bytes");
  if (size_ > 0 && PairOf(key) != pair_) CHIPKG_RETURN_IF_ERROR(DecidePair());
  if (size_ == 0) pair_.assign(PairOf(key));
  if (group_.size() == size_) group_.emplace_back();
  group_[size_].first.assign(key);
  group_[size_].second.assign(value);
  ++size_;
  return Status::OK();
}

Status ContestedSplitter::Finish() { return size_ > 0 ? DecidePair() : Status::OK(); }

Status ContestedSplitter::DecidePair() {
  const size_t n = size_;
  size_ = 0;
  bool already = false;
  stored_entries_.clear();
  if (stored_) CHIPKG_RETURN_IF_ERROR(stored_(pair_, &stored_entries_, &already));
  if (!already) {
    if (n + stored_entries_.size() < 2) return Status::OK();  // one fact cannot disagree
    std::vector<std::string_view> cores;
    cores.reserve(n + stored_entries_.size());
    for (const auto& [key, value] : stored_entries_) cores.push_back(value);
    for (size_t i = 0; i < n; ++i) cores.push_back(group_[i].second);
    Result<bool> disagree = RecordsDisagree(cores);
    if (!disagree.ok()) return disagree.status();
    if (!*disagree) return Status::OK();
    // Newly contested: the stored facts join it too.
    for (const auto& [key, value] : stored_entries_) CHIPKG_RETURN_IF_ERROR(contested_->Put(key, value));
  }
  for (size_t i = 0; i < n; ++i) CHIPKG_RETURN_IF_ERROR(contested_->Put(group_[i].first, group_[i].second));
  return Status::OK();
}

}  // namespace chipkg::internal
