"""Tabular task roots from the tables scikit-learn bundles (wine, iris, diabetes); the first demo.

What this module owns: turning one bundled scikit-learn table (no network) into a task
root — learningData (``d3mIndex``, the features as ``real``, the target), a problemDoc
and dataSplits (holdOut 0.2, ``randomSeed`` = ``--seed``, stratified for the
classification tables) — and the ``tabular`` part of ``d3mkit demo``.

* ``wine``: classification/multiClass, 178 rows, 13 features, ``class`` (class_0..2);
  metrics accuracy and f1Macro.
* ``iris``: classification/multiClass, 150 rows, 4 features, ``species``; same metrics.
* ``diabetes``: regression/univariate, 442 rows, 10 raw (unscaled) features,
  ``progression``; metric rootMeanSquaredError; not stratified.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from d3mkit.benchmarks.config import BaselineConfig, check_choice, check_int
from d3mkit.documents import Column, DatasetDoc, ProblemDoc, Resource, Target

DATASETS = {
    # name: (loader, taskType, taskSubType, target column, metrics, description)
    "wine": ("load_wine", "classification", "multiClass", "class",
             [{"metric": "accuracy"}, {"metric": "f1Macro"}],
             "Wine recognition: chemical analysis of 178 wines from three cultivars "
             "(UCI wine data as bundled with scikit-learn)."),
    "iris": ("load_iris", "classification", "multiClass", "species",
             [{"metric": "accuracy"}, {"metric": "f1Macro"}],
             "Fisher's iris: sepal and petal measurements of 150 irises of three species "
             "(as bundled with scikit-learn)."),
    "diabetes": ("load_diabetes", "regression", "univariate", "progression",
                 [{"metric": "rootMeanSquaredError"}],
                 "Diabetes: ten baseline variables of 442 patients and a quantitative measure "
                 "of disease progression one year later (as bundled with scikit-learn, unscaled)."),
}


def add_build_arguments(parser) -> None:
    parser.add_argument("--dataset", choices=sorted(DATASETS), default="wine",
                        help="which bundled scikit-learn table (default wine)")
    parser.add_argument("--name", default=None, help="task root name (default: the dataset name)")
    parser.add_argument("--test-size", type=float, default=0.2, help="holdOut testSize (default 0.2)")
    from d3mkit.io.executor import add_executor_arguments
    add_executor_arguments(parser, unused="a bundled table is one CSV of at most 442 rows, "
                                          "nothing to spread; the build runs in this process")


def _column_name(raw: str) -> str:
    """``'sepal length (cm)'`` -> ``'sepal_length_cm'``.

    >>> _column_name("od280/od315_of_diluted_wines")
    'od280_od315_of_diluted_wines'
    """
    return re.sub(r"[^0-9A-Za-z_]+", "_", raw).strip("_")


def load_table(dataset: str, seed: int | None = None) -> pd.DataFrame:
    """learningData of a bundled table: d3mIndex, features, target (last column).

    With ``seed``, the rows are put in a seeded random order before d3mIndex numbers them:
    scikit-learn bundles some tables sorted by class, and a d3mIndex that follows the class
    would tell a system the target of every TEST row."""
    import sklearn.datasets as skd
    loader, task_type, _, target, _, _ = DATASETS[dataset]
    bunch = getattr(skd, loader)(**({"scaled": False} if dataset == "diabetes" else {}))
    df = pd.DataFrame(np.asarray(bunch.data, dtype=np.float64),
                      columns=[_column_name(c) for c in bunch.feature_names])
    if task_type == "classification":
        y = np.asarray(bunch.target_names)[np.asarray(bunch.target)]
        df[target] = y.astype(str)
    else:
        df[target] = np.asarray(bunch.target, dtype=np.float64)
    if seed is not None:
        order = np.random.default_rng(seed).permutation(len(df))
        df = df.iloc[order].reset_index(drop=True)
    df.insert(0, "d3mIndex", np.arange(len(df), dtype=np.int64))
    return df


def documents(name: str, dataset: str, df: pd.DataFrame, seed: int,
              test_size: float = 0.2) -> tuple[DatasetDoc, ProblemDoc]:
    """The datasetDoc and problemDoc of a tabular task root."""
    _, task_type, subtype, target, metrics, description = DATASETS[dataset]
    cols = [Column(0, "d3mIndex", "integer", ("index",))]
    for i, c in enumerate(df.columns[1:-1], start=1):
        cols.append(Column(i, c, "real", ("attribute",)))
    target_type = "categorical" if task_type == "classification" else "real"
    cols.append(Column(len(df.columns) - 1, target, target_type, ("suggestedTarget",)))
    ddoc = DatasetDoc.new(f"{name}_dataset", name,
                          [Resource.table("learningData", "tables/learningData.csv", cols)],
                          description=description, source="scikit-learn bundled datasets")
    splits = {"method": "holdOut", "testSize": test_size,
              "stratified": task_type == "classification", "numRepeats": 0, "randomSeed": seed}
    pdoc = ProblemDoc.new(f"{name}_problem", name, task_type, subtype, f"{name}_dataset",
                          [Target(0, "learningData", len(df.columns) - 1, target)], metrics,
                          description=f"Predict {target} ({task_type}/{subtype}).", splits=splits)
    return ddoc, pdoc


def build_task_root(out: Path, dataset: str = "wine", *, seed: int = 0, name: str | None = None,
                    test_size: float = 0.2, force: bool = False) -> Path:
    """Write ``out/<name>/`` for a bundled table and return its path."""
    from d3mkit.taskroot.writer import TaskRootWriter
    name = name or dataset
    df = load_table(dataset, seed)
    ddoc, pdoc = documents(name, dataset, df, seed, test_size)
    params = {"dataset": dataset, "testSize": test_size}
    with TaskRootWriter(out, name, benchmark="tabular", seed=seed, parameters=params, force=force) as w:
        w.write_table("tables/learningData.csv", df)
        w.write_dataset_doc(ddoc)
        w.write_problem_doc(pdoc)
    return w.root


def build(args) -> list[Path]:
    from d3mkit.core.errors import InvalidArgument
    if not 0.0 < args.test_size < 1.0:
        raise InvalidArgument("test_size", f"must be between 0 and 1, got {args.test_size}")
    from d3mkit.io.executor import check_options
    # --workers/--scheduler are checked, then not used: one small table, no per-item work
    check_options(getattr(args, "workers", None), getattr(args, "scheduler", None))
    return [build_task_root(args.out, args.dataset, seed=args.seed, name=args.name,
                            test_size=args.test_size, force=args.force)]


def run_demo(out: Path, device: str, echo) -> None:
    """Package wine, validate it, (re)write its splits, and report what happened."""
    from d3mkit.taskroot.splits.regenerate import find_dataset
    from d3mkit.taskroot.splits.plan import make_splits
    from d3mkit.taskroot.splits.write import splits_bytes
    from d3mkit.taskroot.splits.read import summary
    from d3mkit.taskroot.model import TaskRoot
    from d3mkit.benchmarks import echo_validation

    root = build_task_root(out, "wine", seed=0, force=True)
    task = TaskRoot.open(root)
    ld = task.learning_data()
    echo(f"   packaged {root}: {len(ld)} rows, {len(ld.columns) - 2} features, "
         f"target {task.problem.target_names[0]!r} ({task.problem.task_type}/{task.problem.task_subtype})")
    echo_validation(root, echo)
    splits_file = task.problem_dir / task.problem.splits_file
    again = make_splits(task.problem, ld, find_dataset(task.problem))
    same = splits_bytes(again) == splits_file.read_bytes()
    echo(f"   splits ({task.problem.splits['method']}, testSize {task.problem.splits['testSize']}, "
         f"stratified on {task.problem.target_names[0]!r}): {splits_file.name} "
         f"{'reproduced byte for byte' if same else 'DIFFERS when regenerated'}")
    for line in summary(task.splits()):
        echo(f"     {line}")
    _demo_baseline(task, echo)


@dataclass(frozen=True)
class TabularBaselineConfig(BaselineConfig):
    """``d3mkit baseline ROOT --model logistic-regression|mean`` on a tabular task root:
    ``max_iter`` of scikit-learn's solver (>= 1); ``epochs``/``device`` do not apply."""

    model: str | None = "logistic-regression"
    max_iter: int = 1000

    def check(self) -> None:
        super().check()
        check_choice("model", self.model, BASELINE_MODELS)
        check_int("max_iter", self.max_iter, minimum=1)


