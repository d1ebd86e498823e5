#include "ingest/dataset.h"

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <set>
#include <sstream>
#include <string>

#include <unistd.h>

#include <filesystem>

#include "engine/store.h"
#include "ingest/csv.h"
#include "ingest/resolve.h"
#include "schema/schema.h"

namespace chipkg {
namespace {

const char kDataset[] = "epoch-ml-hardware";
const char kDoc[] = "epoch-ml-hardware-csv";

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The real schema directory and the real file, loaded once for the suite.
class EpochDatasetTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    auto schema = Schema::LoadDirectory(std::string(CHIPKG_SOURCE_DIR) + "/schema");
    ASSERT_TRUE(schema.ok()) << schema.status().message();
    schema_ = new Schema(std::move(schema).value());
    text_ = new std::string(ReadFile(std::string(CHIPKG_SOURCE_DIR) + "/datasets/epoch_ml_hardware/ml_hardware.csv"));
    ASSERT_EQ(text_->size(), 93100u) << "datasets/epoch_ml_hardware/ml_hardware.csv changed (SOURCE.md: 93,100 bytes)";
    resolver_ = MakeEntityResolver(*schema_, nullptr).release();
    auto extraction = ExtractDataset(*text_, kDataset, kDoc, *schema_, *resolver_);
    ASSERT_TRUE(extraction.ok()) << extraction.status().message();
    extraction_ = new DatasetExtraction(std::move(extraction).value());
    by_cell_ = new std::map<std::pair<int64_t, std::string>, std::vector<const Fact*>>();
    for (const Fact& f : extraction_->facts) (*by_cell_)[{f.provenance.row, f.provenance.column}].push_back(&f);
    auto table = ParseCsv(*text_, "ml_hardware.csv");
    ASSERT_TRUE(table.ok()) << table.status().message();
    table_ = new CsvTable(std::move(table).value());
  }
  static void TearDownTestSuite() {
    delete by_cell_;
    delete extraction_;
    delete resolver_;
    delete table_;
    delete text_;
    delete schema_;
  }
  void SetUp() override {
    ASSERT_NE(extraction_, nullptr);
    ASSERT_NE(table_, nullptr);
  }

  static const DatasetRow& RowNamed(const std::string& name) {
    for (const DatasetRow& r : extraction_->rows) {
      if (r.name == name) return r;
    }
    ADD_FAILURE() << "no row " << name;
    static DatasetRow none;
    return none;
  }
  // The cell of `row` (1-based) under `header`, as the CSV reader saw it.
  static const CsvField& Cell(int64_t row, const std::string& header) {
    int col = table_->ColumnIndex(header);
    EXPECT_GE(col, 0) << header;
    return table_->records.at(static_cast<size_t>(row - 1)).fields.at(static_cast<size_t>(col < 0 ? 0 : col));
  }
  static std::vector<const Fact*> FactsAt(int64_t row, const std::string& column) {
    auto it = by_cell_->find({row, column});
    return it == by_cell_->end() ? std::vector<const Fact*>{} : it->second;
  }
  // The single claim of a cell; checks what every cell claim must carry.
  static const Fact& OneFact(const std::string& row_name, const std::string& column) {
    const DatasetRow& r = RowNamed(row_name);
    std::vector<const Fact*> facts = FactsAt(r.row, column);
    EXPECT_EQ(facts.size(), 1u) << row_name << " / " << column;
    static Fact none;
    if (facts.size() != 1) return none;
    const Fact& f = *facts[0];
    const CsvField& cell = Cell(r.row, column);
    EXPECT_EQ(f.subject, r.resolution.id);
    EXPECT_EQ(f.provenance.span_begin, cell.offset);
    EXPECT_EQ(f.provenance.span_end, cell.offset + cell.length);
    EXPECT_EQ(f.provenance.excerpt, text_->substr(cell.offset, cell.length));
    EXPECT_EQ(f.provenance.section, row_name);
    EXPECT_EQ(f.provenance.document_id, kDoc);
    EXPECT_EQ(f.provenance.rule, "dataset:epoch-ml-hardware");
    return f;
  }

  static Schema* schema_;
  static std::string* text_;
  static EntityResolver* resolver_;
  static DatasetExtraction* extraction_;
  static std::map<std::pair<int64_t, std::string>, std::vector<const Fact*>>* by_cell_;
  static CsvTable* table_;
};
Schema* EpochDatasetTest::schema_ = nullptr;
std::string* EpochDatasetTest::text_ = nullptr;
EntityResolver* EpochDatasetTest::resolver_ = nullptr;
DatasetExtraction* EpochDatasetTest::extraction_ = nullptr;
std::map<std::pair<int64_t, std::string>, std::vector<const Fact*>>* EpochDatasetTest::by_cell_ = nullptr;
CsvTable* EpochDatasetTest::table_ = nullptr;

TEST_F(EpochDatasetTest, EveryRowIsOneChipEntity) {
  ASSERT_EQ(extraction_->rows.size(), 170u);
  std::set<EntityId> ids;
  size_t exact = 0, normalised = 0, created = 0;
  for (size_t i = 0; i < extraction_->rows.size(); ++i) {
    const DatasetRow& r = extraction_->rows[i];
    EXPECT_EQ(r.row, static_cast<int64_t>(i) + 1);
    EXPECT_EQ(r.name, table_->records[i].fields[0].value);
    EXPECT_EQ(r.resolution.id.rfind("chip:", 0), 0u) << r.name << " -> " << r.resolution.id;
    ids.insert(r.resolution.id);
    if (r.resolution.created) {
      ++created;
    } else if (r.resolution.exact) {
      ++exact;
    } else {
      ++normalised;
    }
  }
  EXPECT_EQ(ids.size(), 170u) << "two rows landed on one entity";
  EXPECT_TRUE(extraction_->warnings.empty()) << extraction_->warnings.front();
  size_t chips = 0;
  for (const Entity& e : resolver_->NewEntities()) chips += e.kind == "chip";
  EXPECT_EQ(chips, created);
  std::cout << "[epoch rows] exact " << exact << ", normalised " << normalised << ", new " << created
            << "; facts " << extraction_->facts.size() << ", skipped cells " << extraction_->skipped.size()
            << ", extraction " << extraction_->seconds * 1000 << " ms\n";
  EXPECT_EQ(extraction_->unmapped_columns.size(), 0u);
  ASSERT_TRUE(extraction_->newest_as_of.has_value());
  EXPECT_EQ(extraction_->newest_as_of->ToString(), "2025-12-16");  // SOURCE.md: newest "Last modified"
}

TEST_F(EpochDatasetTest, EveryClaimPointsAtItsCell) {
  ASSERT_FALSE(extraction_->facts.empty());
  size_t per_row_total = 0;
  for (const DatasetRow& r : extraction_->rows) per_row_total += r.facts;
  EXPECT_EQ(per_row_total, extraction_->facts.size());
  for (const Fact& f : extraction_->facts) {
    const Provenance& p = f.provenance;
    ASSERT_GE(p.row, 1);
    ASSERT_LE(p.row, 170);
    ASSERT_LE(p.span_end, text_->size());
    EXPECT_EQ(text_->substr(p.span_begin, p.span_end - p.span_begin), p.excerpt);
    const CsvField& cell = Cell(p.row, p.column);
    EXPECT_GE(p.span_begin, cell.offset) << p.column;
    EXPECT_LE(p.span_end, cell.offset + cell.length) << p.column;
    EXPECT_EQ(p.prefix, text_->substr(p.span_begin - p.prefix.size(), p.prefix.size()));
    EXPECT_EQ(p.suffix, text_->substr(p.span_end, p.suffix.size()));
    EXPECT_EQ(p.section, extraction_->rows[p.row - 1].name);
    EXPECT_EQ(f.subject, extraction_->rows[p.row - 1].resolution.id);
    EXPECT_NE(schema_->FindPredicate(f.predicate), nullptr) << f.predicate;
    // Every row has a Last modified, so every claim has its as-of date.
    ASSERT_TRUE(f.valid_as_of.has_value());
    EXPECT_EQ(f.valid_as_of->ToString(), Cell(p.row, "Last modified").value.substr(0, 10));
    EXPECT_EQ(f.valid_as_of->precision, DatePrecision::kDay);
    EXPECT_EQ(p.note, Cell(p.row, "Notes").value);
    EXPECT_EQ(p.derivation == Derivation::kStatedDerived, !p.formula.empty());
  }
}

