#include "ingest/resolve.h"

#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>

#include "engine/store.h"
#include "schema/schema.h"

namespace chipkg {
namespace {

Schema LoadRealSchema() {
  auto schema = Schema::LoadDirectory(std::string(CHIPKG_SOURCE_DIR) + "/schema");
  EXPECT_TRUE(schema.ok()) << schema.status().message();
  return schema.ok() ? std::move(schema).value() : Schema();
}

// A schema whose chips have no Epoch-style aliases, so only the normaliser can
// connect "Amazon Trainium1" to "AWS Trainium".
const char kBareSchema[] = R"(
kind chip
kind organization
entity org:amazon kind=organization name="Amazon" alias="AWS" alias="Amazon Web Services"
entity org:tsmc kind=organization name="TSMC"
entity org:huawei kind=organization name="Huawei"
entity chip:aws-trainium kind=chip name="AWS Trainium"
entity chip:aws-trainium2 kind=chip name="AWS Trainium 2"
entity chip:ascend-910 kind=chip name="Huawei Ascend 910"
entity chip:widget kind=chip name="Widget" alias="Widget Pro"
entity chip:gadget kind=chip name="Gadget" alias="Widget Max"
entity chip:zz-9 kind=chip name="Omega"
)";

Schema LoadBareSchema() {
  auto schema = Schema::LoadText(kBareSchema, "bare.schema");
  EXPECT_TRUE(schema.ok()) << schema.status().message();
  return schema.ok() ? std::move(schema).value() : Schema();
}

// A real store in a fresh temporary directory, removed afterwards.
class TempStore {
 public:
  TempStore() {
    dir_ = std::filesystem::temp_directory_path() /
           ("chipkg-resolve-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter_++));
    std::filesystem::remove_all(dir_);
    auto store = Store::Open(dir_.string());
    EXPECT_TRUE(store.ok()) << store.status().message();
    if (store.ok()) store_ = std::move(store).value();
  }
  ~TempStore() {
    store_.reset();
    std::filesystem::remove_all(dir_);
  }
  Store& operator*() { return *store_; }
  Store* get() { return store_.get(); }

 private:
  static inline int counter_ = 0;
  std::filesystem::path dir_;
  std::unique_ptr<Store> store_;
};

Resolution MustResolve(EntityResolver& r, const std::string& name, const std::string& kind) {
  auto res = r.Resolve(name, kind);
  EXPECT_TRUE(res.ok()) << name << ": " << res.status().message();
  return res.ok() ? *res : Resolution{};
}

TEST(ResolveTest, SeedAndEpochNamesWithTheRealSchema) {
  Schema schema = LoadRealSchema();
  auto r = MakeEntityResolver(schema, nullptr);
  for (const char* name : {"AWS Trainium (Trn1)", "Amazon Trainium (Trn1)", "Amazon Trainium1", "Trn1"}) {
    Resolution res = MustResolve(*r, name, "chip");
    EXPECT_EQ(res.id, "chip:aws-trainium") << name;
    EXPECT_TRUE(res.exact) << name;
    EXPECT_FALSE(res.created) << name;
  }
  EXPECT_EQ(MustResolve(*r, "AWS Trainium 2", "chip").id, "chip:aws-trainium2");
  EXPECT_EQ(MustResolve(*r, "Amazon Trainium2", "chip").id, "chip:aws-trainium2");
  EXPECT_EQ(MustResolve(*r, "Amazon AWS", "organization").id, "org:amazon");
  EXPECT_EQ(MustResolve(*r, "Amazon", "organization").id, "org:amazon");
  EXPECT_EQ(MustResolve(*r, "TSMC", "organization").id, "org:tsmc");
  EXPECT_EQ(MustResolve(*r, "Samsung", "organization").id, "org:samsung");
  // A remark the caller did not clean: found by dropping the parenthesised part, and recorded.
  Resolution tsmc = MustResolve(*r, "TSMC (all chips TSMC makes →)", "organization");
  EXPECT_EQ(tsmc.id, "org:tsmc");
  EXPECT_FALSE(tsmc.exact);
  EXPECT_EQ(tsmc.method, "normalised: dropped parenthesised text");
  ASSERT_EQ(r->NewMatches().size(), 1u);
  EXPECT_EQ(r->NewMatches()[0].name, "TSMC (all chips TSMC makes →)");
  EXPECT_EQ(r->NewMatches()[0].decision, "pending");
  EXPECT_TRUE(r->NewEntities().empty());
  // The kind must agree: an organization's name is no chip.
  Resolution odd = MustResolve(*r, "TSMC", "chip");
  EXPECT_TRUE(odd.created);
  EXPECT_EQ(odd.id, "chip:tsmc");
}

TEST(ResolveTest, NormaliserRulesAreRecordedAsNonExact) {
  Schema schema = LoadBareSchema();
  auto r = MakeEntityResolver(schema, nullptr);
  Resolution t1 = MustResolve(*r, "Amazon Trainium1", "chip");
  EXPECT_EQ(t1.id, "chip:aws-trainium");
  EXPECT_FALSE(t1.exact);
  EXPECT_EQ(t1.method,
            "normalised: dropped vendor prefix, dropped generation suffix 1, dropped vendor prefix of 'AWS Trainium'");
  Resolution t2 = MustResolve(*r, "Amazon Trainium2", "chip");
  EXPECT_EQ(t2.id, "chip:aws-trainium2");
  EXPECT_EQ(t2.method, "normalised: dropped vendor prefix, dropped vendor prefix of 'AWS Trainium 2'");
  EXPECT_EQ(t2.matched, "AWS Trainium 2");
  Resolution paren = MustResolve(*r, "Amazon Web Services Trainium (Trn1)", "chip");
  EXPECT_EQ(paren.id, "chip:aws-trainium");
  EXPECT_NE(paren.method.find("dropped parenthesised text"), std::string::npos) << paren.method;
  Resolution bare = MustResolve(*r, "trainium", "chip");
  EXPECT_EQ(bare.id, "chip:aws-trainium");
  EXPECT_EQ(bare.method, "normalised: dropped vendor prefix of 'AWS Trainium'");
  // Exact (case and punctuation only) is not a normaliser match.
  Resolution exact = MustResolve(*r, "aws-trainium", "chip");
  EXPECT_TRUE(exact.exact);
  EXPECT_EQ(exact.method, "alias");

  auto matches = r->NewMatches();
  ASSERT_EQ(matches.size(), 4u);
  EXPECT_EQ(matches[0].name, "Amazon Trainium1");
  EXPECT_EQ(matches[0].entity, "chip:aws-trainium");
  EXPECT_EQ(matches[0].kind, "chip");
  EXPECT_EQ(matches[0].method, t1.method);
  // Asked again, the same answer, and no second record.
  EXPECT_EQ(MustResolve(*r, "AMAZON TRAINIUM-1", "chip").id, "chip:aws-trainium");
  EXPECT_EQ(r->NewMatches().size(), 4u);
}

TEST(ResolveTest, GuardsAgainstLooseMatches) {
  Schema schema = LoadBareSchema();
  auto r = MakeEntityResolver(schema, nullptr);
  // "Widget" is one chip's name and, vendor-prefix free, part of another's alias: "Widget Max"
  // is exact for chip:gadget; "Widget" exact for chip:widget; but "ACME Widget" is new (ACME is no vendor).
  EXPECT_EQ(MustResolve(*r, "Widget Max", "chip").id, "chip:gadget");
  Resolution acme = MustResolve(*r, "ACME Widget", "chip");
  EXPECT_TRUE(acme.created);
  EXPECT_EQ(acme.id, "chip:acme-widget");
  // A short "v1" is a version, not a generation suffix; "TPU v1" stays itself.
  Resolution tpu = MustResolve(*r, "Huawei TPU v1", "chip");
  EXPECT_TRUE(tpu.created);
  // Organizations never lose a "prefix": "Amazon Web Services" is not "Web Services".
  Resolution aws = MustResolve(*r, "Amazon Web Services", "organization");
  EXPECT_TRUE(aws.exact);
  Resolution web = MustResolve(*r, "Amazon Foo", "organization");
  EXPECT_TRUE(web.created);
  EXPECT_EQ(web.id, "org:amazon-foo");
  // Unknown kinds and empty names are refused.
  EXPECT_TRUE(r->Resolve("X", "spaceship").status().IsInvalidArgument());
  EXPECT_TRUE(r->Resolve("  ", "chip").status().IsInvalidArgument());
}

TEST(ResolveTest, AmbiguousStepMatchesNeither) {
  const char text[] = R"(
kind chip
kind organization
entity org:acme kind=organization name="Acme"
entity org:zeta kind=organization name="Zeta"
entity chip:acme-z kind=chip name="Acme Z"
entity chip:zeta-z kind=chip name="Zeta Z"
)";
  auto schema = Schema::LoadText(text, "amb.schema");
  ASSERT_TRUE(schema.ok()) << schema.status().message();
  auto r = MakeEntityResolver(*schema, nullptr);
  Resolution z = MustResolve(*r, "Z", "chip");  // both drop their prefix to "Z"
  EXPECT_TRUE(z.created);
  EXPECT_TRUE(r->NewMatches().empty());
}

// A page names a chip without the dataset's form factor or parenthesis: the
// page's "H200" is Epoch's "NVIDIA H200 SXM". The least changed name wins,
// and two variants left equally close match neither.
TEST(ResolveTest, APageNameMeetsADatasetVariant) {
  const char text[] = R"schema(
kind chip
kind organization
entity org:nvidia kind=organization name="NVIDIA"
entity chip:h200 kind=chip name="NVIDIA H200 SXM"
entity chip:maia kind=chip name="Maia 100 (M100)"
entity chip:a100 kind=chip name="NVIDIA A100"
entity chip:a100-80 kind=chip name="NVIDIA A100 SXM4 80 GB"
entity chip:h100-sxm kind=chip name="NVIDIA H100 SXM5 80GB"
entity chip:h100-pcie kind=chip name="NVIDIA H100 PCIe"
)schema";
  auto schema = Schema::LoadText(text, "variants.schema");
  ASSERT_TRUE(schema.ok()) << schema.status().message();
  auto r = MakeEntityResolver(*schema, nullptr);
  Resolution h200 = MustResolve(*r, "H200", "chip");
  EXPECT_EQ(h200.id, "chip:h200");
  EXPECT_FALSE(h200.exact);
  EXPECT_EQ(h200.method, "normalised: dropped form factor of 'NVIDIA H200 SXM', dropped vendor prefix of 'NVIDIA H200 SXM'");
  EXPECT_EQ(MustResolve(*r, "Maia 100", "chip").id, "chip:maia");
  EXPECT_EQ(MustResolve(*r, "A100", "chip").id, "chip:a100");
  EXPECT_TRUE(MustResolve(*r, "H100", "chip").created);
  // A page's own variant is not shortened to meet another: "A100 80GB PCIe" is not the A100.
  EXPECT_TRUE(MustResolve(*r, "A100 80GB PCIe", "chip").created);
}

