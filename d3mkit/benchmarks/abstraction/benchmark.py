"""The ``abstraction`` benchmark's plug-in record (entry point ``d3mkit.benchmarks``: abstraction).

What this module owns: what d3mkit's commands know of the abstraction benchmark — build,
the paper's CNN baseline, demo, reproducer, example in problems/ — as references
imported only when called.
"""

from d3mkit.benchmarks.plugins import NO_PERSONAL_DATA, Baseline, Benchmark, Card, Reproducer, ref

_P = "d3mkit.benchmarks.abstraction"

# its dataset card (export croissant / export hf): the paper, the RAI fields
_CARD = Card(
    citation=("Hudáky, Lehotay-Kéry and Kiss. A Novel Methodology for Measuring the Abstraction "
              "Capabilities of Image Recognition Algorithms. J. Imaging 2021, 7(8), 152."),
    rai={
        "dataCollection": ("28x28 images of ten line shapes drawn by d3mkit's generator "
                           "(seeded), transformed (rotation, flips, ...) and noised as "
                           "configured."),
        "dataBiases": ("Ten fixed shapes; transformations and noise as configured, nothing else "
                       "varies."),
        "dataLimitations": ("Synthetic line drawings; results need not transfer to natural "
                            "images."),
        "personalSensitiveInformation": NO_PERSONAL_DATA,
        "dataUseCases": ("Studying whether models abstract shapes across transformations seen "
                         "only for some shapes."),
    },
)

BENCHMARK = Benchmark(
    name="abstraction",
    description="One protocol of the abstraction-capability paper as a D3M task root.",
    build=ref(f"{_P}.cli:build"), build_options=ref(f"{_P}.cli:add_build_arguments"),
    example=("--transform", "rotation", "--transformed", "5", "--n-train", "100",
             "--n-test", "50", "--noise", "2", "--name", "abstraction_rotation_example"),
    baselines={"abstraction-cnn": Baseline(run=ref(f"{_P}.baseline:run_baseline"),
                                           options=ref(f"{_P}.baseline:add_baseline_arguments"),
                                           config=ref(f"{_P}.baseline:CNNConfig.from_args"),
                                           requires=("torch",))},
    default_model="abstraction-cnn",
    demo=ref(f"{_P}.demo:run_demo"),
    reproducers={"abstraction": Reproducer(ref(f"{_P}.reproduce:add_arguments"), ref(f"{_P}.reproduce:run"),
                                           "the paper's tables, rerun and reported",
                                           examples=("--table 1 --out results",
                                                     "--table 1 --n-train 1000 --repetitions 1 --epochs 1 --out results",
                                                     "--table 1 --out results --from-csv --format json"))},
    card=_CARD,
)