TEST_F(EpochDatasetTest, EmptyCellsMakeNoClaims) {
  size_t empty_cells = 0;
  for (const ColumnDef* def : schema_->ColumnsOf(kDataset)) {
    if (def->role != "value") continue;
    for (const DatasetRow& r : extraction_->rows) {
      const CsvField& cell = Cell(r.row, def->header);
      if (!cell.value.empty()) continue;
      ++empty_cells;
      EXPECT_TRUE(FactsAt(r.row, def->header).empty()) << r.name << " / " << def->header;
    }
  }
  EXPECT_GT(empty_cells, 2000u);  // the file is sparse: most throughput columns are empty for most rows
  // Trainium1 has no memory or TDP figure in the file: no claim, not zero.
  const DatasetRow& trn1 = RowNamed("Amazon Trainium1");
  EXPECT_TRUE(FactsAt(trn1.row, "Memory (bytes)").empty());
  EXPECT_TRUE(FactsAt(trn1.row, "TDP (W)").empty());
}

TEST_F(EpochDatasetTest, TrainiumRowsLandOnTheSeedEntities) {
  EXPECT_EQ(RowNamed("Amazon Trainium1").resolution.id, "chip:aws-trainium");
  EXPECT_EQ(RowNamed("Amazon Trainium2").resolution.id, "chip:aws-trainium2");
  EXPECT_EQ(RowNamed("Amazon Trainium3").resolution.id, "chip:aws-trainium3");
  EXPECT_EQ(RowNamed("AWS Inferentia2").resolution.id, "chip:aws-inferentia2");
  EXPECT_EQ(OneFact("Amazon Trainium1", "Manufacturer").value.text, "org:amazon");
}

TEST_F(EpochDatasetTest, Trainium1CellByCell) {
  const std::string row = "Amazon Trainium1";
  // The known issue of SOURCE.md: the 16-chip figure, kept as the file states it.
  const Fact& bw = OneFact(row, "Memory bandwidth (byte/s)");
  EXPECT_EQ(bw.predicate, "memory_bandwidth");
  EXPECT_EQ(bw.value.kind, ValueKind::kQuantity);
  EXPECT_DOUBLE_EQ(bw.value.number, 9.8e12);
  EXPECT_EQ(bw.value.dimension, "bytes_per_second");
  EXPECT_EQ(bw.value.original, "9800000000000.0 byte/s");
  EXPECT_EQ(bw.provenance.excerpt, "9800000000000.0");
  EXPECT_TRUE(bw.qualifiers.empty());
  EXPECT_EQ(bw.provenance.derivation, Derivation::kStated);
  EXPECT_EQ(bw.provenance.citations,
            std::vector<std::string>{"https://web.archive.org/web/20230518023215/https://awsdocs-neuron.readthedocs-"
                                     "hosted.com/en/v2.9.1/general/arch/neuron-hardware/trainium.html"});
  EXPECT_EQ(bw.provenance.note, "");
  EXPECT_EQ(bw.valid_as_of->ToString(), "2025-11-13");

  // The tensor FP16/BF16 cell is a claim of each format, read from the one cell.
  const std::vector<const Fact*> tensor = FactsAt(RowNamed(row).row, "Tensor-FP16/BF16 performance (FLOP/s)");
  ASSERT_EQ(tensor.size(), 2u);
  for (const Fact* f : tensor) {
    EXPECT_EQ(f->predicate, "peak_throughput");
    EXPECT_DOUBLE_EQ(f->value.number, 190e12);
    EXPECT_EQ(f->value.dimension, "ops_per_second");
    EXPECT_EQ(f->provenance.excerpt, tensor.front()->provenance.excerpt);
    EXPECT_EQ(f->provenance.span_begin, tensor.front()->provenance.span_begin);
  }
  std::set<Qualifiers> formats{tensor[0]->qualifiers, tensor[1]->qualifiers};
  EXPECT_EQ(formats, (std::set<Qualifiers>{{{"format", "bf16"}, {"sparsity", "dense"}},
                                           {{"format", "fp16"}, {"sparsity", "dense"}}}));
  const Fact& int8 = OneFact(row, "INT8 performance (OP/s)");
  EXPECT_DOUBLE_EQ(int8.value.number, 420e12);
  EXPECT_EQ(int8.qualifiers, (Qualifiers{{"format", "int8"}, {"sparsity", "dense"}}));
  // Epoch's FP16 column gives Trainium1 its tensor figure again: not the figure of other units.
  const Fact& fp16 = OneFact(row, "FP16 (half precision) performance (FLOP/s)");
  EXPECT_EQ(fp16.qualifiers, (Qualifiers{{"format", "fp16"}}));
  EXPECT_DOUBLE_EQ(OneFact(row, "FP32 (single precision) performance (FLOP/s)").value.number, 47.5e12);

  const Fact& released = OneFact(row, "Release date");
  EXPECT_EQ(released.predicate, "released");
  EXPECT_EQ(released.value.kind, ValueKind::kDate);
  EXPECT_EQ(released.value.date.ToString(), "2022-10-15");
  EXPECT_EQ(released.value.date.precision, DatePrecision::kDay);
  EXPECT_EQ(OneFact(row, "Type").value.text, "GPU");

  const Fact& max = OneFact(row, "Max performance");
  EXPECT_EQ(max.predicate, "max_performance");
  EXPECT_DOUBLE_EQ(max.value.number, 420e12);
  EXPECT_EQ(max.provenance.derivation, Derivation::kStatedDerived);
  EXPECT_NE(max.provenance.formula.find("INT8 performance (OP/s)"), std::string::npos);
  const Fact& tpp = OneFact(row, "Total processing performance (bit-OP/s)");
  EXPECT_DOUBLE_EQ(tpp.value.number, 3.61e15);
  EXPECT_EQ(tpp.value.dimension, "bit_ops_per_second");
  EXPECT_EQ(tpp.provenance.derivation, Derivation::kStatedDerived);
  // No TDP, so Epoch computed no energy efficiency: the cell is empty.
  EXPECT_TRUE(FactsAt(RowNamed(row).row, "Energy efficiency").empty());
}

