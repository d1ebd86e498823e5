// Loading schema files: the real schema/ directory, and every kind of
// mistake a file can hold, each reported as FILE:LINE: message.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "schema/schema.h"

namespace chipkg {
namespace {

// Enough declarations for the snippets below to refer to.
const char kBase[] = R"(kind chip
kind organization
kind llm
qualifier format
qualifier sparsity
qualifier scope
dimension bytes canonical=B display=GB
dimension watts canonical=W display=W
dimension ops_per_second canonical=op/s display=TFLOPS
dimension count canonical=1 display=1
unit B bytes 1
unit GB bytes 1e9
unit W watts 1
unit op/s ops_per_second 1
unit TFLOPS ops_per_second 1e12
predicate memory quantity dimension=bytes subjects=chip
predicate tdp quantity dimension=watts subjects=chip
predicate peak_throughput quantity dimension=ops_per_second subjects=chip
predicate designer entity object=organization subjects=chip
predicate memory_type text subjects=chip
predicate parameters quantity dimension=count subjects=llm
table bytes_per_parameter fp16=2 int8=1
)";

// Loads kBase (as base.schema) and then `text` (as t.schema); returns the error message.
std::string ErrorOf(const std::string& text) {
  Result<Schema> s = Schema::LoadTexts({{"base.schema", kBase}, {"t.schema", text}});
  if (s.ok()) return "(loaded without error)";
  EXPECT_TRUE(s.status().IsInvalidArgument()) << s.status().message();
  return s.status().message();
}

// The first error line must start with "t.schema:LINE: " and contain `what`.
void ExpectError(const std::string& text, int line, const std::string& what) {
  std::string message = ErrorOf(text);
  std::string first = message.substr(0, message.find('\n'));
  std::string prefix = "t.schema:" + std::to_string(line) + ": ";
  EXPECT_EQ(first.rfind(prefix, 0), 0u) << "expected " << prefix << "... for:\n" << text << "\ngot: " << message;
  EXPECT_NE(first.find(what), std::string::npos) << "expected '" << what << "' in: " << first;
}

TEST(SchemaLoader, RealDirectoryLoads) {
  Result<Schema> s = Schema::LoadDirectory(std::string(CHIPKG_SOURCE_DIR) + "/schema");
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_NE(s->FindPredicate("memory_bandwidth"), nullptr);
  EXPECT_NE(s->FindPredicate("fits"), nullptr);
  EXPECT_NE(s->FindAttribute("bf16"), nullptr);
  EXPECT_NE(s->FindDerivation("fits"), nullptr);
  EXPECT_NE(s->FindDerivation("perf_per_watt"), nullptr);
  EXPECT_NE(s->FindDerivation("price_per_chip_hour"), nullptr);
  EXPECT_NE(s->FindDimension("bytes"), nullptr);
  EXPECT_EQ(s->tables().at("bytes_per_parameter").at("int4"), 0.5);
  for (const char* kind : {"chip", "organization", "process_node", "data_center", "instance_type", "rack_design",
                           "llm"}) {
    EXPECT_NE(std::find(s->entity_kinds().begin(), s->entity_kinds().end(), kind), s->entity_kinds().end()) << kind;
  }
}

// The entities the three seed pages and the Epoch CSV name.
TEST(SchemaLoader, RealDirectoryCoversTheSeedsAndEpoch) {
  Result<Schema> s = Schema::LoadDirectory(std::string(CHIPKG_SOURCE_DIR) + "/schema");
  ASSERT_TRUE(s.ok()) << s.status().message();
  struct Case {
    const char* name;
    const char* id;
  } cases[] = {
      {"AWS Trainium (Trn1)", "chip:aws-trainium"},
      {"Amazon Trainium (Trn1)", "chip:aws-trainium"},
      {"Amazon Trainium1", "chip:aws-trainium"},
      {"AWS Trainium 2", "chip:aws-trainium2"},
      {"Amazon Trainium2", "chip:aws-trainium2"},
      {"Trainium 3", "chip:aws-trainium3"},
      {"AWS Inferentia2", "chip:aws-inferentia2"},
      {"Amazon", "org:amazon"},
      {"Amazon AWS", "org:amazon"},
      {"Annapurna Labs", "org:annapurna-labs"},
      {"TSMC", "org:tsmc"},
      {"TSMC N7", "node:tsmc-n7"},
      {"TSMC N5", "node:tsmc-n5"},
      {"trn1.2xlarge", "instance:trn1.2xlarge"},
      {"trn1.32xlarge", "instance:trn1.32xlarge"},
      {"AWS Trainium 2 UltraServer", "rack:aws-trainium2-ultraserver"},
      {"Amazon 'Bridgefield' GWU Ashburn Campus", "dc:amazon-bridgefield-ashburn"},
      {"Amazon Project Rainier Data Center (New Carlisle)", "dc:amazon-project-rainier-new-carlisle"},
      {"Amazon Project Rainier", "dc:amazon-project-rainier-new-carlisle"},
      {"AWS Susquehanna (Cumulus) Nuclear-Coupled Data Center Campus", "dc:aws-susquehanna-cumulus"},
      {"AWS Susquehanna (Cumulus) Nuclear-Coupled", "dc:aws-susquehanna-cumulus"},
      {"Anthropic", "org:anthropic"},
      {"Llama 3.1 8B", "llm:llama-3.1-8b"},
      {"Llama 3.1 70B", "llm:llama-3.1-70b"},
      {"Llama 3.1 405B", "llm:llama-3.1-405b"},
      {"Llama 3.3 70B", "llm:llama-3.3-70b"},
      {"DeepSeek V3", "llm:deepseek-v3"},
      {"DeepSeek R1", "llm:deepseek-r1"},
      {"Qwen 2.5 7B", "llm:qwen-2.5-7b"},
      {"Qwen 2.5 72B", "llm:qwen-2.5-72b"},
      {"Mixtral 8x7B", "llm:mixtral-8x7b"},
      {"Mixtral 8x22B", "llm:mixtral-8x22b"},
      {"Gemma 2 27B", "llm:gemma-2-27b"},
      {"Command R+", "llm:command-r-plus"},
      {"Kimi K2", "llm:kimi-k2"},
  };
  for (const Case& c : cases) {
    const EntityDef* e = s->ResolveEntity(c.name);
    ASSERT_NE(e, nullptr) << c.name;
    EXPECT_EQ(e->id, c.id) << c.name;
  }
  // Every manufacturer and foundry spelling of the Epoch CSV names an organization.
  for (const char* name : {"Amazon AWS", "NVIDIA", "Google", "AMD", "Intel", "Huawei", "Kunlunxin Baidu", "Cambricon",
                           "MetaX", "Meta", "Iluvatar CoreX", "National University of Defense Technology",
                           "Microsoft", "Moore Threads (Tencent)", "Sunway", "Biren", "Tesla", "Hygon", "Alibaba",
                           "PEZY", "TSMC", "Samsung", "SMIC"}) {
    const EntityDef* e = s->ResolveEntity(name);
    ASSERT_NE(e, nullptr) << name;
    EXPECT_EQ(e->kind, "organization") << name;
  }
  EXPECT_NE(s->ResolveEntity("Meta")->id, s->ResolveEntity("MetaX")->id);
}

TEST(SchemaLoader, DefaultDirectoryFollowsTheEnvironment) {
  const char* saved = std::getenv("CHIPKG_SCHEMA_DIR");
  std::string saved_value = saved ? saved : "";
  setenv("CHIPKG_SCHEMA_DIR", "/some/where", 1);
  EXPECT_EQ(Schema::DefaultDirectory(), "/some/where");
  unsetenv("CHIPKG_SCHEMA_DIR");
  std::string compiled = Schema::DefaultDirectory();
  EXPECT_TRUE(std::filesystem::exists(compiled + "/core.schema")) << compiled;
  if (saved) setenv("CHIPKG_SCHEMA_DIR", saved_value.c_str(), 1);
}

TEST(SchemaLoader, DirectoryIsReadRecursivelyInPathOrderWithFullPathsInErrors) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("chipkg_schema_test_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "sites");
  auto write = [](const fs::path& p, const std::string& text) { std::ofstream(p) << text; };
  // The label in a/ refers to a predicate b.schema declares later in path order.
  write(dir / "a.schema", "label \"Speed\" speed site=example.com\n");
  write(dir / "b.schema", "kind chip\ndimension count canonical=1\npredicate speed quantity dimension=count subjects=chip\n");
  write(dir / "sites" / "x.schema", "not_published \"not disclosed\"\n");
  write(dir / "ignored.txt", "this is not a schema file\n");
  Result<Schema> s = Schema::LoadDirectory(dir.string());
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_NE(s->FindLabel("speed:", "example.com"), nullptr);
  EXPECT_TRUE(s->SaysNotPublished("Not  disclosed by the vendor"));

  write(dir / "sites" / "x.schema", "not_published \"not disclosed\"\nlabel \"Power\" watts_used\n");
  Result<Schema> bad = Schema::LoadDirectory(dir.string());
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().message().rfind((dir / "sites" / "x.schema").string() + ":2: ", 0), 0u)
      << bad.status().message();
  fs::remove_all(dir);

