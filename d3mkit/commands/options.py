"""The one option vocabulary of the ``d3mkit`` command line, and the argparse behaviour every
command shares (installed by :class:`d3mkit.cli.Parser`):

* **Names.** ``--out`` for everything a command writes; ``--n-train/--n-test/--n-valid``
  for counts and ``--test-size`` for a fraction; ``--datasets`` for the search path of
  datasets; ``--device {auto,cpu,cuda}``; ``--format text|json`` for what is printed
  (:func:`add_format`); ``--max-size-mb`` for a size cap of files read.
* **Old spellings** (:data:`DEPRECATED`) stay for one release as hidden aliases: they work,
  are not in ``--help``, and print a one-line deprecation note on stderr. An alias is added
  only to the commands that had the old spelling (``build tabular --dataset wine`` is not
  the score's old ``--dataset``).
* **Help** is plain text: reST markup from docstrings (````x````, ``:func:`x```) is
  shown as ``'x'``; descriptions and example epilogs keep their line breaks.
* **Flags of parameters.** :func:`flag_table` maps a parser's destinations (the Python
  parameters they fill) to the option that sets them, so an
  :class:`~d3mkit.core.errors.ArgumentError` about ``train_count`` is shown as ``--n-train``.
* **Did you mean.** An unknown command or option is matched against the known ones
  (:func:`d3mkit.core.errors.close_match`, the owner validate's metric names use too).
"""

from __future__ import annotations

import argparse
import re
import sys

#: old spelling -> (the spelling of the one vocabulary, the commands that had the old one);
#: kept, hidden, for one release
_COUNTS = ("d3mkit build visudo", "d3mkit reproduce visudo")
DEPRECATED = {
    "--output": ("--out", ("d3mkit score", "d3mkit convert", "d3mkit prism extract", "d3mkit prism query")),
    "-o": ("--out", ("d3mkit convert",)),
    "--dataset": ("--datasets", ("d3mkit score",)),
    "--train-count": ("--n-train", _COUNTS),
    "--test-count": ("--n-test", _COUNTS),
    "--valid-count": ("--n-valid", _COUNTS),
    "--max-mb": ("--max-size-mb", ("d3mkit challenge create",)),
}

_REST = re.compile(r"``([^`]+)``|:[a-z]+:`~?([^`]+)`")


def plain(text: str | None) -> str | None:
    """``text`` without reST markup: ````d3mkit build value```` -> ``'d3mkit build value'``.

    >>> plain("see ``d3mkit build value`` and :func:`d3mkit.api.score`")
    "see 'd3mkit build value' and 'd3mkit.api.score'"
    """
    if not text:
        return text
    return _REST.sub(lambda m: f"'{m.group(1) or m.group(2)}'", text)


class HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Plain-text help: descriptions and epilogs (the examples) as written, option help
    re-wrapped, reST markup removed from both."""

    def _format_text(self, text):
        return super()._format_text(plain(text))

    def _expand_help(self, action):
        return plain(super()._expand_help(action))


class _Deprecated(argparse.Action):
    """A hidden old spelling of ``target``'s option: notes the new name on stderr, then
    does what ``target`` does."""

    def __init__(self, option_strings, dest, target=None, new="", **kw):
        super().__init__(option_strings, dest, **kw)
        self.target, self.new = target, new

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"d3mkit: warning: {option_string} is deprecated and goes in the next release; "
              f"use {self.new}", file=sys.stderr)
        self.target(parser, namespace, values, self.new)


def _long(action) -> str | None:
    return next((o for o in action.option_strings if o.startswith("--")), None)


def add_aliases(parser: argparse.ArgumentParser) -> None:
    """Add the hidden :data:`DEPRECATED` spellings ``parser`` needs (once)."""
    if getattr(parser, "_aliases_added", False):
        return
    parser._aliases_added = True
    known = {o: a for a in parser._actions for o in a.option_strings}
    for old, (new, commands) in DEPRECATED.items():
        target = known.get(new)
        if target is None or old in known or parser.prog not in commands:
            continue
        group = next((g for g in parser._mutually_exclusive_groups if target in g._group_actions), parser)
        group.add_argument(old, action=_Deprecated, target=target, new=new, dest=target.dest,
                           nargs=target.nargs, type=target.type, choices=target.choices,
                           metavar=target.metavar, default=argparse.SUPPRESS, help=argparse.SUPPRESS)


def flag_table(parser: argparse.ArgumentParser | None) -> dict[str, str]:
    """``{dest: "--option"}`` of ``parser``'s options (aliases left out): how the command
    line names the parameter each one fills."""
    if parser is None:
        return {}
    return {a.dest: _long(a) for a in parser._actions
            if _long(a) and not isinstance(a, _Deprecated) and a.dest != argparse.SUPPRESS}


def suggest_option(parser: argparse.ArgumentParser, extras: list[str]) -> str:
    """``"; did you mean --n-train?"`` for the first unknown option with a close match. The
    names are compared without their leading ``--``, which every option shares (with it
    ``--repeat`` would pass for ``--format``), and must be closer than other names (ratio
    0.7: ``--metric`` is not offered ``--strict``, ``--forse`` is offered ``--force``)."""
    from d3mkit.core.errors import close_match
    options = {o[2:]: o for a in parser._actions if not isinstance(a, _Deprecated)
               for o in a.option_strings if o.startswith("--")}
    for extra in extras:
        if extra.startswith("--"):
            match = close_match(extra.split("=", 1)[0][2:], options, cutoff=0.7)
            if match:
                return f"; did you mean {options[match]}?"
    return ""


_INVALID_CHOICE = re.compile(r"invalid choice: '([^']*)' \(choose from (.*)\)$")


def suggest_choice(message: str) -> str:
    """argparse's "invalid choice" message with "did you mean X?" when one choice is close
    (a mistyped command, benchmark or metric format)."""
    m = _INVALID_CHOICE.search(message)
    if not m:
        return message
    from d3mkit.core.errors import close_match
    choices = re.findall(r"'([^']*)'", m.group(2)) or [c.strip() for c in m.group(2).split(",")]
    match = close_match(m.group(1), choices)
    return f"{message}; did you mean {match!r}?" if match else message


FORMATS = ("text", "json")


def add_format(parser: argparse.ArgumentParser, text: str = "lines for people") -> None:
    """``--format text|json``: what a command prints on stdout, ``text`` (the default) or
    one JSON document (:mod:`d3mkit.commands.show`; messages stay on stderr)."""
    parser.add_argument("--format", choices=FORMATS, default="text",
                        help=f"what to print on stdout: {text} (default), or json: one JSON document "
                             f"(errors as {{\"issues\": [...]}}; messages stay on stderr)")


def command_first(argv: list[str]) -> tuple[list[str], list[str]]:
    """``argv`` split into the command and what follows it, and the options written before
    the command (``d3mkit --format json validate X``, ``d3mkit --quiet build ...``), which
    go after it, where the command's parser reads them: every command that prints takes
    ``--format`` (and ``--quiet`` where it prints progress); a command without one refuses
    it by name.

    >>> command_first(["--format", "json", "validate", "x"]), command_first(["--format=json"])
    ((['validate', 'x'], ['--format', 'json']), ([], ['--format=json']))
    """
    moved: list[str] = []
    k = 0
    while k < len(argv):
        arg = str(argv[k])
        if arg == "--format" and k + 1 < len(argv):
            moved += [arg, str(argv[k + 1])]
            k += 2
        elif arg.startswith("--format=") or arg == "--quiet":
            moved.append(arg)
            k += 1
        else:
            break
    return list(argv[k:]), moved


def format_requested(argv) -> str | None:
    """The value of the last ``--format X`` / ``--format=X`` on the command line ``argv``,
    read before (or without) parsing: a usage error in JSON mode is printed as JSON too.

    >>> format_requested(["views", "x", "--format", "json"]), format_requested(["x", "--format=text"])
    ('json', 'text')
    """
    found = None
    argv = [str(a) for a in argv]
    for k, arg in enumerate(argv):
        if arg == "--format" and k + 1 < len(argv):
            found = argv[k + 1]
        elif arg.startswith("--format="):
            found = arg.split("=", 1)[1]
    return found


def must_exist(*paths) -> None:
    """Each given path (None skipped) exists, else the one usage error every command gives
    for a missing path: ``PATH: error [usage.path] path does not exist`` (exit 2)."""
    from d3mkit.core.errors import UsageError
    for p in paths:
        if p is not None and not p.exists() and not p.is_symlink():
            raise UsageError("path does not exist", str(p), code="usage.path")
