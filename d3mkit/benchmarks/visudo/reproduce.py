"""``d3mkit reproduce visudo``: the paper's Table 3 row, Figure 7 and Figure 8, rerun.

What this module owns: :class:`ReproduceConfig` (the options, checked once), building
one real task root per (overlap or source combination, split index) through the
``d3mkit build visudo`` code path (4x4 puzzles, corrupt chance 0.5), training the three
baselines on it (Baseline-Digit — which cheats by reading the hidden cell labels, as the
paper's does — Baseline-Visual, and the NeSy stand-in for NeuPSL) and the markdown reports:

* ``visudo_table3.md`` — overlap 0: AuROC mean ± sd over the splits beside the paper's
  Table 3 row of the chosen source (MNIST for ``mnist5k``);
* ``visudo_figure8.md`` — AuROC against the overlap ω. The paper gives Figure 8 only
  as a plot (no numbers), so the report states its trends beside ours;
* ``visudo_figure7.md`` (``--figure 7``, its own ``visudo_figure7.csv``) — the Random Label
  Per Split task (perSplit) at overlap 0 for each source combination given to ``--source``
  (``mnist,mnist+emnist``: combinations separated by commas, sources joined by ``+``);
  also a plot without numbers in the paper.

Defaults: source ``mnist5k`` (500 real MNIST digits per label) with 50 train, 50 test
and 25 valid correct puzzles per split — the paper used 50/100/100 from full MNIST; at
d = 4 a label needs ``4 x (train + test + valid)`` images, so 500 per label allow
50/50/25. ``--source mnist --source-dir DIR`` with the IDX files gives the paper's counts.
Every trained model appends one line to ``visudo_overlap.csv`` at once (``--resume``
continues a stopped run, ``--from-csv`` only rewrites the reports)::

    d3mkit reproduce visudo --out docs/results                  # Table 3 + Figure 8
    d3mkit reproduce visudo --overlaps 0 --out docs/results     # Table 3 only
    d3mkit reproduce visudo --figure 7 --out docs/results       # Figure 7, mnist5k alone
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from d3mkit.benchmarks import runlog

PAPER_TABLE3 = {   # Table 3: AuROC mean, sd over 10 splits (basic, 4x4, 50 train puzzles)
    "mnist": {"digit": (0.71, 0.04), "visual": (0.51, 0.02), "nesy": (0.88, 0.02)},
    "emnist": {"digit": (0.69, 0.05), "visual": (0.50, 0.01), "nesy": (0.79, 0.09)},
    "fmnist": {"digit": (0.70, 0.04), "visual": (0.50, 0.03), "nesy": (0.74, 0.04)},
    "kmnist": {"digit": (0.71, 0.03), "visual": (0.50, 0.02), "nesy": (0.65, 0.12)},
}
PAPER_ROW = {"mnist5k": "mnist", "digits": "mnist", "mnist": "mnist", "emnist": "emnist", "fmnist": "fmnist",
             "kmnist": "kmnist"}
PAPER_FIGURE8 = ("the paper plots (no numbers given): Baseline-Digit and NeuPSL improve as "
                 "the overlap grows, NeuPSL much more; Baseline-Visual stays at chance")
MODELS = ("digit", "visual", "nesy")
NAMES = {"digit": "Baseline-Digit (cheating: reads the cell labels)",
         "visual": "Baseline-Visual", "nesy": "NeSy stand-in for NeuPSL"}
CSV_COLUMNS = ("overlap", "split", "model", "rocAuc", "accuracy", "epochs",
               "distinctTrainImages", "trainCells", "seconds")
FIGURE7_COLUMNS = ("sources", "split", "model", "rocAuc", "accuracy", "epochs", "labels",
                   "seconds")
PAPER_FIGURE7 = ("the paper plots (no numbers given) the MNIST, EMNIST, FMNIST and KMNIST "
                 "sources alone and combined: NeuPSL performs well in almost all settings and "
                 "beats Baseline-Digit, but struggles whenever KMNIST is used; Baseline-Digit "
                 "is almost the same for every combination; Baseline-Visual stays poor")


@dataclass(frozen=True)
class ReproduceConfig:
    """What to run; checked on creation (an ArgumentError naming the field)."""

    source: str = "mnist5k"
    source_dir: Path | None = None
    splits: int = 10
    train_count: int = 50
    test_count: int = 50
    valid_count: int = 25
    overlaps: tuple[float, ...] = (0.0, 0.5, 1.0, 2.0)
    models: tuple[str, ...] = MODELS
    epochs: int | None = None              # None: each baseline's default
    figure: int | None = None              # 7: the perSplit task over source combinations
    seed: int = 0
    device: str = "cpu"
    out: Path = Path("results")
    resume: bool = False
    from_csv: bool = False

    def __post_init__(self):
        from d3mkit.core.errors import InvalidArgument
        bad = []
        if self.splits < 1:
            bad.append(f"{{splits}} must be at least 1, got {self.splits}")
        if min(self.train_count, self.test_count, self.valid_count) < 1:
            bad.append("{train_count}, {test_count} and {valid_count} must be at least 1")
        if not self.overlaps or any(not (w >= 0 and np.isfinite(w)) for w in self.overlaps):
            bad.append(f"{{overlaps}} must be numbers >= 0, got {self.overlaps}")
        if not self.models or any(m not in MODELS for m in self.models):
            bad.append(f"{{models}} takes a subset of {','.join(MODELS)}, got {','.join(self.models)}")
        if self.epochs is not None and self.epochs < 1:
            bad.append(f"{{epochs}} must be at least 1, got {self.epochs}")
        if self.figure not in (None, 7):
            bad.append(f"{{figure}}: only Figure 7 has its own run (Table 3 and Figure 8 are "
                       f"the default), got {self.figure}")
        sets = self.source_sets
        if self.figure is None and (len(sets) != 1 or len(sets[0]) != 1):
            bad.append(f"{{source}}: the basic task takes one source, got {self.source!r} "
                       f"(combinations are for {{figure=7}})")
        if bad:
            raise InvalidArgument(None, "; ".join(bad))

    @property
    def source_sets(self) -> tuple[tuple[str, ...], ...]:
        """``--source``: combinations separated by commas, sources in one joined by ``+``.

        >>> ReproduceConfig(source="mnist5k,mnist5k+glyphs", figure=7).source_sets
        (('mnist5k',), ('mnist5k', 'glyphs'))
        """
        from d3mkit.benchmarks.visudo.sources import parse_sources
        return tuple(parse_sources(part.replace("+", ",")) for part in self.source.split(","))

    @property
    def csv_path(self) -> Path:
        return self.out / ("visudo_figure7.csv" if self.figure == 7 else "visudo_overlap.csv")

    @property
    def log(self) -> runlog.RunLog:
        if self.figure == 7:
            return runlog.RunLog(self.csv_path, FIGURE7_COLUMNS, key=("sources", "split", "model"),
                                 text=("sources", "model", "labels"))
        return runlog.RunLog(self.csv_path, CSV_COLUMNS, key=("overlap", "split", "model"),
                             text=("model",))


def summary(values) -> tuple[float, float]:
    """Mean and standard deviation (ddof 0) of the finite values.

    >>> [round(x, 3) for x in summary([0.8, 0.9, float("nan")])]
    [0.85, 0.05]
    """
    v = np.asarray(values, dtype=float)
    v = v[np.isfinite(v)]
    return (float(v.mean()), float(v.std())) if v.size else (float("nan"), float("nan"))


def _train_models(tmp: Path, ps, catalog, models, cfg: ReproduceConfig, split: int):
    """Write the generated puzzles as a task root under ``tmp`` and train each of
    ``models`` on it: yields ``(model, scores by metric, epochs, seconds)``."""
    from d3mkit.benchmarks.config import BaselineConfig
    from d3mkit.benchmarks.visudo.baseline import DEFAULT_EPOCHS, run_baseline
    from d3mkit.benchmarks.visudo.cli import write_task_root
    from d3mkit.taskroot.model import TaskRoot

    task = TaskRoot.open(write_task_root(tmp, ps, catalog, force=True))
    for model in models:
        t0 = time.perf_counter()
        bcfg = BaselineConfig(model=model, device=cfg.device, epochs=cfg.epochs, seed=split,
                              quiet=True)
        report = run_baseline(task, model, bcfg)
        yield (model, {s.metric: s.value for s in report.scores},
               bcfg.epochs_or(DEFAULT_EPOCHS[model]), round(time.perf_counter() - t0, 1))


def _generator_config(cfg: ReproduceConfig, strategy: str, sources: tuple[str, ...],
                      overlap: float, split: int):
    from d3mkit.benchmarks.visudo.generator import Config
    return Config(strategy=strategy, sources=sources, dimension=4, train_count=cfg.train_count,
                  test_count=cfg.test_count, valid_count=cfg.valid_count, overlap=overlap,
                  corrupt_chance=0.5, split=split, seed=cfg.seed)


def run_all(cfg: ReproduceConfig, echo=print) -> pd.DataFrame:
    """Build and train every missing (overlap, split, model), appending to the CSV."""
    import tempfile

    from d3mkit.benchmarks.visudo.cli import load_catalog
    from d3mkit.benchmarks.visudo.generator import generate

    from d3mkit.benchmarks.progress import Progress
    log = cfg.log
    done = log.start(cfg.resume)
    catalog = load_catalog((cfg.source,), cfg.source_dir)
    progress = Progress(sum(1 for w in cfg.overlaps for k in range(cfg.splits) for m in cfg.models
                            if (float(w), k, m) not in done))
    echo(f"{progress.total} model(s) to train {progress.start_text()}")
    with tempfile.TemporaryDirectory(prefix="visudo-reproduce-") as tmp:
        for w in cfg.overlaps:
            for k in range(cfg.splits):
                todo = [m for m in cfg.models if (float(w), k, m) not in done]
                if not todo:
                    continue
                ps = generate(_generator_config(cfg, "basic", (cfg.source,), w, k), catalog)
                train_cells = ps.images[(ps.split == "train") & ps.correct]
                for model, vals, epochs, secs in _train_models(Path(tmp), ps, catalog, todo, cfg, k):
                    log.append({"overlap": w, "split": k, "model": model, "rocAuc": vals["rocAuc"],
                                "accuracy": vals["accuracy"], "epochs": epochs,
                                "distinctTrainImages": int(len(np.unique(train_cells))),
                                "trainCells": int(train_cells.size), "seconds": secs})
                    echo(f"{progress.step()} overlap {w:g} split {k} {model:6s} AuROC {vals['rocAuc']:.3f} "
                         f"accuracy {vals['accuracy']:.3f} ({secs:.0f} s)")
    return log.read()


def run_figure7(cfg: ReproduceConfig, echo=print) -> pd.DataFrame:
    """Figure 7: the perSplit task (overlap 0) for every source combination of ``--source``;
    every missing (sources, split, model) is trained and appended to the CSV."""
    import tempfile

    from d3mkit.benchmarks.visudo.cli import load_catalog
    from d3mkit.benchmarks.visudo.generator import generate

    from d3mkit.benchmarks.progress import Progress
    log = cfg.log
    done = log.start(cfg.resume)
    progress = Progress(sum(1 for sources in cfg.source_sets for k in range(cfg.splits) for m in cfg.models
                            if ("+".join(sources), k, m) not in done))
    echo(f"{progress.total} model(s) to train {progress.start_text()}")
    with tempfile.TemporaryDirectory(prefix="visudo-reproduce-") as tmp:
        for sources in cfg.source_sets:
            name = "+".join(sources)
            catalog = None
            for k in range(cfg.splits):
                todo = [m for m in cfg.models if (name, k, m) not in done]
                if not todo:
                    continue
                if catalog is None:
                    catalog = load_catalog(sources, cfg.source_dir)
                ps = generate(_generator_config(cfg, "perSplit", sources, 0.0, k), catalog)
                labels = " ".join(catalog.label_text(g) for g in ps.label_sets["train"])
                for model, vals, epochs, secs in _train_models(Path(tmp), ps, catalog, todo, cfg, k):
                    log.append({"sources": name, "split": k, "model": model,
                                "rocAuc": vals["rocAuc"], "accuracy": vals["accuracy"],
                                "epochs": epochs, "labels": labels, "seconds": secs})
                    echo(f"{progress.step()} {name} split {k} {model:6s} AuROC {vals['rocAuc']:.3f} "
                         f"accuracy {vals['accuracy']:.3f} ({secs:.0f} s)")
    return log.read()


def command_line(cfg: ReproduceConfig) -> str:
    """The command that reruns ``cfg`` from scratch (for the reports).

    >>> command_line(ReproduceConfig(overlaps=(0.0,), out=Path("r")))
    'd3mkit reproduce visudo --overlaps 0 --out r'
    """
    d = ReproduceConfig()
    parts = ["d3mkit reproduce visudo"]
    for name, flag in (("source", "--source"), ("splits", "--splits"),
                       ("train_count", "--n-train"), ("test_count", "--n-test"),
                       ("valid_count", "--n-valid"), ("epochs", "--epochs"), ("seed", "--seed")):
        if getattr(cfg, name) != getattr(d, name):
            parts.append(f"{flag} {getattr(cfg, name)}")
    if cfg.source_dir is not None:
        parts.append("--source-dir DIR")
    if cfg.overlaps != d.overlaps:
        parts.append("--overlaps " + ",".join(f"{w:g}" for w in cfg.overlaps))
    if cfg.models != d.models:
        parts.append("--models " + ",".join(cfg.models))
    if cfg.figure is not None:
        parts.append(f"--figure {cfg.figure}")
    parts.append(f"--out {cfg.out.as_posix()}")
    return " ".join(parts)


def _header(cfg: ReproduceConfig, df: pd.DataFrame, title: str, task: str = "Basic task",
            group: str = "overlap") -> list[str]:
    import os
    import platform
    n_splits = df.groupby([group, "model"])["split"].nunique()
    scale = (f"{int(n_splits.min())}-{int(n_splits.max())} split(s) per cell"
             if n_splits.min() != n_splits.max() else f"{int(n_splits.min())} split(s) per cell")
    return [f"# ViSudo-PC, {title}", "",
            f"{task}, 4x4 puzzles, source `{cfg.source}`, {cfg.train_count}/{cfg.test_count}/"
            f"{cfg.valid_count} correct train/test/valid puzzles per split (each with one corrupted "
            f"twin), corrupt chance 0.5; {scale} (the paper: 10 splits, 50/100/100 correct puzzles "
            f"from the full data sets — mnist5k has 500 images per label, and a label needs "
            f"4 x (train + test + valid) of them). "
            + (f"{cfg.epochs} epochs for every model" if cfg.epochs else
               "Each model with its default epochs")
            + ", model selection on the validation puzzles.", "",
            f"Command: `{command_line(cfg)}`", "",
            f"{len(df)} trained models, {df['seconds'].sum():.0f} s of training on "
            f"{platform.machine()} with {os.cpu_count()} cores shared with other jobs.", ""]


def report_table3(cfg: ReproduceConfig, df: pd.DataFrame) -> str:
    sel = df[df["overlap"] == 0]
    ref = PAPER_ROW.get(cfg.source)
    paper = PAPER_TABLE3.get(ref) if ref else None
    lines = _header(cfg, sel, "Table 3 reproduced (overlap 0)")
    lines += [f"| model | ours: AuROC mean ± sd | paper ({(ref or 'none').upper()} row) | "
              f"ours: accuracy | splits |", "|---|---|---|---|---|"]
    for m in MODELS:
        s = sel[sel["model"] == m]
        if s.empty:
            continue
        am, asd = summary(s["rocAuc"])
        acc, _ = summary(s["accuracy"])
        p = f"{paper[m][0]:.2f} ± {paper[m][1]:.2f}" if paper else "–"
        lines.append(f"| {NAMES[m]} | {am:.2f} ± {asd:.2f} | {p} | {acc:.2f} | {s['split'].nunique()} |")
    lines += ["", "The NeSy model is d3mkit's stand-in for NeuPSL: the paper's cell classifier "
              "(two 5x5 convolutions, dense 256-120-84-n) trained end to end through a soft "
              "Sudoku penalty; it is not PSL (no probabilistic soft logic, no collective "
              "inference across puzzles).", ""]
    return "\n".join(lines)


def _model_table(df: pd.DataFrame, key: pd.Series, values: list, heads: list[str], cell) -> list[str]:
    """A markdown table: a row per model that has results, a column per value of ``key``
    (headed ``heads``); ``cell`` formats one (model, value)'s rows, "–" where there are none."""
    lines = ["| model | " + " | ".join(heads) + " |", "|---|" + "---|" * len(values)]
    for m in MODELS:
        if m not in set(df["model"]):
            continue
        cells = []
        for v in values:
            s = df[(df["model"] == m) & (key == v)]
            cells.append("–" if s.empty else cell(s))
        lines.append(f"| {NAMES[m]} | " + " | ".join(cells) + " |")
    return lines