// Datasets name chips with brand and series words a page leaves out ("AMD
// Instinct MI300X", "Intel Habana Gaudi2", "NVIDIA GeForce RTX 4090"); the
// page's shorter name meets them, and nothing nearer loses to that.
TEST(ResolveTest, APageNameMeetsADatasetsLongerName) {
  const char text[] = R"schema(
kind chip
kind llm
kind organization
entity org:amd kind=organization name="AMD"
entity org:intel kind=organization name="Intel"
entity org:nvidia kind=organization name="NVIDIA"
entity org:google kind=organization name="Google"
entity chip:mi300x kind=chip name="AMD Instinct MI300X"
entity chip:mi250x kind=chip name="AMD Radeon Instinct MI250X"
entity chip:gaudi2 kind=chip name="Intel Habana Gaudi2"
entity chip:rtx4090 kind=chip name="NVIDIA GeForce RTX 4090"
entity chip:a100 kind=chip name="NVIDIA A100"
entity chip:a100-80 kind=chip name="NVIDIA A100 SXM4 80 GB"
entity chip:ascend kind=chip name="Huawei Ascend 910B"
entity llm:llama kind=llm name="Meta Llama 3.1 70B"
entity chip:quadro6000 kind=chip name="NVIDIA Quadro RTX 6000"
entity chip:ada6000 kind=chip name="NVIDIA RTX 6000 Ada Generation"
entity chip:ironwood kind=chip name="Google TPU v7 Ironwood"
)schema";
  auto schema = Schema::LoadText(text, "tails.schema");
  ASSERT_TRUE(schema.ok()) << schema.status().message();
  auto r = MakeEntityResolver(*schema, nullptr);
  Resolution mi300x = MustResolve(*r, "MI300X", "chip");
  EXPECT_EQ(mi300x.id, "chip:mi300x");
  EXPECT_FALSE(mi300x.exact);
  EXPECT_EQ(mi300x.method, "normalised: dropped leading words of 'AMD Instinct MI300X'");
  EXPECT_EQ(MustResolve(*r, "AMD MI250X", "chip").id, "chip:mi250x");
  EXPECT_EQ(MustResolve(*r, "Intel Gaudi 2", "chip").id, "chip:gaudi2");
  EXPECT_EQ(MustResolve(*r, "RTX 4090", "chip").id, "chip:rtx4090");
  EXPECT_EQ(MustResolve(*r, "A100", "chip").id, "chip:a100");
  ASSERT_EQ(r->NewMatches().size(), 5u);
  // A codename after the designation is left out ("Google TPU v7" is "Google TPU v7 Ironwood").
  Resolution ironwood = MustResolve(*r, "TPU v7", "chip");
  EXPECT_EQ(ironwood.id, "chip:ironwood");
  EXPECT_EQ(ironwood.method, "normalised: dropped codename of 'Google TPU v7 Ironwood', dropped vendor prefix of 'Google TPU v7 Ironwood'");
  // A datasheet's column header with a noun for the chip after its designation.
  Resolution header = MustResolve(*r, "AMD Instinct MI300X GPU", "chip");
  EXPECT_EQ(header.id, "chip:mi300x");
  EXPECT_EQ(header.method, "normalised: dropped vendor prefix, dropped trailing chip noun, dropped vendor prefix of 'AMD Instinct MI300X'");
  // No designation before the noun: not a chip's name shortened.
  EXPECT_TRUE(MustResolve(*r, "Intel Data Center GPU", "chip").created);
  // A series word between the vendor and the designation, only towards that vendor's names.
  Resolution series = MustResolve(*r, "Nvidia Ampere A100", "chip");
  EXPECT_EQ(series.id, "chip:a100");
  EXPECT_EQ(series.method, "normalised: dropped series word 'Ampere', dropped vendor prefix of 'NVIDIA A100'");
  EXPECT_TRUE(MustResolve(*r, "Intel Ampere A100", "chip").created);
  EXPECT_NE(MustResolve(*r, "Ampere A100", "chip").id, "chip:a100");
  // Words that another entity's name also holds name neither ("RTX 6000": the Quadro or the Ada?).
  EXPECT_TRUE(MustResolve(*r, "RTX 6000", "chip").created);
  // A lone number, a version or a size is no name: these make new entities.
  EXPECT_TRUE(MustResolve(*r, "4090", "chip").created);
  EXPECT_TRUE(MustResolve(*r, "910B", "chip").created);
  EXPECT_TRUE(MustResolve(*r, "70B", "llm").created);
  EXPECT_TRUE(MustResolve(*r, "3.1 70B", "llm").created);
}

