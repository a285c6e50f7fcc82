"""Rows of bench/calibration/data.csv from `kiln rtl --json` and `kiln synth --json` outputs.

One row per stage module (Yosys's count with the modules it instantiates, as the stage's
estimate counts them) and one per top (its own cells against the top's estimate, its delay
lines). Features are the stage's `calibration` breakdown in report.json (absent: empty).
usage: collect.py designs.txt WORK_DIR > data.csv
"""
import csv
import json
import os
import sys

RESOURCES = ["lut", "ff", "dsp", "bram18", "srl", "lutram", "carry"]


def designs(path):
    for line in open(path):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        split, name, model, _ = line.split("|", 3)
        yield split, name, model


def stage_of(module, stages):
    """The stage a module is named after: exactly, else a unique `_<stage>` suffix."""
    exact = [s for s in stages if s["name"] == module]
    if exact:
        return exact[0]
    suffix = [s for s in stages if module.endswith("_" + s["name"])]
    return suffix[0] if len(suffix) == 1 else None


def main():
    designs_txt, work = sys.argv[1], sys.argv[2]
    rows = []
    features = set()
    for split, name, model in designs(designs_txt):
        try:
            rtl = json.load(open(os.path.join(work, name + ".rtl.json")))
            syn = json.load(open(os.path.join(work, name + ".syn.json")))
        except (OSError, ValueError):
            print(f"collect.py: {name}: no counts, left out", file=sys.stderr)
            continue
        for m in syn["modules"]:
            if m["module"] == syn["top"]:
                est, counts, feat = rtl["top_estimate"]["estimate"], m, rtl["top_estimate"]
            else:
                stage = stage_of(m["module"], rtl["stages"])
                if stage is None:
                    continue  # a loop stage's body/before/after: counted with its stage
                est, counts, feat = stage["estimate"], m["with_submodules"], stage
            row = {"split": split, "design": name, "model": os.path.basename(model),
                   "part": rtl["part"], "module": m["module"]}
            for r in RESOURCES:
                row["yosys_" + r] = round(counts.get(r, 0), 3)
                row["est_" + r] = round(est.get(r, 0), 3)
            for k, v in feat.get("calibration", {}).items():
                row["f_" + k] = round(v, 3)
                features.add("f_" + k)
            rows.append(row)
    fields = (["split", "design", "model", "part", "module"] +
              ["yosys_" + r for r in RESOURCES] + ["est_" + r for r in RESOURCES] +
              sorted(features))
    w = csv.DictWriter(sys.stdout, fieldnames=fields, restval=0, lineterminator="\n")
    w.writeheader()
    w.writerows(rows)


main()
