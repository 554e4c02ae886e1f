"""The ``tabular`` benchmark's plug-in record (entry point ``d3mkit.benchmarks``: tabular).

What this module owns: what d3mkit's commands know of the tabular benchmark — its build,
its two baselines, its demo part and its example in problems/ — as references into
:mod:`d3mkit.benchmarks.tabular`, which is imported only when one of them is called.
"""

from d3mkit.benchmarks.plugins import Baseline, Benchmark, Card, ref

_M = "d3mkit.benchmarks.tabular"
_OPTIONS = ref(f"{_M}:add_baseline_arguments")
_CONFIG = ref(f"{_M}:TabularBaselineConfig.from_args")
# neither model trains for epochs or on a GPU, and the mean has no solver (max_iter)
_LR = Baseline(run=ref(f"{_M}:run_baseline"), options=_OPTIONS, config=_CONFIG, unused=("epochs", "device"))
_MEAN = Baseline(run=ref(f"{_M}:run_baseline"), options=_OPTIONS, config=_CONFIG,
                 unused=("epochs", "device", "max_iter"))

# its dataset card (export croissant / export hf): the paper, the RAI fields
_CARD = Card(
    citation=("Dua, D. and Graff, C. UCI Machine Learning Repository (as bundled with "
              "scikit-learn)."),
    rai={
        "dataCollection": ("A table bundled with scikit-learn (UCI repository data), packaged "
                           "unchanged."),
        "dataBiases": "As collected by the original UCI contributors; small samples.",
        "dataLimitations": ("Small, classic tables; for examples and tests, not for "
                            "conclusions."),
        "personalSensitiveInformation": ("None: measurements of plants, wines or tumours "
                                         "without identifying information."),
        "dataUseCases": "Examples, tests and demonstrations of d3mkit.",
    },
)

BENCHMARK = Benchmark(
    name="tabular",
    description="Tabular task roots from the tables scikit-learn bundles (wine, iris, diabetes); the first demo.",
    build=ref(f"{_M}:build"), build_options=ref(f"{_M}:add_build_arguments"),
    example=("--dataset", "wine"),
    baselines={"logistic-regression": _LR, "mean": _MEAN},
    default_model="logistic-regression",
    demo=ref(f"{_M}:run_demo"),
    card=_CARD,
)