// A cloud's price list names "NVIDIA H100 SXM" and "NVIDIA B200 SXM6"; Epoch
// names "NVIDIA H100 SXM5 80GB" and "NVIDIA B200".
TEST(ResolveTest, AFormFactorWithoutItsGeneration) {
  const char text[] = R"schema(
kind chip
kind organization
entity org:nvidia kind=organization name="NVIDIA"
entity chip:h100-sxm kind=chip name="NVIDIA H100 SXM5 80GB"
entity chip:h100-pcie kind=chip name="NVIDIA H100 PCIe"
entity chip:b200 kind=chip name="NVIDIA B200"
entity chip:a100-80 kind=chip name="NVIDIA A100 SXM4 80 GB"
entity chip:a100-40 kind=chip name="NVIDIA A100 SXM4 40 GB"
)schema";
  auto schema = Schema::LoadText(text, "family.schema");
  ASSERT_TRUE(schema.ok()) << schema.status().message();
  auto r = MakeEntityResolver(*schema, nullptr);
  Resolution h100 = MustResolve(*r, "NVIDIA H100 SXM", "chip");
  EXPECT_EQ(h100.id, "chip:h100-sxm");
  EXPECT_EQ(h100.method, "normalised: dropped form factor generation and size of 'NVIDIA H100 SXM5 80GB'");
  // A page's form factor is not dropped to meet a name without one (a PCIe card is not the SXM module).
  EXPECT_TRUE(MustResolve(*r, "NVIDIA B200 SXM6", "chip").created);
  // Two SXM4 variants: "A100 SXM" is either.
  EXPECT_TRUE(MustResolve(*r, "NVIDIA A100 SXM", "chip").created);
}