def report_figure8(cfg: ReproduceConfig, df: pd.DataFrame) -> str:
    lines = _header(cfg, df, "Figure 8 reproduced (AuROC against the overlap ω)")
    ws = sorted(df["overlap"].astype(float).unique())
    lines += _model_table(df, df["overlap"].astype(float), ws, [f"ω = {w:g}" for w in ws],
                          lambda s: "{:.2f} ± {:.2f}".format(*summary(s["rocAuc"])))
    distinct = df.groupby("overlap")[["distinctTrainImages", "trainCells"]].mean()
    lines += ["", "Distinct images in the correct train puzzles (mean over splits): "
              + "; ".join(f"ω = {w:g}: {distinct.loc[w, 'distinctTrainImages']:.0f} of "
                          f"{distinct.loc[w, 'trainCells']:.0f} cells" for w in distinct.index) + ".",
              "", f"Paper: {PAPER_FIGURE8}.", ""]
    return "\n".join(lines)


def report_figure7(cfg: ReproduceConfig, df: pd.DataFrame) -> str:
    """Figure 7: AuROC mean ± sd per model (rows) and source combination (columns)."""
    lines = _header(cfg, df, "Figure 7 reproduced (Random Label Per Split: AuROC by data "
                    "sources)", task="Random Label Per Split (perSplit) task, overlap 0",
                    group="sources")
    sets = list(dict.fromkeys(df["sources"]))
    lines += _model_table(df, df["sources"], sets, [f"`{s}`" for s in sets],
                          lambda s: "{:.2f} ± {:.2f}".format(*summary(s["rocAuc"]))
                          + f" ({s['split'].nunique()})")
    lines += ["", "AuROC mean ± sd over the splits (their number in brackets). The labels each "
              "split drew (perSplit: d = 4 labels of the sources' pooled labels, the same for "
              "its train, test and valid puzzles):", ""]
    for name in sets:
        per = df[df["sources"] == name].drop_duplicates("split").sort_values("split")
        lines.append(f"* `{name}`: " + "; ".join(f"split {int(r.split)}: {r.labels}"
                                                for r in per.itertuples()))
    lines += ["", f"Paper: {PAPER_FIGURE7}.", ""]
    return "\n".join(lines)


