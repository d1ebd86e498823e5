#!/usr/bin/env python3
"""gen_pages.py N OUTDIR: N synthetic web pages in the seed templates, and a manifest.

Each page is a seed page (datasets/seeds/) with the chip renamed and its figures
changed, so the extractors see real template structure with new content. Used
to measure ingest throughput and by the crash-safety test. Deterministic.
"""
import json
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SEEDS = os.path.join(HERE, "..", "..", "datasets", "seeds")

# (seed file, chip name as written, replacements of figures: text -> list of alternatives)
TEMPLATES = [
    ("000_de7815fa348ea8df.txt", ["AWS Trainium (Trn1)"], {
        "32 GB": ["16 GB", "24 GB", "48 GB", "64 GB"],
        "820 GB/s": ["600 GB/s", "1,000 GB/s", "1,200 GB/s"],
        "210 TFLOPS": ["150 TFLOPS", "300 TFLOPS", "420 TFLOPS"],
        "2020-12-01": ["2021-03-15", "2022-06-01"],
        "2022-10-01": ["2023-01-10", "2023-09-30"],
    }),
    ("003_d5e7e28472882ec2.txt", ["AWS Trainium 2"], {
        "96 GB": ["80 GB", "128 GB", "141 GB", "192 GB"],
        "2,900 GB/s": ["2,000 GB/s", "3,350 GB/s", "4,800 GB/s"],
        "667 TFLOPS": ["500 TFLOPS", "989 TFLOPS"],
        "2024-12-03": ["2024-03-18", "2025-06-11"],
    }),
    ("001_fbc9a4a76c8d550e.txt", ["Amazon Trainium (Trn1)"], {
        "32 GiB": ["16 GiB", "64 GiB"],
        "24 MiB": ["16 MiB", "32 MiB"],
        "$1.34/hr": ["$1.10/hr", "$1.55/hr"],
    }),
]


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: gen_pages.py N OUTDIR")
    n, out = int(sys.argv[1]), sys.argv[2]
    os.makedirs(out, exist_ok=True)
    texts = {}
    for name, _, _ in TEMPLATES:
        with open(os.path.join(SEEDS, name), encoding="utf-8") as f:
            texts[name] = f.read()
    manifest = []
    for i in range(n):
        r = random.Random("page:%d" % i)
        name, chip_names, figures = TEMPLATES[i % len(TEMPLATES)]
        text = texts[name]
        new_chip = "Synthetic Accelerator %05d" % i
        for c in chip_names:
            text = text.replace(c, new_chip)
        for old, alts in figures.items():
            text = text.replace(old, r.choice(alts))
        fn = "page_%05d.txt" % i
        with open(os.path.join(out, fn), "w", encoding="utf-8") as f:
            f.write(text)
        manifest.append({"id": "synthetic-%05d" % i, "location": fn, "kind": "press",
                         "site": "chip-catalog.example" if name != "001_fbc9a4a76c8d550e.txt" else "chip-dossier.example"})
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=0)


if __name__ == "__main__":
    main()