BASELINE_MODELS = ("logistic-regression", "mean")
CONFIG = TabularBaselineConfig


def add_baseline_arguments(parser) -> None:
    parser.add_argument("--max-iter", type=int, default=None,
                        help="tabular logistic-regression: solver iterations (default 1000)")


def run_baseline(task, model: str, config: TabularBaselineConfig):
    """Fit on TRAIN of repeat 0 fold 0, predict TEST, write and score the solution.
    ``logistic-regression`` (standardised features; classification, or linear regression
    for a regression target) or ``mean`` (the most frequent class / the TRAIN mean)."""
    from sklearn.linear_model import LinearRegression, LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    from d3mkit.baselines.common import write_solution

    config = config if isinstance(config, TabularBaselineConfig) else TabularBaselineConfig.from_args(config)
    ld = task.learning_data().set_index("d3mIndex")
    target = task.problem.target_names[0]
    features = [c for c in ld.columns if c != target]
    train, test = task.split_indices(0, 0)
    regression = task.problem.task_type == "regression"
    y = ld.loc[train, target].to_numpy()
    if regression:
        y = y.astype(float)
    if model == "mean":
        if regression:
            pred = np.full(len(test), float(y.mean()))
        else:
            values, counts = np.unique(y, return_counts=True)
            pred = np.full(len(test), values[int(np.argmax(counts))], dtype=object)
    else:
        est = LinearRegression() if regression else LogisticRegression(max_iter=config.max_iter)
        fit = make_pipeline(StandardScaler(), est)
        fit.fit(ld.loc[train, features].astype(float).to_numpy(), y)
        pred = fit.predict(ld.loc[test, features].astype(float).to_numpy())
    predictions = pd.DataFrame({"d3mIndex": test, target: pred})
    return write_solution(task, predictions, model=model,
                          info={"library": "scikit-learn", "repeat": 0, "fold": 0, **config.to_dict()})


def _demo_baseline(task, echo) -> None:
    """Logistic regression on TRAIN, predictions for TEST, scored by d3mkit's scorer."""
    train, test = task.split_indices(0, 0)
    report = run_baseline(task, "logistic-regression", TabularBaselineConfig())
    echo(f"   baseline logistic regression (TRAIN {len(train)}, TEST {len(test)}):")
    from d3mkit.scoring.display import score_table
    for line in score_table(report.scores):
        echo(f"     {line}")