def figures(cfg: ReproduceConfig, df: pd.DataFrame) -> list:
    """The AuROC figures the reports give, one
    :class:`~d3mkit.benchmarks.reproduction.Figure` per model and cell (mean ± sd over the
    splits): Figure 7's per source combination; else Table 3's (overlap 0, beside the
    paper's row of the source) and, with several overlaps, Figure 8's per overlap. The
    paper's Figures 7 and 8 are plots without numbers: only ours."""
    from d3mkit.benchmarks.reproduction import Figure

    def auroc(name: str, rows: pd.DataFrame, paper=(None, None)):
        mean, sd = summary(rows["rocAuc"])
        return Figure(name, "AuROC", mean, ours_sd=sd, paper=paper[0], paper_sd=paper[1])

    def per(key: pd.Series, values, label):
        return [auroc(label(m, v), s) for m in MODELS for v in values
                if not (s := df[(df["model"] == m) & (key == v)]).empty]
    if cfg.figure == 7:
        return per(df["sources"], list(dict.fromkeys(df["sources"])),
                   lambda m, v: f"Figure 7, {m}, sources {v}")
    overlap = df["overlap"].astype(float)
    ref = PAPER_ROW.get(cfg.source)
    paper = PAPER_TABLE3.get(ref) if ref else None
    out = []
    for m in MODELS:
        s = df[(df["model"] == m) & (overlap == 0)]
        if not s.empty:
            out.append(auroc(f"Table 3, {m}", s, paper[m] if paper else (None, None)))
    if overlap.nunique() > 1:
        out += per(overlap, sorted(overlap.unique()), lambda m, v: f"Figure 8, {m}, overlap {v:g}")
    return out


