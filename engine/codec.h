// engine/codec.h (internal to engine/): the byte layout of every column family.
//
// Storage format "chipkg-store 3" (kFormatVersion). engine/README.md carries the same table;
// change both together and bump kFormatVersion when bytes change meaning.
//
// Notation: u32/u64 = fixed-width big-endian (so keys sort numerically),
// v = LEB128 varint, z = zig-zag varint, s = v length + bytes,
// id = a u32 from the dictionary (interned string), fid = u64 fact id.
//
//   CF         key                                  value
//   meta       "format"                             "chipkg-store 3"
//              "counter/<name>"                     u64 (last_tx, next_fact, next_dict, facts, live,
//                                                   retracted, not_published, documents, versions,
//                                                   entities, transactions)
//   dict       'F' string                           u32 id           (forward: intern)
//              'R' u32 id                           string           (reverse: decode)
//   facts      fid                                  CORE
//   prov       fid                                  PROV
//   spo        subject:u32 predicate:u32 fid        CORE   (covering: a subject scan reads no other CF
//   pos        predicate:u32 VALUEKEY fid           CORE    for the core fields)
//   ref        object:u32 fid                       HEADER (facts whose value is an entity)
//   doc        document:u32 version:u32 fid         CORE   (version = provenance.document_version;
//                                                   covering, so one document's facts are one scan.
//                                                   Entries written before this layout hold a HEADER:
//                                                   readers complete those from facts)
//   documents  document id string                   DOCUMENT
//   versions   'm' document:u32 version:u32         VERSION (metadata, without text)
//              't' document:u32 version:u32         raw text bytes
//   entities   entity id string                     ENTITY
//   alias      NormalizeAlias(x) 0x00 entity id     u8 rank: 0 id, 1 name, 2 alias
//   tx         u64 tx id                            TX
//   usermeta   caller's key                         caller's value
//
// CORE (the same bytes in facts, spo, pos and doc; retraction rewrites them and the HEADERs):
//   v asserted_tx, v retracted_tx, u8 flags (bit 0: has valid_as_of), [DATE valid_as_of],
//   v subject, v predicate, v document, v document_version, v rule, u8 derivation,
//   u8 kind, kind body, s original, v qualifier count, (v key id, v value id)* in key-string order.
//   Kind bodies: quantity = 8-byte IEEE bits (little-endian) + v dimension id; date = DATE;
//   entity = v entity id; text = s text; bool = u8; not published = nothing.
//   The visibility fields lead so a scan can drop invisible rows before decoding the rest.
// HEADER: the leading visibility fields of CORE alone (v asserted_tx, v retracted_tx, u8 flags,
//   [DATE]): ref scans (and doc entries of older stores) filter on it and read the CORE of what
//   they keep from facts.
// DATE: z year, u8 month, u8 day, u8 precision.
// VALUEKEY (order-preserving, prefix-free; memcmp order = value order within a kind):
//   u8 kind tag (ValueKind), then quantity: u64 of the IEEE bits with the sign flip (positive:
//   set the top bit; negative: invert all bits; -0.0 stored as +0.0; NaN is refused);
//   date: u32 (first day XOR 0x80000000) + u8 precision; entity: u32 id; text: bytes with
//   0x00 -> 0x00 0xFF, ended by 0x00 0x01; bool: u8; not published: nothing.
// PROV: s section, v span_begin, v span_end, s excerpt, s prefix, s suffix, z row, s column,
//   s attribution, v n + s citation*, s note, s rule_version, v run_id id, s formula.
//   (document, version, rule and derivation live in CORE.)
// DOCUMENT: s url, s title, s site, s kind, s etag, s last_modified, [v retired_tx] (only when not 0).
// VERSION: s document id, s content_hash, z fetched_at, u8 has_as_of [DATE], s content_type, v tx, v text size.
// ENTITY: s kind, s name, v n + s alias*.
// TX: z time_micros, s run_id, s description.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/fact.h"

