// Importer of the peer-benchmark corpus (see bulk_import.h for what becomes what).
//
// Two passes over facts.jsonl: the first builds each source's document text from its excerpts
// (a fact's span must point into a text the store already has when the fact arrives), reading the
// file's two halves on two threads; the second turns lines into facts. In the second pass one thread parses and converts while the calling
// thread feeds the BulkWriter, so the two halves of the work use the two cores.
#include "ingest/bulk_import.h"

#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <deque>
#include <exception>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <thread>
#include <unordered_map>
#include <utility>

#include "engine/store.h"
#include "ingest/text_util.h"
#include "schema/schema.h"

namespace chipkg {
namespace {

// ---------------------------------------------------------------------------------------------
// A strict reader for the one shape both files have: one flat JSON object per line whose values
// are strings, numbers or null. Strings without escapes are returned as views into the line; a
// string with escapes is decoded into a per-field buffer. nlohmann::json parses the same lines
// about eight times slower (tools/bench/HISTORY.md, "Measured at midnight"), which matters at 4M
// lines.

struct JsonScalar {
  enum class Type : uint8_t { kAbsent, kNull, kNumber, kString, kBool };
  Type type = Type::kAbsent;
  std::string_view text;  // kString: decoded; kNumber: as written; kBool: "true"/"false"
  double number = 0;
};

class FlatObjectParser {
 public:
  // `keys` are the field names expected, each exactly once; values land in out[i] for keys[i].
  explicit FlatObjectParser(std::span<const std::string_view> keys) : keys_(keys), scratch_(keys.size()) {}

  // Parses one line. On failure returns false and sets `error` (what and at which column).
  bool Parse(std::string_view line, std::vector<JsonScalar>& out, std::string& error) {
    out.assign(keys_.size(), JsonScalar{});
    line_ = line;
    pos_ = 0;
    SkipSpace();
    if (!Consume('{')) return Fail("expected '{' at the start of the line", error);
    SkipSpace();
    if (Peek() == '}') {
      ++pos_;
    } else {
      for (size_t guess = 0;; ++guess) {
        SkipSpace();
        if (Peek() != '"') return Fail("expected a field name in double quotes", error);
        std::string_view key;
        if (!ParseString(key_scratch_, key, error)) return false;
        int index = IndexOf(key, guess);
        if (index < 0) return Fail("unexpected field \"" + std::string(key) + "\"", error);
        if (out[index].type != JsonScalar::Type::kAbsent) {
          return Fail("field \"" + std::string(key) + "\" appears twice", error);
        }
        SkipSpace();
        if (!Consume(':')) return Fail("expected ':' after the field name", error);
        SkipSpace();
        if (!ParseValue(scratch_[index], out[index], error)) return false;
        guess = static_cast<size_t>(index);
        SkipSpace();
        if (Consume(',')) continue;
        if (Consume('}')) break;
        return Fail("expected ',' or '}' after a value", error);
      }
    }
    SkipSpace();
    if (pos_ != line_.size()) return Fail("unexpected text after the object", error);
    for (size_t i = 0; i < keys_.size(); ++i) {
      if (out[i].type == JsonScalar::Type::kAbsent) {
        pos_ = line_.size();
        return Fail("missing field \"" + std::string(keys_[i]) + "\"", error);
      }
    }
    return true;
  }

 private:
  char Peek() const { return pos_ < line_.size() ? line_[pos_] : '\0'; }
  bool Consume(char c) {
    if (Peek() != c || pos_ >= line_.size()) return false;
    ++pos_;
    return true;
  }
  void SkipSpace() {
    while (pos_ < line_.size() &&
           (line_[pos_] == ' ' || line_[pos_] == '\t' || line_[pos_] == '\r' || line_[pos_] == '\n')) {
      ++pos_;
    }
  }
  bool Fail(const std::string& what, std::string& error) const {
    error = "column " + std::to_string(pos_ + 1) + ": " + what;
    return false;
  }
  // Files written by one program list the fields in one order, so the field after the previous
  // one is tried first.
  int IndexOf(std::string_view key, size_t guess) const {
    if (guess < keys_.size() && keys_[guess] == key) return static_cast<int>(guess);
    for (size_t i = 0; i < keys_.size(); ++i) {
      if (keys_[i] == key) return static_cast<int>(i);
    }
    return -1;
  }

  bool ParseValue(std::string& scratch, JsonScalar& v, std::string& error) {
    char c = Peek();
    if (c == '"') {
      v.type = JsonScalar::Type::kString;
      return ParseString(scratch, v.text, error);
    }
    if (c == '-' || (c >= '0' && c <= '9')) return ParseNumber(v, error);
    for (std::string_view word : {std::string_view("null"), std::string_view("true"), std::string_view("false")}) {
      if (line_.substr(pos_, word.size()) == word) {
        pos_ += word.size();
        v.type = word == "null" ? JsonScalar::Type::kNull : JsonScalar::Type::kBool;
        v.text = word;
        return true;
      }
    }
    if (c == '{' || c == '[') return Fail("nested objects and arrays are not part of this format", error);
    return Fail("expected a string, a number or null", error);
  }

