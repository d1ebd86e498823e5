// The JSON of a citation and the way every output writes a time: one shape
// for `query` answers and for the fact-checker's commands (describe, trace,
// conflicts, history, verify, source), so that a script that follows a
// figure from an answer into its trace reads the same keys in both.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/fact.h"

namespace chipkg::query {

// A fetch or transaction time as every output prints it: ISO 8601 in UTC,
// "2026-12-04T19:06:17Z"; "unknown time" for 0 (a version the store does
// not hold).
std::string IsoTime(int64_t unix_seconds);
// The same for outputs scripts read, where a placeholder would pass for a
// time: JSON null and an empty CSV field when the time is unknown.
nlohmann::json IsoTimeJson(int64_t unix_seconds);
std::string IsoTimeCsv(int64_t unix_seconds);

// What a citation says, whichever command made it. Pointers are to fields
// the caller keeps alive for the call; null or empty ones are left out.
struct CitationJsonFields {
  int number = 0;
  uint64_t fact_id = 0;
  const std::string* document_id = nullptr;
  const std::string* title = nullptr;
  const std::string* url = nullptr;
  const std::string* site = nullptr;
  const std::string* kind = nullptr;
  uint32_t version = 0;
  int64_t fetched_at = 0;
  const std::string* content_hash = nullptr;  // only where the version record was read
  std::optional<Date> document_as_of;         // the version's own date
  std::optional<Date> valid_as_of;            // the claim's
  // Where in the document; null when it was not read (a query run without
  // excerpts), which the JSON says as "excerpt_read": false.
  struct Passage {
    const std::string* section = nullptr;
    const std::string* excerpt = nullptr;
    const std::string* attribution = nullptr;
    const std::vector<std::string>* cited = nullptr;
    int64_t row = -1;
    const std::string* column = nullptr;
    const std::string* formula = nullptr;
  };
  std::optional<Passage> passage;
};

// {"number", "fact_id", "document": {"id", "title", "url", "site", "kind"},
//  "version": {"version", "fetched_at", "content_hash", "as_of"},
//  "valid_as_of", "section", "excerpt", "attribution", "cites", "row",
//  "column", "formula"} (or "excerpt_read": false). Callers add what only
// they know (a query's "subject", "predicate", "claim"; a trace's "span",
// "rule", "derivation").
nlohmann::json CitationJson(const CitationJsonFields& c);

}  // namespace chipkg::query
