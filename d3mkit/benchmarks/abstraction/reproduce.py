"""``d3mkit reproduce abstraction --table N``: the paper's tables, rerun and reported.

What this module owns: :class:`ReproduceConfig` (the options, validated once), running
every cell of a table (row x n_train x repetition: the protocol's images generated in
memory — the arrays a ``d3mkit build abstraction`` task root stores as PNGs — and a
fresh network of :mod:`.model` trained on them), the summary statistics the paper
reports, and the markdown report with the paper's number beside ours in every cell.

The paper's notebook stores each repetition's accuracy as an integer percent (truncated,
``np.empty(n, dtype=int)``) and prints ``np.average`` and ``np.std`` (ddof = 0) of
those; :func:`paper_stats` does the same so that the tables compare like with like; the
report also gives the exact mean. A cell is *within 2 sd* when our paper-style mean lies
within two of the paper's standard deviations of the paper's mean (a cell the paper
reports with sd 0 must match exactly).

Every repetition appends one line to ``abstraction_table<N>.csv`` as soon as it is done,
so ``--resume`` continues a run that was stopped and ``--from-csv`` rewrites the report
without training. Full scale is 5 repetitions of every column::

    d3mkit reproduce abstraction --table 1 --out docs/results
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from d3mkit.benchmarks import runlog
from d3mkit.benchmarks.abstraction import metrics as MET
from d3mkit.benchmarks.abstraction import model as M
from d3mkit.benchmarks.abstraction.paper import PAPER, REPETITIONS, Table, table

CSV_COLUMNS = ("table", "row", "transform", "k", "noise", "testNoise", "nTrain", "nTest",
               "rep", "accuracy", "expected", "chanceCorrected", "heldOut", "seconds")


@dataclass(frozen=True)
class ReproduceConfig:
    """What to run: one table, some or all of its n_train columns, repetitions, training."""

    table: int
    n_train: tuple[int, ...] | None = None       # None: every column of the table
    repetitions: int = REPETITIONS
    epochs: int = M.EPOCHS
    batch_size: int = M.BATCH_SIZE
    seed: int = 0
    device: str = "cpu"
    out: Path = Path("results")
    resume: bool = False
    from_csv: bool = False

    def __post_init__(self):
        problems = self.problems()
        if problems:
            from d3mkit.core.errors import InvalidArgument
            raise InvalidArgument(None, "; ".join(problems))

    def problems(self) -> list[str]:
        """What is wrong with these fields, each message naming its field as ``{field}``
        (an :class:`~d3mkit.core.errors.ArgumentError` template)."""
        out = []
        if not 1 <= self.table <= 13:
            return [f"{{table}}: the paper has Tables 1-13, not {self.table}"]
        cols = table(self.table).n_train
        bad = [n for n in (self.n_train or ()) if n not in cols]
        if bad:
            out.append(f"{{n_train}}: Table {self.table} has columns "
                       f"{', '.join(map(str, cols))}, not {', '.join(map(str, bad))}")
        for name, v in (("repetitions", self.repetitions), ("epochs", self.epochs),
                        ("batch_size", self.batch_size)):
            if v < 1:
                out.append(f"{{{name}}} must be at least 1, got {v}")
        if self.seed < 0:
            out.append(f"{{seed}} must be >= 0, got {self.seed}")
        return out

    @property
    def columns(self) -> tuple[int, ...]:
        return self.n_train or table(self.table).n_train

    @property
    def csv_path(self) -> Path:
        return self.out / f"abstraction_table{self.table}.csv"

    @property
    def md_path(self) -> Path:
        return self.out / f"abstraction_table{self.table}.md"

    @property
    def log(self) -> runlog.RunLog:
        return runlog.RunLog(self.csv_path, CSV_COLUMNS, key=("row", "nTrain", "rep"),
                             text=("row", "transform"))


def paper_stats(accuracies) -> tuple[float, float]:
    """Mean and standard deviation (ddof 0) of the accuracies as the notebook reports
    them: each first truncated to an integer percent.

    >>> paper_stats([0.999, 1.0, 0.985])
    (99.0, 0.816496580927726)
    """
    pct = np.floor(np.asarray(accuracies, dtype=np.float64) * 100 + 1e-9)
    return float(pct.mean()), float(pct.std())


def within_sd(ours: float, paper_mean: float, paper_sd: float, k: float = 2.0) -> bool:
    """``|ours - paper_mean| <= k * paper_sd`` (an exact match when the sd is 0).

    >>> within_sd(95.0, 91.6, 12.08), within_sd(99.8, 100.0, 0.0), within_sd(100.0, 100.0, 0.0)
    (True, False, True)
    """
    return abs(ours - paper_mean) <= k * paper_sd + 1e-9


def run_cell(t: Table, ri: int, n_train: int, rep: int, cfg: ReproduceConfig) -> dict:
    """Generate one repetition of one cell, train, score; one CSV record."""
    from d3mkit.benchmarks.abstraction.protocol import generate

    row = t.rows[ri]
    p = t.protocol(row, n_train)
    rng = np.random.default_rng([cfg.seed, t.number, ri, n_train, rep])
    imgs, meta = generate(p, rng)
    tr = (meta["split"] == "TRAIN").to_numpy()
    y = meta["shape"].to_numpy()
    t0 = time.perf_counter()
    pred = M.fit_predict(imgs[tr], y[tr], imgs[~tr], epochs=cfg.epochs,
                         batch_size=cfg.batch_size, seed=cfg.seed * 1000 + rep,
                         device=cfg.device)
    secs = time.perf_counter() - t0
    test = meta[~tr]
    acc = MET.accuracy(y[~tr], pred)
    rec = {"table": t.number, "row": row.label, "transform": row.transform, "k": t.k,
           "noise": row.noise, "testNoise": p.noise_test, "nTrain": n_train,
           "nTest": p.n_test, "rep": rep, "accuracy": acc, "expected": np.nan,
           "chanceCorrected": np.nan, "heldOut": np.nan, "seconds": round(secs, 2)}
    trained = test["trainedTransformed"].to_numpy(bool)
    if row.transform != "none":
        e = MET.expected_accuracy_without_abstraction(
            test["untransformedChance"].to_numpy(), trained)
        rec["expected"] = e
        if e < 1:
            rec["chanceCorrected"] = MET.chance_corrected_accuracy(acc, e)
    if (~trained).any():
        rec["heldOut"] = MET.held_out_shape_accuracy(y[~tr], pred, trained)
    return rec


def run_table(cfg: ReproduceConfig, echo=print) -> pd.DataFrame:
    """Train every missing repetition of the configured cells, appending to the CSV."""
    from d3mkit.benchmarks.progress import Progress
    t = table(cfg.table)
    log = cfg.log
    done = log.start(cfg.resume)
    todo = [(ri, row, n, rep) for ri, row in enumerate(t.rows) for n in cfg.columns
            for rep in range(cfg.repetitions) if (row.label, n, rep) not in done]
    progress = Progress(len(todo))
    echo(f"table {t.number}: {len(todo)} run(s) to train {progress.start_text()}")
    for ri, row, n, rep in todo:
        rec = run_cell(t, ri, n, rep, cfg)
        log.append(rec)
        echo(f"{progress.step()} table {t.number} {row.label:15s} n={n:5d} rep={rep} "
             f"acc={rec['accuracy']:.3f} ({rec['seconds']:.1f} s)")
    return log.read()


def repetition_counts(reps: pd.Series) -> str:
    """The repetitions per cell, by n_train column (``reps``: indexed by row and nTrain).

    >>> idx = pd.MultiIndex.from_product([["a", "b"], [1000, 5000]], names=["row", "nTrain"])
    >>> repetition_counts(pd.Series([5, 3, 5, 2], index=idx))
    '5 at n_train 1000, 2-3 at 5000'
    """
    by_col = reps.groupby(level="nTrain").agg(["min", "max"])
    parts = [(f"{lo}" if lo == hi else f"{lo}-{hi}") for lo, hi in
             zip(by_col["min"].astype(int), by_col["max"].astype(int))]
    return ", ".join(f"{p} at {'n_train ' if i == 0 else ''}{n}"
                     for i, (p, n) in enumerate(zip(parts, by_col.index)))


def _pm(mean: float, sd: float) -> str:
    return f"{mean:.1f} ± {sd:.1f}"


def _exact(values) -> str:
    v = np.asarray(values, dtype=float) * 100
    v = v[~np.isnan(v)]
    return "–" if v.size == 0 else _pm(v.mean(), v.std())


def cells(cfg: ReproduceConfig, df: pd.DataFrame) -> list:
    """Every cell of the table that has results, ours beside the paper's: one
    :class:`~d3mkit.benchmarks.reproduction.Figure` each (test accuracy in %, the paper's
    way: :func:`paper_stats`; ``agrees``: :func:`within_sd`), by row then n_train."""
    from d3mkit.benchmarks.reproduction import Figure
    t = table(cfg.table)
    out = []
    for row in t.rows:
        for n in t.n_train:
            sel = df[(df.row == row.label) & (df.nTrain == n)]
            if sel.empty:
                continue
            pm_, ps_ = PAPER[t.number][row.label][t.n_train.index(n)]
            m, s = paper_stats(sel["accuracy"])
            out.append(Figure(f"Table {t.number}, {row.label}, n_train {n}", "test accuracy (%)", m,
                              paper=pm_, ours_sd=s, paper_sd=ps_, agrees=within_sd(m, pm_, ps_)))
    return out


def report(cfg: ReproduceConfig, df: pd.DataFrame, command: str) -> str:
    """The markdown report: paper beside ours in every cell, the custom metrics."""
    import os
    import platform

    t = table(cfg.table)
    cols = [n for n in t.n_train if n in set(df["nTrain"])]
    reps = df.groupby(["row", "nTrain"])["rep"].nunique()
    reduced = []
    if reps.min() < REPETITIONS:
        reduced.append(f"repetitions per cell {repetition_counts(reps)} instead of the "
                       f"paper's {REPETITIONS}")
    missing = [n for n in t.n_train if n not in cols]
    if missing:
        reduced.append(f"n_train columns {', '.join(map(str, missing))} not run")
    absent = [r.label for r in t.rows if r.label not in set(df["row"])]
    if absent:
        reduced.append(f"rows {', '.join(absent)} not run")
    scale = "REDUCED — " + "; ".join(reduced) if reduced else "full (as the paper)"
    lines = [f"# Abstraction, Table {t.number} reproduced: {t.title}", "",
             f"**Scale:** {scale}. K = {t.k}; test set as large as the training set; "
             f"{cfg.epochs} passes, batch {cfg.batch_size}; CPU, one thread per network.", "",
             f"Command: `{command}`", "",
             f"{len(df)} trained networks, {df['seconds'].sum():.0f} s of training and "
             f"prediction on {platform.machine()} with {os.cpu_count()} cores shared with "
             f"other jobs (load not controlled).", "",
             "Ours is the paper's way of reporting: each repetition's accuracy truncated to an "
             "integer percent, then mean ± standard deviation (ddof 0); *exact* is the mean ± "
             "sd of the untruncated accuracies. ✓ = our mean lies within two of the paper's "
             "standard deviations of the paper's mean (exact match where the paper's sd is 0).",
             ""]
    head = "| Row | " + " | ".join(f"{n} ours | {n} paper | 2 sd" for n in cols) + " |"
    lines += ["## Test accuracy (%)", "", head,
              "|" + "---|" * (1 + 3 * len(cols))]
    ours = {f.name: f for f in cells(cfg, df)}
    for row in t.rows:
        shown = []
        for n in cols:
            f = ours.get(f"Table {t.number}, {row.label}, n_train {n}")
            pm_, ps_ = PAPER[t.number][row.label][t.n_train.index(n)]
            shown += (["–", _pm(pm_, ps_), ""] if f is None else
                      [_pm(f.ours, f.ours_sd), _pm(pm_, ps_), "✓" if f.agrees else "✗"])
        lines.append(f"| {row.label} | " + " | ".join(shown) + " |")
    hits = sum(f.agrees for f in ours.values())
    lines += ["", f"**{hits} of {len(ours)} cells within two of the paper's standard deviations.**",
              ""]
    lines += ["## Every metric, ours (%; exact mean ± sd over repetitions)", "",
              "expected = expectedAccuracyWithoutAbstraction (a memoriser of the training "
              "images: identical images + chance); corrected = chanceCorrectedAccuracy; "
              "held-out = heldOutShapeAccuracy, accuracy on the shapes never seen transformed "
              + (f"(shapes {t.k}-9)" if t.k < 10 else "(none at K = 10)")
              + "; – where undefined.", "",
              "| Row | n_train | paper | accuracy (ours, exact) | held-out | expected | "
              "corrected |", "|---|---|---|---|---|---|---|"]
    for row in t.rows:
        for n in cols:
            sel = df[(df.row == row.label) & (df.nTrain == n)]
            if sel.empty:
                continue
            pm_, ps_ = PAPER[t.number][row.label][t.n_train.index(n)]
            lines.append(f"| {row.label} | {n} | {_pm(pm_, ps_)} | {_exact(sel['accuracy'])} | "
                         f"{_exact(sel['heldOut'])} | {_exact(sel['expected'])} | "
                         f"{_exact(sel['chanceCorrected'])} |")
    lines.append("")
    return "\n".join(lines)


def add_arguments(parser) -> None:
    """The options of ``d3mkit reproduce abstraction``."""
    from d3mkit.benchmarks.config import seed_value
    parser.add_argument("--table", type=int, required=True, metavar="N",
                        help="the paper's table, 1-13")
    parser.add_argument("--n-train", default=None, metavar="N[,N...]",
                        help="only these n_train columns (default: all of the table's)")
    parser.add_argument("--repetitions", type=int, default=REPETITIONS,
                        help=f"networks per cell (default {REPETITIONS}, as the paper)")
    parser.add_argument("--epochs", type=int, default=M.EPOCHS)
    parser.add_argument("--batch-size", type=int, default=M.BATCH_SIZE)
    parser.add_argument("--seed", type=seed_value, default=0)
    parser.add_argument("--device", default="cpu", choices=["auto", "cpu", "cuda"], help="default cpu")
    parser.add_argument("--out", type=Path, default=Path("results"),
                        help="directory for abstraction_table<N>.md and .csv (default results/)")
    runlog.add_arguments(parser, "repetitions")


def config_from_args(args) -> ReproduceConfig:
    from d3mkit.core.errors import InvalidArgument
    cols = None
    if args.n_train:
        try:
            cols = tuple(int(x) for x in str(args.n_train).split(","))
        except ValueError:
            raise InvalidArgument("n_train", f"takes integers separated by commas, got "
                                             f"{args.n_train!r}") from None
    return ReproduceConfig(table=args.table, n_train=cols, repetitions=args.repetitions,
                           epochs=args.epochs, batch_size=args.batch_size, seed=args.seed,
                           device=args.device, out=args.out, resume=args.resume,
                           from_csv=args.from_csv)


def command_line(cfg: ReproduceConfig) -> str:
    """The command that (re)runs ``cfg`` from scratch, for the report.

    >>> command_line(ReproduceConfig(table=4, n_train=(1000,), repetitions=2, out=Path("r")))
    'd3mkit reproduce abstraction --table 4 --n-train 1000 --repetitions 2 --out r'
    """
    parts = ["d3mkit reproduce abstraction", f"--table {cfg.table}"]
    if cfg.n_train:
        parts.append("--n-train " + ",".join(map(str, cfg.n_train)))
    defaults = ReproduceConfig(table=cfg.table)
    for name, flag in (("repetitions", "--repetitions"), ("epochs", "--epochs"),
                       ("batch_size", "--batch-size"), ("seed", "--seed")):
        if getattr(cfg, name) != getattr(defaults, name):
            parts.append(f"{flag} {getattr(cfg, name)}")
    parts.append(f"--out {cfg.out.as_posix()}")
    return " ".join(parts)


def run(args):
    """``d3mkit reproduce abstraction``: train what is missing, write the report; a
    :class:`~d3mkit.benchmarks.reproduction.Reproduction` (the report and the run log
    written, every cell compared with the paper's)."""
    from d3mkit.benchmarks.reproduction import Check, Reproduction
    cfg = config_from_args(args)
    if cfg.from_csv:
        cfg = ReproduceConfig(**{**cfg.__dict__, "n_train": None})

    def train():
        from d3mkit.baselines.common import choose_device
        return run_table(ReproduceConfig(**{**cfg.__dict__, "device": choose_device(cfg.device)}))

    df = runlog.results(cfg.log, cfg.from_csv, train)
    if df.empty:
        print(f"{cfg.csv_path}: no repetitions recorded")
        return Reproduction(checks=[Check(str(cfg.csv_path), False, "no repetitions recorded")], exit_code=1)
    cfg.md_path.write_text(report(cfg, df, command_line(cfg)), encoding="utf-8")
    print(cfg.md_path)
    return Reproduction(written=[cfg.md_path] + ([] if cfg.from_csv else [cfg.csv_path]),
                        figures=cells(cfg, df))