namespace chipkg::codec {

inline constexpr char kFormatKey[] = "format";
inline constexpr char kFormatVersion[] = "chipkg-store 3";
// What an export's format record says: the records an export holds are the
// same in every store format (the `contested` CF is derived from spo and is
// not exported) but for a document's retirement mark, so an export without a
// retired document keeps the name of the first, and one with a retired
// document names the format that keeps the mark: a chipkg of an older format
// then refuses it (FormatMismatch) instead of importing the document as one
// never retired, whose next changed text would assert its claims again.
inline constexpr char kExportFormat[] = "chipkg-store 1";
inline constexpr char kExportFormatWithRetirements[] = "chipkg-store 3";
// The format before the `contested` CF: read as it is (conflicts passes then
// read every fact), upgraded in place by the first writer that opens it.
inline constexpr char kFormatWithoutContested[] = "chipkg-store 1";
// The format before DOCUMENT records could end in a retirement mark (which a
// chipkg of that format reads as a damaged record): read as it is, since no
// record in it has one, and upgraded by its first writer, which marks the
// documents an earlier `chipkg retire` retired.
inline constexpr char kFormatWithoutRetirementMarks[] = "chipkg-store 2";

// Column families in the order they are opened; handles are indexed by these.
enum Cf : int {
  kDefaultCf = 0,  // required by RocksDB, unused
  kMetaCf,
  kDictCf,
  kFactsCf,
  kProvCf,
  kSpoCf,
  kPosCf,
  kRefCf,
  kDocCf,
  kDocumentsCf,
  kVersionsCf,
  kEntitiesCf,
  kAliasCf,
  kTxCf,
  kUserMetaCf,
  kContestedCf,
  kCfCount
};
const char* CfName(int cf);

// ---- primitives ----------------------------------------------------------
// The writers are inline: every fact of a bulk load goes through dozens.
inline void PutU32(std::string* out, uint32_t v) {
  const char b[4] = {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
                     static_cast<char>(v)};
  out->append(b, 4);
}
inline void PutU64(std::string* out, uint64_t v) {
  char b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<char>(v >> (56 - 8 * i));
  out->append(b, 8);
}
inline uint32_t GetU32(const char* p) {
  const auto* u = reinterpret_cast<const unsigned char*>(p);
  return (uint32_t{u[0]} << 24) | (uint32_t{u[1]} << 16) | (uint32_t{u[2]} << 8) | uint32_t{u[3]};
}
inline uint64_t GetU64(const char* p) { return (uint64_t{GetU32(p)} << 32) | GetU32(p + 4); }
inline void PutVarint(std::string* out, uint64_t v) {
  if (v < 0x80) {
    out->push_back(static_cast<char>(v));
    return;
  }
  char b[10];
  int n = 0;
  while (v >= 0x80) {
    b[n++] = static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  b[n++] = static_cast<char>(v);
  out->append(b, n);
}
bool GetVarint(std::string_view* in, uint64_t* v);
bool GetVarint32(std::string_view* in, uint32_t* v);
inline void PutZigZag(std::string* out, int64_t v) {
  PutVarint(out, (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63));
}
bool GetZigZag(std::string_view* in, int64_t* v);
inline void PutString(std::string* out, std::string_view s) {
  PutVarint(out, s.size());
  out->append(s.data(), s.size());
}
bool GetString(std::string_view* in, std::string_view* s);
bool GetByte(std::string_view* in, uint8_t* b);
void PutDate(std::string* out, const Date& d);
bool GetDate(std::string_view* in, Date* d);
// Smallest string greater than every string that starts with `prefix`;
// empty when there is none (all 0xFF).
std::string PrefixSuccessor(std::string prefix);

// ---- order-preserving pieces ---------------------------------------------
uint64_t OrderedBitsFromDouble(double d);  // d must not be NaN
double DoubleFromOrderedBits(uint64_t bits);
void AppendEscapedText(std::string* out, std::string_view text);
bool ReadEscapedText(std::string_view* in, std::string* text);

// ---- CORE ------------------------------------------------------------------
struct CoreRecord {
  TxId asserted_tx = 0;
  TxId retracted_tx = 0;
  std::optional<Date> valid_as_of;
  uint32_t subject = 0;
  uint32_t predicate = 0;
  uint32_t document = 0;
  uint32_t document_version = 0;
  uint32_t rule = 0;
  Derivation derivation = Derivation::kStated;
  ValueKind kind = ValueKind::kText;
  double number = 0;       // quantity; bool as 0/1
  uint32_t dimension = 0;  // quantity
  uint32_t entity = 0;     // entity
  Date date;               // date
  std::string_view text;   // text (views the encoded bytes or the caller's Value)
  std::string_view original;
  std::vector<std::pair<uint32_t, uint32_t>> qualifiers;  // in qualifier-key string order
};

void EncodeCore(const CoreRecord& core, std::string* out);
// False if the bytes are not a CORE record. `core` views `in`: keep it alive.
bool DecodeCore(std::string_view in, CoreRecord* core);
// Only the leading visibility fields (of a CORE or a HEADER).
void EncodeCoreHeader(const CoreRecord& core, std::string* out);
bool DecodeCoreHeader(std::string_view in, TxId* asserted_tx, TxId* retracted_tx, std::optional<Date>* valid_as_of);
// True if the bytes are a whole CORE, false if only its HEADER (or undecodable).
bool HoldsCore(std::string_view in);

// The subject id alone, skipping the header (SubjectsWith reads nothing else).
bool DecodeCoreSubject(std::string_view in, uint32_t* subject);

// VALUEKEY of the core's value.
void AppendValueKey(const CoreRecord& core, std::string* out);

struct DecodedValueKey {
  ValueKind kind = ValueKind::kText;
  double number = 0;
  int32_t first_day = 0;
  DatePrecision precision = DatePrecision::kDay;
  uint32_t entity = 0;
  std::string text;
  bool flag = false;
};
bool DecodeValueKey(std::string_view* in, DecodedValueKey* out);

// The identity of a claim for the keep/retract diff of WriteDocumentVersion:
// subject, predicate, value content, qualifiers, rule and derivation.
void AppendClaimKey(const CoreRecord& core, std::string* out);

// ---- PROV ------------------------------------------------------------------
// Encodes every Provenance field except document_id, document_version, rule
// and derivation (kept in CORE); run_id is given as its dictionary id.
void EncodeProv(const Provenance& prov, uint32_t run_id, std::string* out);
bool DecodeProv(std::string_view in, Provenance* prov, uint32_t* run_id);

// ---- other records ---------------------------------------------------------
void EncodeDocument(const Document& doc, std::string* out);
bool DecodeDocument(std::string_view key, std::string_view in, Document* doc);
void EncodeVersionMeta(const DocumentVersion& v, std::string* out);  // without text
bool DecodeVersionMeta(std::string_view in, DocumentVersion* v, uint64_t* text_size);
void EncodeEntity(const Entity& e, std::string* out);
bool DecodeEntity(std::string_view key, std::string_view in, Entity* e);
void EncodeTx(const Transaction& tx, std::string* out);
bool DecodeTx(std::string_view key, std::string_view in, Transaction* tx);

// ---- keys ------------------------------------------------------------------
std::string FactKey(uint64_t fact_id);  // facts, prov
std::string SpoKey(uint32_t subject, uint32_t predicate, uint64_t fact_id);
std::string PosKey(uint32_t predicate, std::string_view value_key, uint64_t fact_id);
std::string RefKey(uint32_t object, uint64_t fact_id);
std::string DocKey(uint32_t document, uint32_t version, uint64_t fact_id);
std::string VersionMetaKey(uint32_t document, uint32_t version);
std::string VersionTextKey(uint32_t document, uint32_t version);
std::string DictForwardKey(std::string_view s);
std::string DictReverseKey(uint32_t id);
std::string AliasKey(std::string_view normalized, std::string_view entity_id);
std::string TxKey(uint64_t tx);
std::string CounterKey(std::string_view name);
inline uint64_t FactIdOfIndexKey(std::string_view key) { return GetU64(key.data() + key.size() - 8); }

}  // namespace chipkg::codec
