"""The VALUE benchmarks' plug-in records (entry points ``d3mkit.benchmarks``: value,
value-detection).

What this module owns: what d3mkit's commands know of ``value`` (build, the ResNet
baselines, demo, reproducer, example in problems/) and ``value-detection`` (build only),
as references imported only when called.
"""

from d3mkit.benchmarks.plugins import NO_PERSONAL_DATA, Baseline, Benchmark, Card, Reproducer, ref

_P = "d3mkit.benchmarks.value"
_RESNET = Baseline(run=ref(f"{_P}.baseline:run_baseline"), options=ref(f"{_P}.baseline:add_baseline_arguments"),
                   config=ref(f"{_P}.baseline:ValueBaselineConfig.from_args"), requires=("torch",))

# its dataset card (export croissant / export hf): the paper, the RAI fields
_CARD = Card(
    citation=("VALUE: Visual Logical Understanding Evaluation (chess board-state recognition "
              "judged by logical consistency), sections 3-5; d3mkit renders VALUE-synthetic "
              "boards with Pillow instead of the paper's Blender scene."),
    rai={
        "dataCollection": ("Chess positions from the games of the PGN source given to 'd3mkit "
                           "build value', rendered as board images by d3mkit's Pillow renderer "
                           "from a random camera (seeded)."),
        "dataBiases": ("Positions follow the distribution of the source games (openings "
                       "over-represented); one piece set and board style."),
        "dataLimitations": ("Synthetic renderings: no real photographs, lighting or occlusion "
                            "as in the VALUE paper's Blender scenes."),
        "personalSensitiveInformation": NO_PERSONAL_DATA,
        "dataUseCases": ("Benchmarking chess board recognition (per-square symbol prediction) "
                         "and rule-consistency of predicted boards; not for player profiling."),
    },
)

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
                                     "the VALUE paper's Table 1 protocol at a scale that runs here",
                                     examples=("--n-train 300 --n-test 100 --epochs 4 --models resnet18 --out results",))},
    card=_CARD,
)

VALUE_DETECTION = Benchmark(
    name="value-detection",
    description="The VALUE-synthetic renders as a 3.1.1 objectDetection problem.",
    build=ref(f"{_P}.cli_detection:build"), build_options=ref(f"{_P}.cli_detection:add_build_arguments"),
    card=_CARD,
)
