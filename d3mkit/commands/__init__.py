"""One module per ``d3mkit`` subcommand: argument definitions plus a thin ``run``.

A command parses arguments, calls the library and prints; the logic lives in the library.
Command modules import nothing heavy at module level, so ``d3mkit COMMAND --help`` is fast.
"""

from d3mkit.benchmarks.config import seed_value  # noqa: F401  (argparse type of --seed)