// The one tensor cell is a claim of each format only where the chip's matrix
// units run both: a V100 has no BF16 and a TPU no IEEE FP16 (their claims were
// figures of formats the chips lack, cited to Epoch). Epoch's FP16 column is
// marked as the other units' figure only where the row's tensor figure is larger.
TEST_F(EpochDatasetTest, TensorFiguresOnlyInFormatsTheChipHas) {
  auto formats_of = [&](const std::string& name) {
    std::set<std::string> formats;
    for (const Fact* f : FactsAt(RowNamed(name).row, "Tensor-FP16/BF16 performance (FLOP/s)")) {
      formats.insert(f->qualifiers.at("format"));
    }
    return formats;
  };
  EXPECT_EQ(formats_of("NVIDIA V100"), std::set<std::string>{"fp16"});
  EXPECT_EQ(formats_of("NVIDIA Tesla V100S PCIe 32 GB"), std::set<std::string>{"fp16"});
  EXPECT_EQ(formats_of("NVIDIA GeForce RTX 2080 Ti 11GB"), std::set<std::string>{"fp16"});
  EXPECT_EQ(formats_of("Google TPU v5p"), std::set<std::string>{"bf16"});
  EXPECT_EQ(formats_of("Google TPU v2"), std::set<std::string>{"bf16"});
  EXPECT_EQ(formats_of("Tesla D1 Dojo"), std::set<std::string>{"bf16"});
  EXPECT_EQ(formats_of("NVIDIA A100"), (std::set<std::string>{"bf16", "fp16"}));
  EXPECT_EQ(formats_of("Intel Habana Gaudi2"), (std::set<std::string>{"bf16", "fp16"}));

  EXPECT_EQ(OneFact("NVIDIA H100 SXM5 80GB", "FP16 (half precision) performance (FLOP/s)").qualifiers,
            (Qualifiers{{"format", "fp16"}, {"tensor", "no"}}));
  for (const std::string name : {"NVIDIA H100 NVL", "NVIDIA GB200", "Huawei Ascend 910"}) {
    EXPECT_EQ(OneFact(name, "FP16 (half precision) performance (FLOP/s)").qualifiers,
              (Qualifiers{{"format", "fp16"}}))
        << name;
  }
}

// Where Epoch's source for a price says there is no list price ("No official
// MSRP. Industry analyst ... $33,600 per GPU"), the price and the
// price-performance computed from it are estimates (note_in= reads that
// cell); every other row's price stays a stated one.
TEST_F(EpochDatasetTest, APriceWithNoListPriceBehindItIsAnEstimate) {
  EXPECT_EQ(OneFact("NVIDIA H100 SXM5 80GB", "Release price (USD)").qualifiers, (Qualifiers{{"basis", "estimate"}}));
  EXPECT_DOUBLE_EQ(OneFact("NVIDIA H100 SXM5 80GB", "Release price (USD)").value.number, 33600);
  EXPECT_EQ(OneFact("NVIDIA H100 SXM5 80GB", "Price-performance").qualifiers.at("basis"), "estimate");
  size_t stated_prices = 0;
  for (const Fact& f : extraction_->facts) {
    if (f.provenance.column == "Release price (USD)" && f.qualifiers.empty()) ++stated_prices;
  }
  EXPECT_GT(stated_prices, 30u);
}

// Google publishes no TDP for TPU v4 to v7; Epoch's figures for them are
// its own estimates, which its notes say: they are marked basis=estimate, and
// so is the per-watt figure Epoch computes from them. A TDP Google states
// (TPU v3) and every other row's stay unmarked.
TEST_F(EpochDatasetTest, EstimatedTdpsAreMarkedAsTheSourcesEstimates) {
  for (const std::string name : {"Google TPU v4", "Google TPU v5p", "Google TPU v6e Trillium", "Google TPU v7 Ironwood"}) {
    EXPECT_EQ(OneFact(name, "TDP (W)").qualifiers, (Qualifiers{{"basis", "estimate"}})) << name;
    EXPECT_EQ(OneFact(name, "Energy efficiency").qualifiers.at("basis"), "estimate") << name;
  }
  EXPECT_DOUBLE_EQ(OneFact("Google TPU v4", "TDP (W)").value.number, 340);
  for (const std::string name : {"Google TPU v3", "NVIDIA H100 SXM5 80GB", "Amazon Trainium3"}) {
    EXPECT_TRUE(OneFact(name, "TDP (W)").qualifiers.empty()) << name;
    EXPECT_EQ(OneFact(name, "Energy efficiency").qualifiers.count("basis"), 0u) << name;
  }
  size_t estimates = 0;
  for (const Fact& f : extraction_->facts) estimates += f.qualifiers.count("basis");
  EXPECT_EQ(estimates, 10u);  // and the H100's price (below)
  // Trainium3's TDP is SemiAnalysis's (the row's note), not the AWS page it links.
  EXPECT_EQ(OneFact("Amazon Trainium3", "TDP (W)").provenance.citations,
            std::vector<std::string>{"https://newsletter.semianalysis.com/p/aws-trainium3-deep-dive-a-potential"});
  // Its perf per watt, computed from that TDP, cites both.
  EXPECT_EQ(OneFact("Amazon Trainium3", "Energy efficiency").provenance.citations,
            (std::vector<std::string>{
                "https://awsdocs-neuron.readthedocs-hosted.com/en/latest/about-neuron/arch/neuron-hardware/trainium3.html",
                "https://newsletter.semianalysis.com/p/aws-trainium3-deep-dive-a-potential"}));
  EXPECT_EQ(OneFact("Amazon Trainium3", "Foundry").provenance.citations,
            std::vector<std::string>{
                "https://awsdocs-neuron.readthedocs-hosted.com/en/latest/about-neuron/arch/neuron-hardware/trainium3.html"});
  // A January 1 states the year alone (the file's way of writing a year it knows no more of).
  const Fact& v4i = OneFact("Google TPU v4i", "Release date");
  EXPECT_EQ(v4i.value.date.precision, DatePrecision::kYear);
  EXPECT_EQ(v4i.value.date.ToString(), "2020");
  EXPECT_EQ(v4i.provenance.excerpt, "2020-01-01");
  EXPECT_EQ(OneFact("Google TPU v4", "Release date").value.date.ToString(), "2021-05-20");
  EXPECT_EQ(OneFact("Google TPU v7 Ironwood", "Release date").provenance.citations,
            std::vector<std::string>{"https://www.cnbc.com/2025/11/06/google-unveils-ironwood-seventh-generation-tpu-"
                                     "competing-with-nvidia.html"});
  // "Source for power:" names the TDP column by the schema's other word for tdp.
  const std::string huawei =
      "https://www.huawei.com/au/news/au/2019/huawei-launches-ascend-910-the-worlds-most-powerful-ai-processor";
  EXPECT_EQ(OneFact("Huawei Ascend 910A", "TDP (W)").provenance.citations, std::vector<std::string>{huawei});
  const std::vector<std::string> per_watt = OneFact("Huawei Ascend 910A", "Energy efficiency").provenance.citations;
  EXPECT_NE(std::find(per_watt.begin(), per_watt.end(), huawei), per_watt.end());
  // "release announcement (source for release date): https://...".
  EXPECT_EQ(OneFact("AMD Instinct MI355X", "Release date").provenance.citations,
            std::vector<std::string>{"https://www.tomshardware.com/pc-components/gpus/amd-announces-mi350x-and-mi355x-"
                                     "ai-gpus-claims-up-to-4x-generational-gain-up-to-35x-faster-inference-"
                                     "performance"});
}

// A link cell's words are the row's caveats, kept as its claims'
// attribution; a link in parentheses or without a scheme is cited as written
// (the A4000 row cited nothing, the 910B's release date not its source).
TEST_F(EpochDatasetTest, LinkCellProseAndBareLinksAreKept) {
  const Fact& a4000 = OneFact("NVIDIA RTX A4000", "Memory (bytes)");
  EXPECT_EQ(a4000.provenance.citations, std::vector<std::string>{"techpowerup.com/gpu-specs/rtx-a4000.c3756"});
  EXPECT_EQ(a4000.provenance.attribution, "");
  const Fact& released = OneFact("Huawei Ascend 910B", "Release date");
  const auto& cites = released.provenance.citations;
  EXPECT_NE(std::find(cites.begin(), cites.end(), "https://r.huaweistatic.com/s/ascendstatic/lst/files/pdf/PR425KI.pdf"),
            cites.end());
  EXPECT_NE(released.provenance.attribution.find("different sources report different performance (376 TFLOPS vs "
                                                 "220 TFLOPS vs 320 TFLOPS)"),
            std::string::npos)
      << released.provenance.attribution;
  EXPECT_NE(released.provenance.attribution.find("the earliest mentioning I found is March, 17 2022"),
            std::string::npos)
      << released.provenance.attribution;
}

