// Entity resolution: turning a name as a source writes it ("AWS Trainium (Trn1)",
// "Amazon Trainium1", "TSMC (all chips TSMC makes →)") into an EntityId.
//
// Exact matches come from the schema's aliases and the store's entities. A
// name that matches none exactly may still match through the normaliser (case,
// punctuation, vendor prefixes, a "1" suffix); such automatic matches are
// recorded so a person can confirm or reject them (`chipkg matches`), and a
// rejected match is never made again. A name that matches nothing creates a
// new entity, reported in the ingest summary so a mapping can be added.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "engine/fact.h"
#include "engine/status.h"

namespace chipkg {

class Schema;
class Store;

struct Resolution {
  EntityId id;
  bool created = false;    // no entity matched: a new one was made
  bool exact = true;       // matched an id, name or alias exactly (after NormalizeAlias)
  std::string method;      // "alias", "store", "normalised: dropped vendor prefix", "new"
  std::string matched;     // the name or alias it matched
};

// One automatic (non-exact) match, as recorded for review.
struct MatchRecord {
  std::string kind;
  std::string name;        // as the source wrote it
  EntityId entity;         // what it was matched to
  std::string method;
  std::string decision;    // "pending", "confirmed", "rejected"
};

class EntityResolver {
 public:
  virtual ~EntityResolver() = default;
  // Finds, or creates, the entity of `kind` that a source calls `name`.
  virtual Result<Resolution> Resolve(const std::string& name, const std::string& kind) = 0;
  // Entities created by Resolve since construction, to be stored with the document's facts.
  virtual std::vector<Entity> NewEntities() const = 0;
  // Automatic matches made since construction, to be recorded for review.
  virtual std::vector<MatchRecord> NewMatches() const = 0;
  // Says that a source lists `names` as different entities of `kind` (the rows
  // of a dataset). A resolver with a normaliser then never lets one of them
  // match, by normalising, an entity that another one names exactly or has
  // already been resolved to: "Huawei Ascend 910 (320 TFLOPS)" stays apart
  // from "Huawei Ascend 910". Call before resolving them. A resolver without a
  // normaliser cannot merge distinct names and may keep the default no-op.
  virtual Status DeclareDistinct(const std::string& kind, const std::vector<std::string>& names) {
    (void)kind;
    (void)names;
    return Status::OK();
  }
};

// The resolver used by ingest, in this order:
//  1. exact: the schema's ids, names and aliases, then the store's entities
//     (Store::FindEntity), then entities this resolver created; kind must agree;
//  2. a match a person confirmed earlier (match/ records; Resolution::method
//     "confirmed match", exact = true);
//  3. the normaliser, on entities of the same kind (schema, store, created
//     here), trying in turn: case and punctuation; dropping vendor prefixes (the
//     names and aliases of known organizations, not for organizations
//     themselves); dropping a trailing generation "1" ("Trainium1"); dropping
//     parenthesised text ("AWS Trainium (Trn1)", "TSMC (all chips TSMC makes →)").
//     Candidate names are also compared with their vendor prefix, their
//     parenthesised text and their form factor dropped ("H200" meets "NVIDIA
//     H200 SXM", "Maia 100" meets "Maia 100 (M100)"); the candidates least
//     changed win ("A100" is "NVIDIA A100", not "NVIDIA A100 SXM4 80 GB").
//     Farther, a codename after the designation ("TPU v7" meets "Google TPU
//     v7 Ironwood"); farthest of all, a candidate's trailing words from one
//     that starts with a letter and holds a digit ("MI300X" meets "AMD
//     Instinct MI300X", "RTX 4090" meets "NVIDIA GeForce RTX 4090"; never a
//     lone "4090" or "v4"). These two only where no other entity's name holds
//     the same words ("RTX 6000": the Quadro or the Ada). A
//     step that matches two entities equally is ambiguous and matches neither. A match a
//     person rejected is never made again. Matches are exact = false and are
//     returned by NewMatches() unless already recorded;
//  4. otherwise a new entity, id MakeEntityId(kind, name) (suffixed -2, -3, ...
//     if that id is taken), returned by NewEntities().
// The same name (after NormalizeAlias) always resolves to the same entity
// within one resolver. `store` may be null (schema only). Both must outlive
// the resolver. Store errors other than NotFound are returned.
std::unique_ptr<EntityResolver> MakeEntityResolver(const Schema& schema, const Store* store);

// Slug for a new entity id: "<kind-prefix>:<lower-case-words-joined-by-dashes>".
// Kind prefixes: organization -> org, process_node -> node, instance_type ->
// instance, data_center -> dc, rack_design -> rack; other kinds are their own
// prefix. A '.' between digits or letters is kept ("llm:llama-3.1-8b",
// "instance:trn1.32xlarge"); other ASCII punctuation separates words; UTF-8
// letters are kept as written.
EntityId MakeEntityId(const std::string& kind, const std::string& name);

// Review of automatic matches, kept in the store's meta under
// "match/<kind>/<NormalizeAlias(name)>/<entity>" as a JSON object with the
// MatchRecord fields. RecordMatches never overwrites a decision already made
// (a record that is confirmed or rejected stays so). DecideMatch decides the
// pending records of (kind, name); with none pending, the single record of
// that name (to change one's mind); NotFound if there is none.
Result<std::vector<MatchRecord>> ListMatches(const Store& store);
Status RecordMatches(Store& store, const std::vector<MatchRecord>& matches);
Status DecideMatch(Store& store, const std::string& kind, const std::string& name, bool confirm);

}  // namespace chipkg