TEST(ResolveTest, NewEntitiesGetFreeIdsAndAreReused) {
  Schema schema = LoadBareSchema();
  auto r = MakeEntityResolver(schema, nullptr);
  Resolution a = MustResolve(*r, "Widget  Ultra", "chip");
  EXPECT_TRUE(a.created);
  EXPECT_EQ(a.id, "chip:widget-ultra");
  Resolution again = MustResolve(*r, "widget ultra", "chip");
  EXPECT_FALSE(again.created);
  EXPECT_EQ(again.id, a.id);
  // Names that differ only in case and punctuation are one name.
  EXPECT_EQ(MustResolve(*r, "Widget-Ultra!", "chip").id, a.id);
  // A slug already taken by another entity (here the schema's chip:zz-9, "Omega") gets a suffix.
  Resolution slug_taken = MustResolve(*r, "ZZ 9", "chip");
  EXPECT_TRUE(slug_taken.created);
  EXPECT_EQ(slug_taken.id, "chip:zz-9-2");
  ASSERT_EQ(r->NewEntities().size(), 2u);
  EXPECT_EQ(r->NewEntities()[0].name, "Widget Ultra");
  EXPECT_EQ(r->NewEntities()[0].kind, "chip");
  EXPECT_TRUE(r->NewEntities()[0].aliases.empty());
  // Created entities are candidates for the normaliser too.
  Resolution paren = MustResolve(*r, "Widget Ultra (rev B)", "chip");
  EXPECT_EQ(paren.id, a.id);
  EXPECT_FALSE(paren.exact);
  // A new organization becomes a vendor prefix for later names.
  EXPECT_TRUE(MustResolve(*r, "Nimbus Labs", "organization").created);
  Resolution n = MustResolve(*r, "Nimbus Labs Widget", "chip");
  EXPECT_EQ(n.id, "chip:widget");
  EXPECT_FALSE(n.exact);
}