  Result<Schema> missing = Schema::LoadDirectory(dir.string());
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find(dir.string()), std::string::npos);
}

TEST(SchemaLoader, SyntaxErrors) {
  ExpectError("kind chip2\nfrobnicate x\n", 2, "unknown directive 'frobnicate'");
  ExpectError("\n\nlabel \"Memory memory\n", 3, "unterminated quote");
  ExpectError("label \"a\\q\" memory\n", 1, "unknown escape");
  ExpectError("label \"a\"b memory\n", 1, "after a closing quote");
  ExpectError("kind\n", 1, "missing argument");
  ExpectError("unit GB\n", 1, "missing argument");
  ExpectError("kind a b\n", 1, "unexpected argument \"b\"");
  ExpectError("kind foo colour=red\n", 1, "unknown option 'colour'");
  ExpectError("predicate speed quantity dimension=bytes subjects=chip colour=red\n", 1, "unknown option 'colour'");
  ExpectError("predicate speed quantity dimension=bytes dimension=watts subjects=chip\n", 1, "given twice");
  ExpectError("predicate speed quantity subjects=chip\n", 1, "needs dimension=");
  ExpectError("predicate speed colour subjects=chip\n", 1, "unknown value type 'colour'");
  ExpectError("predicate maker entity subjects=chip\n", 1, "needs object=");
  ExpectError("predicate name text\n", 1, "needs subjects=");
  ExpectError("predicate 2fast text subjects=chip\n", 1, "bad predicate name");
  ExpectError("kind x description=\n", 1, "has no value");
  ExpectError("label memory \"Memory\"\nkind y\nkind \"\"\n", 3, "empty argument");
  ExpectError("entity chip:x kind=chip name=X\nentity chip:y name=Y\n", 2, "needs kind=");
  ExpectError("entity chipx kind=chip name=X\n", 1, "bad entity id");
  ExpectError("derive d dimension=watts\n", 1, "needs formula=");
  ExpectError("kind robot # a comment \"with a quote\nkind robot\n", 2, "duplicate kind 'robot'");
}

