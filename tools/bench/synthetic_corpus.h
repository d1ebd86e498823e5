// A synthetic corpus of AI-chip claims for storage benchmarks, generated in
// process and deterministic for a seed.
//
// Each chip has ~25 predicates; each (chip, predicate) claim is stated by 1-3
// of the chip's three source documents (vendor page, press article,
// aggregator), about 10% of the claims conflict (a fifth of the multi-source
// ones: a second source gives another value) and about 5% of claims are "not published" markers. Every
// claim carries an excerpt: the line of its document that states it, with the
// span pointing at it, so the load path pays for real provenance.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "engine/fact.h"

namespace chipkg::bench {

struct SyntheticDocument {
  Document doc;
  DocumentVersion version;
  std::vector<Fact> facts;
};

struct SyntheticChip {
  Entity entity;
  std::vector<SyntheticDocument> documents;  // the chip's sources; facts name these
  size_t fact_count() const {
    size_t n = 0;
    for (const auto& d : documents) n += d.facts.size();
    return n;
  }
};

class SyntheticCorpus {
 public:
  static constexpr int kSources = 3;
  static constexpr double kMemoryGb[] = {16, 24, 32, 40, 48, 64, 80, 96, 128, 141, 192, 256};

  explicit SyntheticCorpus(uint64_t seed = 1) : seed_(seed) {}

  // The organisations chips refer to (designers, foundries).
  static std::vector<Entity> Organizations() {
    std::vector<Entity> out;
    for (int i = 0; i < kOrgs; ++i) out.push_back({OrgId(i), "organization", "Org " + std::to_string(i), {}});
    return out;
  }