TEST_F(EpochDatasetTest, Trainium2CellByCell) {
  const std::string row = "Amazon Trainium2";
  const Fact& mem = OneFact(row, "Memory (bytes)");
  EXPECT_DOUBLE_EQ(mem.value.number, 96e9);
  EXPECT_EQ(mem.value.dimension, "bytes");
  EXPECT_DOUBLE_EQ(OneFact(row, "Memory bandwidth (byte/s)").value.number, 2.9e12);
  const Fact& tdp = OneFact(row, "TDP (W)");
  EXPECT_EQ(tdp.predicate, "tdp");
  EXPECT_DOUBLE_EQ(tdp.value.number, 500);
  EXPECT_EQ(tdp.value.dimension, "watts");
  const Fact& fp8 = OneFact(row, "FP8 performance (FLOP/s)");
  EXPECT_DOUBLE_EQ(fp8.value.number, 1299e12);
  EXPECT_EQ(fp8.qualifiers, (Qualifiers{{"format", "fp8"}, {"sparsity", "dense"}}));
  const Fact& eff = OneFact(row, "Energy efficiency");
  EXPECT_EQ(eff.predicate, "perf_per_watt");
  EXPECT_DOUBLE_EQ(eff.value.number, 1334000000000.0);
  EXPECT_EQ(eff.value.dimension, "ops_per_watt");
  EXPECT_EQ(eff.provenance.derivation, Derivation::kStatedDerived);
  EXPECT_EQ(eff.provenance.formula, "Max performance / TDP (W)");
  // Two datasheet links, one per line.
  EXPECT_EQ(eff.provenance.citations,
            (std::vector<std::string>{
                "https://semianalysis.com/2024/12/03/amazons-ai-self-sufficiency-trainium2-architecture-networking/",
                "https://awsdocs-neuron.readthedocs-hosted.com/en/latest/about-neuron/arch/neuron-hardware/"
                "trainium2.html"}));
  EXPECT_EQ(eff.valid_as_of->ToString(), "2025-10-29");
}

// The first row's Notes is a quoted field over two lines; Ironwood's over many.
TEST_F(EpochDatasetTest, MultiLineNotesTravelWithEveryClaim) {
  const std::string row = "Google TPU v7 Ironwood";
  const DatasetRow& r = RowNamed(row);
  EXPECT_EQ(r.line, 4u);  // row 1 spans lines 2-3
  const std::string notes = Cell(r.row, "Notes").value;
  EXPECT_NE(notes.find("\n\nTPUv2 does 46 TFLOP/s peak and has a TDP of 280 W. \n"), std::string::npos);
  EXPECT_NE(notes.find("We round to 960 W.\n"), std::string::npos);
  const Fact& tdp = OneFact(row, "TDP (W)");
  EXPECT_DOUBLE_EQ(tdp.value.number, 960);
  EXPECT_EQ(tdp.provenance.note, notes);
  EXPECT_EQ(tdp.provenance.citations,
            (std::vector<std::string>{"https://blog.google/products/google-cloud/ironwood-tpu-age-of-inference/",
                                      "https://docs.cloud.google.com/tpu/docs/tpu7x"}));
  const Fact& mem = OneFact(row, "Memory (bytes)");
  EXPECT_DOUBLE_EQ(mem.value.number, 192e9);
  EXPECT_EQ(mem.provenance.note, notes);
  EXPECT_EQ(OneFact(row, "ML models").value.text, "Gemini 3 Pro");
  EXPECT_EQ(OneFact(row, "Manufacturer").value.text, "org:google");
  EXPECT_EQ(tdp.valid_as_of->ToString(), "2025-12-16");
  // The Notes cell itself is provenance, not a claim.
  EXPECT_TRUE(FactsAt(r.row, "Notes").empty());

  const Fact& trn3 = OneFact("Amazon Trainium3", "TDP (W)");
  EXPECT_EQ(trn3.provenance.note,
            "Source for TDP: https://newsletter.semianalysis.com/p/aws-trainium3-deep-dive-a-potential\n"
            "to do: fill in memory specs");
  // A datasheet cell with a trailing space still gives the bare URL (the
  // foundry's: the TDP cites the source the note names for it).
  // Its perf per watt, computed from that TDP, cites both.
  EXPECT_EQ(OneFact("Amazon Trainium3", "Energy efficiency").provenance.citations,
            (std::vector<std::string>{
                "https://awsdocs-neuron.readthedocs-hosted.com/en/latest/about-neuron/arch/neuron-hardware/trainium3.html",
                "https://newsletter.semianalysis.com/p/aws-trainium3-deep-dive-a-potential"}));
  EXPECT_EQ(OneFact("Amazon Trainium3", "Foundry").provenance.citations,
            std::vector<std::string>{
                "https://awsdocs-neuron.readthedocs-hosted.com/en/latest/about-neuron/arch/neuron-hardware/"
                "trainium3.html"});
}