TEST(SchemaLoader, BadNumbers) {
  ExpectError("unit KB bytes 1e3x\n", 1, "bad number '1e3x'");
  ExpectError("unit KB bytes 1,000\n", 1, "bad number '1,000'");
  ExpectError("unit KB bytes -1000\n", 1, "must be positive");
  ExpectError("table bits fp16=16 int8=eight\n", 1, "bad number 'eight'");
  ExpectError("table empty\n", 1, "no entries");
  ExpectError("unit 1x watts 1\n", 1, "starts like a number");
  ExpectError("unit \"$ \" watts 1\n", 1, "nothing after '$'");
}

// values=many: a subject's values stand side by side (regions); anything
// else but one or many is a mistake, not a silent single value.
TEST(SchemaLoader, PredicateValuesAreOneOrMany) {
  ExpectError("predicate regions text values=several subjects=chip\n", 1,
              "predicate regions: values= is one or many, not 'several'");
  Result<Schema> s = Schema::LoadTexts(
      {{"base.schema", kBase}, {"t.schema", "predicate regions text values=many subjects=chip\n"}});
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_TRUE(s->FindPredicate("regions")->many_values);
  EXPECT_FALSE(s->FindPredicate("memory")->many_values);
  Result<Schema> real = Schema::LoadDirectory(std::string(CHIPKG_SOURCE_DIR) + "/schema");
  ASSERT_TRUE(real.ok()) << real.status().message();
  EXPECT_TRUE(real->FindPredicate("available_in")->many_values);
  EXPECT_FALSE(real->FindPredicate("foundry")->many_values);
}

