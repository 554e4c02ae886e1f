"""The VALUE benchmarks' plug-in records (entry points ``d3mkit.benchmarks``: value,
value-detection).

What this module owns: what d3mkit's commands know of ``value`` (build, the ResNet
baselines, demo, reproducer, example in problems/) and ``value-detection`` (build only),
as references imported only when called.
"""

from d3mkit.benchmarks.plugins import Baseline, Benchmark, Reproducer, ref

_P = "d3mkit.benchmarks.value"
_RESNET = Baseline(run=ref(f"{_P}.baseline:run_baseline"), options=ref(f"{_P}.baseline:add_baseline_arguments"),
                   config=ref(f"{_P}.baseline:ValueBaselineConfig.from_args"), requires=("torch",))

VALUE = Benchmark(
    name="value",
    description="VALUE-synthetic (or VALUE release) chess board images as a D3M task root.",
    build=ref(f"{_P}.cli:build"), build_options=ref(f"{_P}.cli:add_build_arguments"),
    example=("--n-train", "8", "--n-test", "4", "--size", "96", "--random-games", "2",
             "--max-plies", "40", "--workers", "1"),
    baselines={"resnet18": _RESNET, "resnet50": _RESNET, "resnet101": _RESNET},
    default_model="resnet18",
    demo=ref(f"{_P}.demo:run_demo"),
    reproducers={"value": Reproducer(ref(f"{_P}.reproduce:add_arguments"), ref(f"{_P}.reproduce:run"),
                                     "the VALUE paper's Table 1 protocol at a scale that runs here")},
)

VALUE_DETECTION = Benchmark(
    name="value-detection",
    description="The VALUE-synthetic renders as a 3.1.1 objectDetection problem.",
    build=ref(f"{_P}.cli_detection:build"), build_options=ref(f"{_P}.cli_detection:add_build_arguments"),
)
