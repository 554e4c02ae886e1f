"""Time the D3M reference package's metric classes on CSV files (reference venv only).

    $D3MKIT_D3M_PYTHON tools/d3m_reference/time_metrics.py classification TRUTH.csv PRED.csv
    $D3MKIT_D3M_PYTHON tools/d3m_reference/time_metrics.py objectDetection TRUTH.csv PRED.csv
    $D3MKIT_D3M_PYTHON tools/d3m_reference/time_metrics.py multiLabel TRUTH.csv PRED.csv

Reads both files with pandas (all columns as strings, as d3m's scorer hands them over),
then times each metric's ``score(truth, predictions)`` once and prints one JSON object:
``{"read_s": ..., "<metric>": [seconds, value, cpu seconds], ...}`` (CPU seconds of this
process, which mean more than wall seconds on a loaded machine). Imports no d3mkit.
classification: accuracy and f1Macro. multiLabel (one row per (d3mIndex, label)):
accuracy, f1Macro and hammingLoss. objectDetection: objectDetectionAP on the 4.x
layout (d3mIndex per image, eight-number bounding polygons, confidence).
"""

import json
import sys
import time

import pandas as pd
from d3m import metrics as M


def main():
    kind, truth_path, pred_path = sys.argv[1:4]
    t = time.perf_counter()
    truth = pd.read_csv(truth_path, dtype=str)
    pred = pd.read_csv(pred_path, dtype=str)
    out = {"read_s": time.perf_counter() - t}
    if kind == "classification":
        metrics = {"accuracy": M.AccuracyMetric(), "f1Macro": M.F1MacroMetric()}
    elif kind == "multiLabel":
        metrics = {"accuracy": M.AccuracyMetric(), "f1Macro": M.F1MacroMetric(),
                   "hammingLoss": M.HammingLossMetric()}
    else:
        pred["confidence"] = pred["confidence"].astype(float)
        metrics = {"objectDetectionAP": M.ObjectDetectionAveragePrecisionMetric()}
    for name, inst in metrics.items():
        t, c = time.perf_counter(), time.process_time()
        value = inst.score(truth, pred)
        out[name] = [time.perf_counter() - t, float(value), time.process_time() - c]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