TEST(SchemaLoader, Duplicates) {
  ExpectError("\npredicate memory quantity dimension=bytes subjects=chip\n", 2,
              "duplicate predicate 'memory' (first declared at base.schema:16)");
  ExpectError("unit GB bytes 1e9\n", 1, "duplicate unit spelling 'GB' in dimension bytes");
  ExpectError("entity chip:a kind=chip name=A\nentity chip:a kind=chip name=B\n", 2, "duplicate entity id 'chip:a'");
  ExpectError("label \"Memory\" memory\nlabel \"memory:\" memory_type\n", 2, "duplicate label");
  ExpectError("qualifier format\n", 1, "duplicate qualifier 'format'");
  ExpectError("table bytes_per_parameter fp8=1\n", 1, "duplicate table");
  ExpectError("attribute a peak_throughput format=fp8\nattribute a peak_throughput format=int8\n", 2,
              "duplicate attribute 'a'");
}

TEST(SchemaLoader, SameSpellingInTwoDimensionsIsAllowed) {
  Result<Schema> s = Schema::LoadTexts({{"base.schema", kBase}, {"t.schema", "unit GB count 1e9\n"}});
  ASSERT_TRUE(s.ok()) << s.status().message();
}

TEST(SchemaLoader, UnknownReferences) {
  ExpectError("dimension length canonical=m\n", 1, "canonical unit 'm' is not declared");
  ExpectError("dimension length canonical=km\nunit km length 1000\n", 1, "must have factor 1");
  ExpectError("dimension length canonical=m display=nm\nunit m length 1\n", 1, "unknown display unit 'nm'");
  ExpectError("unit mi miles 1609\n", 1, "unknown dimension 'miles'");
  ExpectError("predicate speed quantity dimension=velocity subjects=chip\n", 1, "unknown dimension 'velocity'");
  ExpectError("predicate speed quantity dimension=watts display=GB subjects=chip\n", 1,
              "unknown unit 'GB' for dimension watts");
  ExpectError("predicate speed quantity dimension=watts subjects=robot\n", 1, "unknown kind 'robot'");
  ExpectError("predicate maker entity object=company subjects=chip\n", 1, "unknown kind 'company'");
  ExpectError("attribute bf16 peak_thruput format=bf16\n", 1, "unknown predicate 'peak_thruput'");
  ExpectError("attribute bf16 peak_throughput colour=bf16\n", 1, "unknown qualifier key 'colour'");
  ExpectError("attribute memory peak_throughput format=bf16\n", 1, "has the name of a predicate");
  ExpectError("attribute bf16 peak_throughput format=BF16\n", 1, "must be lower case");
  ExpectError("entity chip:a kind=robot name=A\n", 1, "unknown kind 'robot'");
  ExpectError("entity chip:a kind=chip name=A colour=red\n", 1, "unknown option 'colour'");
  ExpectError("label \"Bandwidth\" bandwidth\n", 1, "maps to unknown predicate or attribute 'bandwidth'");
  ExpectError("label \"Mem\" memory kind=hbm\n", 1, "unknown qualifier key 'kind'");
}

// A closed qualifier key: its values are listed, and every attribute, label
// and column must use one of them.
TEST(SchemaLoader, ClosedQualifierKeysListTheirValues) {
  Result<Schema> s = Schema::LoadTexts({{"base.schema", kBase}, {"t.schema", "qualifier precision values=fp16,int8\n"}});
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_NE(s->QualifierValues("precision"), nullptr);
  EXPECT_EQ(*s->QualifierValues("precision"), (std::vector<std::string>{"fp16", "int8"}));
  EXPECT_EQ(s->QualifierValues("format"), nullptr);  // open: any value
  ExpectError("qualifier precision values=fp16,Int8\n", 1, "value 'Int8' must be lower case");
  ExpectError("qualifier precision values=fp16\nattribute p16 peak_throughput precision=fp17\n", 2,
              "attribute p16: precision=fp17 is not among the values qualifier precision declares");
  ExpectError("qualifier precision values=fp16\nlabel \"P\" peak_throughput precision=fp8\n", 2,
              "precision=fp8 is not among the values");
  ExpectError("qualifier precision values=fp16\ncolumn epoch \"X\" peak_throughput unit=TFLOPS precision=int4\n", 2,
              "precision=int4 is not among the values");
}

// note_in= says which cell note= or not_note= read; alone it says nothing.
TEST(SchemaLoader, NoteInNeedsANotePattern) {
  ExpectError("column epoch \"Price\" launch_price unit=USD note_in=\"Source for the price\"\n", 1,
              "note_in= says where note= or not_note= look, and neither is given");
}