def add_arguments(parser) -> None:
    """The options of ``d3mkit reproduce visudo``."""
    from d3mkit.benchmarks.config import seed_value
    parser.add_argument("--source", default="mnist5k",
                        help="image source (default mnist5k; mnist/emnist/fmnist/kmnist need "
                             "--source-dir); with --figure 7 source combinations separated by "
                             "commas, sources in one joined by '+' (mnist,mnist+emnist)")
    parser.add_argument("--figure", type=int, default=None, choices=(7,),
                        help="7: the paper's Figure 7 instead (perSplit task at overlap 0 for "
                             "each --source combination; visudo_figure7.md and .csv)")
    parser.add_argument("--source-dir", type=Path, default=None)
    parser.add_argument("--splits", type=int, default=10, help="split indices (default 10)")
    parser.add_argument("--n-train", dest="train_count", type=int, default=50, help="correct train puzzles per split (default 50)")
    parser.add_argument("--n-test", dest="test_count", type=int, default=50, help="correct test puzzles per split (default 50)")
    parser.add_argument("--n-valid", dest="valid_count", type=int, default=25, help="correct valid puzzles per split (default 25)")
    parser.add_argument("--overlaps", default="0,0.5,1,2",
                        help="overlap values ω (default 0,0.5,1,2; 0 alone = Table 3)")
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--epochs", type=int, default=None, help="override every model's default")
    parser.add_argument("--seed", type=seed_value, default=0)
    parser.add_argument("--device", default="cpu", choices=["auto", "cpu", "cuda"], help="default cpu")
    parser.add_argument("--out", type=Path, default=Path("results"))
    runlog.add_arguments(parser, "models")


