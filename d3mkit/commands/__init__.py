"""One module per ``d3mkit`` subcommand: argument definitions plus a thin ``run``."""


def seed_value(text: str) -> int:
    """argparse type of ``--seed``: an integer numpy accepts (0 <= seed), else a usage error."""
    import argparse
    try:
        v = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"invalid int value: {text!r}") from None
    if v < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {v}")
    return v