// Other words for attributes: one meaning per kind, never a name of its own.
TEST(SchemaLoader, SynonymsMeanOneAttributeForEachKind) {
  Result<Schema> s = Schema::LoadTexts(
      {{"base.schema", kBase},
       {"t.schema",
        "synonym Power tdp\nsynonym size parameters\nsynonym size memory\nattribute bf16 peak_throughput "
        "format=bf16\nsynonym brain_float bf16\n"}});
  ASSERT_TRUE(s.ok()) << s.status().message();
  auto targets = [&](const std::string& word, const std::string& kind) {
    std::vector<std::string> out;
    for (const SynonymDef* d : s->FindSynonyms(word, kind)) out.push_back(d->target);
    return out;
  };
  EXPECT_EQ(targets("POWER", "chip"), (std::vector<std::string>{"tdp"}));
  EXPECT_TRUE(targets("power", "llm").empty());
  EXPECT_EQ(targets("size", "llm"), (std::vector<std::string>{"parameters"}));
  EXPECT_EQ(targets("size", "chip"), (std::vector<std::string>{"memory"}));
  EXPECT_EQ(targets("size", ""), (std::vector<std::string>{"parameters", "memory"}));
  EXPECT_EQ(targets("brain_float", "chip"), (std::vector<std::string>{"bf16"}));
  ExpectError("synonym tdp memory\n", 1, "synonym tdp is already the name of an attribute");
  ExpectError("synonym power watts\n", 1, "synonym power: unknown attribute 'watts'");
  ExpectError("synonym power tdp\nsynonym power memory\n", 2, "synonym power already means tdp for the same kinds");
  ExpectError("synonym power\n", 1, "missing argument: synonym takes WORD ATTRIBUTE");
  ExpectError("synonym 2power tdp\n", 1, "bad synonym name '2power'");
}

TEST(SchemaLoader, EntityPropertiesNamePredicates) {
  Result<Schema> s =
      Schema::LoadTexts({{"base.schema", kBase}, {"t.schema", "entity chip:a kind=chip name=A memory_type=HBM3\n"}});
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->ResolveEntity("A")->properties.at("memory_type"), "HBM3");
}

// Tokens are read a run of plain characters at a time: what a quote, an
// escape, a second '=' or a '#' does inside a token must survive that.
TEST(SchemaLoader, TokensKeepQuotesEscapesAndEquals) {
  Result<Schema> s = Schema::LoadTexts(
      {{"base.schema", kBase},
       {"t.schema",
        "entity chip:a kind=chip name=\"Acme \\\"X\\\" 9\\\\1\" alias=\"Acme, Inc.\" alias=ax1,ax2 memory_type=a=b=c\n"
        "entity chip:b kind=chip name=Half\"quoted name\" alias=b1,b2 # alias=not-this\n"}});
  ASSERT_TRUE(s.ok()) << s.status().message();
  const EntityDef* a = s->ResolveEntity("chip:a");
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(a->name, "Acme \"X\" 9\\1");
  EXPECT_EQ(a->aliases, (std::vector<std::string>{"Acme, Inc.", "ax1", "ax2"}));  // a quoted item stays whole
  EXPECT_EQ(a->properties.at("memory_type"), "a=b=c");
  const EntityDef* b = s->ResolveEntity("chip:b");
  ASSERT_NE(b, nullptr);
  EXPECT_EQ(b->name, "Halfquoted name");
  EXPECT_EQ(b->aliases, (std::vector<std::string>{"b1", "b2"}));
  // The options a directive accepts are listed in order whatever order the code names them in.
  ExpectError("dimension d canonical=B colour=red\n", 1, "(accepted: canonical, description, display)");
}