// H100 SXM5 80GB: the cell with 38 tabs, '; '-separated links, a price with a
// commented source, and most of the unit conversions.
TEST_F(EpochDatasetTest, H100RowWithTabsAndUnits) {
  const std::string row = "NVIDIA H100 SXM5 80GB";
  const Fact& models = OneFact(row, "ML models");
  EXPECT_EQ(models.predicate, "ml_models");
  size_t tabs = 0;
  for (char c : models.provenance.excerpt) tabs += c == '\t';
  EXPECT_EQ(tabs, 38u);
  EXPECT_EQ(models.value.text.find('\t'), std::string::npos);
  EXPECT_NE(models.value.text.find("Zephyr 141B-A39B ,NVLM-X 72B"), std::string::npos);
  EXPECT_NE(models.value.text.find("Cosmos-1.0- Diffusion-14B Video2World"), std::string::npos);

  const Fact& price = OneFact(row, "Release price (USD)");
  EXPECT_EQ(price.predicate, "launch_price");
  EXPECT_DOUBLE_EQ(price.value.number, 33600);
  EXPECT_EQ(price.value.dimension, "usd");
  EXPECT_EQ(price.provenance.citations,
            (std::vector<std::string>{
                "https://web.archive.org/web/20230529125834/https://www.semianalysis.com/p/"
                "ai-server-cost-analysis-memory-is",
                "https://web.archive.org/web/20220929115124/https://www.deltacomputer.com/nvidia-dgx-h100-640gb.html"}));
  EXPECT_EQ(price.provenance.attribution.rfind("No official MSRP. Industry analyst in May 2023", 0), 0u)
      << price.provenance.attribution;
  EXPECT_EQ(price.provenance.attribution.find("https://"), std::string::npos);
  // Non-price claims cite the datasheet links ("; "-separated in this row).
  const Fact& tdp = OneFact(row, "TDP (W)");
  EXPECT_EQ(tdp.provenance.citations,
            (std::vector<std::string>{"https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet",
                                      "https://www.techpowerup.com/gpu-specs/h100-sxm5.c3900"}));
  EXPECT_TRUE(tdp.provenance.attribution.empty());
  EXPECT_EQ(tdp.provenance.note, "Listed performance figures are without sparsity.");

  // bit/s -> byte/s
  const Fact& internode = OneFact(row, "Internode bandwidth (bit/s)");
  EXPECT_EQ(internode.predicate, "internode_bandwidth");
  EXPECT_DOUBLE_EQ(internode.value.number, 50e9);
  EXPECT_EQ(internode.value.dimension, "bytes_per_second");
  EXPECT_EQ(internode.value.original, "400000000000.0 bit/s");
  EXPECT_DOUBLE_EQ(OneFact(row, "Intranode bandwidth (byte/s)").value.number, 900e9);
  EXPECT_DOUBLE_EQ(OneFact(row, "Memory (bytes)").value.number, 80e9);
  EXPECT_DOUBLE_EQ(OneFact(row, "Memory bandwidth (byte/s)").value.number, 3.35e12);
  EXPECT_DOUBLE_EQ(OneFact(row, "Transistors (millions)").value.number, 80e9);
  EXPECT_EQ(OneFact(row, "Transistors (millions)").value.dimension, "count");
  EXPECT_DOUBLE_EQ(OneFact(row, "Die Size (mm^2)").value.number, 814e-6);
  EXPECT_EQ(OneFact(row, "Die Size (mm^2)").value.dimension, "area");
  EXPECT_DOUBLE_EQ(OneFact(row, "Process size (nm)").value.number, 5e-9);
  EXPECT_DOUBLE_EQ(OneFact(row, "Base clock (MHz)").value.number, 1665e6);
  EXPECT_DOUBLE_EQ(OneFact(row, "Boost clock (MHz)").value.number, 1980e6);
  EXPECT_DOUBLE_EQ(OneFact(row, "Memory clock (MHz)").value.number, 1313e6);
  EXPECT_EQ(OneFact(row, "Memory clock (MHz)").predicate, "memory_clock");
  EXPECT_DOUBLE_EQ(OneFact(row, "Memory bus (bit)").value.number, 5120);
  EXPECT_DOUBLE_EQ(OneFact(row, "Tensor cores").value.number, 528);
  EXPECT_EQ(OneFact(row, "Tensor cores").value.original, "528.0");
  EXPECT_DOUBLE_EQ(OneFact(row, "TF32 (TensorFloat-32) performance (FLOP/s)").value.number, 494.7e12);
  EXPECT_DOUBLE_EQ(OneFact(row, "FP64 (double precision) performance (FLOP/s)").value.number, 33.45e12);
  EXPECT_EQ(OneFact(row, "Foundry").value.text, "org:tsmc");
  const Fact& pp = OneFact(row, "Price-performance");
  EXPECT_EQ(pp.predicate, "price_performance");
  EXPECT_NEAR(pp.value.number, 1979e12 / 33600, 1e-3);
  // A price-derived figure is not itself a price: it cites the datasheets.
  EXPECT_EQ(pp.provenance.citations, tdp.provenance.citations);
}

TEST_F(EpochDatasetTest, AListCellGivesOneClaimPerItem) {
  const DatasetRow* row = nullptr;
  for (const DatasetRow& r : extraction_->rows) {
    if (Cell(r.row, "Foundry").value == "SMIC,TSMC") row = &r;
  }
  ASSERT_NE(row, nullptr);
  std::vector<const Fact*> facts = FactsAt(row->row, "Foundry");
  ASSERT_EQ(facts.size(), 2u);
  EXPECT_EQ(facts[0]->value.text, "org:smic");
  EXPECT_EQ(facts[0]->provenance.excerpt, "SMIC");
  EXPECT_EQ(facts[0]->value.original, "SMIC");
  EXPECT_EQ(facts[1]->value.text, "org:tsmc");
  EXPECT_EQ(facts[1]->provenance.excerpt, "TSMC");
  const CsvField& cell = Cell(row->row, "Foundry");
  EXPECT_EQ(facts[0]->provenance.span_begin, cell.offset);
  EXPECT_EQ(facts[1]->provenance.span_end, cell.offset + cell.length);
}

TEST_F(EpochDatasetTest, DerivedZeroIsNotComputedNotAClaim) {
  const std::string row = "Intel Habana GAUDI HL-205";
  const DatasetRow& r = RowNamed(row);
  EXPECT_EQ(Cell(r.row, "Max performance").value, "0.0");
  EXPECT_TRUE(FactsAt(r.row, "Max performance").empty());
  EXPECT_TRUE(FactsAt(r.row, "ML OP/s").empty());
  EXPECT_TRUE(FactsAt(r.row, "Energy efficiency").empty());
  size_t listed = 0;
  for (const SkippedCell& s : extraction_->skipped) {
    if (s.row == r.row) {
      ++listed;
      EXPECT_NE(s.reason.find("not computed"), std::string::npos);
    }
  }
  EXPECT_EQ(listed, 3u);
  // Only derived zeros are skipped in this file: every other non-empty cell made a claim.
  for (const SkippedCell& s : extraction_->skipped) EXPECT_EQ(s.text, "0.0") << s.column;
}

// The stated-derived claims are what their formula says, through the unit
// conversions: efficiency = max performance / TDP for every row that has all three.
TEST_F(EpochDatasetTest, EnergyEfficiencyRecomputesFromExtractedClaims) {
  size_t checked = 0;
  for (const DatasetRow& r : extraction_->rows) {
    auto eff = FactsAt(r.row, "Energy efficiency");
    auto max = FactsAt(r.row, "Max performance");
    auto tdp = FactsAt(r.row, "TDP (W)");
    if (eff.size() != 1 || max.size() != 1 || tdp.size() != 1) continue;
    ++checked;
    EXPECT_NEAR(eff[0]->value.number, max[0]->value.number / tdp[0]->value.number, 1e-6 * eff[0]->value.number)
        << r.name;
  }
  EXPECT_GT(checked, 140u);
}

TEST_F(EpochDatasetTest, ExtractionIsFastAndRepeatable) {
  auto resolver = MakeEntityResolver(*schema_, nullptr);
  auto again = ExtractDataset(*text_, kDataset, kDoc, *schema_, *resolver);
  ASSERT_TRUE(again.ok()) << again.status().message();
  ASSERT_EQ(again->facts.size(), extraction_->facts.size());
  for (size_t i = 0; i < again->facts.size(); ++i) {
    EXPECT_EQ(again->facts[i].subject, extraction_->facts[i].subject);
    EXPECT_TRUE(again->facts[i].value == extraction_->facts[i].value);
  }
  EXPECT_LT(again->seconds, 5.0);  // generous: sanitizer builds on a shared machine
}

