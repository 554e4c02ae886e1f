"""The ``visudo`` benchmark's plug-in record (entry point ``d3mkit.benchmarks``: visudo).

What this module owns: what d3mkit's commands know of ViSudo-PC — build, the digit,
visual and nesy baselines, demo, reproducer, example in problems/ — as references
imported only when called.
"""

from d3mkit.benchmarks.plugins import Baseline, Benchmark, Reproducer, ref

_P = "d3mkit.benchmarks.visudo"
_BASELINE = Baseline(run=ref(f"{_P}.baseline:run_baseline"),
                     config=ref("d3mkit.benchmarks.config:BaselineConfig.from_args"), requires=("torch",))

BENCHMARK = Benchmark(
    name="visudo",
    description="ViSudo-PC task roots, one per (configuration, split index): is a grid of digit images a solved Sudoku?",
    build=ref(f"{_P}.cli:build"), build_options=ref(f"{_P}.cli:add_build_arguments"),
    example=("--strategy", "basic", "--sources", "digits", "--dimension", "4",
             "--n-train", "2", "--n-test", "2", "--n-valid", "1"),
    baselines={"digit": _BASELINE, "visual": _BASELINE, "nesy": _BASELINE},
    default_model="visual",
    demo=ref(f"{_P}.demo:run_demo"),
    reproducers={"visudo": Reproducer(ref(f"{_P}.reproduce:add_arguments"), ref(f"{_P}.reproduce:run"),
                                      "the paper's Table 3 row, Figure 7 and Figure 8, rerun")},
)
