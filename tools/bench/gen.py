#!/usr/bin/env python3
# Copied unchanged (apart from these comment lines) from the project's reference material,
# /work/shared/bench/gen.py (the CEO's peer-benchmark corpus generator), so that the benchmark
# and the tests never read /work/shared at run time. Do not edit the generator below: the
# expected row counts in params.json must stay comparable with the other peers' runs.
"""gen.py - deterministic synthetic "source-tracked knowledge graph" about AI chips.

Usage:  python3 gen.py N OUTDIR [--seed 1]

Writes the SAME logical dataset in three forms into OUTDIR:
  kg.nq          N-Quads. Every fact triple sits in the named graph of the source document
                 that states it (graph IRI = source IRI). The graph <https://kg.example/graph/meta>
                 describes every source (kind, url, publisher, title, asOf, retrieved) and every
                 predicate (unit, label).
  facts.csv      for SQLite: facts(subject,predicate,value_num,unit,value_text,source,asof)
  sources.csv    for SQLite: sources(source,kind,url,publisher,title,asof,retrieved)
  facts.jsonl    neutral format: one object per fact assertion
                 {subject, predicate, value, unit, source, excerpt, as_of, status}
  sources.jsonl  one object per source {source, kind, url, publisher, title, as_of, retrieved}
  params.json    query parameters (Q1 chip, Q2 threshold, Q3 model, Q4 source), dataset
                 statistics, and the EXPECTED row count of every benchmark query (Q1..Q5),
                 computed here independently so each peer's answers can be checked.

A "fact assertion" = (subject, predicate, value, source). One (subject, predicate) pair is
stated by 1-3 sources (P = .5/.3/.2). About 10% of pairs have a conflict (one source gives a
different value), about 5% carry an explicit "not published" marker (stated by the vendor
datasheet; other sources may still give a value - that is not a conflict).

Representation of special values:
  not published : RDF object <https://kg.example/NotPublished>; CSV value_text='NOT_PUBLISHED'
                  (value_num and unit empty); JSONL value=null, status="not_published".
  numbers       : RDF xsd:integer or xsd:decimal (one decimal); the unit is a property of the
                  predicate in the meta graph; CSV value_num + unit; JSONL number + unit.
  dates         : RDF xsd:date; CSV value_text 'YYYY-MM-DD'; JSONL string.
  valid time    : as_of is per source document (the document's date); facts.asof repeats it.
  ingest time   : sources.retrieved (ISO datetime, UTC).
  excerpts      : only in facts.jsonl (the SQLite schema and the one-graph-per-source RDF
                  layout have no per-assertion slot for them).
Identifiers: chips 'chip:c000123', models 'model:llama-3.1-70b', sources 'src:ds-000012';
in RDF they become https://kg.example/chip/c000123, .../model/..., .../src/...; predicates
https://kg.example/p/<name>.

Determinism: only random.Random(<string seed>).random() is used (stable across Python
versions); every chip, family and source has its own RNG keyed by its index, so the dataset
for N=1000 is exactly the first 1000 chips of the dataset for N=10000 (sources covering
chips past N are simply not emitted).  Standard library only.
"""
import argparse
import csv
import datetime as dt
import json
import os
import random
import sys
import time

BASE = "https://kg.example/"
P_NS = BASE + "p/"
M_NS = BASE + "meta/"
META_G = BASE + "graph/meta"
NOTPUB = BASE + "NotPublished"
XSD = "http://www.w3.org/2001/XMLSchema#"
RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"

