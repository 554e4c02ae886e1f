"""Reference values from the D3M reference package (``d3m.metrics``, d3m 2022.5.5).

Run with the reference environment's Python, not d3mkit's (this script imports no d3mkit)::

    $D3MKIT_D3M_PYTHON tools/d3m_reference/metrics_oracle.py [OUT.json]

It generates a fixed set of cases from a seeded numpy Generator, scores each with the
metric class ``d3m.metrics.class_map`` names, and writes the cases (truth rows,
prediction rows, parameters) and the values to ``tests/data/d3m_reference_metrics.json``
(committed). ``tests/scoring/test_scoring_reference.py`` scores the same rows through
``d3mkit score``'s code path and asserts equality to 1e-9.

Layouts given to the reference: one row per index for hard-label metrics; one row per
(index, class) with each class's ``confidence`` for the ROC metrics; ``rank`` rows for the
ranking metrics; one row per (index, label) for the multiLabel cases (the reference
groups rows by d3mIndex into label sets); for objectDetectionAP the 4.x form (one d3mIndex per image, eight-number
bounding polygons) — d3mkit gets the same boxes in the 3.1.1 four-number form; two of
them with tied confidences (d3m breaks ties by the boxes, then the truth's image order).
"""

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
from d3m import metrics as M
from d3m.metadata.problem import PerformanceMetric as PM

OUT = Path(sys.argv[1]) if len(sys.argv) > 1 else \
    Path(__file__).resolve().parents[2] / "tests" / "data" / "d3m_reference_metrics.json"


# d3m enum member -> problemSchema / d3mkit metric name
NAMES = {"ACCURACY": "accuracy", "PRECISION": "precision", "RECALL": "recall", "F1": "f1",
         "F1_MICRO": "f1Micro", "F1_MACRO": "f1Macro", "MEAN_SQUARED_ERROR": "meanSquaredError",
         "ROOT_MEAN_SQUARED_ERROR": "rootMeanSquaredError",
         "MEAN_ABSOLUTE_ERROR": "meanAbsoluteError", "R_SQUARED": "rSquared",
         "NORMALIZED_MUTUAL_INFORMATION": "normalizedMutualInformation",
         "JACCARD_SIMILARITY_SCORE": "jaccardSimilarityScore",
         "PRECISION_AT_TOP_K": "precisionAtTopK",
         "OBJECT_DETECTION_AVERAGE_PRECISION": "objectDetectionAP",
         "HAMMING_LOSS": "hammingLoss", "ROC_AUC": "rocAuc", "ROC_AUC_MICRO": "rocAucMicro",
         "ROC_AUC_MACRO": "rocAucMacro", "MEAN_RECIPROCAL_RANK": "meanReciprocalRank",
         "HITS_AT_K": "hitsAtK"}


def frame(rows, columns):
    return pd.DataFrame([list(r) for r in rows], columns=columns)


def shuffled(rng, rows):
    rows = list(rows)
    order = rng.permutation(len(rows))
    return [rows[i] for i in order]


def classification_cases(rng):
    cases = []
    labels = ["cat", "dog", "emu", "yak"]
    n = 60
    t = rng.choice(labels, n)
    p = np.where(rng.random(n) < 0.6, t, rng.choice(labels + ["owl"], n))
    truth = [(i, t[i]) for i in range(n)]
    pred = shuffled(rng, [(i, p[i]) for i in range(n)])
    for name in ("ACCURACY", "F1_MICRO", "F1_MACRO", "HAMMING_LOSS"):
        cases.append({"metric": PM[name].value, "task": "classification", "subtype": "multiClass",
                      "columns": ["d3mIndex", "label"], "truth": truth, "predictions": pred,
                      "params": {}})
    for pos, labs in (("1", ["0", "1"]), ("yes", ["no", "yes"])):
        t = rng.choice(labs, 40)
        p = np.where(rng.random(40) < 0.7, t, rng.choice(labs, 40))
        truth = [(i, t[i]) for i in range(40)]
        pred = shuffled(rng, [(i, p[i]) for i in range(40)])
        for name in ("PRECISION", "RECALL", "F1", "JACCARD_SIMILARITY_SCORE"):
            cases.append({"metric": PM[name].value, "task": "classification", "subtype": "binary",
                          "columns": ["d3mIndex", "label"], "truth": truth, "predictions": pred,
                          "params": {"posLabel": pos}})
    # clustering-like NMI
    t = rng.choice(["a", "b", "c"], 50)
    p = np.where(rng.random(50) < 0.5, np.vectorize({"a": "x", "b": "y", "c": "z"}.get)(t),
                 rng.choice(["x", "y", "z", "w"], 50))
    cases.append({"metric": PM.NORMALIZED_MUTUAL_INFORMATION.value, "task": "clustering",
                  "subtype": None, "columns": ["d3mIndex", "label"],
                  "truth": [(i, t[i]) for i in range(50)],
                  "predictions": shuffled(rng, [(i, p[i]) for i in range(50)]), "params": {}})
    return cases