TEST(ResolveTest, DistinctNamesDoNotMerge) {
  Schema schema = LoadBareSchema();
  {
    // Without the declaration, the parenthesised variant folds into the plain chip ...
    auto r = MakeEntityResolver(schema, nullptr);
    EXPECT_EQ(MustResolve(*r, "Huawei Ascend 910 (320 TFLOPS)", "chip").id, "chip:ascend-910");
  }
  {
    // ... but rows a dataset lists separately stay separate, whatever their order.
    auto r = MakeEntityResolver(schema, nullptr);
    ASSERT_TRUE(r->DeclareDistinct("chip", {"Huawei Ascend 910 (320 TFLOPS)", "Huawei Ascend 910",
                                            "Baidu R100 (75W)", "Baidu R100 (100W)", "Amazon Trainium1"})
                    .ok());
    Resolution variant = MustResolve(*r, "Huawei Ascend 910 (320 TFLOPS)", "chip");
    EXPECT_TRUE(variant.created);
    EXPECT_EQ(variant.id, "chip:huawei-ascend-910-320-tflops");
    EXPECT_EQ(MustResolve(*r, "Huawei Ascend 910", "chip").id, "chip:ascend-910");
    Resolution w75 = MustResolve(*r, "Baidu R100 (75W)", "chip");
    Resolution w100 = MustResolve(*r, "Baidu R100 (100W)", "chip");
    EXPECT_NE(w75.id, w100.id);
    // A distinct name with no look-alike among the others still normalises.
    EXPECT_EQ(MustResolve(*r, "Amazon Trainium1", "chip").id, "chip:aws-trainium");
  }
}