TEST(SchemaLoader, LabelToAttributeExpands) {
  Result<Schema> s = Schema::LoadTexts(
      {{"base.schema", kBase},
       {"t.schema",
        "attribute bf16 peak_throughput format=bf16 sparsity=dense label=\"BF16 dense\"\n"
        "label \"BF16 (dense)\" bf16 scope=chip\n"
        "predicate power quantity dimension=watts subjects=chip label=Power label=\"Board power\"\n"}});
  ASSERT_TRUE(s.ok()) << s.status().message();
  const LabelDef* l = s->FindLabel("BF16 (dense)");
  ASSERT_NE(l, nullptr);
  EXPECT_EQ(l->predicate, "peak_throughput");
  EXPECT_EQ(l->qualifiers, (Qualifiers{{"format", "bf16"}, {"sparsity", "dense"}, {"scope", "chip"}}));
  ASSERT_NE(s->FindLabel("bf16 DENSE"), nullptr);
  EXPECT_EQ(s->FindLabel("bf16 DENSE")->qualifiers.at("format"), "bf16");
  ASSERT_NE(s->FindLabel("board power:"), nullptr);
  EXPECT_EQ(s->FindLabel("board power:")->predicate, "power");

  ExpectError("attribute bf16 peak_throughput format=bf16\nlabel \"X\" bf16 format=fp8\n", 2,
              "format=fp8 contradicts attribute bf16");
}

TEST(SchemaLoader, AliasConflicts) {
  ExpectError("entity chip:a kind=chip name=\"Chip A\" alias=Alpha\n"
              "entity chip:b kind=chip name=\"Chip B\" alias=\"ALPHA\"\n",
              2, "alias \"ALPHA\" of chip:b is already a name or alias of chip:a (t.schema:1)");
  // A name clashing with another entity's alias counts too, across files.
  Result<Schema> s = Schema::LoadTexts({{"base.schema", kBase},
                                        {"a.schema", "entity chip:a kind=chip name=\"Chip A\" alias=\"Chip-B\"\n"},
                                        {"b.schema", "entity chip:b kind=chip name=\"Chip B\"\n"}});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().message().rfind("b.schema:1: alias \"Chip B\" of chip:b", 0), 0u) << s.status().message();
  // The same entity may repeat a spelling that normalises alike.
  EXPECT_EQ(ErrorOf("entity chip:a kind=chip name=\"Chip A\" alias=\"chip-a\" alias=ChipA\n"),
            "(loaded without error)");
  ExpectError("entity chip:a kind=chip name=\"---\"\n", 1, "has no letters or digits");
}

TEST(SchemaLoader, ListOptionsRepeatOrTakeCommas) {
  Result<Schema> s = Schema::LoadTexts(
      {{"base.schema", kBase},
       {"t.schema",
        "entity chip:a kind=chip name=A alias=Alpha,Aleph alias=\"Alpha, Inc.\"\n"
        "predicate released date subjects=chip,llm subjects=organization\n"}});
  ASSERT_TRUE(s.ok()) << s.status().message();
  const EntityDef* e = s->ResolveEntity("aleph");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->aliases, (std::vector<std::string>{"Alpha", "Aleph", "Alpha, Inc."}));
  EXPECT_EQ(s->FindPredicate("released")->subject_kinds, (std::vector<std::string>{"chip", "llm", "organization"}));
  ExpectError("predicate released date subjects=chip,,llm\n", 1, "empty item");
}

TEST(SchemaLoader, QuotesAndComments) {
  Result<Schema> s = Schema::LoadTexts(
      {{"base.schema", kBase},
       {"t.schema",
        "  # a comment line\n"
        "\t\n"
        "label \"Say \\\"hi\\\" # not a comment \\\\ ok\" memory   # a trailing comment\n"
        "not_published \"doesn't have a public\"\r\n"}});
  ASSERT_TRUE(s.ok()) << s.status().message();
  ASSERT_EQ(s->labels().size(), 1u);
  EXPECT_EQ(s->labels()[0].label, "Say \"hi\" # not a comment \\ ok");
  EXPECT_EQ(s->not_published_phrases(), (std::vector<std::string>{"doesn't have a public"}));
}

TEST(SchemaLoader, ErrorsAreCollectedFirstOneFirst) {
  std::string message = ErrorOf("kind\nfoo\nbar\n");
  EXPECT_EQ(message, "t.schema:1: missing argument: kind takes a kind name\n"
                     "t.schema:2: unknown directive 'foo' (expected kind, qualifier, dimension, unit, predicate, "
                     "attribute, label, entity, not_published, table, derive, column or synonym)\n"
                     "t.schema:3: unknown directive 'bar' (expected kind, qualifier, dimension, unit, predicate, "
                     "attribute, label, entity, not_published, table, derive, column or synonym)");
  std::string many;
  for (int i = 0; i < 30; ++i) many += "nonsense\n";
  EXPECT_NE(ErrorOf(many).find("(and 10 more errors)"), std::string::npos);
}

