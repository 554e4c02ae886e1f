"""One module per ``d3mkit`` subcommand: argument definitions plus a thin ``run``."""