  // JSON number grammar, checked here because std::from_chars accepts more ("inf", "1.").
  bool ParseNumber(JsonScalar& v, std::string& error) {
    size_t start = pos_;
    auto digits = [&] {
      size_t s = pos_;
      while (pos_ < line_.size() && line_[pos_] >= '0' && line_[pos_] <= '9') ++pos_;
      return pos_ - s;
    };
    if (Peek() == '-') ++pos_;
    if (Peek() == '0') {
      ++pos_;
    } else if (digits() == 0) {
      return Fail("malformed number", error);
    }
    if (Peek() == '.') {
      ++pos_;
      if (digits() == 0) return Fail("malformed number: no digits after '.'", error);
    }
    if (Peek() == 'e' || Peek() == 'E') {
      ++pos_;
      if (Peek() == '+' || Peek() == '-') ++pos_;
      if (digits() == 0) return Fail("malformed number: no digits in the exponent", error);
    }
    v.type = JsonScalar::Type::kNumber;
    v.text = line_.substr(start, pos_ - start);
    auto [end, ec] = std::from_chars(v.text.data(), v.text.data() + v.text.size(), v.number);
    if (ec != std::errc() || end != v.text.data() + v.text.size()) {
      pos_ = start;
      return Fail("number out of range: " + std::string(v.text), error);
    }
    return true;
  }

  static int HexValue(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  }
  bool ParseHex4(uint32_t& cp, std::string& error) {
    if (pos_ + 4 > line_.size()) return Fail("truncated \\u escape", error);
    cp = 0;
    for (int i = 0; i < 4; ++i) {
      int h = HexValue(line_[pos_ + i]);
      if (h < 0) return Fail("bad hex digit in \\u escape", error);
      cp = cp * 16 + static_cast<uint32_t>(h);
    }
    pos_ += 4;
    return true;
  }
  // From `pos`, skips eight bytes at a time to the first byte that is '"', '\\' or a control
  // character (strings are most of every line), or to fewer than eight bytes before the end.
  static size_t SkipPlain(std::string_view s, size_t pos) {
    if constexpr (std::endian::native != std::endian::little) return pos;  // the byte loop does it all
    constexpr uint64_t kOnes = 0x0101010101010101ull, kHigh = 0x8080808080808080ull;
    while (pos + 8 <= s.size()) {
      uint64_t x;
      std::memcpy(&x, s.data() + pos, 8);
      const uint64_t quote = x ^ (kOnes * '"'), backslash = x ^ (kOnes * '\\');
      // High bit set for a byte that is zero in `quote` or `backslash`, or below 0x20 in `x`.
      // A borrow can flag bytes after a true hit, never before one, so the lowest flag is exact.
      const uint64_t hit =
          (((quote - kOnes) & ~quote) | ((backslash - kOnes) & ~backslash) | ((x - kOnes * 0x20) & ~x)) & kHigh;
      if (hit != 0) return pos + static_cast<size_t>(std::countr_zero(hit) / 8);
      pos += 8;
    }
    return pos;
  }

  // At the opening quote. `out` views the line when there is no escape, else `scratch`.
  bool ParseString(std::string& scratch, std::string_view& out, std::string& error) {
    ++pos_;
    size_t start = pos_;
    for (;;) {
      pos_ = SkipPlain(line_, pos_);
      if (pos_ >= line_.size()) break;
      unsigned char c = static_cast<unsigned char>(line_[pos_]);
      if (c == '"') {
        out = line_.substr(start, pos_ - start);
        ++pos_;
        return true;
      }
      if (c == '\\') break;
      if (c < 0x20) return Fail("control character inside a string", error);
      ++pos_;
    }
    if (pos_ >= line_.size()) return Fail("unterminated string", error);
    scratch.assign(line_.data() + start, pos_ - start);
    while (pos_ < line_.size()) {
      unsigned char c = static_cast<unsigned char>(line_[pos_]);
      if (c == '"') {
        ++pos_;
        out = scratch;
        return true;
      }
      if (c < 0x20) return Fail("control character inside a string", error);
      if (c != '\\') {
        scratch += static_cast<char>(c);
        ++pos_;
        continue;
      }
      ++pos_;
      char e = Peek();
      ++pos_;
      switch (e) {
        case '"': scratch += '"'; break;
        case '\\': scratch += '\\'; break;
        case '/': scratch += '/'; break;
        case 'b': scratch += '\b'; break;
        case 'f': scratch += '\f'; break;
        case 'n': scratch += '\n'; break;
        case 'r': scratch += '\r'; break;
        case 't': scratch += '\t'; break;
        case 'u': {
          uint32_t cp = 0;
          if (!ParseHex4(cp, error)) return false;
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            uint32_t low = 0;
            if (line_.substr(pos_, 2) != "\\u") return Fail("high surrogate without its low half", error);
            pos_ += 2;
            if (!ParseHex4(low, error)) return false;
            if (low < 0xDC00 || low > 0xDFFF) return Fail("high surrogate without its low half", error);
            cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            return Fail("low surrogate without its high half", error);
          }
          ingest_internal::AppendUtf8(scratch, cp);
          break;
        }
        default:
          --pos_;
          return Fail("unknown escape in a string", error);
      }
    }
    return Fail("unterminated string", error);
  }

