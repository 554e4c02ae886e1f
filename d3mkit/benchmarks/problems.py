"""Regenerate problems/, the small example task roots d3mkit ships (``d3mkit reproduce problems``).

For every benchmark of d3mkit's own whose record (:mod:`d3mkit.benchmarks.plugins`) has an
``example`` this runs, in process, ``d3mkit build NAME --out problems --seed 0 --force
--quiet EXAMPLE``. A benchmark joins problems/ by giving its record an ``example``.

    d3mkit reproduce problems            # rewrite problems/
    d3mkit reproduce problems --check    # rebuild into a temporary directory, compare byte for byte

``--check`` prints each differing, missing or extra file and exits 1 when any differs.
``--problems DIR`` names the directory (default: ``problems/`` of the source checkout
d3mkit runs from, else ``./problems``).
"""

from __future__ import annotations

import tempfile
from pathlib import Path


def default_problems_dir() -> Path:
    """``problems/`` of the source checkout (an editable install), else ``./problems``."""
    checkout = Path(__file__).resolve().parents[2] / "problems"
    return checkout if checkout.is_dir() else Path("problems")


def examples() -> list[tuple[str, list[str]]]:
    """(benchmark name, build arguments) for every benchmark of d3mkit's own with an example
    (a third party's example does not belong in d3mkit's problems/)."""
    from d3mkit.benchmarks.plugins import benchmarks
    return [(b.name, list(b.example)) for b in benchmarks().values()
            if b.example is not None and b.build is not None and b.source == "d3mkit"]


def regenerate(out: Path, only: list[str] | None = None) -> list[str]:
    """Build every example into ``out`` (as ``d3mkit build NAME --out OUT --seed 0 --force
    --quiet EXAMPLE`` would); return the task root paths written."""
    import argparse

    from d3mkit.benchmarks import add_build_arguments
    from d3mkit.benchmarks.plugins import get
    written: list[str] = []
    for name, extra in examples():
        if only and name not in only:
            continue
        bench = get(name)
        parser = argparse.ArgumentParser(prog=f"d3mkit build {name}")
        add_build_arguments(parser)
        if bench.build_options is not None:
            bench.build_options(parser)
        args = parser.parse_args(["--out", str(out), "--seed", "0", "--force", "--quiet", *extra])
        written += [str(p) for p in bench.build(args)]
    return written


def _files(root: Path) -> dict[str, Path]:
    return {p.relative_to(root).as_posix(): p for p in sorted(root.rglob("*"))
            if p.is_file() and not any(part.startswith(".") for part in p.relative_to(root).parts)}


def checks(expected: Path, actual: Path) -> list:
    """One :class:`~d3mkit.benchmarks.reproduction.Check` per file of either tree, in the
    order of their relative paths: passed when both have it byte for byte, else ``detail``
    ``differs``, ``missing`` (in expected only) or ``extra`` (in actual only)."""
    from d3mkit.benchmarks.reproduction import Check
    a, b = _files(expected), _files(actual)
    out = []
    for k in sorted(a.keys() | b.keys()):
        detail = ("extra" if k not in a else "missing" if k not in b
                  else "" if a[k].read_bytes() == b[k].read_bytes() else "differs")
        out.append(Check(k, not detail, detail))
    return out


def compare(expected: Path, actual: Path) -> list[str]:
    """Differences between two trees: ``differs: F``, ``missing: F`` (in expected only),
    ``extra: F`` (in actual only)."""
    return [f"{c.detail}: {c.what}" for c in checks(expected, actual) if not c.passed]


def add_arguments(parser) -> None:
    parser.add_argument("--check", action="store_true", help="compare a fresh build with problems/")
    parser.add_argument("--problems", type=Path, default=None,
                        help="the problems directory (default: the checkout's problems/)")


def run(args):
    """Regenerate (the task roots written) or ``--check`` (every file compared; exit 1 when
    one differs): a :class:`~d3mkit.benchmarks.reproduction.Reproduction`."""
    from d3mkit.benchmarks.reproduction import Reproduction
    problems = args.problems if args.problems is not None else default_problems_dir()
    if not args.check:
        roots = regenerate(problems)
        for root in roots:
            print(root)
        return Reproduction(written=[Path(r) for r in roots])
    with tempfile.TemporaryDirectory(prefix="d3mkit-problems-") as tmp:
        regenerate(Path(tmp))
        found = checks(problems, Path(tmp))
    diffs = [c for c in found if not c.passed]
    for c in diffs:
        print(f"{c.detail}: {c.what}")
    print(f"{problems} is up to date" if not diffs else
          f"{len(diffs)} file(s) differ: run 'd3mkit reproduce problems'")
    return Reproduction(checks=found, exit_code=1 if diffs else 0)
