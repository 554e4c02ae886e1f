"""The VALUE rule report: which rules predictions violate, and how likely that is
compared with guessing (paper Fig. 3 and eq. 8).

For a set of predicted boards the report gives, from the one ``(N, 15)`` flag array of
:func:`~d3mkit.benchmarks.value.rules.check`:

* per (rule, colour) flag and per rule (either colour) the violation frequency
  ``f_model^R`` (fraction of predictions violating it);
* counting (i, iii, iv, vi, vii) vs localizing (ii, v, viii) totals: the fraction of
  predictions violating any rule of the kind, and the number of violated flags of the kind;
* the adjusted likelihood ``P^R = f_model^R / f_random^R`` of eq. 8, where
  ``f_random^R`` is the violation frequency of a uniform random guesser over P^64
  (every square independently one of the 13 symbols), estimated by Monte Carlo with a
  stated seed and sample size (:func:`random_frequencies`);
* the same by severity (:func:`~d3mkit.benchmarks.value.rules.severity`, the authors'
  released count): ``f`` is then the mean number of violations of rule R per prediction
  and ``P_severity`` their ratio. The paper's Fig. 3 magnitudes (P of about 0.004
  counting, 0.005 localizing) are severity ratios; the flag ratios are far larger because
  a random board violates almost every flag once but most rules many times;
* a markdown table (:func:`to_markdown`) and a bar chart PNG like the paper's Fig. 3
  (:func:`plot`).

Command line, for a predictions file (``d3mIndex`` and the 64 square columns a1 ... h8,
or one FEN placement column)::

    python -m d3mkit.benchmarks.value.report PREDICTIONS [--out DIR] [--column board]

writes ``DIR/rule_report.md``, ``rule_report.json`` and ``rule_report.png`` (DIR defaults
to the predictions file's directory) and prints the markdown table. A malformed board is
reported with its row in the file (header = row 1), exit code 1.
"""

from __future__ import annotations

import argparse
import json
import sys
from functools import lru_cache
from pathlib import Path

import numpy as np

from d3mkit.benchmarks.value.rules import (COUNTING, FLAGS, LOCALIZING, RULES, RULE_TEXT, by_kind,
                                           by_rule, check, severity)

RANDOM_SEED = 0
RANDOM_SAMPLES = 200_000


@lru_cache(maxsize=4)
def random_frequencies(n: int = RANDOM_SAMPLES, seed: int = RANDOM_SEED) -> dict:
    """Violation frequencies of a uniform random guesser over P^64, Monte Carlo over ``n``
    boards drawn with ``numpy.random.default_rng(seed)`` (in chunks of 50,000).

    >>> r = random_frequencies(2000, 0)
    >>> r["rule"]["i"] > 0.9, r["rule"]["iii"] > 0.9, r["samples"], r["seed"]
    (True, True, 2000, 0)
    """
    rng = np.random.default_rng(seed)
    flag_sum = np.zeros(len(FLAGS))
    rule_sum = np.zeros(len(RULES))
    sev_sum = np.zeros(len(RULES))
    kind_sum = {"counting": 0, "localizing": 0}
    done = 0
    while done < n:
        m = min(50_000, n - done)
        boards = rng.integers(0, 13, size=(m, 64), dtype=np.uint8)
        f = check(boards)
        sev_sum += severity(boards).sum(axis=0)
        flag_sum += f.sum(axis=0)
        rule_sum += by_rule(f).sum(axis=0)
        for k, v in by_kind(f).items():
            kind_sum[k] += int(v.sum())
        done += m
    return {"samples": n, "seed": seed, "method": "Monte Carlo, uniform over P^64",
            "flag": {name: float(flag_sum[j] / n) for j, name in enumerate(FLAGS)},
            "rule": {r: float(rule_sum[j] / n) for j, r in enumerate(RULES)},
            "kind": {k: v / n for k, v in kind_sum.items()},
            "severity": {r: float(sev_sum[j] / n) for j, r in enumerate(RULES)},
            "kindSeverity": {k: float(sum(sev_sum[RULES.index(r)] for r in members) / n)
                             for k, members in (("counting", COUNTING), ("localizing", LOCALIZING))}}


def _ratio(a: float, b: float) -> float | None:
    return a / b if b > 0 else None