// Through the real store: the claims are accepted as they are (spans checked
// against the stored text), read back with their provenance, and a second
// extraction against the store finds every row's entity exactly.
TEST_F(EpochDatasetTest, WritesToTheStoreAndResolvesExactlyNextTime) {
  auto dir = std::filesystem::temp_directory_path() / ("chipkg-dataset-test-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  {
    auto opened = Store::Open(dir.string());
    ASSERT_TRUE(opened.ok()) << opened.status().message();
    Store& store = **opened;
    auto resolver = MakeEntityResolver(*schema_, &store);
    auto first = ExtractDataset(*text_, kDataset, kDoc, *schema_, *resolver);
    ASSERT_TRUE(first.ok()) << first.status().message();
    for (const Entity& e : resolver->NewEntities()) ASSERT_TRUE(store.PutEntity(e).ok()) << e.id;
    ASSERT_TRUE(RecordMatches(store, resolver->NewMatches()).ok());
    Document doc;
    doc.id = kDoc;
    doc.url = "datasets/epoch_ml_hardware/ml_hardware.csv";
    doc.title = "Epoch AI, Machine Learning Hardware";
    doc.site = "epoch.ai";
    doc.kind = "aggregator";
    DocumentVersion version;
    version.document_id = kDoc;
    version.text = *text_;
    version.as_of = first->newest_as_of;
    version.content_type = "text/csv";
    const size_t claims = first->facts.size();
    auto written = store.WriteDocumentVersion(doc, version, std::move(first->facts), "dataset-test");
    ASSERT_TRUE(written.ok()) << written.status().message();
    EXPECT_EQ(written->facts_added, claims);

    auto bw = store.FactsAbout("chip:aws-trainium", "memory_bandwidth");
    ASSERT_TRUE(bw.ok()) << bw.status().message();
    ASSERT_EQ(bw->size(), 1u);
    const Fact& f = bw->front();
    EXPECT_DOUBLE_EQ(f.value.number, 9.8e12);
    EXPECT_EQ(f.provenance.row, RowNamed("Amazon Trainium1").row);
    EXPECT_EQ(f.provenance.column, "Memory bandwidth (byte/s)");
    EXPECT_EQ(f.provenance.excerpt, "9800000000000.0");
    EXPECT_EQ(text_->substr(f.provenance.span_begin, f.provenance.span_end - f.provenance.span_begin),
              "9800000000000.0");
    EXPECT_EQ(f.provenance.rule, "dataset:epoch-ml-hardware");
    ASSERT_TRUE(f.valid_as_of.has_value());
    EXPECT_EQ(f.valid_as_of->ToString(), "2025-11-13");
    auto chips = store.ListEntities("chip");
    ASSERT_TRUE(chips.ok());
    EXPECT_GE(chips->size(), 166u);

    auto again_resolver = MakeEntityResolver(*schema_, &store);
    auto again = ExtractDataset(*text_, kDataset, kDoc, *schema_, *again_resolver);
    ASSERT_TRUE(again.ok()) << again.status().message();
    size_t exact = 0;
    for (const DatasetRow& r : again->rows) exact += r.resolution.exact && !r.resolution.created;
    EXPECT_EQ(exact, 170u);
    EXPECT_TRUE(again_resolver->NewEntities().empty());
    EXPECT_TRUE(again_resolver->NewMatches().empty());
    // The same bytes again: nothing new is written.
    version.text = *text_;
    auto unchanged = store.WriteDocumentVersion(doc, version, std::move(again->facts), "dataset-test-2");
    ASSERT_TRUE(unchanged.ok()) << unchanged.status().message();
    EXPECT_FALSE(unchanged->new_version);
  }
  std::filesystem::remove_all(dir);
}

// ---- a small self-contained schema for the error paths --------------------------------------------

const char kMiniSchema[] = R"schema(
kind chip
kind organization
qualifier format
dimension bytes canonical=B display=GB
dimension watts canonical=W display=W
dimension count canonical=1 display=1
unit B bytes 1
unit GB bytes 1e9
unit W watts 1
predicate memory quantity dimension=bytes subjects=chip
predicate tdp quantity dimension=watts subjects=chip
predicate cores quantity dimension=count subjects=chip
predicate designer entity object=organization subjects=chip
predicate released date subjects=chip
entity org:acme kind=organization name="Acme" alias="Acme Corp"
entity chip:acme-x1 kind=chip name="Acme X1"
not_published "n/a"
column mini "Name" role=name
column mini "Memory (GB)" memory unit=GB
column mini "TDP" tdp unit=W
column mini "Cores" cores
column mini "Maker" designer
column mini "Released" released
column mini "Updated" role=as_of
column mini "Sources" role=citation
)schema";

class MiniDatasetTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto schema = Schema::LoadText(kMiniSchema, "mini.schema");
    ASSERT_TRUE(schema.ok()) << schema.status().message();
    schema_ = std::make_unique<Schema>(std::move(schema).value());
    resolver_ = MakeEntityResolver(*schema_, nullptr);
  }
  Result<DatasetExtraction> Extract(const std::string& text) {
    return ExtractDataset(text, "mini", "mini-doc", *schema_, *resolver_);
  }
  std::unique_ptr<Schema> schema_;
  std::unique_ptr<EntityResolver> resolver_;
};

const char kHeader[] = "Name,Memory (GB),TDP,Cores,Maker,Released,Updated,Sources,Extra\n";

TEST_F(MiniDatasetTest, ValuesNotPublishedAndSkippedCells) {
  std::string text = std::string(kHeader) +
                     "Acme X1,32,n/a,8,Acme Corp (see note),2024-03,2024-05-01T10:00:00Z,\"https://a.example/x; "
                     "https://b.example/y,\",ignored\n"
                     "Other Chip,\"1,5\",300,,\"Acme, Zeta\",soon,bad date,,\n";
  auto r = Extract(text);
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->rows.size(), 2u);
  EXPECT_EQ(r->rows[0].resolution.id, "chip:acme-x1");
  EXPECT_TRUE(r->rows[1].resolution.created);
  EXPECT_EQ(r->rows[1].resolution.id, "chip:other-chip");
  EXPECT_EQ(r->unmapped_columns, std::vector<std::string>{"Extra"});

  std::map<std::pair<int64_t, std::string>, std::vector<const Fact*>> at;
  for (const Fact& f : r->facts) at[{f.provenance.row, f.provenance.column}].push_back(&f);
  auto At = [&](int64_t row, const std::string& column) { return at[{row, column}]; };
  const Fact& mem = *At(1, "Memory (GB)").at(0);
  EXPECT_DOUBLE_EQ(mem.value.number, 32e9);
  EXPECT_EQ(mem.value.original, "32 GB");
  EXPECT_EQ(mem.provenance.citations, (std::vector<std::string>{"https://a.example/x", "https://b.example/y"}));
  EXPECT_EQ(mem.valid_as_of->ToString(), "2024-05-01");
  const Fact& tdp = *At(1, "TDP").at(0);
  EXPECT_EQ(tdp.value.kind, ValueKind::kNotPublished);
  EXPECT_EQ(tdp.value.original, "n/a");
  EXPECT_DOUBLE_EQ(At(1, "Cores").at(0)->value.number, 8);
  const Fact& maker = *At(1, "Maker").at(0);
  EXPECT_EQ(maker.value.text, "org:acme");
  EXPECT_EQ(maker.value.original, "Acme Corp (see note)");
  const Fact& released = *At(1, "Released").at(0);
  EXPECT_EQ(released.value.date.precision, DatePrecision::kMonth);

  // Row 2: "1,5" is not a number; "soon" is not a date; "bad date" is no as-of.
  EXPECT_TRUE(At(2, "Memory (GB)").empty());
  EXPECT_TRUE(At(2, "Released").empty());
  EXPECT_FALSE(At(2, "TDP").at(0)->valid_as_of.has_value());
  ASSERT_EQ(At(2, "Maker").size(), 2u);
  EXPECT_EQ(At(2, "Maker")[0]->value.text, "org:acme");
  EXPECT_EQ(At(2, "Maker")[1]->value.text, "org:zeta");
  EXPECT_EQ(r->skipped.size(), 3u);
  std::set<std::string> skipped_columns;
  for (const SkippedCell& s : r->skipped) skipped_columns.insert(s.column);
  EXPECT_EQ(skipped_columns, (std::set<std::string>{"Memory (GB)", "Released", "Updated"}));
}