def roc_cases(rng):
    cases = []
    # binary, complementary scores, one row per (index, class)
    n = 50
    t = rng.choice(["0", "1"], n)
    s1 = np.round(np.clip(np.where(t == "1", 0.65, 0.35) + rng.normal(0, 0.25, n), 0, 1), 3)
    pred = []
    for i in range(n):
        pred += [(i, "0", float(np.round(1 - s1[i], 3))), (i, "1", float(s1[i]))]
    cases.append({"metric": PM.ROC_AUC.value, "task": "classification", "subtype": "binary",
                  "columns": ["d3mIndex", "label", "confidence"],
                  "truth": [(i, t[i]) for i in range(n)], "predictions": shuffled(rng, pred),
                  "params": {}})
    labels = ["a", "b", "c", "d"]
    t = rng.choice(labels, 80)
    pred = []
    for i in range(80):
        w = rng.dirichlet(np.ones(4)) + 0.5 * (np.array(labels) == t[i])
        w = np.round(w / w.sum(), 4)
        pred += [(i, labels[j], float(w[j])) for j in range(4)]
    for name in ("ROC_AUC_MICRO", "ROC_AUC_MACRO"):
        cases.append({"metric": PM[name].value, "task": "classification", "subtype": "multiClass",
                      "columns": ["d3mIndex", "label", "confidence"],
                      "truth": [(i, t[i]) for i in range(80)], "predictions": shuffled(rng, pred),
                      "params": {}})
    return cases


def regression_cases(rng):
    n = 50
    t = np.round(rng.normal(10, 3, n), 4)
    p = np.round(t + rng.normal(0, 1.5, n), 4)
    truth = [(i, float(t[i])) for i in range(n)]
    pred = shuffled(rng, [(i, float(p[i])) for i in range(n)])
    return [{"metric": PM[name].value, "task": "regression", "subtype": "univariate",
             "columns": ["d3mIndex", "value"], "truth": truth, "predictions": pred, "params": {}}
            for name in ("MEAN_SQUARED_ERROR", "ROOT_MEAN_SQUARED_ERROR", "MEAN_ABSOLUTE_ERROR",
                         "R_SQUARED")]


def topk_cases(rng):
    n = 30
    t = rng.permutation(n)
    p = t.copy()   # a permutation too: argsort ties would depend on numpy's sort kind
    for _ in range(8):
        i, j = rng.integers(0, n, 2)
        p[[i, j]] = p[[j, i]]
    return [{"metric": PM.PRECISION_AT_TOP_K.value, "task": "regression", "subtype": "univariate",
             "columns": ["d3mIndex", "value"], "truth": [(i, int(t[i])) for i in range(n)],
             "predictions": [(i, int(p[i])) for i in range(n)], "params": {"K": k}}
            for k in (3, 10)]


def rank_cases(rng):
    rels = ["father", "mother", "sister", "brother", "aunt", "cousin"]
    n = 20
    t = rng.choice(rels, n)
    pred = []
    for i in range(n):
        k = int(rng.integers(1, 6))
        listed = list(rng.choice(rels, k, replace=False))
        pred += [(i, r, j + 1) for j, r in enumerate(listed)]
    truth = [(i, t[i]) for i in range(n)]
    return [{"metric": PM.MEAN_RECIPROCAL_RANK.value, "task": "linkPrediction", "subtype": None,
             "columns": ["d3mIndex", "relationship", "rank"], "truth": truth, "predictions": pred,
             "params": {}},
            {"metric": PM.HITS_AT_K.value, "task": "linkPrediction", "subtype": None,
             "columns": ["d3mIndex", "relationship", "rank"], "truth": truth, "predictions": pred,
             "params": {"K": 3}}]