TEST(ResolveTest, MakeEntityIdSlugs) {
  EXPECT_EQ(MakeEntityId("chip", "AWS Trainium (Trn1)"), "chip:aws-trainium-trn1");
  EXPECT_EQ(MakeEntityId("organization", "Moore Threads (Tencent)"), "org:moore-threads-tencent");
  EXPECT_EQ(MakeEntityId("llm", "Llama 3.1 8B"), "llm:llama-3.1-8b");
  EXPECT_EQ(MakeEntityId("instance_type", "trn1.32xlarge"), "instance:trn1.32xlarge");
  EXPECT_EQ(MakeEntityId("process_node", "TSMC N5"), "node:tsmc-n5");
  EXPECT_EQ(MakeEntityId("data_center", "Project Rainier"), "dc:project-rainier");
  EXPECT_EQ(MakeEntityId("rack_design", "Trn2 UltraServer"), "rack:trn2-ultraserver");
  EXPECT_EQ(MakeEntityId("chip", "Cambricon MLU370-S4/S8"), "chip:cambricon-mlu370-s4-s8");
  EXPECT_EQ(MakeEntityId("chip", "  --NVIDIA  H100.  "), "chip:nvidia-h100");
  EXPECT_EQ(MakeEntityId("chip", "昇腾 910"), "chip:昇腾-910");
  std::string punct = MakeEntityId("chip", "→ ?");
  EXPECT_EQ(punct.rfind("chip:", 0), 0u);
  EXPECT_GT(punct.size(), 5u);
}

// ---- with a real store -----------------------------------------------------------------------------

TEST(ResolveStoreTest, StoreEntitiesMatchExactlyAndByNormaliser) {
  Schema schema = LoadBareSchema();
  TempStore store;
  ASSERT_NE(store.get(), nullptr);
  Entity e;
  e.id = "chip:nimbus-x";
  e.kind = "chip";
  e.name = "Nimbus Xeon";
  e.aliases = {"NX-1000"};
  ASSERT_TRUE((*store).PutEntity(e).ok());
  auto r = MakeEntityResolver(schema, store.get());
  Resolution exact = MustResolve(*r, "nx 1000", "chip");
  EXPECT_EQ(exact.id, "chip:nimbus-x");
  EXPECT_TRUE(exact.exact);
  EXPECT_EQ(exact.method, "store");
  EXPECT_EQ(exact.matched, "NX-1000");
  Resolution norm = MustResolve(*r, "Amazon Nimbus Xeon1", "chip");
  EXPECT_EQ(norm.id, "chip:nimbus-x");
  EXPECT_FALSE(norm.exact);
  EXPECT_EQ(norm.method, "normalised: dropped vendor prefix, dropped generation suffix 1");
  // The store's entity is of another kind than asked: no match.
  EXPECT_TRUE(MustResolve(*r, "Nimbus Xeon", "organization").created);
  // A new entity's id must not collide with a stored one.
  Resolution fresh = MustResolve(*r, "Nimbus X", "chip");
  EXPECT_TRUE(fresh.created);
  EXPECT_EQ(fresh.id, "chip:nimbus-x-2");
}

