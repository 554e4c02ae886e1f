"""``python -m d3mkit`` runs the command-line interface."""

from d3mkit.cli import main

raise SystemExit(main())
