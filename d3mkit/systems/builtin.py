"""d3mkit's own systems' records (entry points ``d3mkit.systems``: constant, random-forest,
flaml, autogluon, h2o, tpot), as references into the modules that do the work, imported only when a
system runs.

What this module owns: each built-in's name, description, task types, version, readiness
and install step.
"""

from __future__ import annotations

from d3mkit.benchmarks.plugins import ref
from d3mkit.systems.plugins import TABULAR, System


def _sklearn_version() -> str | None:
    from importlib.metadata import PackageNotFoundError, version
    try:
        return f"scikit-learn {version('scikit-learn')}"
    except PackageNotFoundError:
        return None


def _version_of(dist: str):
    def get() -> str | None:
        from importlib.metadata import PackageNotFoundError, version
        try:
            return version(dist)
        except PackageNotFoundError:
            return None
    return get


def _flaml_ready() -> str | None:
    from importlib.util import find_spec
    for module in ("flaml", "lightgbm", "xgboost"):   # flaml.automl imports both
        if find_spec(module) is None:
            return f'{module} is not installed: pip install "d3mkit[flaml]"'
    return None


CONSTANT = System("constant", "the most frequent class, or the TRAIN mean/median, per target",
                  TABULAR, fit=ref("d3mkit.systems.constant:fit"), predict=ref("d3mkit.systems.constant:predict"),
                  version=_sklearn_version, ready=lambda: None)

RANDOM_FOREST = System("random-forest", "scikit-learn random forest on every colType (codes, date parts, TF-IDF)",
                       TABULAR, fit=ref("d3mkit.systems.forest:fit"), predict=ref("d3mkit.systems.forest:predict"),
                       version=_sklearn_version, ready=lambda: None)

FLAML = System("flaml", "FLAML AutoML (LightGBM, random forest, extra trees) within the time limit",
               ("classification/binary", "classification/multiClass", "regression/univariate"),
               fit=ref("d3mkit.systems.flaml_system:fit"), predict=ref("d3mkit.systems.flaml_system:predict"),
               version=_version_of("flaml"), ready=_flaml_ready,
               install=ref("d3mkit.systems.flaml_system:install"))

AUTOGLUON = System("autogluon", "AutoGluon Tabular, in its own virtual environment (d3mkit systems install autogluon)",
                   ("classification/binary", "classification/multiClass", "regression/univariate"),
                   command=ref("d3mkit.systems.autogluon:command"), version=ref("d3mkit.systems.autogluon:version"),
                   ready=ref("d3mkit.systems.autogluon:ready"), install=ref("d3mkit.systems.autogluon:install"))

TPOT = System("tpot", "TPOT 1.x genetic programming over scikit-learn pipelines, in its own virtual environment "
              "(d3mkit systems install tpot)",
              ("classification/binary", "classification/multiClass", "regression/univariate"),
              command=ref("d3mkit.systems.tpot_system:VENV.command"), version=ref("d3mkit.systems.tpot_system:VENV.version"),
              ready=ref("d3mkit.systems.tpot_system:VENV.ready"), install=ref("d3mkit.systems.tpot_system:VENV.install"))

H2O = System("h2o", "H2O AutoML (GBM, XGBoost, GLM, random forest, stacked ensembles) in a JVM of its own",
             ("classification/binary", "classification/multiClass", "regression/univariate"),
             fit=ref("d3mkit.systems.h2o_system:fit"), predict=ref("d3mkit.systems.h2o_system:predict"),
             version=_version_of("h2o"), ready=ref("d3mkit.systems.h2o_system:ready"),
             install=ref("d3mkit.systems.h2o_system:install"))