TEST(SchemaLoader, DeriveChecks) {
  ExpectError("derive d formula=\"tdp / \" dimension=watts\n", 1, "does not parse");
  ExpectError("derive d formula=\"tdp * (memory\" dimension=watts\n", 1, "expected ')'");
  ExpectError("derive d formula=\"tdp / memry\" dimension=watts\n", 1, "unknown predicate 'memry'");
  ExpectError("derive d formula=\"tdp / memory_type\" dimension=watts\n", 1, "'memory_type' is not a quantity");
  ExpectError("derive d params=m formula=\"m.parameter * 2 <= memory\"\n", 1, "unknown predicate 'parameter'");
  ExpectError("derive d params=m formula=\"x.parameters <= memory\"\n", 1, "'x' is not a parameter of d");
  ExpectError("derive d params=m,p formula=\"m.parameters * bits(p) <= memory\"\n", 1, "unknown table 'bits'");
  ExpectError("derive d params=m formula=\"m.parameters * bytes_per_parameter(p) <= memory\"\n", 1,
              "'p' in bytes_per_parameter(p) is not a parameter of d");
  ExpectError("derive d params=m formula=\"m * 2 <= memory\"\n", 1, "parameter 'm' is not a number");
  ExpectError("derive d formula=\"tdp / memory\"\n", 1, "needs dimension=");
  ExpectError("derive d formula=\"tdp <= memory\" dimension=watts\n", 1, "takes no dimension=");
  ExpectError("derive d formula=\"tdp / memory\" dimension=speed\n", 1, "unknown dimension 'speed'");
  ExpectError("derive d formula=\"tdp / memory\" dimension=watts display=GB\n", 1, "unknown unit 'GB'");
  ExpectError("derive d params=m,m formula=\"tdp\" dimension=watts\n", 1, "parameter 'm' twice");
  ExpectError("attribute a peak_throughput format=fp16\nderive a formula=\"tdp\" dimension=watts\n", 2,
              "has the name of an attribute");
}

TEST(SchemaLoader, ColumnDirective) {
  const char kColumns[] = R"schema(dimension bytes_per_second canonical=B/s
unit B/s bytes_per_second 1
predicate memory_bandwidth quantity dimension=bytes_per_second subjects=chip
predicate tensor_cores quantity dimension=count subjects=chip
column epoch "Hardware name" role=name
column epoch "Memory (bytes)" memory unit=B
column epoch "Tensor-FP16/BF16 performance (FLOP/s)" peak_throughput unit=op/s format=bf16 sparsity=dense
column epoch "Energy efficiency" peak_throughput unit=TFLOPS derived="Max performance / TDP (W)"
column epoch "Manufacturer" designer
column epoch "Tensor cores" tensor_cores
column other "Name" role=name
column epoch "Last modified" role=as_of
)schema";
  Result<Schema> s = Schema::LoadTexts({{"base.schema", kBase}, {"c.schema", kColumns}});
  ASSERT_TRUE(s.ok()) << s.status().message();
  std::vector<const ColumnDef*> cols = s->ColumnsOf("epoch");
  ASSERT_EQ(cols.size(), 7u);
  EXPECT_EQ(cols[0]->header, "Hardware name");
  EXPECT_EQ(cols[0]->role, "name");
  EXPECT_TRUE(cols[0]->predicate.empty());
  EXPECT_EQ(cols[1]->predicate, "memory");
  EXPECT_EQ(cols[1]->role, "value");
  EXPECT_EQ(cols[1]->unit, "B");
  EXPECT_EQ(cols[2]->qualifiers, (Qualifiers{{"format", "bf16"}, {"sparsity", "dense"}}));
  EXPECT_EQ(cols[3]->derived, "Max performance / TDP (W)");
  EXPECT_EQ(cols[4]->predicate, "designer");
  EXPECT_EQ(cols[5]->unit, "");
  EXPECT_EQ(cols[6]->role, "as_of");
  EXPECT_EQ(cols[1]->file, "c.schema");
  EXPECT_EQ(cols[1]->line, 6);
  EXPECT_EQ(s->ColumnsOf("other").size(), 1u);
  EXPECT_TRUE(s->ColumnsOf("nothing").empty());

  ExpectError("column epoch \"X\" role=owner\n", 1, "unknown column role 'owner'");
  ExpectError("column epoch \"X\"\n", 1, "a value column names a predicate");
  ExpectError("column epoch \"X\" memory role=name\n", 1, "are for role=value");
  ExpectError("column epoch \"X\" memry unit=B\n", 1, "unknown predicate 'memry'");
  ExpectError("column epoch \"X\" memory unit=W\n", 1, "unknown unit 'W' for memory (dimension bytes)");
  ExpectError("column epoch \"X\" memory\n", 1, "unit= needed");
  ExpectError("column epoch \"X\" memory_type unit=B\n", 1, "unit= given for text predicate");
  ExpectError("column epoch \"X\" memory unit=B tensor=no\n", 1, "unknown qualifier key 'tensor'");
  ExpectError("column epoch \"X\" memory unit=B\ncolumn epoch \"X\" memory unit=GB\n", 2,
              "duplicate column \"X\" of dataset epoch");
  ExpectError("column epoch \"X\" peak_throughput unit=TFLOPS format=fp16\n"
              "column epoch \"X\" peak_throughput unit=TFLOPS format=fp16\n",
              2, "duplicate column \"X\" of dataset epoch");
  // The same cell as two claims: another predicate or other qualifiers.
  Result<Schema> two = Schema::LoadTexts({{"base.schema", kBase},
                                          {"t.schema",
                                           "column epoch \"X\" peak_throughput unit=TFLOPS format=fp16\n"
                                           "column epoch \"X\" peak_throughput unit=TFLOPS format=int8\n"
                                           "column epoch \"Y\" memory unit=B\ncolumn epoch \"Y\" tdp unit=W\n"}});
  ASSERT_TRUE(two.ok()) << two.status().message();
  EXPECT_EQ(two->ColumnsOf("epoch").size(), 4u);
  ExpectError("column epoch \"X\" memory unit=B bogus\n", 1, "after options");
}

