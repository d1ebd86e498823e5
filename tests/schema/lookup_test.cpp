// Label lookup, entity resolution and "not published" phrases.

#include <gtest/gtest.h>

#include <string>

#include "schema/schema.h"

namespace chipkg {
namespace {

const char kSchema[] = R"schema(kind chip
kind organization
qualifier format
qualifier sparsity
dimension bytes canonical=B display=GB
dimension bytes_per_second canonical=B/s display=GB/s
unit B bytes 1
unit GB bytes 1e9
unit B/s bytes_per_second 1
unit GB/s bytes_per_second 1e9
predicate memory quantity dimension=bytes subjects=chip
predicate memory_bandwidth quantity dimension=bytes_per_second subjects=chip
predicate foundry entity object=organization subjects=chip
predicate designer entity object=organization subjects=chip
predicate safety_critical bool subjects=chip
attribute bf16 memory format=bf16
label "Memory bandwidth" memory_bandwidth
label "Memory" memory
label "Safety-critical?" safety_critical
label "Fabbed at" foundry site=chips.example.com
label "Fabbed at" designer
label "Maker" designer site=example.com
entity org:tsmc kind=organization name="TSMC" alias="Taiwan Semiconductor Manufacturing Company"
entity chip:aws-trainium kind=chip name="AWS Trainium" alias="Trn1" alias="Amazon Trainium (Trn1)"
not_published "not published"
not_published "doesn't have a public"
not_published "has not named"
)schema";

class Lookup : public ::testing::Test {
 protected:
  void SetUp() override {
    Result<Schema> s = Schema::LoadText(kSchema, "lookup.schema");
    ASSERT_TRUE(s.ok()) << s.status().message();
    schema_ = std::move(s).value();
  }
  Schema schema_;
};

TEST_F(Lookup, LabelNormalisation) {
  for (const char* written : {"Memory bandwidth", "memory bandwidth", "  MEMORY BANDWIDTH  ", "Memory bandwidth:",
                              "Memory   bandwidth :", "Memory\tbandwidth", "Memory\xC2\xA0" "bandwidth"}) {
    const LabelDef* l = schema_.FindLabel(written);
    ASSERT_NE(l, nullptr) << "'" << written << "'";
    EXPECT_EQ(l->predicate, "memory_bandwidth") << written;
  }
  EXPECT_EQ(schema_.FindLabel("Memory")->predicate, "memory");
  EXPECT_EQ(schema_.FindLabel("Safety-critical?")->predicate, "safety_critical");
  EXPECT_EQ(schema_.FindLabel("safety-critical")->predicate, "safety_critical");
  EXPECT_EQ(schema_.FindLabel("Safety critical"), nullptr);  // punctuation inside a label counts
  EXPECT_EQ(schema_.FindLabel("Memorybandwidth"), nullptr);
  EXPECT_EQ(schema_.FindLabel("Memory bandwidth per core"), nullptr);
  EXPECT_EQ(schema_.FindLabel(""), nullptr);
  EXPECT_EQ(schema_.FindLabel(" : "), nullptr);
}

TEST_F(Lookup, SiteLabelsComeFirst) {
  EXPECT_EQ(schema_.FindLabel("Fabbed at")->predicate, "designer");
  EXPECT_EQ(schema_.FindLabel("Fabbed at", "chips.example.com")->predicate, "foundry");
  EXPECT_EQ(schema_.FindLabel("fabbed at:", "CHIPS.example.com")->predicate, "foundry");
  EXPECT_EQ(schema_.FindLabel("Fabbed at", "other.org")->predicate, "designer");
  // A subdomain finds its parent's labels; a parent does not find a child's.
  EXPECT_EQ(schema_.FindLabel("Fabbed at", "www.chips.example.com")->predicate, "foundry");
  EXPECT_EQ(schema_.FindLabel("Fabbed at", "example.com")->predicate, "designer");
  ASSERT_NE(schema_.FindLabel("Maker", "shop.example.com"), nullptr);
  EXPECT_EQ(schema_.FindLabel("Maker"), nullptr);  // site-only label: not generic
  EXPECT_EQ(schema_.FindLabel("Maker", "com"), nullptr);
}

TEST_F(Lookup, EntityByIdNameOrAlias) {
  for (const char* written : {"chip:aws-trainium", "AWS Trainium", "aws trainium", "AWS-Trainium", "Trn1", "trn-1",
                              "Amazon Trainium (Trn1)", "amazon trainium trn1"}) {
    const EntityDef* e = schema_.ResolveEntity(written);
    ASSERT_NE(e, nullptr) << written;
    EXPECT_EQ(e->id, "chip:aws-trainium") << written;
    EXPECT_EQ(e->kind, "chip");
    EXPECT_EQ(e->name, "AWS Trainium");
  }
  EXPECT_EQ(schema_.ResolveEntity("taiwan semiconductor manufacturing company")->id, "org:tsmc");
  EXPECT_EQ(schema_.ResolveEntity("Trainium"), nullptr);  // not declared here: no guessing
  EXPECT_EQ(schema_.ResolveEntity(""), nullptr);
  EXPECT_EQ(schema_.ResolveEntity("---"), nullptr);
}

TEST_F(Lookup, NotPublishedPhrases) {
  EXPECT_TRUE(schema_.SaysNotPublished("Process node | Not published by AWS"));
  EXPECT_TRUE(schema_.SaysNotPublished("AWS Trainium (Trn1) doesn't have a public launch list price."));
  EXPECT_TRUE(schema_.SaysNotPublished("AWS Trainium (Trn1) doesn\xE2\x80\x99t have a public launch list price."));
  EXPECT_TRUE(schema_.SaysNotPublished("AWS HAS  NOT\nNAMED a foundry"));
  EXPECT_FALSE(schema_.SaysNotPublished("Published by AWS in 2022"));
  EXPECT_FALSE(schema_.SaysNotPublished("not yet published"));
  EXPECT_FALSE(schema_.SaysNotPublished(""));
  EXPECT_EQ(schema_.not_published_phrases().size(), 3u);
}

TEST_F(Lookup, UnitsByDimension) {
  EXPECT_EQ(schema_.FindUnit("GB")->factor, 1e9);
  EXPECT_EQ(schema_.FindUnit("gb")->spelling, "GB");
  EXPECT_EQ(schema_.FindUnit("B")->dimension, "bytes");
  EXPECT_EQ(schema_.FindUnit("B/s", "bytes_per_second")->dimension, "bytes_per_second");
  EXPECT_EQ(schema_.FindUnit("B", "bytes_per_second"), nullptr);
  EXPECT_EQ(schema_.FindUnit("furlong"), nullptr);
}

TEST_F(Lookup, CopiedSchemaKeepsWorking) {
  Schema copy = schema_;
  schema_ = Schema();
  EXPECT_EQ(copy.FindLabel("memory:")->predicate, "memory");
  EXPECT_EQ(copy.ResolveEntity("Trn1")->id, "chip:aws-trainium");
  EXPECT_EQ(copy.FindAttribute("bf16")->qualifiers.at("format"), "bf16");
  EXPECT_EQ(schema_.FindLabel("memory"), nullptr);
}

}  // namespace
}  // namespace chipkg