TEST(ResolveStoreTest, RecordedMatchesAreReviewedAndRejectionsStick) {
  Schema schema = LoadBareSchema();
  TempStore store;
  ASSERT_NE(store.get(), nullptr);
  {
    auto r = MakeEntityResolver(schema, store.get());
    EXPECT_EQ(MustResolve(*r, "Amazon Trainium1", "chip").id, "chip:aws-trainium");
    EXPECT_EQ(MustResolve(*r, "Amazon Trainium2", "chip").id, "chip:aws-trainium2");
    ASSERT_TRUE(RecordMatches(*store, r->NewMatches()).ok());
  }
  auto listed = ListMatches(*store);
  ASSERT_TRUE(listed.ok()) << listed.status().message();
  ASSERT_EQ(listed->size(), 2u);
  for (const MatchRecord& m : *listed) EXPECT_EQ(m.decision, "pending");

  ASSERT_TRUE(DecideMatch(*store, "chip", "amazon trainium1", /*confirm=*/false).ok());
  ASSERT_TRUE(DecideMatch(*store, "chip", "Amazon Trainium2", /*confirm=*/true).ok());
  EXPECT_TRUE(DecideMatch(*store, "chip", "Never Seen", true).IsNotFound());
  {
    auto r = MakeEntityResolver(schema, store.get());
    Resolution rejected = MustResolve(*r, "Amazon Trainium1", "chip");
    EXPECT_NE(rejected.id, "chip:aws-trainium");  // never re-made
    EXPECT_TRUE(rejected.created);
    EXPECT_EQ(rejected.id, "chip:amazon-trainium1");
    Resolution confirmed = MustResolve(*r, "Amazon Trainium2", "chip");
    EXPECT_EQ(confirmed.id, "chip:aws-trainium2");
    EXPECT_TRUE(confirmed.exact);
    EXPECT_EQ(confirmed.method, "confirmed match");
    EXPECT_TRUE(r->NewMatches().empty());
    // Re-recording the same pair as pending does not undo a person's decision.
    ASSERT_TRUE(RecordMatches(*store, {{"chip", "Amazon Trainium1", "chip:aws-trainium", "x", "pending"}}).ok());
  }
  listed = ListMatches(*store);
  ASSERT_TRUE(listed.ok());
  ASSERT_EQ(listed->size(), 2u);
  for (const MatchRecord& m : *listed) {
    EXPECT_EQ(m.decision, m.name == "Amazon Trainium1" ? "rejected" : "confirmed") << m.name;
  }
  // With a single decided record, a person may change their mind.
  ASSERT_TRUE(DecideMatch(*store, "chip", "Amazon Trainium1", true).ok());
  auto r = MakeEntityResolver(schema, store.get());
  EXPECT_EQ(MustResolve(*r, "Amazon Trainium1", "chip").id, "chip:aws-trainium");
  // Bad records are refused before anything is written.
  EXPECT_TRUE(RecordMatches(*store, {{"chip", "", "chip:x", "m", ""}}).IsInvalidArgument());
  EXPECT_TRUE(RecordMatches(*store, {{"chip", "A", "chip:x", "m", "maybe"}}).IsInvalidArgument());
}

TEST(ResolveStoreTest, RejectedMatchFallsThroughToTheNextCandidateRule) {
  Schema schema = LoadBareSchema();
  TempStore store;
  ASSERT_NE(store.get(), nullptr);
  ASSERT_TRUE(RecordMatches(*store, {{"chip", "Amazon Trainium2", "chip:aws-trainium2", "m", "rejected"}}).ok());
  auto r = MakeEntityResolver(schema, store.get());
  Resolution res = MustResolve(*r, "Amazon Trainium2", "chip");
  EXPECT_TRUE(res.created);
  EXPECT_TRUE(r->NewMatches().empty());
}

TEST(ResolveStoreTest, CorruptMatchRecordIsReported) {
  Schema schema = LoadBareSchema();
  TempStore store;
  ASSERT_NE(store.get(), nullptr);
  ASSERT_TRUE((*store).PutMeta("match/chip/x/chip:y", "{not json").ok());
  auto listed = ListMatches(*store);
  ASSERT_FALSE(listed.ok());
  EXPECT_TRUE(listed.status().IsCorruption());
  EXPECT_NE(listed.status().message().find("match/chip/x/chip:y"), std::string::npos);
  auto r = MakeEntityResolver(schema, store.get());
  EXPECT_FALSE(r->Resolve("Amazon Trainium9", "chip").ok());
}

}  // namespace
}  // namespace chipkg