TEST(SchemaLoader, NeverCrashesOnJunk) {
  std::string junk;
  for (int i = 0; i < 2000; ++i) junk += static_cast<char>((i * 7919) % 256);
  Result<Schema> s = Schema::LoadText(junk, "junk.schema");
  EXPECT_FALSE(s.ok());
  Result<Schema> deep = Schema::LoadTexts(
      {{"base.schema", kBase},
       {"t.schema", "derive d formula=\"" + std::string(5000, '(') + "tdp" + std::string(5000, ')') +
                        "\" dimension=watts\n"}});
  ASSERT_FALSE(deep.ok());
  EXPECT_NE(deep.status().message().find("nested too deeply"), std::string::npos);
  std::string chain = "tdp";
  for (int i = 0; i < 5000; ++i) chain += " + tdp";
  Result<Schema> wide =
      Schema::LoadTexts({{"base.schema", kBase}, {"t.schema", "derive d formula=\"" + chain + "\" dimension=watts\n"}});
  ASSERT_FALSE(wide.ok());
  EXPECT_NE(wide.status().message().find("too many operators"), std::string::npos);
}


// The fingerprint is what ingest records as the rules a document was read
// by: a comment or spacing is no change of rules (every document would be
// named as read by other rules), a changed directive or option is.
TEST(SchemaLoader, TheFingerprintFollowsDirectivesNotCommentsOrSpacing) {
  const std::string base = "kind chip\ndimension watts canonical=W display=W\nunit W watts 1\n"
                           "predicate tdp quantity dimension=watts subjects=chip description=\"Thermal power\"\n";
  auto fingerprint = [](const std::string& text) {
    auto schema = Schema::LoadText(text, "f.schema");
    EXPECT_TRUE(schema.ok()) << schema.status().message();
    return schema.ok() ? schema->fingerprint() : std::string();
  };
  const std::string original = fingerprint(base);
  EXPECT_EQ(original.size(), 64u);
  EXPECT_EQ(fingerprint("# chips and their power\n\n" + base + "  # the end\n"), original);
  EXPECT_EQ(fingerprint("kind   chip  # the one kind\n" + base.substr(base.find('\n') + 1)), original);
  EXPECT_NE(fingerprint(base + "unit kW watts 1000\n"), original);
  std::string other_option = base;
  other_option.replace(other_option.find("Thermal power"), 13, "Thermal design power");
  EXPECT_NE(fingerprint(other_option), original);
}

}  // namespace
}  // namespace chipkg
