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
from d3mkit.core.errors import (EXIT_INVALID, EXIT_USAGE, D3MKitError, error, flag_name,  # noqa: F401
                           issues_for_cli, print_issues)
from d3mkit.io.readlog import recording

COMMANDS = ["validate", "score", "evaluate", "metrics", "split", "views", "convert",
            "build", "baseline", "demo", "reproduce", "codes", "prism", "import", "info",
            "challenge", "serve", "submit", "export", "systems", "run", "benchmark"]
MODULES = {"import": "import_"}   # a command whose module name is a Python keyword


class Parser(argparse.ArgumentParser):
    """Every d3mkit parser: plain-text help with examples, the hidden old spellings of
    options, "did you mean" on a mistyped command or option (:mod:`d3mkit.commands.options`),
    and usage errors as one line with exit 2."""

    def __init__(self, *a, **kw):
        from d3mkit.commands.options import HelpFormatter
        kw.setdefault("formatter_class", HelpFormatter)
        super().__init__(*a, **kw)

    def parse_known_args(self, args=None, namespace=None):
        from d3mkit.commands.options import add_aliases
        add_aliases(self)
        self._argv = list(sys.argv[1:] if args is None else args)   # for "did you mean" in error()
        ns, extras = super().parse_known_args(args, namespace)
        if not hasattr(ns, "_parser"):    # the innermost parser (a subcommand's) is set first
            ns._parser = self
        return ns, extras

    def parse_args(self, args=None, namespace=None):
        ns, extras = self.parse_known_args(args, namespace)
        if extras:   # reported by the parser that knows the options (the subcommand's)
            from d3mkit.commands.options import suggest_option
            inner = getattr(ns, "_parser", self)
            inner.usage_error(f"unrecognized arguments: {' '.join(extras)}{suggest_option(inner, extras)}")
        return ns

    def usage_error(self, message: str):
        self.error(message)

    hint = None   # a command's own hint for a usage error: hint(message) -> text to add

    def error(self, message: str):  # usage errors: exit 2, one line, no traceback
        from d3mkit.commands.options import suggest_choice, suggest_option
        self.print_usage(sys.stderr)
        extra = self.hint(message) if self.hint is not None else ""
        if not extra and message.startswith("the following arguments are required"):
            known = {o for a in self._actions for o in a.option_strings}   # a typo left it unset
            extra = suggest_option(self, [a for a in getattr(self, "_argv", ())
                                          if a.startswith("--") and a.split("=", 1)[0] not in known])
        text = f"{suggest_choice(message)}{extra}"
        print(f"{self.prog}: error: {text}", file=sys.stderr)
        raise UsageExit(error("usage", self.prog, text))


class UsageExit(SystemExit):
    """argparse's usage error (exit 2) after its lines went to stderr; ``issue`` is the same
    error as an :class:`~d3mkit.core.errors.Issue` (code ``usage``, location the command), which
    :func:`main` prints as ``{"issues": [...]}`` when ``--format json`` was asked for."""

    def __init__(self, issue):
        super().__init__(EXIT_USAGE)
        self.issue = issue


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser; with ``only`` (a command name) just that command's module is imported,
    so ``d3mkit validate ...`` never pays for ``build``'s imports (start-up time)."""
    parser = Parser(prog="d3mkit", description="Benchmark tasks as D3M problems: build, validate, split, score, baselines.",
                    epilog="examples:\n  d3mkit build tabular --dataset wine --out out\n"
                           "  d3mkit validate out/wine\n  d3mkit baseline out/wine\n\n"
                           "'d3mkit COMMAND --help' shows a command's options and examples.")
    parser.add_argument("--version", action="version", version=f"d3mkit {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=lazy_parser(Parser),
                                title="commands")
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


def flag_namer(args):
    """How the command line names a Python parameter of the library (an
    :class:`~d3mkit.core.errors.ArgumentError`'s ``{param}``): the command's own table
    (``set_defaults(_flags={"param": "--flag"})``), then the option of the parser whose
    destination is that parameter (:func:`d3mkit.commands.options.flag_table`), else
    ``--param-with-dashes``; ``{force=True}`` reads ``--force``, ``{device=cuda}``
    ``--device cuda``."""
    from d3mkit.commands.options import flag_table
    table = {**flag_table(getattr(args, "_parser", None)), **(getattr(args, "_flags", None) or {})}

    def name(param: str, value: str | None) -> str:
        flag = table.get(param)
        if flag is None:
            return flag_name(param, value)
        return flag if value in (None, "True") else f"{flag} {value}"
    return name


#: numpy's OpenBLAS threads busy-wait for about 2**28 cycles after they start and after each
#: call (50 ms of a core at ``import numpy``): on a 2-core machine that core is the one
#: d3mkit's own reader and writer threads want. The command line (which owns its process,
#: and runs before numpy is imported) has them sleep at once; a user's own setting wins.
BLAS_SPIN = ("OPENBLAS_THREAD_TIMEOUT", "4")


def main(argv: list[str] | None = None) -> int:
    os.environ.setdefault(*BLAS_SPIN)
    argv = sys.argv[1:] if argv is None else list(argv)
    from d3mkit.commands.options import command_first, format_requested
    from d3mkit.commands.show import Results, safe_streams
    safe_streams()
    rest, moved = command_first(argv)       # d3mkit --format json validate X: the options after
    argv = rest + moved
    parser = build_parser(rest[0] if rest else None)
    if not rest:   # bare d3mkit: the commands, one line each; no command ran, so a usage error
        parser.print_help(sys.stderr)
        if format_requested(argv) == "json":
            Results(json=True).failed([error("usage", "d3mkit", f"a command is required (one of "
                                             f"{', '.join(COMMANDS)}; d3mkit --help lists them)")])
        return EXIT_USAGE
    try:
        args = parser.parse_args(argv)
    except UsageExit as exc:   # --format json: the usage error is the issues document too
        if format_requested(argv) == "json":
            Results(json=True).failed([exc.issue])
        raise
    results = Results(json=getattr(args, "format", None) == "json")   # stdout: one JSON document
    try:
        with recording(), results:          # every file read is an input no output may replace
            return int(args.func(args) or 0)
    except D3MKitError as exc:
        issues = issues_for_cli(exc, flag_namer(args))
        results.failed(issues)
        print_issues(issues)
        return exc.exit_code
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        return 0
    except OSError as exc:  # a path that cannot be read or written: name it, exit 2
        where = "" if exc.filename is None else str(exc.filename)
        target = f" -> {exc.filename2}" if getattr(exc, "filename2", None) else ""
        issue = error("file.os", "", str(exc.strerror or exc), f"{where}{target}")
        results.failed([issue])
        print_issues([issue])
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