# predicate -> (kind, unit). kind: text | date | int | dec
PREDS = [
    ("name", "text", None),
    ("vendor", "text", None),
    ("family", "text", None),
    ("release_date", "date", None),
    ("process_node", "int", "nm"),
    ("foundry", "text", None),
    ("memory_capacity", "int", "GB"),
    ("memory_type", "text", None),
    ("memory_bandwidth", "int", "GB/s"),
    ("tdp", "int", "W"),
    ("fp32_tflops", "dec", "TFLOPS"),
    ("fp16_tflops", "dec", "TFLOPS"),
    ("bf16_tflops", "dec", "TFLOPS"),
    ("fp8_tflops", "dec", "TFLOPS"),
    ("int8_tops", "int", "TOPS"),
    ("int4_tops", "int", "TOPS"),
    ("die_area", "int", "mm2"),
    ("transistor_count", "dec", "billion"),
    ("l2_cache", "int", "MB"),
    ("boost_clock", "int", "MHz"),
    ("interconnect", "text", None),
    ("interconnect_bandwidth", "int", "GB/s"),
    ("pcie_gen", "int", None),
    ("form_factor", "text", None),
    ("launch_price", "int", "USD"),
]
MODEL_PREDS = [
    ("params", "int", "params"),
    ("context_length", "int", "tokens"),
    ("developer", "text", None),
]
PRED_INFO = {p: (k, u) for p, k, u in PREDS + MODEL_PREDS}
IDENTITY = {"name", "vendor", "family"}
NP_ELIGIBLE = {p for p, _, _ in PREDS} - IDENTITY - {"release_date", "memory_capacity"}
CONFLICT_ELIGIBLE = {p for p, _, _ in PREDS} - IDENTITY
P_OMIT = 0.03      # predicate missing for a chip
P_NP = 0.064       # per eligible pair -> ~5% of all pairs
P_CONF = 0.24      # per eligible multi-source pair -> ~10% of all pairs

# source types covering chip i, and the block of chips each one covers
SRC_BLOCK = {"ds": 8, "news": 16, "rev": 32, "bench": 128, "wiki": 1000}
SRC_KIND = {"ds": "datasheet", "news": "news", "rev": "review", "bench": "benchmark",
            "wiki": "encyclopedia", "card": "model_card", "paper": "paper"}
PRIMARY = {"die_area": "rev", "transistor_count": "rev", "l2_cache": "rev", "launch_price": "news"}
SECONDARY_ORDER = ["ds", "news", "rev", "bench", "wiki"]

VENDORS = [  # name, family prefix, domain, interconnect, usual foundry
    ("NVIDIA", "NV", "nvidia.example", "NVLink", "TSMC"),
    ("AMD", "MI", "amd.example", "Infinity Fabric", "TSMC"),
    ("Intel", "Gaudi", "intel.example", "RoCE Ethernet", "TSMC"),
    ("Google", "TPU", "cloud.google.example", "ICI", "TSMC"),
    ("AWS", "Trn", "aws.example", "NeuronLink", "TSMC"),
    ("Cerebras", "WSE", "cerebras.example", "SwarmX", "TSMC"),
    ("Graphcore", "IPU", "graphcore.example", "IPU-Link", "TSMC"),
    ("Groq", "LPU", "groq.example", "RealScale", "GlobalFoundries"),
    ("SambaNova", "SN", "sambanova.example", "PCIe", "TSMC"),
    ("Tenstorrent", "TT", "tenstorrent.example", "Ethernet", "Samsung"),
    ("Qualcomm", "AI", "qualcomm.example", "PCIe", "TSMC"),
    ("Huawei", "Ascend", "huawei.example", "HCCS", "SMIC"),
    ("Meta", "MTIA", "meta.example", "PCIe", "TSMC"),
    ("Microsoft", "Maia", "microsoft.example", "Ethernet", "TSMC"),
]
FOUNDRIES = ["TSMC", "Samsung", "Intel", "SMIC", "GlobalFoundries"]
MEM_TYPES = ["GDDR6", "GDDR6X", "GDDR7", "LPDDR5", "LPDDR5X", "HBM2", "HBM2e", "HBM3", "HBM3e"]
INTERCONNECTS = sorted({v[3] for v in VENDORS})
FORM_FACTORS = ["SXM", "OAM", "PCIe card", "M.2", "wafer-scale system", "BGA module"]
MEM_DC = [16, 32, 40, 48, 64, 80, 94, 96, 128, 141, 144, 192, 256, 288]
MEM_INF = [8, 16, 24, 32, 48, 64, 96]
MEM_EDGE = [4, 8, 16, 32]
MEM_ALL = sorted(set(MEM_DC + MEM_INF + MEM_EDGE))
VARIANTS = ["", " Pro", " Max", " SXM", " PCIe", " NVL", " X", " Lite"]
NEWS = [("The Register", "theregister.example"), ("AnandTech", "anandtech.example"),
        ("Tom's Hardware", "tomshardware.example"), ("ServeTheHome", "servethehome.example"),
        ("HPCwire", "hpcwire.example"), ("The Next Platform", "nextplatform.example"),
        ("EE Times", "eetimes.example"), ("Reuters", "reuters.example")]
