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
};

// The resolver used by ingest: schema aliases, then the store's entities, then
// the normaliser (never re-making a rejected match), then a new entity.
// `store` may be null (schema only). Both must outlive the resolver.
std::unique_ptr<EntityResolver> MakeEntityResolver(const Schema& schema, const Store* store);

// Slug for a new entity id: "<kind-prefix>:<lower-case-words-joined-by-dashes>".
EntityId MakeEntityId(const std::string& kind, const std::string& name);

// Review of automatic matches, kept in the store's meta under "match/".
Result<std::vector<MatchRecord>> ListMatches(const Store& store);
Status RecordMatches(Store& store, const std::vector<MatchRecord>& matches);
Status DecideMatch(Store& store, const std::string& kind, const std::string& name, bool confirm);

}  // namespace chipkg
