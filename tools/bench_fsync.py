"""What flushing to the disk costs d3mkit's crash-safe writes (issue 10, class 4).

d3mkit.io.atomic fsyncs every file it writes before renaming it into place, syncs a staged
task root or views tree (one ``syncfs``) before swapping it in, and fsyncs the parent
directory after. This prints, for ``build tabular``, ``build abstraction`` (N PNG files)
and ``views`` of each with ``--force`` (the replace path), the best of R wall times with
the flushes (the default) and without (``D3MKIT_FSYNC=0``, the peer), and the ratio. The
file system the runs write to is named: on tmpfs an fsync is nearly free, on a disk it
is not; give ``--dir`` on the disk you care about.

    python tools/bench_fsync.py [--dir DIR] [--images N] [--repeat R]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from d3mkit.cli import main  # noqa: E402
from tools._bench_data import best_of  # noqa: E402


def fs_type(path: Path) -> str:
    """The mount's file system type (longest mount point above ``path``), from /proc/mounts."""
    best, kind = "", "unknown"
    real = os.path.realpath(path)
    try:
        with open("/proc/mounts", encoding="utf-8") as fh:
            for line in fh:
                parts = line.split()
                if len(parts) > 2 and (real == parts[1] or real.startswith(parts[1].rstrip("/") + "/")) \
                        and len(parts[1]) >= len(best):
                    best, kind = parts[1], parts[2]
    except OSError:
        pass
    return kind


def _run(argv: list[str]) -> None:
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        code = main(argv)
    if code != 0:
        raise SystemExit(f"d3mkit {' '.join(argv)} exited {code}")


def main_(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dir", type=Path, default=None, help="where to write (default: the system temp dir)")
    ap.add_argument("--images", type=int, default=1000, help="abstraction images (train + test)")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
    base = Path(tempfile.mkdtemp(prefix="bench_fsync_", dir=args.dir))
    try:
        n_train = max(22, args.images // 2)
        cases = {
            "build tabular (wine)": ["build", "tabular", "--out", str(base / "tab"), "--quiet", "--force"],
            f"build abstraction ({2 * n_train} PNG)": [
                "build", "abstraction", "--out", str(base / "abs"), "--quiet", "--force",
                "--n-train", str(n_train), "--n-test", str(n_train), "--name", "abs", "--workers", "1"],
        }
        _run(cases["build tabular (wine)"])
        _run(cases[f"build abstraction ({2 * n_train} PNG)"])
        cases["views tabular"] = ["views", str(base / "tab" / "wine"), "--out", str(base / "vt"), "--force"]
        cases["views abstraction"] = ["views", str(base / "abs" / "abs"), "--out", str(base / "va"), "--force"]
        print(f"file system: {fs_type(base)} ({base}); best of {args.repeat}; "
              f"peer: the same command with D3MKIT_FSYNC=0")
        print(f"| command | fsync on (s) | D3MKIT_FSYNC=0 (s) | ratio |")
        print("|---|---:|---:|---:|")
        for name, cmd in cases.items():
            os.environ["D3MKIT_FSYNC"] = "0"
            off = best_of(lambda: _run(cmd), args.repeat)
            os.environ.pop("D3MKIT_FSYNC")
            on = best_of(lambda: _run(cmd), args.repeat)
            print(f"| {name} | {on:.3f} | {off:.3f} | {on / off:.2f} |")
    finally:
        os.environ.pop("D3MKIT_FSYNC", None)
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main_()
