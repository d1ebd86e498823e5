// "Did you mean": nearest names by edit distance, for error messages about
// unknown attributes, entities, kinds and keywords.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace chipkg {
class Schema;
}

namespace chipkg::query {

// Optimal-string-alignment distance (insertions, deletions, substitutions and
// transpositions of neighbours), ignoring ASCII case. Inputs longer than 256
// bytes are compared on their first 256 bytes: names are short and a query
// must not make this quadratic in its own length.
size_t EditDistance(const std::string& a, const std::string& b);

// Up to `max_results` candidates close to `word`, nearest first (ties in the
// order given). "Close" is a distance of at most a third of the word's length
// (at least 1, at most 3), or a candidate that contains the word or is
// contained in it when the shorter one has 3+ characters. Duplicates are dropped.
std::vector<std::string> NearestNames(const std::string& word, const std::vector<std::string>& candidates,
                                      size_t max_results = 3);

// " (did you mean 'a' or 'b'?)" or "" when there is nothing close.
std::string DidYouMean(const std::string& word, const std::vector<std::string>& candidates);

// "bfloat16", "mxfp4": a word the schema lists as a synonym of one of
// `allowed` stands for it, as ingest reads the same word in a document
// ("459 teraflops of bfloat16" is stored as bf16). `lower` (lower case) is
// returned as it is otherwise.
std::string ThroughSynonym(const Schema& schema, const std::string& lower, const std::vector<std::string>& allowed);

}  // namespace chipkg::query