def rule_report(flags: np.ndarray, *, random: dict | None = None,
                severities: np.ndarray | None = None) -> dict:
    """The report (a JSON-able dict) of ``(N, 15)`` flags of predicted boards, and of their
    ``(N, 8)`` :func:`~d3mkit.benchmarks.value.rules.severity` when given.

    >>> from d3mkit.benchmarks.value.boards import fens_to_codes, START_FEN
    >>> codes = fens_to_codes([START_FEN, "8/8/8/8/8/8/8/kK6"])
    >>> rep = rule_report(check(codes), random=random_frequencies(2000, 0), severities=severity(codes))
    >>> rep["n"], rep["contradictionRate"], rep["rule"]["ii"]["frequency"]
    (2, 0.5, 0.5)
    >>> rep["kind"]["localizing"]["frequency"], rep["kind"]["counting"]["frequency"]
    (0.5, 0.0)
    >>> rep["meanViolatedFlags"], rep["meanViolationSeverity"], rep["rule"]["ii"]["severity"]
    (0.5, 0.5, 0.5)
    """
    f = np.asarray(flags, dtype=bool)
    n = len(f)
    rnd = random if random is not None else random_frequencies()
    sev = None if severities is None else np.asarray(severities)
    rules = by_rule(f)
    kinds = by_kind(f)
    out = {"n": n, "contradictionRate": float((f.any(axis=1)).mean()) if n else 0.0,
           "meanViolatedFlags": float(f.sum(axis=1).mean()) if n else 0.0,
           "meanViolationSeverity": float(sev.sum(axis=1).mean()) if n and sev is not None else None,
           "random": {"samples": rnd["samples"], "seed": rnd["seed"], "method": rnd["method"]},
           "flag": {}, "rule": {}, "kind": {}}
    for j, name in enumerate(FLAGS):
        fm = float(f[:, j].mean()) if n else 0.0
        out["flag"][name] = {"count": int(f[:, j].sum()), "frequency": fm,
                             "random": rnd["flag"][name], "adjusted": _ratio(fm, rnd["flag"][name])}
    for j, r in enumerate(RULES):
        fm = float(rules[:, j].mean()) if n else 0.0
        d = {"kind": "counting" if r in COUNTING else "localizing", "text": RULE_TEXT[r],
             "count": int(rules[:, j].sum()), "frequency": fm,
             "random": rnd["rule"][r], "adjusted": _ratio(fm, rnd["rule"][r])}
        if sev is not None:
            sm = float(sev[:, j].mean()) if n else 0.0
            d.update(severity=sm, randomSeverity=rnd["severity"][r],
                     adjustedSeverity=_ratio(sm, rnd["severity"][r]))
        out["rule"][r] = d
    for k, members in (("counting", COUNTING), ("localizing", LOCALIZING)):
        cols = [j for j, name in enumerate(FLAGS) if name.split("/")[0] in members]
        fm = float(kinds[k].mean()) if n else 0.0
        d = {"rules": list(members), "count": int(kinds[k].sum()), "frequency": fm,
             "violations": int(f[:, cols].sum()), "random": rnd["kind"][k],
             "adjusted": _ratio(fm, rnd["kind"][k])}
        if sev is not None:
            sm = float(sev[:, [RULES.index(r) for r in members]].sum(axis=1).mean()) if n else 0.0
            d.update(severity=sm, randomSeverity=rnd["kindSeverity"][k],
                     adjustedSeverity=_ratio(sm, rnd["kindSeverity"][k]))
        out["kind"][k] = d
    return out


def _fmt(v, pct=False) -> str:
    if v is None:
        return "n/a"
    return f"{100 * v:.2f}%" if pct else f"{v:.4g}"