  std::span<const std::string_view> keys_;
  std::vector<std::string> scratch_;
  std::string key_scratch_;
  std::string_view line_;
  size_t pos_ = 0;
};

// Calls fn(line_number, line) for every non-blank line of `path` that starts in the byte range
// [begin, end), reading in large blocks (no mmap: mapped pages would count as the process's
// resident memory). `begin` must be the start of a line; line numbers count from it.
Status ForEachLine(const std::string& path, uint64_t* bytes_read,
                   const std::function<Status(size_t, std::string_view)>& fn, uint64_t range_begin = 0,
                   uint64_t range_end = UINT64_MAX) {
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (f == nullptr) return Status::IOError("cannot open " + path + ": " + std::strerror(errno));
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> closer(f, &std::fclose);
  if (range_begin > 0 && ::fseeko(f, static_cast<off_t>(range_begin), SEEK_SET) != 0) {
    return Status::IOError("cannot seek in " + path + ": " + std::strerror(errno));
  }
  uint64_t offset = range_begin;  // of buf[0] in the file
  uint64_t read_total = 0;         // may run past range_end: only the range counts as read
  constexpr size_t kBlock = 4 << 20;
  std::string buf;
  buf.resize(kBlock);
  size_t have = 0;  // bytes of buf holding data
  size_t line_no = 0;
  bool eof = false;
  while (!eof || have > 0) {
    if (offset >= range_end) break;
    if (!eof) {
      if (buf.size() - have < kBlock / 2) buf.resize(std::max(buf.size() * 2, have + kBlock));
      size_t n = std::fread(buf.data() + have, 1, buf.size() - have, f);
      if (n == 0) {
        if (std::ferror(f)) return Status::IOError("cannot read " + path + ": " + std::strerror(errno));
        eof = true;
      }
      have += n;
      read_total += n;
    }
    size_t start = 0;
    for (;;) {
      if (offset + start >= range_end) {
        eof = true;  // the rest belongs to the next range
        start = have;
        break;
      }
      const void* nl = std::memchr(buf.data() + start, '\n', have - start);
      if (nl == nullptr) break;
      size_t end = static_cast<const char*>(nl) - buf.data();
      ++line_no;
      std::string_view line(buf.data() + start, end - start);
      if (line.find_first_not_of(" \t\r") != std::string_view::npos) CHIPKG_RETURN_IF_ERROR(fn(line_no, line));
      start = end + 1;
    }
    if (eof && start < have) {  // a last line without a newline
      ++line_no;
      std::string_view line(buf.data() + start, have - start);
      if (line.find_first_not_of(" \t\r") != std::string_view::npos) CHIPKG_RETURN_IF_ERROR(fn(line_no, line));
      start = have;
    }
    std::memmove(buf.data(), buf.data() + start, have - start);
    have -= start;
    offset += start;
    if (eof) break;
  }
  if (bytes_read != nullptr) *bytes_read += std::min(read_total, range_end - range_begin);
  return Status::OK();
}

constexpr std::array<std::string_view, 8> kFactKeys = {"subject", "predicate", "value", "unit",
                                                       "source",  "excerpt",   "as_of", "status"};
enum FactField { kSubject, kPredicate, kValue, kUnit, kSource, kExcerpt, kAsOf, kStatus };
constexpr std::array<std::string_view, 7> kSourceKeys = {"source", "kind",  "url",      "publisher",
                                                         "title",  "as_of", "retrieved"};

Status ReadFactsImpl(const std::string& path, uint64_t* bytes_read,
                     const std::function<Status(const GeneratedFactRecord&)>& fn, uint64_t begin = 0,
                     uint64_t end = UINT64_MAX) {
  FlatObjectParser parser(kFactKeys);
  std::vector<JsonScalar> v;
  std::string error;
  GeneratedFactRecord rec;
  return ForEachLine(path, bytes_read, [&](size_t line_no, std::string_view line) -> Status {
    auto where = [&] { return path + ":" + std::to_string(line_no); };
    if (!parser.Parse(line, v, error)) return Status::InvalidArgument(where() + ": " + error);
    auto str = [&](FactField f, bool nullable, std::string_view& out) -> Status {
      if (v[f].type == JsonScalar::Type::kString) {
        out = v[f].text;
        return Status::OK();
      }
      if (nullable && v[f].type == JsonScalar::Type::kNull) {
        out = {};
        return Status::OK();
      }
      return Status::InvalidArgument(where() + ": field \"" + std::string(kFactKeys[f]) + "\" must be a string" +
                                     (nullable ? " or null" : ""));
    };
    rec.line = line_no;
    CHIPKG_RETURN_IF_ERROR(str(kSubject, false, rec.subject));
    CHIPKG_RETURN_IF_ERROR(str(kPredicate, false, rec.predicate));
    CHIPKG_RETURN_IF_ERROR(str(kUnit, true, rec.unit));
    CHIPKG_RETURN_IF_ERROR(str(kSource, false, rec.source));
    CHIPKG_RETURN_IF_ERROR(str(kExcerpt, false, rec.excerpt));
    CHIPKG_RETURN_IF_ERROR(str(kAsOf, false, rec.as_of));
    CHIPKG_RETURN_IF_ERROR(str(kStatus, false, rec.status));
    switch (v[kValue].type) {
      case JsonScalar::Type::kNull:
        rec.value_type = GeneratedFactRecord::ValueType::kNull;
        rec.value_text = {};
        break;
      case JsonScalar::Type::kNumber:
        rec.value_type = GeneratedFactRecord::ValueType::kNumber;
        rec.number = v[kValue].number;
        rec.value_text = v[kValue].text;
        break;
      case JsonScalar::Type::kString:
        rec.value_type = GeneratedFactRecord::ValueType::kString;
        rec.value_text = v[kValue].text;
        break;
      default:
        return Status::InvalidArgument(where() + ": field \"value\" must be a number, a string or null");
    }
    Status s = fn(rec);
    if (!s.ok()) return s.WithContext(where());
    return Status::OK();
  }, begin, end);
}

// ---------------------------------------------------------------------------------------------
// Conversions.

// Heterogeneous lookup so a string_view from the parser finds a std::string key without a copy.
struct StringHash {
  using is_transparent = void;
  size_t operator()(std::string_view s) const { return std::hash<std::string_view>()(s); }
};
template <typename V>
using StringMap = std::unordered_map<std::string, V, StringHash, std::equal_to<>>;

// "https://intel.example/datasheets/x.pdf" -> "intel.example".
std::string HostOf(const std::string& url) {
  size_t scheme = url.find("://");
  size_t start = scheme == std::string::npos ? 0 : scheme + 3;
  size_t end = url.find_first_of("/?#", start);
  std::string host = url.substr(start, end == std::string::npos ? std::string::npos : end - start);
  size_t at = host.rfind('@');
  if (at != std::string::npos) host = host.substr(at + 1);
  size_t colon = host.rfind(':');
  if (colon != std::string::npos && host.find(']') == std::string::npos) host = host.substr(0, colon);
  return host;
}

// "2018-09-02T04:56:01Z" -> Unix seconds; nullopt unless exactly that shape.
std::optional<int64_t> ParseUtcTimestamp(const std::string& s) {
  if (s.size() != 20 || s[4] != '-' || s[7] != '-' || s[10] != 'T' || s[13] != ':' || s[16] != ':' ||
      s[19] != 'Z') {
    return std::nullopt;
  }
  auto num = [&](size_t pos, size_t len, int& out) {
    auto [end, ec] = std::from_chars(s.data() + pos, s.data() + pos + len, out);
    return ec == std::errc() && end == s.data() + pos + len;
  };
  int hh = 0, mm = 0, ss = 0;
  std::optional<Date> day = Date::Parse(s.substr(0, 10));
  if (!day || day->precision != DatePrecision::kDay || !num(11, 2, hh) || !num(14, 2, mm) || !num(17, 2, ss) ||
      hh > 23 || mm > 59 || ss > 60) {
    return std::nullopt;
  }
  return static_cast<int64_t>(day->FirstDay()) * 86400 + hh * 3600 + mm * 60 + ss;
}

// "Mistral AI" -> "mistral-ai": the slug of an entity id made for a name no schema entity has.
std::string Slug(std::string_view name) {
  std::string out;
  bool dash = false;
  for (char ch : name) {
    unsigned char c = static_cast<unsigned char>(ch);
    if (std::isalnum(c) != 0 || c >= 0x80) {
      if (dash && !out.empty()) out += '-';
      out += static_cast<char>(c < 0x80 ? std::tolower(c) : c);
      dash = false;
    } else {
      dash = true;
    }
  }
  return out;
}

// The generator writes subjects "chip:..." and "model:..."; chipkg's kinds are chip and llm.
Result<std::string> KindOfSubject(std::string_view subject, const Schema& schema) {
  size_t colon = subject.find(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == subject.size()) {
    return Status::InvalidArgument("subject \"" + std::string(subject) + "\" is not of the form KIND:ID");
  }
  std::string prefix(subject.substr(0, colon));
  if (prefix == "model") prefix = "llm";
  const auto& kinds = schema.entity_kinds();
  if (std::find(kinds.begin(), kinds.end(), prefix) == kinds.end()) {
    return Status::InvalidArgument("subject \"" + std::string(subject) + "\": no entity kind \"" + prefix +
                                   "\" in the schema");
  }
  return prefix;
}

struct SourceInfo {
  GeneratedSourceRecord rec;
  std::string text;        // first pass: the excerpts; moved into the document version after it
  uint64_t text_size = 0;
  uint32_t cursor = 0;     // second pass: where the next excerpt starts
};

// Everything the second pass learns besides facts: entities to add at the end.
struct EntityBook {
  StringMap<std::string> subject_names;  // subject -> first stated name ("" if none)
  std::vector<std::string> subject_order;
  StringMap<std::string> org_ids;        // name as written -> entity id
  std::vector<Entity> orgs;              // in first-seen order
};

class FactConverter {
 public:
  FactConverter(const Schema& schema, const std::vector<GeneratedPredicate>& preds, StringMap<uint32_t>& source_index,
                std::vector<SourceInfo>& sources, EntityBook& book)
      : schema_(schema), preds_(preds), source_index_(source_index), sources_(sources), book_(book) {
    for (size_t i = 0; i < preds_.size(); ++i) pred_index_.emplace(preds_[i].name, i);
  }

