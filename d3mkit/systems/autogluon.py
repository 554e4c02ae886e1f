"""The ``autogluon`` system: AutoGluon Tabular in its own virtual environment, on files.

What this module owns: where that environment lives (:func:`venv_dir`: ``$D3MKIT_CACHE_DIR``
or ``~/.cache/d3mkit``, then ``systems/autogluon``), what it pins (:data:`PINS`), making it
(:func:`install`, ``d3mkit systems install autogluon``), whether it is ready, and the command
line that runs :mod:`d3mkit.systems.autogluon_exec` with its interpreter. AutoGluon needs
pandas < 2.4 and pyarrow < 25, so it cannot share d3mkit's environment: the exec script
imports nothing of d3mkit and receives the views as files (docs/systems.md).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

PINS = ("autogluon.tabular[lightgbm]==1.6.3", "pandas>=2.0,<2.4", "pyarrow<25", "numpy<2.6",
        "scikit-learn>=1.4,<1.10")
STAMP = "d3mkit-installed.json"


def venv_dir() -> Path:
    base = os.environ.get("D3MKIT_CACHE_DIR") or str(Path.home() / ".cache" / "d3mkit")
    return Path(base) / "systems" / "autogluon"


def python() -> Path:
    return venv_dir() / "bin" / "python"


def _stamp() -> dict | None:
    try:
        data = json.loads((venv_dir() / STAMP).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def version() -> str | None:
    stamp = _stamp()
    return None if stamp is None else stamp.get("version")


def ready() -> str | None:
    if _stamp() is None or not python().exists():
        return f"its environment is not made: d3mkit systems install autogluon (into {venv_dir()})"
    return None


def install(echo) -> None:
    """Make the virtual environment and pip-install :data:`PINS` into it; a failed step is an
    error naming it (the environment is left for a retry)."""
    from d3mkit.core.errors import D3MKitError, error
    where = venv_dir()
    steps = [([sys.executable, "-m", "venv", str(where)], "create the virtual environment"),
             ([str(where / "bin" / "python"), "-m", "pip", "install", "--disable-pip-version-check", *PINS],
              "pip install " + " ".join(PINS))]
    for argv, what in steps:
        echo(f"autogluon: {what}")
        p = subprocess.run(argv, capture_output=True, text=True)
        if p.returncode != 0:
            tail = (p.stderr or p.stdout).strip().splitlines()[-3:]
            raise D3MKitError(error("systems.install", "", f"autogluon: could not {what}: "
                                    f"{' / '.join(tail) or 'exit ' + str(p.returncode)}", str(where)))
    p = subprocess.run([str(python()), "-c", "import autogluon.tabular as t; print(t.__version__)"],
                       capture_output=True, text=True)
    if p.returncode != 0:
        raise D3MKitError(error("systems.install", "", "autogluon: installed, but 'import autogluon.tabular' "
                                f"fails: {p.stderr.strip().splitlines()[-1:]}", str(where)))
    (where / STAMP).write_text(json.dumps({"version": p.stdout.strip(), "pins": list(PINS)}), encoding="utf-8")


def command(paths: dict, options) -> list[str]:
    script = Path(__file__).with_name("autogluon_exec.py")
    # -I: the script's directory (d3mkit/systems, which holds a module named autogluon) is not on sys.path
    return [str(python()), "-I", str(script), paths["train"], paths["test"], paths["problem"], paths["out"],
            json.dumps(options.to_dict())]