def od_cases(rng):
    cases = []
    for n_img, per in ((6, 3), (15, 4)):
        truth, pred = [], []
        for i in range(n_img):
            for _ in range(int(rng.integers(1, per + 1))):
                x, y = rng.integers(0, 200, 2)
                w, h = rng.integers(10, 60, 2)
                truth.append((i, f"img_{i:03d}.png", [int(x), int(y), int(x + w), int(y + h)]))
                for _ in range(int(rng.integers(0, 3))):
                    dx, dy = rng.integers(-6, 7, 2)
                    pred.append([i, f"img_{i:03d}.png",
                                 [int(x + dx), int(y + dy), int(x + w + dx), int(y + h + dy)]])
            # every image needs a detection: the reference aligns by d3mIndex (= image)
            extra = 1 if not any(q[0] == i for q in pred) else int(rng.integers(0, 2))
            for _ in range(extra):
                x, y = rng.integers(0, 200, 2)
                pred.append([i, f"img_{i:03d}.png", [int(x), int(y), int(x + 30), int(y + 30)]])
        conf = rng.permutation(len(pred)) / len(pred) * 0.9 + 0.05
        pred = [p + [float(np.round(c, 6))] for p, c in zip(pred, conf)]
        cases.append({"metric": PM.OBJECT_DETECTION_AVERAGE_PRECISION.value,
                      "task": "objectDetection", "subtype": None,
                      "columns": ["d3mIndex", "image", "bounding_box", "confidence"],
                      "truth": truth, "predictions": pred, "params": {}})
    return cases


def multilabel_cases(rng):
    """multiLabel: truth and predictions have one row per (d3mIndex, label)."""
    cases = []
    labels = ["action", "comedy", "drama", "horror", "romance"]
    n = 40
    sets = [sorted(rng.choice(labels, int(rng.integers(1, 4)), replace=False)) for _ in range(n)]
    truth = [(i, lab) for i in range(n) for lab in sets[i]]
    pred = []
    for i in range(n):
        got = [lab for lab in sets[i] if rng.random() < 0.75]
        got += [lab for lab in labels + ["western"] if lab not in sets[i] and rng.random() < 0.15]
        if not got:
            got = [str(rng.choice(labels))]
        pred += [(i, lab) for lab in got]
    pred.append(pred[3])   # a repeated (index, label) pair counts once
    pred = shuffled(rng, pred)
    for name in ("ACCURACY", "F1_MICRO", "F1_MACRO", "HAMMING_LOSS"):
        cases.append({"metric": PM[name].value, "task": "classification", "subtype": "multiLabel",
                      "columns": ["d3mIndex", "genre"], "truth": truth, "predictions": pred,
                      "params": {}})
    # confidences: each index lists some labels with a score; unlisted labels score 0
    labels = ["a", "b", "c", "d"]
    n = 50
    sets = [sorted(rng.choice(labels, int(rng.integers(1, 3)), replace=False)) for _ in range(n)]
    truth = [(i, lab) for i in range(n) for lab in sets[i]]
    pred = []
    for i in range(n):
        listed = [lab for lab in labels if rng.random() < 0.7] or [labels[int(rng.integers(0, 4))]]
        for lab in listed:
            sc = np.clip(rng.normal(0.6 if lab in sets[i] else 0.35, 0.2), 0.0, 1.0)
            pred.append((i, lab, float(np.round(sc, 3))))
    pred = shuffled(rng, pred)
    for name in ("ROC_AUC_MICRO", "ROC_AUC_MACRO"):
        cases.append({"metric": PM[name].value, "task": "classification", "subtype": "multiLabel",
                      "columns": ["d3mIndex", "tag", "confidence"], "truth": truth,
                      "predictions": pred, "params": {}})
    return cases