  // Fills `fact`, which must be freshly constructed (it is not cleared: that would cost a
  // second construction per fact).
  Status Convert(const GeneratedFactRecord& r, Fact& fact) {
    auto pit = pred_index_.find(r.predicate);
    if (pit == pred_index_.end()) {
      return Status::InvalidArgument("predicate \"" + std::string(r.predicate) +
                                     "\" has no `column peer-bench` line in the schema");
    }
    const GeneratedPredicate& gp = preds_[pit->second];
    auto sit = source_index_.find(r.source);
    if (sit == source_index_.end()) {
      return Status::InvalidArgument("source \"" + std::string(r.source) + "\" is not in sources.jsonl");
    }
    SourceInfo& src = sources_[sit->second];

    fact.subject.assign(r.subject);
    fact.predicate = gp.def->name;
    fact.qualifiers = gp.qualifiers;
    if (r.status == "not_published") {
      if (r.value_type != GeneratedFactRecord::ValueType::kNull) {
        return Status::InvalidArgument("status not_published with a value");
      }
      fact.value = Value::NotPublished("not published");
    } else if (r.status == "stated") {
      auto v = ConvertValue(r, gp);
      if (!v.ok()) return v.status();
      fact.value = std::move(v).value();
    } else {
      return Status::InvalidArgument("status \"" + std::string(r.status) + "\" is neither stated nor not_published");
    }
    auto as_of = Date::Parse(std::string(r.as_of));
    if (!as_of) return Status::InvalidArgument("as_of \"" + std::string(r.as_of) + "\" is not an ISO date");
    fact.valid_as_of = as_of;

    Provenance& p = fact.provenance;
    p.document_id = src.rec.source;
    p.document_version = 1;
    p.span_begin = src.cursor;
    p.span_end = src.cursor + static_cast<uint32_t>(r.excerpt.size());
    if (p.span_end > src.text_size) {
      return Status::Aborted("facts.jsonl changed between the two passes (excerpt of " + src.rec.source + ")");
    }
    src.cursor = p.span_end + 1;
    p.excerpt.assign(r.excerpt);
    p.rule = "bench-import";
    p.rule_version = "1";

    auto [it, inserted] = book_.subject_names.try_emplace(fact.subject);
    if (inserted) {
      auto kind = KindOfSubject(fact.subject, schema_);
      if (!kind.ok()) return kind.status();
      book_.subject_order.push_back(fact.subject);
    }
    if (r.predicate == "name" && it->second.empty() && fact.value.kind == ValueKind::kText) {
      it->second = fact.value.text;
    }
    return Status::OK();
  }

