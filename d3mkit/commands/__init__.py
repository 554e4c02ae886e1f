"""One module per ``d3mkit`` subcommand: argument definitions plus a thin ``run``.

A command parses arguments, calls the library and prints; the logic lives in the library.
Command modules import nothing heavy at module level, so ``d3mkit COMMAND --help`` is fast.
"""



def seed_value(text: str) -> int:
    """argparse type of ``--seed`` (:func:`d3mkit.benchmarks.config.seed_value`, imported
    only when a command that takes a seed runs, to keep start-up light)."""
    from d3mkit.benchmarks.config import seed_value as check
    return check(text)