REVIEWERS = [("TechInsights", "techinsights.example"), ("Chips and Cheese", "chipsandcheese.example"),
             ("SemiAnalysis", "semianalysis.example"), ("ServeTheHome", "servethehome.example")]
BENCHES = [("MLCommons", "mlcommons.example"), ("Artificial Analysis", "artificialanalysis.example"),
           ("InferenceMAX", "inferencemax.example")]
WIKIS = [("Wikipedia", "en.wikipedia.example"), ("WikiChip", "wikichip.example")]

# 13 LLMs: slug, name, developer, params, context length, has-paper
MODELS = [
    ("phi-3-mini", "Phi-3-mini", "Microsoft", 3821079552, 4096, True),
    ("llama-2-7b", "Llama 2 7B", "Meta", 6738415616, 4096, True),
    ("mistral-7b", "Mistral 7B", "Mistral AI", 7241732096, 32768, True),
    ("llama-3-8b", "Llama 3 8B", "Meta", 8030261248, 8192, False),
    ("llama-2-13b", "Llama 2 13B", "Meta", 13015864320, 4096, True),
    ("gemma-2-27b", "Gemma 2 27B", "Google", 27227128320, 8192, True),
    ("mixtral-8x7b", "Mixtral 8x7B", "Mistral AI", 46702792704, 32768, True),
    ("llama-3.1-70b", "Llama 3.1 70B", "Meta", 70553706496, 131072, True),
    ("qwen2-72b", "Qwen2 72B", "Alibaba", 72706203648, 131072, True),
    ("mixtral-8x22b", "Mixtral 8x22B", "Mistral AI", 140620634112, 65536, False),
    ("falcon-180b", "Falcon 180B", "TII", 179522565120, 2048, True),
    ("llama-3.1-405b", "Llama 3.1 405B", "Meta", 405853388800, 131072, True),
    ("deepseek-v3", "DeepSeek-V3", "DeepSeek", 671026419200, 131072, True),
]

SEED = 1


def rng(*key):
    return random.Random(":".join(str(k) for k in (SEED,) + key))


def pick(r, seq):
    return seq[int(r.random() * len(seq))]


def clamp(x, lo, hi):
    return lo if x < lo else hi if x > hi else x


def date_from(r, y0, y1):
    d0 = dt.date(y0, 1, 1).toordinal()
    d1 = dt.date(y1, 12, 31).toordinal()
    return dt.date.fromordinal(d0 + int(r.random() * (d1 - d0 + 1)))


# ---------------------------------------------------------------- families, chips, sources
_fam_cache = {}