  // Chip `index`, the same for the same seed and index whatever else was generated.
  SyntheticChip Chip(uint64_t index, uint32_t revision = 0) const {
    std::mt19937_64 rng(seed_ * 0x9E3779B97F4A7C15ull + index * 1000003ull + revision);
    SyntheticChip chip;
    const std::string id = ChipId(index);
    chip.entity = {id, "chip", "Synthetic Chip " + std::to_string(index), {"SC" + std::to_string(index)}};
    static const char* kSourceKinds[kSources] = {"vendor", "press", "aggregator"};
    for (int s = 0; s < kSources; ++s) {
      SyntheticDocument d;
      d.doc.id = DocumentId(index, s);
      d.doc.url = "https://" + std::string(kSourceKinds[s]) + ".example/chips/" + std::to_string(index);
      d.doc.title = chip.entity.name + " (" + kSourceKinds[s] + ")";
      d.doc.site = std::string(kSourceKinds[s]) + ".example";
      d.doc.kind = kSourceKinds[s];
      d.version.fetched_at = 1700000000 + static_cast<int64_t>(index % 100000);
      d.version.as_of = Date{2024, static_cast<uint8_t>(1 + index % 12), 0, DatePrecision::kMonth};
      d.version.content_type = "text/html";
      d.version.text = chip.entity.name + " - " + kSourceKinds[s] + " page\n";
      chip.documents.push_back(std::move(d));
    }
    auto uniform = [&](int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); };
    const double memory = kMemoryGb[uniform(std::size(kMemoryGb))] * 1e9;
    const double tdp = 75 + 25 * uniform(40);
    const double bf16 = 1e12 * (50 + uniform(2000));
    for (int p = 0; p < kPredicates; ++p) {
      // How many sources state it: 1, 2 or 3 with P = .5/.3/.2.
      const int r = uniform(10);
      const int sources = r < 5 ? 1 : r < 8 ? 2 : 3;
      const bool conflict = sources > 1 && uniform(5) == 0;
      for (int s = 0; s < sources; ++s) {
        SyntheticDocument& d = chip.documents[s];
        const bool not_published = uniform(20) == 0;
        Fact f;
        f.subject = id;
        Value v;
        std::string label;
        Qualifiers q;
        const double bump = conflict && s == 1 ? 1.25 : 1.0;
        switch (p) {
          case 0: f.predicate = "memory"; v = Value::Quantity(memory * bump, "bytes", Gb(memory * bump)); break;
          case 1: f.predicate = "memory_bandwidth"; v = Quantity(1e9 * (400 + 100 * (index % 40)) * bump, "bytes_per_second", "GB/s", 1e9); break;
          case 2: f.predicate = "tdp"; v = Quantity(tdp * bump, "watts", "W", 1); break;
          case 3: case 4: case 5: case 6: {
            static const char* kFormats[] = {"bf16", "fp8", "int8", "fp16"};
            static const double kScale[] = {1, 2, 2, 1};
            f.predicate = "peak_throughput";
            q = {{"format", kFormats[p - 3]}, {"sparsity", "dense"}};
            v = Quantity(bf16 * kScale[p - 3] * bump, "ops_per_second", "TFLOPS", 1e12);
            break;
          }
          case 7: f.predicate = "on_chip_memory"; v = Quantity(1e6 * (24 + index % 200) * bump, "bytes", "MB", 1e6); break;
          case 8: f.predicate = "intranode_bandwidth"; v = Quantity(1e9 * (100 + index % 900) * bump, "bytes_per_second", "GB/s", 1e9); break;
          case 9: f.predicate = "internode_bandwidth"; v = Quantity(1e9 * (25 + index % 400) * bump, "bytes_per_second", "GB/s", 1e9); break;
          case 10: f.predicate = "process_size"; v = Quantity(1e-9 * (3 + index % 12) * bump, "length", "nm", 1e-9); break;
          case 11: f.predicate = "die_size"; v = Quantity(1e-6 * (300 + index % 500) * bump, "area", "mm²", 1e-6); break;
          case 12: f.predicate = "transistors"; v = Quantity(1e9 * (10 + index % 200) * bump, "count", "billion", 1e9); break;
          case 13: f.predicate = "base_clock"; v = Quantity(1e6 * (800 + index % 900) * bump, "frequency", "MHz", 1e6); break;
          case 14: f.predicate = "boost_clock"; v = Quantity(1e6 * (1200 + index % 900) * bump, "frequency", "MHz", 1e6); break;
          case 15: f.predicate = "launch_price"; v = Quantity((5000 + 100 * (index % 300)) * bump, "usd", "USD", 1); break;
          case 16: f.predicate = "announced"; v = DateValue(2016 + index % 9, 1 + (index + (bump > 1)) % 12); break;
          case 17: f.predicate = "released"; v = DateValue(2017 + index % 9, 1 + (index / 12 + (bump > 1)) % 12); break;
          case 18: f.predicate = "designer"; v = Value::Entity(OrgId((index + (bump > 1)) % kOrgs), ""); break;
          case 19: f.predicate = "foundry"; v = Value::Entity(OrgId((index / 7 + (bump > 1)) % 3), ""); break;
          case 20: f.predicate = "memory_type"; v = Value::Text(bump > 1 ? "HBM2e" : index % 3 ? "HBM3" : "HBM3e"); break;
          case 21: f.predicate = "chip_type"; v = Value::Text((index % 4 == 0) != (bump != 1.0) ? "GPU" : "ASIC"); break;
          case 22: f.predicate = "form_factor"; v = Value::Text((index % 2 != 0) != (bump != 1.0) ? "SXM" : "PCIe card"); break;
          case 23: f.predicate = "safety_critical"; v = Value::Bool((index % 11 == 0) != (bump > 1), ""); break;
          default: f.predicate = "cooling"; v = Value::Text((index % 5 != 0) != (bump != 1.0) ? "air" : "liquid"); break;
        }
        if (not_published) v = Value::NotPublished("not published");
        std::string line = f.predicate;
        for (const auto& [k, val] : q) line += " (" + val + ")";
        line += ": " + (v.original.empty() ? v.ToString() : v.original);
        f.value = std::move(v);
        f.qualifiers = std::move(q);
        Provenance& pr = f.provenance;
        pr.document_id = d.doc.id;
        pr.section = s == 0 ? "Specifications" : s == 1 ? "Article" : "Spec table";
        pr.span_begin = static_cast<uint32_t>(d.version.text.size());
        d.version.text += line;
        pr.span_end = static_cast<uint32_t>(d.version.text.size());
        pr.excerpt = line;
        pr.prefix = "\n";
        pr.suffix = "\n";
        d.version.text += "\n";
        if (s == 2) {
          pr.row = static_cast<int64_t>(index) + 1;
          pr.column = f.predicate;
          pr.citations = {"https://vendor.example/chips/" + std::to_string(index)};
        }
        pr.rule = std::string("synthetic-") + kSourceKinds[s];
        pr.rule_version = "1";
        f.valid_as_of = d.version.as_of;
        d.facts.push_back(std::move(f));
      }
    }
    return chip;
  }

  static std::string ChipId(uint64_t index) { return "chip:synthetic-" + std::to_string(index); }
  static std::string DocumentId(uint64_t index, int source) {
    return "src" + std::to_string(source) + "/chip-" + std::to_string(index);
  }
  static std::string OrgId(uint64_t index) { return "organization:org-" + std::to_string(index); }
  // Average facts per chip (25 predicates x 1.7 sources), to size a corpus.
  static constexpr double kFactsPerChip = 25 * 1.7;

 private:
  static constexpr int kPredicates = 25;
  static constexpr int kOrgs = 40;

  static std::string Gb(double bytes) { return Trim(bytes / 1e9) + " GB"; }
  static std::string Trim(double v) {
    std::string s = std::to_string(v);
    while (!s.empty() && s.back() == '0') s.pop_back();
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
  }
  static Value Quantity(double canonical, const char* dimension, const char* unit, double factor) {
    return Value::Quantity(canonical, dimension, Trim(canonical / factor) + " " + unit);
  }
  static Value DateValue(int year, int month) {
    Date d{year, static_cast<uint8_t>(month), 0, DatePrecision::kMonth};
    return Value::OfDate(d, d.ToString());
  }

  uint64_t seed_;
};

}  // namespace chipkg::bench
