#include "query/suggest.h"

#include "schema/schema.h"

#include <algorithm>
#include <cctype>
#include <set>
#include <utility>

namespace chipkg::query {
namespace {

constexpr size_t kMaxCompared = 256;

std::string Lower(const std::string& s) {
  std::string out = s.substr(0, kMaxCompared);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

size_t EditDistance(const std::string& a_in, const std::string& b_in) {
  const std::string a = Lower(a_in);
  const std::string b = Lower(b_in);
  const size_t n = a.size(), m = b.size();
  // Three rolling rows: the transposition step looks two rows back.
  std::vector<size_t> prev2(m + 1), prev(m + 1), cur(m + 1);
  for (size_t j = 0; j <= m; ++j) prev[j] = j;
  for (size_t i = 1; i <= n; ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= m; ++j) {
      const size_t cost = a[i - 1] == b[j - 1] ? 0 : 1;
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        cur[j] = std::min(cur[j], prev2[j - 2] + 1);
      }
    }
    std::swap(prev2, prev);
    std::swap(prev, cur);
  }
  return prev[m];
}

std::vector<std::string> NearestNames(const std::string& word, const std::vector<std::string>& candidates,
                                      size_t max_results) {
  const std::string w = Lower(word);
  const size_t limit = std::clamp<size_t>(w.size() / 3, 1, 3);
  std::vector<std::pair<size_t, size_t>> scored;  // (score, index)
  std::set<std::string> seen;
  for (size_t i = 0; i < candidates.size(); ++i) {
    const std::string c = Lower(candidates[i]);
    if (c.empty() || c == w || !seen.insert(c).second) continue;
    // The distance is at least the difference in length: a name far longer
    // or shorter is no near miss, and a large store has many names.
    const size_t gap = c.size() > w.size() ? c.size() - w.size() : w.size() - c.size();
    const size_t d = gap > limit ? gap : EditDistance(w, c);
    const bool contained = std::min(w.size(), c.size()) >= 3 &&
                           (c.find(w) != std::string::npos || w.find(c) != std::string::npos);
    if (d <= limit) {
      scored.emplace_back(d, i);
    } else if (contained) {
      scored.emplace_back(limit + 1, i);  // after every real near-miss
    }
  }
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (const auto& [score, index] : scored) {
    if (out.size() >= max_results) break;
    out.push_back(candidates[index]);
  }
  return out;
}

std::string DidYouMean(const std::string& word, const std::vector<std::string>& candidates) {
  const std::vector<std::string> near = NearestNames(word, candidates);
  if (near.empty()) return "";
  std::string out = " (did you mean ";
  for (size_t i = 0; i < near.size(); ++i) {
    if (i > 0) out += i + 1 == near.size() ? " or " : ", ";
    out += "'" + near[i] + "'";
  }
  return out + "?)";
}

std::string ThroughSynonym(const Schema& schema, const std::string& lower, const std::vector<std::string>& allowed) {
  if (std::find(allowed.begin(), allowed.end(), lower) != allowed.end()) return lower;
  for (const SynonymDef& s : schema.synonyms()) {
    if (s.word == lower && std::find(allowed.begin(), allowed.end(), s.target) != allowed.end()) return s.target;
  }
  return lower;
}

}  // namespace chipkg::query