def to_markdown(rep: dict) -> str:
    """The report as markdown tables (rules, then counting vs localizing). ``f`` and ``P``
    columns are per flag (a prediction violates rule R or not); the ``severity`` columns
    (when the report has them) count violations as the authors' analysis does, and their
    ``P_severity`` is the paper-comparable adjusted likelihood of eq. 8 / Fig. 3."""
    sev = rep.get("meanViolationSeverity") is not None
    head = (f"Predictions: {rep['n']}; contradiction rate C = {_fmt(rep['contradictionRate'], True)}; "
            f"muC = {rep['meanViolatedFlags']:.4f} violated flags per prediction")
    if sev:
        head += (f", {rep['meanViolationSeverity']:.4f} violations by severity (meanViolationSeverity, "
                 "the paper-comparable muC)")
    extra_h = " severity | severity_random | P_severity (paper) |" if sev else ""
    extra_r = "---:|---:|---:|" if sev else ""

    def extra(d):
        return (f" {_fmt(d['severity'])} | {_fmt(d['randomSeverity'])} | {_fmt(d['adjustedSeverity'])} |"
                if sev else "")
    lines = [head, "",
             "| rule | kind | statement | violations | f_model | f_random | P = f_model/f_random |" + extra_h,
             "|---|---|---|---:|---:|---:|---:|" + extra_r]
    for r, d in rep["rule"].items():
        lines.append(f"| {r} | {d['kind']} | {d['text']} | {d['count']} | {_fmt(d['frequency'], True)} | "
                     f"{_fmt(d['random'], True)} | {_fmt(d['adjusted'])} |" + extra(d))
    lines += ["", "| kind | predictions violating | violated flags | f_model | f_random | P |" + extra_h,
              "|---|---:|---:|---:|---:|---:|" + extra_r]
    for k, d in rep["kind"].items():
        lines.append(f"| {k} | {d['count']} | {d['violations']} | {_fmt(d['frequency'], True)} | "
                     f"{_fmt(d['random'], True)} | {_fmt(d['adjusted'])} |" + extra(d))
    rnd = rep["random"]
    lines += ["", f"f_random: {rnd['method']}, {rnd['samples']} boards, seed {rnd['seed']}. "
                  "Rule ii is one flag per board; other rules are violated when either colour violates them."]
    if sev:
        lines += ["severity: mean violations per prediction counted as the VALUE authors' released "
                  "analysis does (each extra/missing king, adjacent king pair, surplus piece, back-rank "
                  "pawn ... adds one); P_severity = severity / severity_random."]
    return "\n".join(lines) + "\n"


