#include "engine/codec.h"

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>

namespace chipkg::codec {

const char* CfName(int cf) {
  static constexpr const char* kNames[kCfCount] = {
      "default", "meta",      "dict",     "facts",    "prov",  "spo", "pos",     "ref",
      "doc",     "documents", "versions", "entities", "alias", "tx",  "usermeta", "contested",
  };
  return cf >= 0 && cf < kCfCount ? kNames[cf] : "?";
}

// ---- primitives ----------------------------------------------------------






bool GetVarint(std::string_view* in, uint64_t* v) {
  uint64_t result = 0;
  for (int shift = 0; shift <= 63 && !in->empty(); shift += 7) {
    auto byte = static_cast<unsigned char>(in->front());
    in->remove_prefix(1);
    result |= uint64_t{byte & 0x7fu} << shift;
    if ((byte & 0x80) == 0) {
      *v = result;
      return true;
    }
  }
  return false;
}

bool GetVarint32(std::string_view* in, uint32_t* v) {
  uint64_t wide = 0;
  if (!GetVarint(in, &wide) || wide > UINT32_MAX) return false;
  *v = static_cast<uint32_t>(wide);
  return true;
}


bool GetZigZag(std::string_view* in, int64_t* v) {
  uint64_t u = 0;
  if (!GetVarint(in, &u)) return false;
  *v = static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
  return true;
}


bool GetString(std::string_view* in, std::string_view* s) {
  uint64_t n = 0;
  if (!GetVarint(in, &n) || n > in->size()) return false;
  *s = in->substr(0, n);
  in->remove_prefix(n);
  return true;
}

bool GetByte(std::string_view* in, uint8_t* b) {
  if (in->empty()) return false;
  *b = static_cast<uint8_t>(in->front());
  in->remove_prefix(1);
  return true;
}

void PutDate(std::string* out, const Date& d) {
  PutZigZag(out, d.year);
  out->push_back(static_cast<char>(d.month));
  out->push_back(static_cast<char>(d.day));
  out->push_back(static_cast<char>(d.precision));
}

bool GetDate(std::string_view* in, Date* d) {
  int64_t year = 0;
  uint8_t month = 0, day = 0, precision = 0;
  if (!GetZigZag(in, &year) || !GetByte(in, &month) || !GetByte(in, &day) || !GetByte(in, &precision)) {
    return false;
  }
  if (year < INT32_MIN || year > INT32_MAX || precision < 1 || precision > 3) return false;
  d->year = static_cast<int32_t>(year);
  d->month = month;
  d->day = day;
  d->precision = static_cast<DatePrecision>(precision);
  return true;
}

std::string PrefixSuccessor(std::string prefix) {
  while (!prefix.empty()) {
    auto last = static_cast<unsigned char>(prefix.back());
    if (last != 0xff) {
      prefix.back() = static_cast<char>(last + 1);
      return prefix;
    }
    prefix.pop_back();
  }
  return prefix;
}

// ---- order-preserving ----------------------------------------------------

uint64_t OrderedBitsFromDouble(double d) {
  if (d == 0) d = 0.0;  // -0.0 and +0.0 are one value
  uint64_t bits = std::bit_cast<uint64_t>(d);
  // Positive doubles already order like their bits; setting the sign bit puts
  // them above every negative. Negative ones order in reverse: invert them.
  return (bits & (uint64_t{1} << 63)) ? ~bits : bits | (uint64_t{1} << 63);
}

double DoubleFromOrderedBits(uint64_t bits) {
  bits = (bits & (uint64_t{1} << 63)) ? bits & ~(uint64_t{1} << 63) : ~bits;
  return std::bit_cast<double>(bits);
}

void AppendEscapedText(std::string* out, std::string_view text) {
  for (char c : text) {
    out->push_back(c);
    if (c == '\0') out->push_back('\xff');
  }
  out->push_back('\0');
  out->push_back('\x01');
}

bool ReadEscapedText(std::string_view* in, std::string* text) {
  text->clear();
  size_t i = 0;
  while (i < in->size()) {
    char c = (*in)[i];
    if (c != '\0') {
      text->push_back(c);
      ++i;
      continue;
    }
    if (i + 1 >= in->size()) return false;
    char next = (*in)[i + 1];
    if (next == '\x01') {
      in->remove_prefix(i + 2);
      return true;
    }
    if (next != '\xff') return false;
    text->push_back('\0');
    i += 2;
  }
  return false;
}

// ---- CORE ------------------------------------------------------------------

void EncodeCoreHeader(const CoreRecord& c, std::string* out) {
  PutVarint(out, c.asserted_tx);
  PutVarint(out, c.retracted_tx);
  out->push_back(c.valid_as_of ? 1 : 0);
  if (c.valid_as_of) PutDate(out, *c.valid_as_of);
}

void EncodeCore(const CoreRecord& c, std::string* out) {
  EncodeCoreHeader(c, out);
  PutVarint(out, c.subject);
  PutVarint(out, c.predicate);
  PutVarint(out, c.document);
  PutVarint(out, c.document_version);
  PutVarint(out, c.rule);
  out->push_back(static_cast<char>(c.derivation));
  out->push_back(static_cast<char>(c.kind));
  switch (c.kind) {
    case ValueKind::kQuantity: {
      uint64_t bits = std::bit_cast<uint64_t>(c.number);
      for (int i = 0; i < 8; ++i) out->push_back(static_cast<char>(bits >> (8 * i)));
      PutVarint(out, c.dimension);
      break;
    }
    case ValueKind::kDate: PutDate(out, c.date); break;
    case ValueKind::kEntity: PutVarint(out, c.entity); break;
    case ValueKind::kText: PutString(out, c.text); break;
    case ValueKind::kBool: out->push_back(c.number != 0 ? 1 : 0); break;
    case ValueKind::kNotPublished: break;
  }
  PutString(out, c.original);
  PutVarint(out, c.qualifiers.size());
  for (const auto& [k, v] : c.qualifiers) {
    PutVarint(out, k);
    PutVarint(out, v);
  }
}

bool DecodeCoreHeader(std::string_view in, TxId* asserted_tx, TxId* retracted_tx,
                      std::optional<Date>* valid_as_of) {
  uint8_t flags = 0;
  if (!GetVarint(&in, asserted_tx) || !GetVarint(&in, retracted_tx) || !GetByte(&in, &flags)) return false;
  if (flags & 1) {
    Date d;
    if (!GetDate(&in, &d)) return false;
    *valid_as_of = d;
  } else {
    valid_as_of->reset();
  }
  return true;
}

bool HoldsCore(std::string_view in) {
  uint32_t subject = 0;
  return DecodeCoreSubject(in, &subject);
}

bool DecodeCoreSubject(std::string_view in, uint32_t* subject) {
  uint64_t skip = 0;
  uint8_t flags = 0;
  if (!GetVarint(&in, &skip) || !GetVarint(&in, &skip) || !GetByte(&in, &flags)) return false;
  if (flags & 1) {
    Date d;
    if (!GetDate(&in, &d)) return false;
  }
  return GetVarint32(&in, subject);
}

bool DecodeCore(std::string_view in, CoreRecord* c) {
  uint8_t flags = 0, derivation = 0, kind = 0;
  if (!GetVarint(&in, &c->asserted_tx) || !GetVarint(&in, &c->retracted_tx) || !GetByte(&in, &flags)) {
    return false;
  }
  if (flags & 1) {
    Date d;
    if (!GetDate(&in, &d)) return false;
    c->valid_as_of = d;
  } else {
    c->valid_as_of.reset();
  }
  if (!GetVarint32(&in, &c->subject) || !GetVarint32(&in, &c->predicate) || !GetVarint32(&in, &c->document) ||
      !GetVarint32(&in, &c->document_version) || !GetVarint32(&in, &c->rule) || !GetByte(&in, &derivation) ||
      !GetByte(&in, &kind)) {
    return false;
  }
  if (derivation < 1 || derivation > 2 || kind < 1 || kind > 6) return false;
  c->derivation = static_cast<Derivation>(derivation);
  c->kind = static_cast<ValueKind>(kind);
  c->number = 0;
  c->dimension = 0;
  c->entity = 0;
  c->text = {};
  c->date = Date{};
  switch (c->kind) {
    case ValueKind::kQuantity: {
      if (in.size() < 8) return false;
      uint64_t bits = 0;
      for (int i = 0; i < 8; ++i) bits |= uint64_t{static_cast<unsigned char>(in[i])} << (8 * i);
      in.remove_prefix(8);
      c->number = std::bit_cast<double>(bits);
      if (!GetVarint32(&in, &c->dimension)) return false;
      break;
    }
    case ValueKind::kDate:
      if (!GetDate(&in, &c->date)) return false;
      break;
    case ValueKind::kEntity:
      if (!GetVarint32(&in, &c->entity)) return false;
      break;
    case ValueKind::kText:
      if (!GetString(&in, &c->text)) return false;
      break;
    case ValueKind::kBool: {
      uint8_t b = 0;
      if (!GetByte(&in, &b)) return false;
      c->number = b ? 1 : 0;
      break;
    }
    case ValueKind::kNotPublished: break;
  }
  uint64_t n = 0;
  if (!GetString(&in, &c->original) || !GetVarint(&in, &n) || n > in.size()) return false;
  c->qualifiers.clear();
  c->qualifiers.reserve(n);
  for (uint64_t i = 0; i < n; ++i) {
    uint32_t k = 0, v = 0;
    if (!GetVarint32(&in, &k) || !GetVarint32(&in, &v)) return false;
    c->qualifiers.emplace_back(k, v);
  }
  return in.empty();
}

void AppendValueKey(const CoreRecord& c, std::string* out) {
  out->push_back(static_cast<char>(c.kind));
  switch (c.kind) {
    case ValueKind::kQuantity: PutU64(out, OrderedBitsFromDouble(c.number)); break;
    case ValueKind::kDate:
      PutU32(out, static_cast<uint32_t>(c.date.FirstDay()) ^ 0x80000000u);
      out->push_back(static_cast<char>(c.date.precision));
      break;
    case ValueKind::kEntity: PutU32(out, c.entity); break;
    case ValueKind::kText: AppendEscapedText(out, c.text); break;
    case ValueKind::kBool: out->push_back(c.number != 0 ? 1 : 0); break;
    case ValueKind::kNotPublished: break;
  }
}

bool DecodeValueKey(std::string_view* in, DecodedValueKey* out) {
  uint8_t kind = 0;
  if (!GetByte(in, &kind) || kind < 1 || kind > 6) return false;
  out->kind = static_cast<ValueKind>(kind);
  switch (out->kind) {
    case ValueKind::kQuantity:
      if (in->size() < 8) return false;
      out->number = DoubleFromOrderedBits(GetU64(in->data()));
      in->remove_prefix(8);
      return true;
    case ValueKind::kDate: {
      if (in->size() < 5) return false;
      out->first_day = static_cast<int32_t>(GetU32(in->data()) ^ 0x80000000u);
      auto p = static_cast<uint8_t>((*in)[4]);
      if (p < 1 || p > 3) return false;
      out->precision = static_cast<DatePrecision>(p);
      in->remove_prefix(5);
      return true;
    }
    case ValueKind::kEntity:
      if (in->size() < 4) return false;
      out->entity = GetU32(in->data());
      in->remove_prefix(4);
      return true;
    case ValueKind::kText: return ReadEscapedText(in, &out->text);
    case ValueKind::kBool: {
      uint8_t b = 0;
      if (!GetByte(in, &b)) return false;
      out->flag = b != 0;
      return true;
    }
    case ValueKind::kNotPublished: return true;
  }
  return false;
}

void AppendClaimKey(const CoreRecord& c, std::string* out) {
  PutU32(out, c.subject);
  PutU32(out, c.predicate);
  PutU32(out, c.rule);
  out->push_back(static_cast<char>(c.derivation));
  AppendValueKey(c, out);
  PutVarint(out, c.qualifiers.size());
  for (const auto& [k, v] : c.qualifiers) {
    PutVarint(out, k);
    PutVarint(out, v);
  }
}

// ---- PROV ------------------------------------------------------------------

void EncodeProv(const Provenance& p, uint32_t run_id, std::string* out) {
  PutString(out, p.section);
  PutVarint(out, p.span_begin);
  PutVarint(out, p.span_end);
  PutString(out, p.excerpt);
  PutString(out, p.prefix);
  PutString(out, p.suffix);
  PutZigZag(out, p.row);
  PutString(out, p.column);
  PutString(out, p.attribution);
  PutVarint(out, p.citations.size());
  for (const auto& c : p.citations) PutString(out, c);
  PutString(out, p.note);
  PutString(out, p.rule_version);
  PutVarint(out, run_id);
  PutString(out, p.formula);
}

bool DecodeProv(std::string_view in, Provenance* p, uint32_t* run_id) {
  std::string_view s;
  auto str = [&](std::string* field) {
    if (!GetString(&in, &s)) return false;
    field->assign(s.data(), s.size());
    return true;
  };
  if (!str(&p->section) || !GetVarint32(&in, &p->span_begin) || !GetVarint32(&in, &p->span_end) ||
      !str(&p->excerpt) || !str(&p->prefix) || !str(&p->suffix) || !GetZigZag(&in, &p->row) ||
      !str(&p->column) || !str(&p->attribution)) {
    return false;
  }
  uint64_t n = 0;
  if (!GetVarint(&in, &n) || n > in.size()) return false;
  p->citations.resize(n);
  for (auto& c : p->citations) {
    if (!str(&c)) return false;
  }
  if (!str(&p->note) || !str(&p->rule_version) || !GetVarint32(&in, run_id) || !str(&p->formula)) return false;
  return in.empty();
}

// ---- other records ---------------------------------------------------------

namespace {
bool ReadString(std::string_view* in, std::string* out) {
  std::string_view s;
  if (!GetString(in, &s)) return false;
  out->assign(s.data(), s.size());
  return true;
}
}  // namespace

void EncodeDocument(const Document& d, std::string* out) {
  PutString(out, d.url);
  PutString(out, d.title);
  PutString(out, d.site);
  PutString(out, d.kind);
  PutString(out, d.etag);
  PutString(out, d.last_modified);
  // Optional tail: a document never retired (every record written before
  // retirement was kept) ends at its validators.
  if (d.retired_tx != 0) PutVarint(out, d.retired_tx);
}

bool DecodeDocument(std::string_view key, std::string_view in, Document* d) {
  d->id.assign(key.data(), key.size());
  return ReadString(&in, &d->url) && ReadString(&in, &d->title) && ReadString(&in, &d->site) &&
         ReadString(&in, &d->kind) && ReadString(&in, &d->etag) && ReadString(&in, &d->last_modified) &&
         (in.empty() ? (d->retired_tx = 0, true) : GetVarint(&in, &d->retired_tx) && d->retired_tx != 0 && in.empty());
}

void EncodeVersionMeta(const DocumentVersion& v, std::string* out) {
  PutString(out, v.document_id);
  PutString(out, v.content_hash);
  PutZigZag(out, v.fetched_at);
  out->push_back(v.as_of ? 1 : 0);
  if (v.as_of) PutDate(out, *v.as_of);
  PutString(out, v.content_type);
  PutVarint(out, v.tx);
  PutVarint(out, v.text.size());
  // Optional tail: records written before it end at the text size.
  if (!v.url.empty() || !v.title.empty() || !v.format.empty()) {
    PutString(out, v.url);
    PutString(out, v.title);
    PutString(out, v.format);
  }
}

bool DecodeVersionMeta(std::string_view in, DocumentVersion* v, uint64_t* text_size) {
  uint8_t has_as_of = 0;
  if (!ReadString(&in, &v->document_id) || !ReadString(&in, &v->content_hash) || !GetZigZag(&in, &v->fetched_at) ||
      !GetByte(&in, &has_as_of)) {
    return false;
  }
  if (has_as_of) {
    Date d;
    if (!GetDate(&in, &d)) return false;
    v->as_of = d;
  } else {
    v->as_of.reset();
  }
  if (!ReadString(&in, &v->content_type) || !GetVarint(&in, &v->tx) || !GetVarint(&in, text_size)) return false;
  v->url.clear();
  v->title.clear();
  v->format.clear();
  if (in.empty()) return true;
  return ReadString(&in, &v->url) && ReadString(&in, &v->title) && ReadString(&in, &v->format) && in.empty();
}

void EncodeEntity(const Entity& e, std::string* out) {
  PutString(out, e.kind);
  PutString(out, e.name);
  PutVarint(out, e.aliases.size());
  for (const auto& a : e.aliases) PutString(out, a);
  // An optional tail: records stored before it was kept end above.
  if (e.created_tx != 0) PutVarint(out, e.created_tx);
}

bool DecodeEntity(std::string_view key, std::string_view in, Entity* e) {
  e->id.assign(key.data(), key.size());
  uint64_t n = 0;
  if (!ReadString(&in, &e->kind) || !ReadString(&in, &e->name) || !GetVarint(&in, &n) || n > in.size()) {
    return false;
  }
  e->aliases.resize(n);
  for (auto& a : e->aliases) {
    if (!ReadString(&in, &a)) return false;
  }
  e->created_tx = 0;
  if (!in.empty() && (!GetVarint(&in, &e->created_tx) || e->created_tx == 0)) return false;
  return in.empty();
}

void EncodeTx(const Transaction& tx, std::string* out) {
  PutZigZag(out, tx.time_micros);
  PutString(out, tx.run_id);
  PutString(out, tx.description);
}

bool DecodeTx(std::string_view key, std::string_view in, Transaction* tx) {
  if (key.size() != 8) return false;
  tx->id = GetU64(key.data());
  return GetZigZag(&in, &tx->time_micros) && ReadString(&in, &tx->run_id) && ReadString(&in, &tx->description) &&
         in.empty();
}

// ---- keys ------------------------------------------------------------------

std::string FactKey(uint64_t fact_id) {
  std::string k;
  PutU64(&k, fact_id);
  return k;
}

std::string SpoKey(uint32_t subject, uint32_t predicate, uint64_t fact_id) {
  std::string k;
  k.reserve(16);
  PutU32(&k, subject);
  PutU32(&k, predicate);
  PutU64(&k, fact_id);
  return k;
}

std::string PosKey(uint32_t predicate, std::string_view value_key, uint64_t fact_id) {
  std::string k;
  k.reserve(12 + value_key.size());
  PutU32(&k, predicate);
  k.append(value_key.data(), value_key.size());
  PutU64(&k, fact_id);
  return k;
}

std::string RefKey(uint32_t object, uint64_t fact_id) {
  std::string k;
  PutU32(&k, object);
  PutU64(&k, fact_id);
  return k;
}

std::string DocKey(uint32_t document, uint32_t version, uint64_t fact_id) {
  std::string k;
  k.reserve(16);
  PutU32(&k, document);
  PutU32(&k, version);
  PutU64(&k, fact_id);
  return k;
}

std::string VersionMetaKey(uint32_t document, uint32_t version) {
  std::string k = "m";
  PutU32(&k, document);
  PutU32(&k, version);
  return k;
}

std::string VersionTextKey(uint32_t document, uint32_t version) {
  std::string k = "t";
  PutU32(&k, document);
  PutU32(&k, version);
  return k;
}

std::string DictForwardKey(std::string_view s) {
  std::string k = "F";
  k.append(s.data(), s.size());
  return k;
}

std::string DictReverseKey(uint32_t id) {
  std::string k = "R";
  PutU32(&k, id);
  return k;
}

std::string AliasKey(std::string_view normalized, std::string_view entity_id) {
  std::string k(normalized);
  k.push_back('\0');
  k.append(entity_id.data(), entity_id.size());
  return k;
}

std::string TxKey(uint64_t tx) {
  std::string k;
  PutU64(&k, tx);
  return k;
}

std::string CounterKey(std::string_view name) {
  std::string k = "counter/";
  k.append(name.data(), name.size());
  return k;
}

}  // namespace chipkg::codec