def family(f):
    fam = _fam_cache.get(f)
    if fam is not None:
        return fam
    r = rng("fam", f)
    v = pick(r, VENDORS)
    year = 2016 + int(r.random() * 11)
    u = r.random()
    tier = "datacenter" if u < 0.6 else ("inference" if u < 0.85 else "edge")
    nodes = [16, 16, 12, 7, 7, 6, 5, 5, 4, 3, 3]
    node = nodes[clamp(year - 2016 + int(r.random() * 3) - 1, 0, 10)]
    foundry = v[4] if r.random() < 0.85 else pick(r, FOUNDRIES)
    if tier == "edge":
        mtype = "LPDDR5X" if year >= 2023 else "LPDDR5"
    elif tier == "inference":
        mtype = pick(r, ["GDDR6", "GDDR6X", "GDDR7"] if year >= 2022 else ["GDDR6", "LPDDR5"])
    else:
        mtype = ["HBM2", "HBM2", "HBM2e", "HBM2e", "HBM2e", "HBM3", "HBM3", "HBM3", "HBM3e", "HBM3e", "HBM3e"][year - 2016]
    ff = {"datacenter": pick(r, ["SXM", "OAM", "PCIe card"] if v[0] != "Cerebras" else ["wafer-scale system"]),
          "inference": "PCIe card", "edge": pick(r, ["M.2", "BGA module"])}[tier]
    fam = {
        "id": f, "vendor": v[0], "prefix": v[1], "domain": v[2], "interconnect": v[3],
        "family": "%s%d" % (v[1], f), "year": year, "tier": tier, "node": node,
        "foundry": foundry, "memory_type": mtype, "form_factor": ff,
        "release": date_from(r, year, year),
        "perf": (2.0 ** ((year - 2016) / 2.0)) * {"datacenter": 120, "inference": 60, "edge": 8}[tier] * (0.7 + 0.6 * r.random()),
        "die": int({"datacenter": 600, "inference": 350, "edge": 90}[tier] * (0.7 + 0.5 * r.random())),
    }
    if len(_fam_cache) > 4096:
        _fam_cache.clear()
    _fam_cache[f] = fam
    return fam