def plot(rep: dict, path: Path | str, title: str | None = None) -> Path:
    """A three-panel bar chart like the paper's Fig. 3: (a) prevalence of counting vs
    localizing violations, (b) their adjusted likelihood, (c) adjusted likelihood per rule
    (by severity when the report has it, as the paper's magnitudes are)."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    kinds = list(rep["kind"])
    fig, ax = plt.subplots(1, 3, figsize=(12, 3.6))
    ax[0].bar(kinds, [rep["kind"][k]["frequency"] for k in kinds], color=["#4477aa", "#cc6677"])
    ax[0].set_title("(a) predictions violating")
    ax[0].set_ylabel("fraction of predictions")
    key = "adjustedSeverity" if rep.get("meanViolationSeverity") is not None else "adjusted"
    what = "by severity, as the paper" if key == "adjustedSeverity" else "per flag"
    ax[1].bar(kinds, [rep["kind"][k][key] or 0 for k in kinds], color=["#4477aa", "#cc6677"])
    ax[1].set_title(f"(b) adjusted likelihood (eq. 8, {what})")
    rules = list(rep["rule"])
    colours = ["#4477aa" if rep["rule"][r]["kind"] == "counting" else "#cc6677" for r in rules]
    ax[2].bar(rules, [rep["rule"][r][key] or 0 for r in rules], color=colours)
    ax[2].set_title("(c) adjusted likelihood per rule")
    ax[2].set_yscale("symlog", linthresh=1e-3)
    for a in ax:
        a.grid(axis="y", alpha=0.3)
        a.set_ylim(bottom=0)
    fig.suptitle(title or f"VALUE rule report: {rep['n']} predictions "
                 f"(f_random: {rep['random']['samples']} random boards, seed {rep['random']['seed']})",
                 fontsize=10)
    fig.tight_layout()
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(p, dpi=100)
    plt.close(fig)
    return p


def read_predictions(path: Path | str, column: str | None = None) -> tuple[np.ndarray, list[str]]:
    """``(codes, d3mIndex values)`` of a predictions CSV. Bad input raises
    :class:`~d3mkit.core.errors.D3MKitError` naming the file, the row (header = row 1) and the fault."""
    from d3mkit.benchmarks.value.boards import BoardError
    from d3mkit.benchmarks.value.layout import frame_to_codes
    from d3mkit.core.errors import D3MKitError, InvalidArgument, UsageError, error
    from d3mkit.tables import read_table
    p = Path(path)
    if not p.is_file():
        raise UsageError(f"predictions file not found: {p}", str(p))
    try:
        df = read_table(p)
    except D3MKitError:
        raise
    except Exception as exc:  # noqa: BLE001 - unreadable CSV
        raise D3MKitError(error("predictions.csv", "", f"cannot read CSV: {exc}", str(p))) from None
    from d3mkit.benchmarks.value.layout import SQUARES
    squares = column is None and all(sq in df.columns for sq in SQUARES)
    if column is None and not squares:
        others = [c for c in df.columns if c != "d3mIndex"]
        column = "board" if "board" in others else (others[0] if len(others) == 1 else None)
        if column is None:
            raise InvalidArgument("column", f"cannot tell which column holds the boards ({', '.join(others[:5])}"
                                  f"{', ...' if len(others) > 5 else ''}): need the 64 square columns "
                                  "a1 ... h8 or one FEN column; pass {column}", str(p))
    if not squares and column not in df.columns:
        raise D3MKitError(error("predictions.column", "", f"no column {column!r}", str(p), row=1))
    if len(df) == 0:
        raise D3MKitError(error("predictions.empty", "", "no predictions: the file has a header only",
                                str(p), row=2))
    ids = df["d3mIndex"].tolist() if "d3mIndex" in df.columns else None
    try:
        codes = frame_to_codes(df, column=None if squares else column)
    except BoardError as exc:
        if exc.index is None:
            raise D3MKitError(error("predictions.board", "", exc.reason, str(p))) from None
        after = ((f" (d3mIndex {ids[exc.index]})" if ids is not None else "")
                 + (f", square {exc.square}" if exc.square else ""))
        raise D3MKitError(error("predictions.board", "", exc.reason, str(p), row=exc.index + 2,
                                column=None if squares else column, after=after or None)) from None
    index = df["d3mIndex"].tolist() if "d3mIndex" in df.columns else [str(i) for i in range(len(df))]
    return codes, index


def write_report(codes: np.ndarray, out: Path | str, *, title: str | None = None,
                 random: dict | None = None) -> dict:
    """Write ``rule_report.{md,json,png}`` into ``out``; return the report. The three
    files are written to temporary names and renamed into place only when all of them
    were written (:mod:`d3mkit.io.atomic`). An ``out`` that cannot be created or written
    to, or that is a symlink, is a usage error naming it."""
    from d3mkit.io.atomic import atomic_path, check_output_dir
    from d3mkit.documents.jsonio import dump_json
    from d3mkit.core.errors import UsageError
    out = check_output_dir(out, "out")
    rep = rule_report(check(codes), random=random, severities=severity(codes))
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise UsageError(f"cannot create the output directory: {exc.strerror or exc}", str(out)) from None
    try:
        with atomic_path(out / "rule_report.md") as md, atomic_path(out / "rule_report.json") as js, \
                atomic_path(out / "rule_report.png") as png:
            md.write_text(to_markdown(rep), encoding="utf-8")
            js.write_text(dump_json(rep), encoding="utf-8")
            plot(rep, png, title)
    except OSError as exc:
        raise UsageError(f"cannot write the report: {exc.strerror or exc}", str(out)) from None
    return rep


def main(argv: list[str] | None = None) -> int:
    from d3mkit.core.errors import D3MKitError, InvalidArgument, issues_for_cli
    ap = argparse.ArgumentParser(prog="python -m d3mkit.benchmarks.value.report",
                                 description="VALUE rule report (per-rule violations, eq. 8) of a predictions file")
    ap.add_argument("predictions", type=Path, help="predictions.csv (d3mIndex and the 64 square columns, or one FEN placement column)")
    ap.add_argument("--out", type=Path, default=None, help="output directory (default: next to the file)")
    ap.add_argument("--column", default=None, help="FEN column (default: the 64 square columns when present, else board, "
                                                      "or the only other column)")
    ap.add_argument("--samples", type=int, default=RANDOM_SAMPLES, help="random-guesser Monte Carlo sample size")
    ap.add_argument("--seed", type=int, default=RANDOM_SEED, help="random-guesser Monte Carlo seed")
    args = ap.parse_args(argv)
    try:
        if args.samples < 1:
            raise InvalidArgument("samples", "must be at least 1")
        if args.seed < 0:
            raise InvalidArgument("seed", f"must be >= 0, got {args.seed}")
        codes, _ = read_predictions(args.predictions, args.column)
        out = args.out or args.predictions.parent
        write_report(codes, out, random=random_frequencies(args.samples, args.seed))
    except D3MKitError as exc:
        for i in issues_for_cli(exc):
            print(i.format(), file=sys.stderr)
        return exc.exit_code
    print((Path(out) / "rule_report.md").read_text(encoding="utf-8"), end="")
    print(f"wrote {Path(out) / 'rule_report.md'}, rule_report.json, rule_report.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