def config_from_args(args) -> ReproduceConfig:
    from d3mkit.core.errors import InvalidArgument
    try:
        overlaps = tuple(float(x) for x in str(args.overlaps).split(",") if x.strip())
    except ValueError:
        raise InvalidArgument("overlaps", f"takes numbers separated by commas, got {args.overlaps!r}") from None
    models = tuple(m.strip() for m in str(args.models).split(",") if m.strip())
    return ReproduceConfig(source=args.source, source_dir=args.source_dir, splits=args.splits,
                           train_count=args.train_count, test_count=args.test_count,
                           valid_count=args.valid_count, overlaps=overlaps, models=models,
                           epochs=args.epochs, figure=args.figure, seed=args.seed,
                           device=args.device, out=args.out, resume=args.resume,
                           from_csv=args.from_csv)


def run(args):
    """``d3mkit reproduce visudo``: train what is missing, write the reports; a
    :class:`~d3mkit.benchmarks.reproduction.Reproduction` (the reports and the run log
    written, the figures)."""
    from d3mkit.benchmarks.reproduction import Check, Reproduction
    cfg = config_from_args(args)
    df = runlog.results(cfg.log, cfg.from_csv,
                        lambda: (run_figure7 if cfg.figure == 7 else run_all)(cfg))
    if df.empty:
        print(f"{cfg.csv_path}: no models recorded")
        return Reproduction(checks=[Check(str(cfg.csv_path), False, "no models recorded")], exit_code=1)
    log = [] if cfg.from_csv else [cfg.csv_path]
    if cfg.figure == 7:
        path = cfg.out / "visudo_figure7.md"
        path.write_text(report_figure7(cfg, df), encoding="utf-8")
        print(path)
        return Reproduction(written=[path, *log], figures=figures(cfg, df))
    df["overlap"] = df["overlap"].astype(float)
    written = []
    if (df["overlap"] == 0).any():
        (cfg.out / "visudo_table3.md").write_text(report_table3(cfg, df), encoding="utf-8")
        written.append(cfg.out / "visudo_table3.md")
    if df["overlap"].nunique() > 1:
        (cfg.out / "visudo_figure8.md").write_text(report_figure8(cfg, df), encoding="utf-8")
        written.append(cfg.out / "visudo_figure8.md")
    for p in written:
        print(p)
    return Reproduction(written=[*written, *log], figures=figures(cfg, df))
