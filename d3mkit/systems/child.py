"""The child process of a Python system: ``python -m d3mkit.systems.child SYSTEM TRAIN TEST
PROBLEM OUT OPTIONS_JSON``.

What this module owns: reading the views (:mod:`d3mkit.systems.data`), calling the system's
``fit`` then ``predict``, writing ``OUT`` (predictions.csv) and ``OUT``'s sibling
``timings.json`` (``fit_seconds``, ``predict_seconds``). It is handed the sandbox paths only.
A ``MemoryError`` exits with :data:`EXIT_MEMORY` so the parent can say ``memout``.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

EXIT_MEMORY = 86


def fit_predict(system, train_dir, test_dir, problem_dir, options):
    """(predictions DataFrame, fit seconds, predict seconds) of ``system`` on the views:
    the same calls in the child and in a direct Python call (tools/bench_systems.py)."""
    from d3mkit.systems.data import load_test, load_train, predictions_frame
    t0 = time.perf_counter()
    train = load_train(train_dir, problem_dir)
    model = system.fit(train, options)
    t1 = time.perf_counter()
    test = load_test(test_dir, train)
    values = system.predict(model, test, options)
    frame = predictions_frame(test, train, values)
    return frame, t1 - t0, time.perf_counter() - t1


STARTED = time.time()


def main(argv: list[str]) -> int:
    name, train_dir, test_dir, problem_dir, out = argv[:5]
    from d3mkit.systems.plugins import Options, get
    from d3mkit.systems.data import write_predictions
    options = Options(**{**json.loads(argv[5]), "started": STARTED})
    try:
        frame, fit_s, predict_s = fit_predict(get(name), train_dir, test_dir, problem_dir, options)
        write_predictions(frame, out)
    except MemoryError:
        print("out of memory", file=sys.stderr)
        return EXIT_MEMORY
    Path(out).with_name("timings.json").write_text(json.dumps({"fit_seconds": fit_s, "predict_seconds": predict_s}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