def chip_truth(i, fam, r):
    """True values of the 25 predicates for chip i (python int / float / str)."""
    j = i % 8
    tier, year = fam["tier"], fam["year"]
    mem_list = {"datacenter": MEM_DC, "inference": MEM_INF, "edge": MEM_EDGE}[tier]
    pos = (year - 2016) / 10.0 * (len(mem_list) - 1) + (r.random() * 4 - 2)
    mem = mem_list[clamp(int(round(pos)), 0, len(mem_list) - 1)]
    scale = 0.75 + 0.5 * r.random()
    fp16 = round(fam["perf"] * scale, 1)
    hbm = fam["memory_type"].startswith("HBM")
    bw = int(mem * (25 if hbm else 8) * (0.8 + 0.4 * r.random()))
    tdp = int({"datacenter": 300, "inference": 120, "edge": 15}[tier] * (0.8 + 0.2 * (year - 2016) / 5) * scale)
    trans = round(fam["die"] * {16: 0.025, 12: 0.03, 7: 0.06, 6: 0.07, 5: 0.12, 4: 0.14, 3: 0.2}[fam["node"]], 1)
    return {
        "name": "%s %s%s" % (fam["vendor"], fam["family"], VARIANTS[j]),
        "vendor": fam["vendor"],
        "family": fam["family"],
        "release_date": (fam["release"] + dt.timedelta(days=int(r.random() * 200))).isoformat(),
        "process_node": fam["node"],
        "foundry": fam["foundry"],
        "memory_capacity": mem,
        "memory_type": fam["memory_type"],
        "memory_bandwidth": bw,
        "tdp": tdp,
        "fp32_tflops": round(fp16 / (4 + int(r.random() * 13)), 1),
        "fp16_tflops": fp16,
        "bf16_tflops": fp16,
        "fp8_tflops": round(fp16 * 2, 1),
        "int8_tops": int(fp16 * 2),
        "int4_tops": int(fp16 * 4),
        "die_area": fam["die"],
        "transistor_count": trans,
        "l2_cache": int(8 * 2 ** int(r.random() * 5)),
        "boost_clock": int(1000 + 100 * int(r.random() * 15)),
        "interconnect": fam["interconnect"],
        "interconnect_bandwidth": int(64 * 2 ** int(r.random() * 5) * (1 + (year - 2016) // 4)),
        "pcie_gen": 3 + clamp((year - 2016) // 3, 0, 3),
        "form_factor": fam["form_factor"],
        "launch_price": int({"datacenter": 15000, "inference": 3000, "edge": 300}[tier] * scale * (1 + (year - 2016) / 8)),
    }


def perturb(pred, val, r):
    kind = PRED_INFO[pred][0]
    if pred == "memory_capacity":
        k = MEM_ALL.index(val)
        k2 = k + 1 if (k == 0 or (k < len(MEM_ALL) - 1 and r.random() < 0.5)) else k - 1
        return MEM_ALL[k2]
    if kind == "int":
        nv = int(round(val * pick(r, [0.8, 0.9, 0.95, 1.05, 1.1, 1.25])))
        return nv if nv != val else val + 1
    if kind == "dec":
        nv = round(val * pick(r, [0.8, 0.9, 0.95, 1.05, 1.1, 1.25]), 1)
        return nv if nv != val else round(val + 0.1, 1)
    if kind == "date":
        d = dt.date.fromisoformat(val) + dt.timedelta(days=pick(r, [-90, -45, -30, 30, 45, 90]))
        return d.isoformat()
    alts = {"memory_type": MEM_TYPES, "foundry": FOUNDRIES, "interconnect": INTERCONNECTS,
            "form_factor": FORM_FACTORS}[pred]
    alts = [a for a in alts if a != val]
    return pick(r, alts)


_src_cache = {}


def source_meta(sid):
    """sid like 'ds-000012' (no 'src:' prefix). Deterministic metadata of one source document."""
    m = _src_cache.get(sid)
    if m is not None:
        return m
    typ, rest = sid.split("-", 1)
    r = rng("src", sid)
    if typ == "ds":
        fam = family(int(rest))
        pub, dom = fam["vendor"], fam["domain"]
        asof = fam["release"]
        url = "https://%s/datasheets/%s.pdf" % (dom, fam["family"].lower())
        title = "%s %s series datasheet" % (pub, fam["family"])
    elif typ in ("card", "paper"):
        mdl = MODEL_BY_SLUG[rest]
        if typ == "card":
            pub, url = mdl[2], "https://models.example/%s/%s" % (mdl[2].lower().replace(" ", "-"), rest)
            title = "%s model card" % mdl[1]
        else:
            pub, url = "arXiv", "https://arxiv.example/abs/%s" % rest
            title = "%s technical report" % mdl[1]
        asof = date_from(r, 2023, 2024)
    else:
        pool = {"news": NEWS, "rev": REVIEWERS, "bench": BENCHES, "wiki": WIKIS}[typ]
        pub, dom = pick(r, pool)
        asof = date_from(r, 2023, 2026)
        url = "https://%s/%s/%s" % (dom, SRC_KIND[typ], rest)
        title = "%s %s #%d" % (pub, SRC_KIND[typ], int(rest))
    retrieved = dt.datetime.combine(asof, dt.time(0, 0)) + dt.timedelta(
        days=1 + int(r.random() * 300), seconds=int(r.random() * 86400))
    m = {"source": "src:" + sid, "kind": SRC_KIND[typ], "url": url, "publisher": pub, "title": title,
         "as_of": asof.isoformat(), "retrieved": retrieved.strftime("%Y-%m-%dT%H:%M:%SZ")}
    if len(_src_cache) > 8192:
        _src_cache.clear()
    _src_cache[sid] = m
    return m


MODEL_BY_SLUG = {m[0]: m for m in MODELS}

EXCERPTS_NUM = ["{pub}: the {name} has a {label} of {v} {u}.",
                "According to {pub}, {name} {label}: {v} {u}.",
                "{name} ({pub}) - {label} {v} {u}"]
EXCERPTS_TXT = ["{pub}: {label} of the {name} is {v}.",
                "According to {pub}, the {name} uses {v} ({label}).",
                "{name} ({pub}) - {label}: {v}"]


def chip_facts(i):
    """Yields (subject, predicate, value, source_id, status, rng-excerpt-choice) for chip i."""
    fam = family(i // 8)
    r = rng("chip", i)
    truth = chip_truth(i, fam, r)
    cands = {t: "%s-%06d" % (t, i // b) for t, b in SRC_BLOCK.items()}
    subj = "chip:c%06d" % i
    out = []
    for pred, _, _ in PREDS:
        if pred not in IDENTITY and r.random() < P_OMIT:
            continue
        u = r.random()
        k = 1 if u < 0.5 else (2 if u < 0.8 else 3)
        primary = PRIMARY.get(pred, "ds")
        others = [t for t in SECONDARY_ORDER if t != primary]
        for a in range(len(others) - 1, 0, -1):  # Fisher-Yates with .random() only
            b = int(r.random() * (a + 1))
            others[a], others[b] = others[b], others[a]
        chosen = [primary] + others[:k - 1]
        np_ = pred in NP_ELIGIBLE and r.random() < P_NP
        conflict = (not np_) and k >= 2 and pred in CONFLICT_ELIGIBLE and r.random() < P_CONF
        val = truth[pred]
        if np_:
            rest = [t for t in chosen if t != "ds"]
            chosen = ["ds"] + rest[:k - 1]
        for n, t in enumerate(chosen):
            if np_ and n == 0:
                out.append((subj, pred, None, cands[t], "not_published", int(r.random() * 3)))
            elif conflict and n == len(chosen) - 1:
                out.append((subj, pred, perturb(pred, val, r), cands[t], "stated", int(r.random() * 3)))
            else:
                out.append((subj, pred, val, cands[t], "stated", int(r.random() * 3)))
    return out, truth["name"]


def model_facts():
    out = []
    for slug, name, dev, params, ctx, paper in MODELS:
        subj = "model:" + slug
        card = "card-" + slug
        out.append((subj, "name", name, card, "stated", 0))
        out.append((subj, "developer", dev, card, "stated", 1))
        out.append((subj, "params", params, card, "stated", 0))
        out.append((subj, "context_length", ctx, card, "stated", 2))
        if paper:
            out.append((subj, "params", params, "paper-" + slug, "stated", 1))
    return out


# ---------------------------------------------------------------- serialisers
def iri(x):
    pre, rest = x.split(":", 1)
    return BASE + {"chip": "chip/", "model": "model/", "src": "src/"}[pre] + rest


def lit(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r") + '"'


def fmt_num(kind, v):
    return "%.1f" % v if kind == "dec" else str(int(v))


def nq_object(pred, v, status):
    if status == "not_published":
        return "<%s>" % NOTPUB
    kind = PRED_INFO[pred][0]
    if kind == "text":
        return lit(v)
    if kind == "date":
        return '"%s"^^<%sdate>' % (v, XSD)
    if kind == "int":
        return '"%d"^^<%sinteger>' % (v, XSD)
    return '"%.1f"^^<%sdecimal>' % (v, XSD)


def main():
    global SEED
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("n", type=int, help="number of chips")
    ap.add_argument("outdir")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    SEED = a.seed
    N = a.n
    os.makedirs(a.outdir, exist_ok=True)
    t0 = time.time()

    q1_chip = "chip:c%06d" % (N // 2 + 1 if N > 1 else 0)
    q2_min = 64
    q3_model = "model:llama-3.1-70b"
    q4_source = "src:rev-%06d" % ((N // 2) // SRC_BLOCK["rev"])

    f_nq = open(os.path.join(a.outdir, "kg.nq"), "w", encoding="utf-8", newline="\n")
    f_fc = open(os.path.join(a.outdir, "facts.csv"), "w", encoding="utf-8", newline="")
    f_js = open(os.path.join(a.outdir, "facts.jsonl"), "w", encoding="utf-8", newline="\n")
    w_fc = csv.writer(f_fc, lineterminator="\n")
    w_fc.writerow(["subject", "predicate", "value_num", "unit", "value_text", "source", "asof"])

    used_sources = {}          # sid -> None (ordered set)
    n_assert = n_pairs = n_np_pairs = n_conf_pairs = 0
    q1 = q2 = q4 = q5 = 0
    mem_vals = []              # numeric memory_capacity assertions (for Q3)
    chip_names = {}

    def emit(facts, names):
        nonlocal n_assert, n_pairs, n_np_pairs, n_conf_pairs, q1, q2, q4, q5
        nq_lines, js_lines = [], []
        groups = {}
        for subj, pred, v, sid, status, ex in facts:
            kind, unit = PRED_INFO[pred]
            meta = source_meta(sid)
            used_sources[sid] = None
            src = meta["source"]
            s_iri = iri(subj)
            nq_lines.append("<%s> <%s%s> %s <%s%s> .\n" % (s_iri, P_NS, pred, nq_object(pred, v, status), BASE + "src/", sid))
            if status == "not_published":
                row = [subj, pred, "", "", "NOT_PUBLISHED", src, meta["as_of"]]
                jv, ju = None, unit
                excerpt = "%s: the %s of the %s is not published." % (meta["publisher"], pred.replace("_", " "), names.get(subj, subj))
            elif kind in ("int", "dec"):
                row = [subj, pred, fmt_num(kind, v), unit or "", "", src, meta["as_of"]]
                jv, ju = v, unit
                excerpt = EXCERPTS_NUM[ex].format(pub=meta["publisher"], name=names.get(subj, subj),
                                                  label=pred.replace("_", " "), v=fmt_num(kind, v), u=unit or "").rstrip()
            else:
                row = [subj, pred, "", "", v, src, meta["as_of"]]
                jv, ju = v, None
                excerpt = EXCERPTS_TXT[ex].format(pub=meta["publisher"], name=names.get(subj, subj),
                                                  label=pred.replace("_", " "), v=v)
            w_fc.writerow(row)
            js_lines.append(json.dumps({"subject": subj, "predicate": pred, "value": jv, "unit": ju,
                                        "source": src, "excerpt": excerpt, "as_of": meta["as_of"],
                                        "status": status}, ensure_ascii=False) + "\n")
            # statistics / expected answers
            n_assert += 1
            groups.setdefault((subj, pred), []).append((src, None if status == "not_published" else v))
            if subj == q1_chip:
                q1 += 1
            if pred == "memory_capacity" and status != "not_published":
                mem_vals.append(v)
                if v >= q2_min:
                    q2 += 1
            if src == q4_source:
                q4 += 1
        for (subj, pred), lst in groups.items():
            if subj.startswith("model:"):
                continue
            n_pairs += 1
            if any(v is None for _, v in lst):
                n_np_pairs += 1
            vals = [(s, v) for s, v in lst if v is not None]
            c = 0
            for x in range(len(vals)):
                for y in range(x + 1, len(vals)):
                    if vals[x][1] != vals[y][1]:
                        c += 1
            q5 += c
            if c:
                n_conf_pairs += 1
        f_nq.write("".join(nq_lines))
        f_js.write("".join(js_lines))

    for i in range(N):
        facts, name = chip_facts(i)
        emit(facts, {"chip:c%06d" % i: name})
    mfacts = model_facts()
    emit(mfacts, {"model:" + m[0]: m[1] for m in MODELS})

    # Q3 expected: memory assertions that fit the model at INT4 x number of params assertions
    q3_params = [v for s, p, v, _, _, _ in mfacts if s == q3_model and p == "params"]
    q3 = sum(1 for m in mem_vals for pv in q3_params if m * 1e9 >= pv * 0.5)

    # sources: meta graph + csv + jsonl
    f_sc = open(os.path.join(a.outdir, "sources.csv"), "w", encoding="utf-8", newline="")
    w_sc = csv.writer(f_sc, lineterminator="\n")
    w_sc.writerow(["source", "kind", "url", "publisher", "title", "asof", "retrieved"])
    f_sj = open(os.path.join(a.outdir, "sources.jsonl"), "w", encoding="utf-8", newline="\n")
    n_meta = 0
    lines = []
    for sid in used_sources:
        m = source_meta(sid)
        g = BASE + "src/" + sid
        lines.append("<%s> <%s> <%sSource> <%s> .\n" % (g, RDF_TYPE, M_NS, META_G))
        lines.append("<%s> <%skind> %s <%s> .\n" % (g, M_NS, lit(m["kind"]), META_G))
        lines.append("<%s> <%surl> <%s> <%s> .\n" % (g, M_NS, m["url"], META_G))
        lines.append("<%s> <%spublisher> %s <%s> .\n" % (g, M_NS, lit(m["publisher"]), META_G))
        lines.append("<%s> <%stitle> %s <%s> .\n" % (g, M_NS, lit(m["title"]), META_G))
        lines.append('<%s> <%sasOf> "%s"^^<%sdate> <%s> .\n' % (g, M_NS, m["as_of"], XSD, META_G))
        lines.append('<%s> <%sretrieved> "%s"^^<%sdateTime> <%s> .\n' % (g, M_NS, m["retrieved"], XSD, META_G))
        n_meta += 7
        w_sc.writerow([m["source"], m["kind"], m["url"], m["publisher"], m["title"], m["as_of"], m["retrieved"]])
        f_sj.write(json.dumps(m, ensure_ascii=False) + "\n")
        if len(lines) > 20000:
            f_nq.write("".join(lines))
            lines = []
    for pred, kind, unit in PREDS + MODEL_PREDS:
        pi = P_NS + pred
        lines.append("<%s> <%slabel> %s <%s> .\n" % (pi, M_NS, lit(pred.replace("_", " ")), META_G))
        n_meta += 1
        if unit:
            lines.append("<%s> <%sunit> %s <%s> .\n" % (pi, M_NS, lit(unit), META_G))
            n_meta += 1
    f_nq.write("".join(lines))
    for f in (f_nq, f_fc, f_js, f_sc, f_sj):
        f.close()

    params = {
        "n_chips": N, "seed": SEED,
        "iri_base": BASE, "meta_graph": META_G, "not_published_iri": NOTPUB,
        "q1_chip": q1_chip, "q2_min_gb": q2_min, "q3_model": q3_model, "q4_source": q4_source,
        "stats": {
            "fact_assertions": n_assert, "subject_predicate_pairs_chips": n_pairs,
            "assertions_per_chip": round(n_assert / max(N, 1), 2),
            "pairs_with_not_published": n_np_pairs,
            "pct_pairs_not_published": round(100.0 * n_np_pairs / max(n_pairs, 1), 2),
            "pairs_in_conflict": n_conf_pairs,
            "pct_pairs_in_conflict": round(100.0 * n_conf_pairs / max(n_pairs, 1), 2),
            "sources": len(used_sources), "meta_quads": n_meta, "total_quads": n_assert + n_meta,
            "models": len(MODELS),
        },
        "expected_rows": {"Q1": q1, "Q2": q2, "Q3": q3, "Q4": q4, "Q5": q5},
        "gen_seconds": round(time.time() - t0, 1),
    }
    with open(os.path.join(a.outdir, "params.json"), "w") as f:
        json.dump(params, f, indent=1)
    json.dump(params, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
