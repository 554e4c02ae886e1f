"""Every output file of a campaign, by name: the tables and summary.json of
:mod:`d3mkit.evaluate.report` and the page, drawn from the leaderboard model
(:mod:`d3mkit.evaluate.model`, :mod:`d3mkit.evaluate.leaderboard`). Nothing here writes a
file; :func:`d3mkit.evaluate.campaign.write_outputs` does.
"""

from __future__ import annotations

import datetime as _dt
import json
import os

from d3mkit.evaluate.leaderboard import render
from d3mkit.evaluate.model import build_model
from d3mkit.evaluate.report import (AGGREGATE_COLUMNS, COMPARISON_COLUMNS, FAILURE_COLUMNS, RESULT_COLUMNS,
                                    SCORE_COLUMNS, aggregate_rows, comparison_rows, csv_text, failure_rows,
                                    json_safe, result_rows, results_frame, results_parquet, score_rows, summary)


def output_files(camp, *, generated: str | None = None) -> dict[str, str | bytes]:
    """Every output file's content, by name (the page included; results.parquet's bytes
    where pyarrow is installed)."""
    scores = score_rows(camp)
    aggs = aggregate_rows(camp)
    comps = comparison_rows(camp)
    rows = result_rows(camp)
    frame = results_frame(rows)
    summ, st = summary(camp, aggs, frame)
    if generated is None:
        stamp = os.environ.get("SOURCE_DATE_EPOCH", "")    # reproducible pages (tests, builds)
        when = _dt.datetime.fromtimestamp(int(stamp), _dt.timezone.utc) if stamp.isdigit() else \
            _dt.datetime.now(_dt.timezone.utc)
        generated = when.strftime("%Y-%m-%d %H:%M UTC")
    model = build_model(camp, aggs, comps, summ, generated=generated, standing=st, frame=frame)
    files: dict[str, str | bytes] = {
        "scores.csv": csv_text(scores, SCORE_COLUMNS),
        "aggregates.csv": csv_text(aggs, AGGREGATE_COLUMNS),
        "failures.csv": csv_text(failure_rows(camp), FAILURE_COLUMNS),
        "comparisons.csv": csv_text(comps, COMPARISON_COLUMNS),
        "results.csv": csv_text(rows, RESULT_COLUMNS),
        "summary.json": json.dumps(json_safe(summ), indent=2, sort_keys=True, allow_nan=False) + "\n",
        "leaderboard.html": render(model)}
    parquet = results_parquet(frame)
    if parquet is not None:
        files["results.parquet"] = parquet
    return files
