"""The ``d3mkit`` command line: argparse wiring and error handling, nothing else.

Each subcommand lives in ``d3mkit/commands/<name>.py`` with ``add_parser(subparsers)``
(which sets ``func``) and is a thin call into the module that does the work. Errors
become messages and exit codes here: 0 success, 1 invalid input, 2 usage/unreadable path.
Set ``D3MKIT_DEBUG=1`` to see the traceback of an internal error.
"""

from __future__ import annotations

import argparse
import os
import sys
from importlib import import_module

from d3mkit import __version__
from d3mkit.commands import lazy_parser
from d3mkit.errors import EXIT_INVALID, EXIT_USAGE, D3MKitError, print_issues  # noqa: F401
from d3mkit.readlog import recording

COMMANDS = ["validate", "score", "evaluate", "metrics", "split", "views", "convert",
            "build", "baseline", "demo", "reproduce", "codes", "value", "prism", "import", "info",
            "challenge", "serve", "submit"]
MODULES = {"import": "import_"}   # a command whose module name is a Python keyword


class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # usage errors: exit 2, one line, no traceback
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser; with ``only`` (a command name) just that command's module is imported,
    so ``d3mkit validate ...`` never pays for ``build``'s imports (start-up time)."""
    parser = _Parser(prog="d3mkit", description="Benchmark tasks as D3M problems: build, validate, split, score, baselines.")
    parser.add_argument("--version", action="version", version=f"d3mkit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=lazy_parser(_Parser))
    sub.required = True
    names = [only] if only in COMMANDS else [] if only == "--version" else COMMANDS
    for name in names:
        try:
            mod = import_module(f"d3mkit.commands.{MODULES.get(name, name)}")
        except ModuleNotFoundError as exc:
            if exc.name == f"d3mkit.commands.{MODULES.get(name, name)}":
                continue
            raise
        mod.add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(argv[0] if argv else None)
    args = parser.parse_args(argv)
    try:
        with recording():          # every file read is an input no output may replace
            return int(args.func(args) or 0)
    except D3MKitError as exc:
        print_issues(exc.issues)
        return exc.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:  # a path that cannot be read or written: name it, exit 2
        where = exc.filename if exc.filename is not None else ""
        target = f" -> {exc.filename2}" if getattr(exc, "filename2", None) else ""
        print(f"{where}{target}: error [file.os] {exc.strerror or exc}" if where
              else f"error [file.os] {exc.strerror or exc}", file=sys.stderr)
        return EXIT_USAGE
    except MemoryError:
        print("error [memory] out of memory: the sizes asked for are too large for this machine",
              file=sys.stderr)
        return EXIT_USAGE
    except Exception as exc:  # a bug in d3mkit, not bad input
        if os.environ.get("D3MKIT_DEBUG"):
            raise
        print(f"d3mkit: internal error: {type(exc).__name__}: {exc} "
              f"(set D3MKIT_DEBUG=1 for the traceback, and please report it)", file=sys.stderr)
        return EXIT_INVALID


if __name__ == "__main__":
    sys.exit(main())