// A column line can leave rows out by name (`except=`, `*` any run of
// characters, either case) and make its claim only where another column's
// figure is larger (`below=`) or is not (`not_below=`).
TEST(DatasetConditionsTest, ExceptNamesAndBelowDecideWhichRowsALineStates) {
  auto schema = Schema::LoadText(std::string(kMiniSchema) + R"schema(
qualifier units values=other
predicate speed quantity dimension=count subjects=chip
column cond "Name" role=name
column cond "Peak" speed except="acme x*" except="*beta"
column cond "Vector" speed units=other below="Peak"
column cond "Vector" speed not_below="Peak"
)schema", "cond.schema");
  ASSERT_TRUE(schema.ok()) << schema.status().message();
  std::unique_ptr<EntityResolver> resolver = MakeEntityResolver(*schema, nullptr);
  auto r = ExtractDataset("Name,Peak,Vector\nAcme X1,100,10\nZeta Beta,100,10\nGamma,50,50\nDelta,,7\nEps,80,90\n",
                          "cond", "cond-doc", *schema, *resolver);
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::map<std::pair<int64_t, std::string>, std::vector<const Fact*>> at;
  for (const Fact& f : r->facts) at[{f.provenance.row, f.provenance.column}].push_back(&f);
  auto At = [&](int64_t row, const std::string& column) { return at[{row, column}]; };
  EXPECT_TRUE(At(1, "Peak").empty());  // "acme x*" matches "Acme X1"
  EXPECT_TRUE(At(2, "Peak").empty());  // "*beta"
  ASSERT_EQ(At(3, "Peak").size(), 1u);
  // Below the row's Peak: the qualified claim; equal, no Peak, or above it: the plain one.
  const std::vector<std::pair<int64_t, Qualifiers>> vector_claims = {
      {1, Qualifiers{{"units", "other"}}}, {2, Qualifiers{{"units", "other"}}}, {3, Qualifiers{}}, {4, Qualifiers{}},
      {5, Qualifiers{}}};
  for (const auto& [row, qualifiers] : vector_claims) {
    ASSERT_EQ(At(row, "Vector").size(), 1u) << "row " << row;
    EXPECT_EQ(At(row, "Vector")[0]->qualifiers, qualifiers) << "row " << row;
  }

  auto both = Schema::LoadText(std::string(kMiniSchema) + "column mini \"TDP\" tdp unit=W below=\"Cores\" "
                               "not_below=\"Cores\"\n", "both.schema");
  ASSERT_FALSE(both.ok());
  EXPECT_NE(both.status().message().find("below= and not_below= together hold for no row"), std::string::npos)
      << both.status().message();
  auto not_a_value = Schema::LoadText(std::string(kMiniSchema) + "column mini \"Sources2\" role=note except=\"x\"\n",
                                      "role.schema");
  ASSERT_FALSE(not_a_value.ok());
  EXPECT_NE(not_a_value.status().message().find("except=, below=, not_below=, note=, not_note=, year_only= and qualifiers are for "
                                                "role=value"),
            std::string::npos)
      << not_a_value.status().message();
  auto missing = Schema::LoadText(std::string(kMiniSchema) + "column mini \"TDP\" tdp unit=W below=\"Nope\"\n",
                                  "missing.schema");
  ASSERT_TRUE(missing.ok()) << missing.status().message();
  std::unique_ptr<EntityResolver> missing_resolver = MakeEntityResolver(*missing, nullptr);
  auto refused = ExtractDataset(std::string(kHeader) + "Acme X1,32,5,8,Acme,2024,2024,,\n", "mini", "mini-doc",
                                *missing, *missing_resolver);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("is compared with \"Nope\", which is not a header of the file"),
            std::string::npos)
      << refused.status().message();
}

// A row's note decides which of two lines states its cell: the figure a
// note calls the dataset's own estimate is marked so (Epoch's TPU TDPs).
TEST(DatasetConditionsTest, NotePatternsDecideWhichRowsALineStates) {
  auto schema = Schema::LoadText(std::string(kMiniSchema) + R"schema(
qualifier how values=guess
predicate speed quantity dimension=count subjects=chip
column cond "Name" role=name
column cond "Notes" role=note
column cond "Peak" speed not_note="*not officially*" not_note="*no official peak*"
column cond "Peak" speed how=guess note="*not officially*" note="*no official peak*"
)schema", "cond.schema");
  ASSERT_TRUE(schema.ok()) << schema.status().message();
  std::unique_ptr<EntityResolver> resolver = MakeEntityResolver(*schema, nullptr);
  auto r = ExtractDataset("Name,Peak,Notes\n"
                          "Acme X1,100,\"Acme does NOT officially state it.\nWe derive 100.\"\n"
                          "Acme X2,200,No official peak figure\n"
                          "Acme X3,300,Officially stated\n"
                          "Acme X4,400,\n",
                          "cond", "cond-doc", *schema, *resolver);
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::map<int64_t, std::vector<const Fact*>> at;
  for (const Fact& f : r->facts) at[f.provenance.row].push_back(&f);
  const std::vector<std::pair<int64_t, Qualifiers>> expected = {
      {1, Qualifiers{{"how", "guess"}}}, {2, Qualifiers{{"how", "guess"}}}, {3, Qualifiers{}}, {4, Qualifiers{}}};
  for (const auto& [row, qualifiers] : expected) {
    ASSERT_EQ(at[row].size(), 1u) << "row " << row;
    EXPECT_EQ(at[row][0]->qualifiers, qualifiers) << "row " << row;
  }

  auto both = Schema::LoadText(std::string(kMiniSchema) + "column mini \"TDP\" tdp unit=W note=\"a*\" "
                               "not_note=\"b*\"\n", "both.schema");
  ASSERT_FALSE(both.ok());
  EXPECT_NE(both.status().message().find("note= and not_note= together"), std::string::npos) << both.status().message();
  auto no_notes = Schema::LoadText(std::string(kMiniSchema) + R"schema(
predicate speed quantity dimension=count subjects=chip
column plain "Name" role=name
column plain "Peak" speed note="*estimate*"
)schema", "plain.schema");
  ASSERT_TRUE(no_notes.ok()) << no_notes.status().message();
  std::unique_ptr<EntityResolver> plain_resolver = MakeEntityResolver(*no_notes, nullptr);
  auto refused = ExtractDataset("Name,Peak\nAcme X1,100\n", "plain", "plain-doc", *no_notes, *plain_resolver);
  ASSERT_FALSE(refused.ok());
  EXPECT_NE(refused.status().message().find("picks rows by their note, and the dataset has no role=note column"),
            std::string::npos)
      << refused.status().message();
}