 private:
  Result<Value> ConvertValue(const GeneratedFactRecord& r, const GeneratedPredicate& gp) {
    using VT = GeneratedFactRecord::ValueType;
    const PredicateDef& def = *gp.def;
    switch (def.type) {
      case ValueKind::kQuantity: {
        if (r.value_type != VT::kNumber) return Status::InvalidArgument("a number is expected for " + gp.name);
        std::string unit(r.unit.empty() ? std::string_view(gp.unit) : r.unit);
        double factor = 1;
        if (unit.empty()) {
          const DimensionDef* dim = schema_.FindDimension(def.dimension);
          if (dim == nullptr || dim->canonical_unit != "1") {
            return Status::InvalidArgument(gp.name + " needs a unit (dimension " + def.dimension + ")");
          }
        } else {
          const UnitDef* u = UnitOf(unit, def.dimension);
          if (u == nullptr) {
            return Status::InvalidArgument("unit \"" + unit + "\" is not a unit of " + def.dimension + " (predicate " +
                                           def.name + ") in the schema");
          }
          factor = u->factor;
        }
        std::string original(r.value_text);
        if (!unit.empty()) original += " " + unit;
        return Value::Quantity(r.number * factor, def.dimension, std::move(original));
      }
      case ValueKind::kDate: {
        if (r.value_type != VT::kString) return Status::InvalidArgument("a date string is expected for " + gp.name);
        std::string text(r.value_text);
        auto d = Date::Parse(text);
        if (!d) return Status::InvalidArgument("\"" + text + "\" is not an ISO date (" + gp.name + ")");
        return Value::OfDate(*d, std::move(text));
      }
      case ValueKind::kText:
        if (r.value_type != VT::kString) return Status::InvalidArgument("a string is expected for " + gp.name);
        return Value::Text(std::string(r.value_text));
      case ValueKind::kEntity: {
        if (r.value_type != VT::kString || r.value_text.empty()) {
          return Status::InvalidArgument("a name is expected for " + gp.name);
        }
        std::string name(r.value_text);
        return Value::Entity(EntityIdFor(name, def.object_kind), name);
      }
      default:
        return Status::InvalidArgument("predicate " + def.name + " is of type " + ValueKindName(def.type) +
                                       ", which the corpus importer does not read");
    }
  }

  const UnitDef* UnitOf(const std::string& spelling, const std::string& dimension) {
    auto key = spelling + '\x1f' + dimension;
    auto it = unit_cache_.find(key);
    if (it != unit_cache_.end()) return it->second;
    const UnitDef* u = schema_.FindUnit(spelling, dimension);
    unit_cache_.emplace(std::move(key), u);
    return u;
  }