def od_tie_cases(rng):
    """Tied confidences, as a constant-confidence file or d3m's construct_confidence writes
    them: every image gets the same candidate boxes (some truth boxes, hits in their own
    image and misses elsewhere, and random ones), each with a coarse confidence; rows
    shuffled, so the order is the tie-break's, not the file's."""
    cases = []
    for n_img, levels in ((5, 1), (8, 3)):
        truth = []
        for i in range(n_img):
            for _ in range(int(rng.integers(1, 4))):
                x, y = rng.integers(0, 100, 2)
                w, h = rng.integers(10, 40, 2)
                truth.append((i, f"img_{i:03d}.png", [int(x), int(y), int(x + w), int(y + h)]))
        cands = [list(b) for _i, _img, b in truth[::2]]
        cands += [[int(x), int(y), int(x + 20), int(y + 20)] for x, y in rng.integers(0, 100, (4, 2))]
        pred = []
        for i in range(n_img):
            for b in cands:
                c = 0.5 if levels == 1 else float(rng.integers(1, levels + 1)) / levels
                pred.append([i, f"img_{i:03d}.png", list(b), c])
        cases.append({"metric": PM.OBJECT_DETECTION_AVERAGE_PRECISION.value,
                      "task": "objectDetection", "subtype": None,
                      "columns": ["d3mIndex", "image", "bounding_box", "confidence"],
                      "truth": truth, "predictions": shuffled(rng, pred), "params": {}})
    return cases


def polygon(b):
    x0, y0, x1, y1 = b
    return ",".join(str(v) for v in (x0, y0, x0, y1, x1, y1, x1, y0))


def reference_value(case):
    metric = PM(case["metric"])
    cls = M.class_map[metric]
    params = case["params"]
    if metric in (PM.PRECISION, PM.RECALL, PM.F1, PM.JACCARD_SIMILARITY_SCORE):
        inst = cls(params["posLabel"])
    elif metric in (PM.PRECISION_AT_TOP_K, PM.HITS_AT_K):
        inst = cls(params["K"])
    else:
        inst = cls()
    cols = case["columns"]
    if metric == PM.OBJECT_DETECTION_AVERAGE_PRECISION:
        truth = frame([(str(i), polygon(b)) for i, _img, b in case["truth"]], ["d3mIndex", "bounding_box"])
        pred = frame([(str(i), polygon(b), c) for i, _img, b, c in case["predictions"]],
                     ["d3mIndex", "bounding_box", "confidence"])
    else:
        numeric = case["task"] == "regression" and metric != PM.PRECISION_AT_TOP_K
        conv = float if numeric else str
        truth = frame([(str(r[0]), conv(r[1])) for r in case["truth"]], cols[:2])
        pred = frame([(str(r[0]), conv(r[1])) + tuple(r[2:]) for r in case["predictions"]], cols)
    return float(inst.score(truth, pred))


def main():
    rng = np.random.default_rng(20260522)
    cases = (classification_cases(rng) + roc_cases(rng) + regression_cases(rng) +
             topk_cases(rng) + rank_cases(rng) + od_cases(rng))
    # multiLabel cases come last from their own generator, so the cases above keep their
    # values when cases are added here
    cases += multilabel_cases(np.random.default_rng(20261123))
    cases += od_tie_cases(np.random.default_rng(20261124))
    for c in cases:
        c["truth"] = [[v.item() if hasattr(v, "item") else v for v in r] for r in c["truth"]]
        c["predictions"] = [[v.item() if hasattr(v, "item") else v for v in r] for r in c["predictions"]]
        c["value"] = reference_value(c)
        c["d3mkitMetric"] = NAMES[c["metric"]]
    import d3m
    import sklearn
    out = {"generator": "tools/d3m_reference/metrics_oracle.py",
           "d3m": d3m.__version__, "sklearn": sklearn.__version__, "cases": cases}
    OUT.parent.mkdir(parents=True, exist_ok=True)
    head = json.dumps({k: v for k, v in out.items() if k != "cases"})[:-1]
    OUT.write_text(head + ', "cases": [\n' + ",\n".join(json.dumps(c) for c in cases) + "\n]}\n")
    for c in cases:
        print(f"{c['d3mkitMetric']:28s} {c['params']!s:22s} {c['value']:.12g}")


if __name__ == "__main__":
    main()
