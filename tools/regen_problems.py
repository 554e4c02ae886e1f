#!/usr/bin/env python
"""Regenerate problems/, the small example task roots d3mkit ships.

For every builder in ``d3mkit.benchmarks.BUILDERS`` whose module defines ``EXAMPLE_ARGS``
this runs, in process, ``d3mkit build NAME --out problems --seed 0 --force --quiet
EXAMPLE_ARGS``. A benchmark joins problems/ by defining ``EXAMPLE_ARGS``.

    python tools/regen_problems.py            # rewrite problems/
    python tools/regen_problems.py --check    # rebuild into a temp dir, compare byte for byte

``--check`` prints each differing, missing or extra file and exits 1 when any differs.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
PROBLEMS = REPO / "problems"


def examples() -> list[tuple[str, list[str]]]:
    """(builder name, EXAMPLE_ARGS) for every builder that defines an example."""
    from d3mkit.benchmarks import BUILDERS, optional_module
    out = []
    for name, path in BUILDERS.items():
        mod = optional_module(path)
        if mod is not None and getattr(mod, "EXAMPLE_ARGS", None) is not None:
            out.append((name, list(mod.EXAMPLE_ARGS)))
    return out


def regenerate(out: Path, only: list[str] | None = None) -> list[str]:
    """Build every example into ``out``; return the task root paths printed by build."""
    import contextlib
    import io

    from d3mkit.cli import main
    written: list[str] = []
    for name, extra in examples():
        if only and name not in only:
            continue
        buf = io.StringIO()
        with contextlib.redirect_stdout(buf):
            rc = main(["build", name, "--out", str(out), "--seed", "0", "--force", "--quiet", *extra])
        if rc != 0:
            raise SystemExit(f"d3mkit build {name} failed with exit code {rc}")
        written += [line for line in buf.getvalue().splitlines() if line.strip()]
    return written


def _files(root: Path) -> dict[str, Path]:
    return {p.relative_to(root).as_posix(): p for p in sorted(root.rglob("*"))
            if p.is_file() and not any(part.startswith(".") for part in p.relative_to(root).parts)}


def compare(expected: Path, actual: Path) -> list[str]:
    """Differences between two trees: ``differs: F``, ``missing: F`` (in expected only),
    ``extra: F`` (in actual only)."""
    a, b = _files(expected), _files(actual)
    out = [f"missing: {k}" for k in a if k not in b]
    out += [f"extra: {k}" for k in b if k not in a]
    out += [f"differs: {k}" for k in a if k in b and a[k].read_bytes() != b[k].read_bytes()]
    return sorted(out, key=lambda s: s.split(": ", 1)[1])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="compare a fresh build with problems/")
    ap.add_argument("--problems", type=Path, default=PROBLEMS, help="the problems directory")
    args = ap.parse_args(argv)
    if not args.check:
        for root in regenerate(args.problems):
            print(root)
        return 0
    with tempfile.TemporaryDirectory(prefix="d3mkit-problems-") as tmp:
        regenerate(Path(tmp))
        diffs = compare(args.problems, Path(tmp))
    for d in diffs:
        print(d)
    print("problems/ is up to date" if not diffs else f"{len(diffs)} file(s) differ: run tools/regen_problems.py")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    sys.exit(main())