  // A name the schema knows (as entity name or alias, of the right kind) takes its id; any other
  // name gets "<prefix>:<slug>" (org: for organisations, as in entities.schema).
  std::string EntityIdFor(const std::string& name, const std::string& kind) {
    std::string key = kind + '\x1f' + name;
    auto it = book_.org_ids.find(key);
    if (it != book_.org_ids.end()) return it->second;
    Entity e;
    const EntityDef* known = schema_.ResolveEntity(name);
    if (known != nullptr && (kind.empty() || known->kind == kind)) {
      e.id = known->id;
      e.kind = known->kind;
      e.name = known->name;
      e.aliases = known->aliases;
    } else {
      e.id = (kind == "organization" ? std::string("org") : kind.empty() ? std::string("entity") : kind) + ":" +
             Slug(name);
      e.kind = kind.empty() ? "organization" : kind;
      e.name = name;
    }
    book_.org_ids.emplace(std::move(key), e.id);
    std::string id = e.id;
    if (std::none_of(book_.orgs.begin(), book_.orgs.end(), [&](const Entity& x) { return x.id == id; })) {
      book_.orgs.push_back(std::move(e));
    }
    return id;
  }

  const Schema& schema_;
  const std::vector<GeneratedPredicate>& preds_;
  StringMap<size_t> pred_index_;
  StringMap<uint32_t>& source_index_;
  std::vector<SourceInfo>& sources_;
  EntityBook& book_;
  StringMap<const UnitDef*> unit_cache_;
};

// A bounded hand-off of fact batches from the parsing thread to the writing thread.
class BatchQueue {
 public:
  explicit BatchQueue(size_t capacity) : capacity_(capacity) {}
  // False if the consumer gave up.
  bool Push(std::vector<Fact> batch) {
    std::unique_lock lock(mu_);
    not_full_.wait(lock, [&] { return queue_.size() < capacity_ || cancelled_; });
    if (cancelled_) return false;
    queue_.push_back(std::move(batch));
    not_empty_.notify_one();
    return true;
  }
  // nullopt once the producer closed the queue and it is drained.
  std::optional<std::vector<Fact>> Pop() {
    std::unique_lock lock(mu_);
    not_empty_.wait(lock, [&] { return !queue_.empty() || closed_; });
    if (queue_.empty()) return std::nullopt;
    std::vector<Fact> b = std::move(queue_.front());
    queue_.pop_front();
    not_full_.notify_one();
    return b;
  }
  void Close() {
    std::lock_guard lock(mu_);
    closed_ = true;
    not_empty_.notify_all();
  }
  void Cancel() {
    std::lock_guard lock(mu_);
    cancelled_ = true;
    not_full_.notify_all();
  }

