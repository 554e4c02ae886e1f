"""The ``prism`` benchmark's plug-in record (entry point ``d3mkit.benchmarks``: prism).

What this module owns: what d3mkit's commands know of PRISM — build, the zero-rate,
random, text and fusion baselines, demo — as references imported only when called.
"""

from d3mkit.benchmarks.plugins import Baseline, Benchmark, Card, ref

_P = "d3mkit.benchmarks.prism"


def _baseline(*requires: str) -> Baseline:
    # only fusion trains a network: the others have no use for epochs or a device
    return Baseline(run=ref(f"{_P}.baseline:run_baseline"),
                    config=ref(f"{_P}.baseline:PrismBaselineConfig.from_args"), requires=requires,
                    unused=() if requires else ("epochs", "device"))


# its dataset card (export croissant / export hf): the paper, the RAI fields
_CARD = Card(
    citation=("PRISM: Preconditioned Visual Language Inference and Rationalization using Weak "
              "Supervision."),
    rai={
        "dataCollection": ("Images, captions and premises from the local PRISM manifest given "
                           "to 'd3mkit build prism'; nothing is downloaded."),
        "dataBiases": "Inherits the scenes, captions and annotators of the source manifest.",
        "dataLimitations": ("Labels come from the manifest and labeling functions; their noise "
                            "is not estimated by d3mkit."),
        "personalSensitiveInformation": ("Scene images may show people; check the source "
                                         "manifest's terms before redistribution."),
        "dataUseCases": "Benchmarking visual-language inference over captions and premises.",
    },
)

BENCHMARK = Benchmark(
    name="prism",
    description="PRISM PVLI/PVLr task roots from a manifest of records and a directory of premise images.",
    build=ref(f"{_P}.cli:build"), build_options=ref(f"{_P}.cli:add_build_arguments"),
    baselines={"zero-rate": _baseline(), "random": _baseline(), "text": _baseline(),
               "fusion": _baseline("torch")},
    default_model="text",
    demo=ref(f"{_P}.demo:run_demo"),
    card=_CARD,
)
