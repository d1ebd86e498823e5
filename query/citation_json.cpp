#include "query/citation_json.h"

#include <ctime>

namespace chipkg::query {

std::string IsoTime(int64_t unix_seconds) {
  if (unix_seconds <= 0) return "unknown time";
  const std::time_t t = static_cast<std::time_t>(unix_seconds);
  std::tm tm{};
  if (gmtime_r(&t, &tm) == nullptr) return std::to_string(unix_seconds);
  char buf[40];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

nlohmann::json IsoTimeJson(int64_t unix_seconds) {
  if (unix_seconds <= 0) return nullptr;
  return IsoTime(unix_seconds);
}

std::string IsoTimeCsv(int64_t unix_seconds) { return unix_seconds <= 0 ? std::string() : IsoTime(unix_seconds); }

namespace {

const std::string& Or(const std::string* s) {
  static const std::string kEmpty;
  return s != nullptr ? *s : kEmpty;
}

}  // namespace

nlohmann::json CitationJson(const CitationJsonFields& c) {
  using nlohmann::json;
  json j{{"number", c.number},
         {"fact_id", c.fact_id},
         {"document", json{{"id", Or(c.document_id)},
                           {"title", Or(c.title)},
                           {"url", Or(c.url)},
                           {"site", Or(c.site)},
                           {"kind", Or(c.kind)}}}};
  json version{{"version", c.version}, {"fetched_at", IsoTimeJson(c.fetched_at)}};
  if (c.content_hash != nullptr && !c.content_hash->empty()) version["content_hash"] = *c.content_hash;
  if (c.document_as_of) version["as_of"] = c.document_as_of->ToString();
  j["version"] = std::move(version);
  if (c.valid_as_of) j["valid_as_of"] = c.valid_as_of->ToString();
  if (!c.passage) {
    j["excerpt_read"] = false;
    return j;
  }
  const CitationJsonFields::Passage& p = *c.passage;
  j["section"] = Or(p.section);
  j["excerpt"] = Or(p.excerpt);
  j["attribution"] = Or(p.attribution);
  j["cites"] = p.cited != nullptr ? json(*p.cited) : json::array();
  if (p.row >= 0) j["row"] = p.row;
  if (p.column != nullptr && !p.column->empty()) j["column"] = *p.column;
  if (p.formula != nullptr && !p.formula->empty()) j["formula"] = *p.formula;
  return j;
}

}  // namespace chipkg::query