 private:
  std::mutex mu_;
  std::condition_variable not_full_, not_empty_;
  std::deque<std::vector<Fact>> queue_;
  size_t capacity_;
  bool closed_ = false;
  bool cancelled_ = false;
};

// Appends every fact's excerpt (and a newline) to its source's text, in file order, reading the
// lines [begin, end) of facts.jsonl.
Status AppendExcerpts(const std::string& path, const StringMap<uint32_t>& source_index,
                      std::vector<std::string>& texts, uint64_t* bytes_read, uint64_t begin, uint64_t end) {
  return ReadFactsImpl(path, bytes_read, [&](const GeneratedFactRecord& r) -> Status {
    auto it = source_index.find(r.source);
    if (it == source_index.end()) {
      return Status::InvalidArgument("source \"" + std::string(r.source) + "\" is not in sources.jsonl");
    }
    std::string& text = texts[it->second];
    if (text.size() + r.excerpt.size() + 1 > UINT32_MAX) {
      return Status::InvalidArgument("the excerpts of " + std::string(r.source) + " exceed 4 GiB");
    }
    text.append(r.excerpt);
    text += '\n';
    return Status::OK();
  }, begin, end);
}

// The first pass: each source's text from its excerpts. The file is read as two halves on two
// threads (it is a quarter of the import when read on one), each building its own texts, joined
// in file order. If either half fails, the file is read again on one thread so that the error
// names the right line.
Status ReadSourceTexts(const std::string& path, const StringMap<uint32_t>& source_index,
                       std::vector<SourceInfo>& sources, uint64_t split_from, uint64_t* bytes_read,
                       int* threads_used) {
  std::error_code ec;
  const uint64_t size = std::filesystem::file_size(path, ec);
  uint64_t middle = 0;  // start of the second half: the line after the middle byte
  if (!ec && size >= split_from) {
    std::ifstream in(path, std::ios::binary);
    in.seekg(static_cast<std::streamoff>(size / 2));
    std::string rest;
    if (in && std::getline(in, rest)) middle = size / 2 + rest.size() + 1;
    if (middle >= size) middle = 0;
  }
  auto sequential = [&] {
    *threads_used = 1;
    std::vector<std::string> texts(sources.size());
    uint64_t read = 0;
    Status st = AppendExcerpts(path, source_index, texts, &read, 0, UINT64_MAX);
    for (size_t i = 0; i < sources.size(); ++i) {
      sources[i].text = std::move(texts[i]);
      sources[i].text.shrink_to_fit();  // as below
    }
    *bytes_read += read;
    return st;
  };
  if (middle == 0) return sequential();

  *threads_used = 2;
  std::vector<std::string> first(sources.size()), second(sources.size());
  uint64_t first_read = 0, second_read = 0;
  Status first_status, second_status;
  auto read_half = [&](std::vector<std::string>& texts, uint64_t* read, uint64_t begin, uint64_t end) {
    try {
      return AppendExcerpts(path, source_index, texts, read, begin, end);
    } catch (const std::exception& e) {
      return Status::Aborted(std::string("reading facts: ") + e.what());
    }
  };
  std::thread reader([&] { second_status = read_half(second, &second_read, middle, UINT64_MAX); });
  first_status = read_half(first, &first_read, 0, middle);
  reader.join();
  // The first half counts its lines from the file's start: its error is the file's first.
  if (!first_status.ok()) return first_status;
  bool fits = true;
  for (size_t i = 0; i < sources.size() && fits; ++i) fits = first[i].size() + second[i].size() <= UINT32_MAX;
  if (!second_status.ok() || !fits) {
    // Read again on one thread, so that the error names its line as it always has.
    std::vector<std::string>().swap(first);
    std::vector<std::string>().swap(second);
    return sequential();
  }
  *bytes_read += first_read + second_read;
  // Each text exactly as long as it is: the halves grew by doubling, and the
  // bulk writer keeps up to 192 MiB of these texts for the whole load.
  for (size_t i = 0; i < sources.size(); ++i) {
    std::string& text = sources[i].text;
    text.reserve(first[i].size() + second[i].size());
    text.append(first[i]);
    text.append(second[i]);
    std::string().swap(first[i]);
    std::string().swap(second[i]);
  }
  return Status::OK();
}

double SecondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

Result<BulkImportStats> ImportImpl(Store& store, const Schema& schema, const std::string& dir,
                                   const BulkImportOptions& options) {
  const auto t0 = std::chrono::steady_clock::now();
  BulkImportStats stats;
  const std::string sources_path = dir + "/sources.jsonl";
  const std::string facts_path = dir + "/facts.jsonl";

  auto preds = GeneratedCorpusPredicates(schema);
  if (!preds.ok()) return preds.status();

  // First pass: sources, then every source's text from its excerpts.
  auto recs = ReadGeneratedSources(sources_path);
  if (!recs.ok()) return recs.status();
  std::vector<SourceInfo> sources;
  sources.reserve(recs->size());
  StringMap<uint32_t> source_index;
  for (auto& r : *recs) {
    std::string where = sources_path + ":" + std::to_string(r.line);
    if (!Date::Parse(r.as_of)) return Status::InvalidArgument(where + ": as_of \"" + r.as_of + "\" is not an ISO date");
    if (!ParseUtcTimestamp(r.retrieved)) {
      return Status::InvalidArgument(where + ": retrieved \"" + r.retrieved + "\" is not YYYY-MM-DDTHH:MM:SSZ");
    }
    if (!source_index.emplace(r.source, static_cast<uint32_t>(sources.size())).second) {
      return Status::InvalidArgument(where + ": source \"" + r.source + "\" listed twice");
    }
    sources.push_back(SourceInfo{std::move(r), {}, 0, 0});
  }
  recs->clear();
  CHIPKG_RETURN_IF_ERROR(ReadSourceTexts(facts_path, source_index, sources, options.split_first_pass_from,
                                         &stats.bytes_read, &stats.first_pass_threads));

  auto bulk_or = store.StartBulk();
  if (!bulk_or.ok()) return bulk_or.status().WithContext("starting the bulk load");
  std::unique_ptr<BulkWriter> bulk = std::move(bulk_or).value();
  for (auto& s : sources) {
    Document doc;
    doc.id = s.rec.source;
    doc.url = s.rec.url;
    doc.title = s.rec.publisher + ": " + s.rec.title;
    doc.site = HostOf(s.rec.url);
    doc.kind = s.rec.kind;
    DocumentVersion v;
    v.document_id = doc.id;
    v.version = 1;
    v.fetched_at = *ParseUtcTimestamp(s.rec.retrieved);
    v.as_of = Date::Parse(s.rec.as_of);
    v.content_type = "text/plain";
    // content_hash: the bulk writer hashes the text itself.
    s.text_size = s.text.size();
    v.text = std::move(s.text);  // the second pass needs only the size
    Status st = bulk->AddDocumentVersion(doc, std::move(v));
    if (!st.ok()) return st.WithContext("document " + doc.id);
    ++stats.documents;
  }
  stats.first_pass_seconds = SecondsSince(t0);

  // Second pass: facts.
  EntityBook book;
  FactConverter converter(schema, *preds, source_index, sources, book);
  auto count = [&](const Fact& f) {
    ++stats.facts;
    if (f.value.kind == ValueKind::kNotPublished) ++stats.not_published;
  };
  if (options.pipeline) {
    BatchQueue queue(8);
    Status produce_status;
    std::thread producer([&] {
      try {
        constexpr size_t kBatch = 4096;
        std::vector<Fact> batch;
        batch.reserve(kBatch);
        produce_status = ReadFactsImpl(facts_path, &stats.bytes_read, [&](const GeneratedFactRecord& r) -> Status {
          CHIPKG_RETURN_IF_ERROR(converter.Convert(r, batch.emplace_back()));
          if (batch.size() == kBatch) {
            if (!queue.Push(std::move(batch))) return Status::Aborted("the writer stopped");
            batch.clear();
            batch.reserve(kBatch);
          }
          return Status::OK();
        });
        if (produce_status.ok() && !batch.empty()) queue.Push(std::move(batch));
      } catch (const std::exception& e) {
        produce_status = Status::Aborted(std::string("reading facts: ") + e.what());
      }
      queue.Close();
    });
    Status write_status;
    while (auto batch = queue.Pop()) {
      if (!write_status.ok()) continue;  // drain so the producer can finish
      for (Fact& f : *batch) {
        count(f);
        write_status = bulk->AddFact(std::move(f));
        if (!write_status.ok()) {
          write_status = write_status.WithContext("fact " + std::to_string(stats.facts));
          queue.Cancel();
          break;
        }
      }
    }
    producer.join();
    if (!produce_status.ok() && !(produce_status.code() == Status::Code::kAborted && !write_status.ok())) {
      return produce_status;
    }
    CHIPKG_RETURN_IF_ERROR(write_status);
  } else {
    CHIPKG_RETURN_IF_ERROR(ReadFactsImpl(facts_path, &stats.bytes_read, [&](const GeneratedFactRecord& r) -> Status {
      Fact fact;
      CHIPKG_RETURN_IF_ERROR(converter.Convert(r, fact));
      count(fact);
      return bulk->AddFact(std::move(fact));
    }));
  }
  for (auto& s : sources) {
    if (s.cursor != s.text_size) {
      return Status::Aborted("facts.jsonl changed between the two passes (text of " + s.rec.source + ")");
    }
  }

  for (const std::string& subject : book.subject_order) {
    Entity e;
    e.id = subject;
    e.kind = *KindOfSubject(subject, schema);
    const std::string& name = book.subject_names.find(subject)->second;
    e.name = name.empty() ? subject : name;
    Status st = bulk->AddEntity(e);
    if (!st.ok()) return st.WithContext("entity " + subject);
    ++stats.entities;
  }
  for (const Entity& e : book.orgs) {
    Status st = bulk->AddEntity(e);
    if (!st.ok()) return st.WithContext("entity " + e.id);
    ++stats.entities;
  }

  const auto tf = std::chrono::steady_clock::now();
  std::string run_id = options.run_id;
  if (run_id.empty()) run_id = "bench-import-" + std::to_string(std::time(nullptr));
  auto finished = bulk->Finish(run_id);
  if (!finished.ok()) return finished.status().WithContext("finishing the bulk load of " + dir);
  stats.finish_seconds = SecondsSince(tf);
  stats.seconds = SecondsSince(t0);
  return stats;
}

}  // namespace