// A note that names the source of one column's figure ("Source for TDP:
// https://...") makes that figure cite it instead of the row's link, which
// does not state it; the row's other figures keep the link.
TEST(DatasetConditionsTest, ANoteNamingAColumnsSourceIsItsCitation) {
  auto schema = Schema::LoadText(std::string(kMiniSchema) + R"schema(
predicate speed quantity dimension=count subjects=chip
predicate width quantity dimension=count subjects=chip
predicate limit quantity dimension=count subjects=chip
column src "Name" role=name
column src "Link" role=citation
column src "Notes" role=note sources="Source for"
column src "Speed (ops)" speed
column src "Speed limit" limit
column src "Width" width
column src "Lanes" width
synonym rate speed
synonym breadth width
)schema", "src.schema");
  ASSERT_TRUE(schema.ok()) << schema.status().message();
  std::unique_ptr<EntityResolver> resolver = MakeEntityResolver(*schema, nullptr);
  auto r = ExtractDataset("Name,Link,Notes,Speed (ops),Speed limit,Width,Lanes\n"
                          "Acme X1,https://acme.example/x1,\"source for SPEED: https://press.example/x1. (estimate)\n"
                          "Source for the price: https://shop.example\",100,5,8,1\n"
                          "Acme X2,https://acme.example/x2,\"Source for Speedup: https://elsewhere.example; "
                          "open-source for width: https://code.example\",200,6,16,2\n"
                          "Acme X3,https://acme.example/x3,\"Source for width: https://a.example, "
                          "source for width: https://b.example\",300,7,32,3\n"
                          "Acme X4,https://acme.example/x4,\"release notes (source for width): https://w.example\n"
                          "Source for rate: https://r.example; source for breadth: https://b.example\",400,8,64,4\n"
                          "Acme X5,https://acme.example/x5,\"Source for speed: https://en.wikipedia.org/wiki/Acme_(firm). "
                          "(source for width: https://w.example/x5)\",500,9,128,5\n",
                          "src", "src-doc", *schema, *resolver);
  ASSERT_TRUE(r.ok()) << r.status().message();
  std::map<std::pair<int64_t, std::string>, std::vector<std::string>> cites;
  std::map<std::pair<int64_t, std::string>, std::vector<std::string>> cites_of_column;
  for (const Fact& f : r->facts) {
    cites[{f.provenance.row, f.predicate}] = f.provenance.citations;
    cites_of_column[{f.provenance.row, f.provenance.column}] = f.provenance.citations;
  }
  using Links = std::vector<std::string>;
  EXPECT_EQ((cites[{1, "speed"}]), Links{"https://press.example/x1"});
  // "speed" names "Speed (ops)", not "Speed limit"; the trailing "." is the sentence's.
  EXPECT_EQ((cites[{1, "limit"}]), Links{"https://acme.example/x1"});
  EXPECT_EQ((cites_of_column[{1, "Width"}]), Links{"https://acme.example/x1"});
  // "Speedup" names no header; "open-source for" is no phrase of the note's.
  EXPECT_EQ((cites[{2, "speed"}]), Links{"https://acme.example/x2"});
  EXPECT_EQ((cites_of_column[{2, "Width"}]), Links{"https://acme.example/x2"});
  // Two sources named for one column: both cited.
  EXPECT_EQ((cites_of_column[{3, "Width"}]), (Links{"https://a.example", "https://b.example"}));
  // "(source for width):" names Width; "rate", the schema's other word for
  // speed, names Speed (ops); "breadth" means width, which two columns
  // state, and names neither.
  EXPECT_EQ((cites_of_column[{4, "Width"}]), Links{"https://w.example"});
  EXPECT_EQ((cites_of_column[{4, "Lanes"}]), Links{"https://acme.example/x4"});
  EXPECT_EQ((cites[{4, "speed"}]), Links{"https://r.example"});
  EXPECT_EQ((cites[{4, "limit"}]), Links{"https://acme.example/x4"});
  // A link's own parentheses are kept; the sentence's are not.
  EXPECT_EQ((cites[{5, "speed"}]), Links{"https://en.wikipedia.org/wiki/Acme_(firm)"});
  EXPECT_EQ((cites_of_column[{5, "Width"}]), Links{"https://w.example/x5"});

  auto not_a_date = Schema::LoadText(std::string(kMiniSchema) + "column mini \"TDP\" tdp unit=W year_only=\"*-01-01\"\n",
                                     "not_a_date.schema");
  ASSERT_FALSE(not_a_date.ok());
  EXPECT_NE(not_a_date.status().message().find("year_only= is for dates"), std::string::npos)
      << not_a_date.status().message();
  auto misplaced = Schema::LoadText(std::string(kMiniSchema) + "column mini \"TDP\" tdp unit=W sources=\"Source for\"\n",
                                    "misplaced.schema");
  ASSERT_FALSE(misplaced.ok());
  EXPECT_NE(misplaced.status().message().find("sources= reads a note's"), std::string::npos)
      << misplaced.status().message();
}

// No size the schema has is below zero: a negative cell is the dataset's
// slip, skipped with why (it was stored: "tdp -5 W").
TEST_F(MiniDatasetTest, AFigureBelowZeroIsSkippedWithWhy) {
  auto r = Extract(std::string(kHeader) + "Acme X1,-32,-5,0,Acme,2024,2024,,\n");
  ASSERT_TRUE(r.ok()) << r.status().message();
  for (const Fact& f : r->facts) {
    EXPECT_NE(f.predicate, "memory");
    EXPECT_NE(f.predicate, "tdp");
  }
  ASSERT_EQ(r->skipped.size(), 2u);
  EXPECT_EQ(r->skipped[0].column, "Memory (GB)");
  EXPECT_EQ(r->skipped[0].text, "-32");
  EXPECT_EQ(r->skipped[0].reason, "below zero: no memory is");
  EXPECT_EQ(r->skipped[1].reason, "below zero: no tdp is");
  const auto cores = std::find_if(r->facts.begin(), r->facts.end(), [](const Fact& f) { return f.predicate == "cores"; });
  ASSERT_NE(cores, r->facts.end());  // zero is a figure
  EXPECT_EQ(cores->value.number, 0);
}

TEST_F(MiniDatasetTest, MalformedCsvIsAnErrorWithItsLine) {
  auto r = Extract(std::string(kHeader) + "Acme X1,32,1,1,Acme,2024,2024,,\n\"Broken,1,2\n");
  ASSERT_FALSE(r.ok());
  EXPECT_TRUE(r.status().IsInvalidArgument());
  EXPECT_NE(r.status().message().find("mini-doc:3:"), std::string::npos) << r.status().message();
  auto ragged = Extract(std::string(kHeader) + "Acme X1,32\n");
  ASSERT_FALSE(ragged.ok());
  EXPECT_NE(ragged.status().message().find("mini-doc:2:"), std::string::npos) << ragged.status().message();
}

TEST_F(MiniDatasetTest, MissingMappedHeaderIsAnError) {
  auto r = Extract("Name,Memory (GB),TDP,Cores,Maker,Released,Updated\nA,1,1,1,Acme,2024,2024\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("\"Sources\""), std::string::npos) << r.status().message();
  EXPECT_NE(r.status().message().find("mini.schema:"), std::string::npos) << r.status().message();
}

TEST_F(MiniDatasetTest, AMappedHeaderGivenTwiceIsAnError) {
  std::string header(kHeader);
  header.insert(header.find('\n'), ",TDP");
  auto r = Extract(header + "A,1,1,1,Acme,2024,2024,x,y,9\n");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("the file's header has column \"TDP\" twice (columns 3 and 10)"),
            std::string::npos)
      << r.status().message();
}

// The duplicate-header check once compared every header with every other:
// 40,000 unmapped columns took 83 s. At 100,000 that would run for hours, so
// this test fails by timing out if the check turns quadratic again.
TEST_F(MiniDatasetTest, AVeryWideHeaderIsCheckedInLinearTime) {
  constexpr int kExtra = 100000;
  std::string header(kHeader);
  std::string row = "Acme X1,32,1,1,Acme,2024,2024,,";
  header.pop_back();
  for (int i = 0; i < kExtra; ++i) {
    header += ",x" + std::to_string(i);
    row += ",";
  }
  auto r = Extract(header + "\n" + row + "\n");
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->rows.size(), 1u);
  EXPECT_EQ(r->unmapped_columns.size(), static_cast<size_t>(kExtra) + 1);
}

TEST_F(MiniDatasetTest, UnknownDatasetIsAnError) {
  auto r = ExtractDataset(kHeader, "nope", "doc", *schema_, *resolver_);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("'nope'"), std::string::npos);
}

TEST_F(MiniDatasetTest, HeaderOnlyFileHasNoRows) {
  auto r = Extract(kHeader);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_TRUE(r->rows.empty());
  EXPECT_TRUE(r->facts.empty());
}

TEST_F(MiniDatasetTest, RowsWithTheSameNameAreReported) {
  auto r = Extract(std::string(kHeader) + "Acme X1,1,,,,,,,\nacme x1,2,,,,,,,\n");
  ASSERT_TRUE(r.ok()) << r.status().message();
  ASSERT_EQ(r->rows.size(), 2u);
  EXPECT_EQ(r->rows[0].resolution.id, r->rows[1].resolution.id);
  ASSERT_EQ(r->warnings.size(), 1u);
  EXPECT_NE(r->warnings[0].find("as row 1"), std::string::npos) << r->warnings[0];
}

}  // namespace
}  // namespace chipkg