Status ReadGeneratedFacts(const std::string& path, const std::function<Status(const GeneratedFactRecord&)>& fn) {
  try {
    return ReadFactsImpl(path, nullptr, fn);
  } catch (const std::exception& e) {
    return Status::Aborted("reading " + path + ": " + e.what());
  }
}

Result<std::vector<GeneratedSourceRecord>> ReadGeneratedSources(const std::string& path) {
  try {
    FlatObjectParser parser(kSourceKeys);
    std::vector<JsonScalar> v;
    std::string error;
    std::vector<GeneratedSourceRecord> out;
    Status s = ForEachLine(path, nullptr, [&](size_t line_no, std::string_view line) -> Status {
      std::string where = path + ":" + std::to_string(line_no);
      if (!parser.Parse(line, v, error)) return Status::InvalidArgument(where + ": " + error);
      GeneratedSourceRecord r;
      r.line = line_no;
      std::string* fields[] = {&r.source, &r.kind, &r.url, &r.publisher, &r.title, &r.as_of, &r.retrieved};
      for (size_t i = 0; i < kSourceKeys.size(); ++i) {
        if (v[i].type != JsonScalar::Type::kString) {
          return Status::InvalidArgument(where + ": field \"" + std::string(kSourceKeys[i]) + "\" must be a string");
        }
        fields[i]->assign(v[i].text);
      }
      out.push_back(std::move(r));
      return Status::OK();
    });
    if (!s.ok()) return s;
    return out;
  } catch (const std::exception& e) {
    return Status::Aborted("reading " + path + ": " + e.what());
  }
}

Result<std::vector<GeneratedPredicate>> GeneratedCorpusPredicates(const Schema& schema) {
  std::vector<GeneratedPredicate> out;
  for (const ColumnDef* c : schema.ColumnsOf(kGeneratedCorpusDataset)) {
    std::string where = c->file + ":" + std::to_string(c->line);
    if (c->role != "value") {
      return Status::InvalidArgument(where + ": role " + c->role + " means nothing for the peer-bench corpus");
    }
    const PredicateDef* def = schema.FindPredicate(c->predicate);
    if (def == nullptr) return Status::InvalidArgument(where + ": unknown predicate " + c->predicate);
    out.push_back(GeneratedPredicate{c->header, def, c->qualifiers, c->unit});
  }
  if (out.empty()) {
    return Status::NotFound(std::string("the schema has no `column ") + kGeneratedCorpusDataset +
                            "` lines (schema/datasets/bench.schema)");
  }
  return out;
}

std::string_view PublisherOfTitle(std::string_view title) {
  size_t sep = title.find(": ");
  return sep == std::string_view::npos ? std::string_view() : title.substr(0, sep);
}

Result<BulkImportStats> ImportGeneratedCorpus(Store& store, const Schema& schema, const std::string& dir,
                                              const BulkImportOptions& options) {
  try {
    return ImportImpl(store, schema, dir, options);
  } catch (const std::exception& e) {
    return Status::Aborted("importing " + dir + ": " + e.what());
  }
}

Result<BulkImportStats> ImportGeneratedCorpus(Store& store, const std::string& dir) {
  auto schema = Schema::LoadDirectory(Schema::DefaultDirectory());
  if (!schema.ok()) return schema.status();
  return ImportGeneratedCorpus(store, *schema, dir);
}

}  // namespace chipkg
