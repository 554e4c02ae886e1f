"""A system's own virtual environment: the systems whose dependency pins clash with d3mkit's
(``autogluon``: pandas < 2.4; ``tpot``: the ``xgboost`` distribution >= 3, which d3mkit's
``flaml`` extra provides as ``xgboost-cpu`` < 3) run with an interpreter of their own.

What this module owns: :class:`Venv` — where a system's environment lives
(``$D3MKIT_CACHE_DIR`` or ``~/.cache/d3mkit``, then ``systems/NAME``), making it with the
system's pins (``d3mkit systems install NAME``: ``python -m venv``, then one ``pip
install``), the stamp that says it is made (``d3mkit-installed.json``: the probed version and
the pins), whether it is ready, and the command line that runs one of the scripts of
:mod:`d3mkit.systems.venv_exec` with its interpreter on the sandbox paths. Re-running
``install`` repairs or upgrades the environment in place.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

STAMP = "d3mkit-installed.json"
EXEC_DIR = Path(__file__).with_name("venv_exec")


def cache_dir() -> Path:
    return Path(os.environ.get("D3MKIT_CACHE_DIR") or str(Path.home() / ".cache" / "d3mkit"))


@dataclass(frozen=True)
class Venv:
    """The environment of system ``name``: ``pins`` pip-installed, ``probe`` (a module with a
    ``__version__``) imported to check it, ``script`` (in :data:`EXEC_DIR`) run per fold."""
    name: str
    pins: tuple[str, ...]
    probe: str
    script: str

    def dir(self) -> Path:
        return cache_dir() / "systems" / self.name

    def python(self) -> Path:
        return self.dir() / "bin" / "python"

    def stamp(self) -> dict | None:
        try:
            data = json.loads((self.dir() / STAMP).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def version(self) -> str | None:
        stamp = self.stamp()
        return None if stamp is None else stamp.get("version")

    def ready(self) -> str | None:
        if self.stamp() is None or not self.python().exists():
            return f"its environment is not made: d3mkit systems install {self.name} (into {self.dir()})"
        return None

    def install(self, echo) -> None:
        """Make the environment and pip-install the pins into it; a failed step is an error
        naming it (the environment is left for a retry)."""
        from d3mkit.core.errors import D3MKitError, error
        where = self.dir()
        steps = [([sys.executable, "-m", "venv", str(where)], "create the virtual environment"),
                 ([str(self.python()), "-m", "pip", "install", "--disable-pip-version-check", *self.pins],
                  "pip install " + " ".join(self.pins))]
        for argv, what in steps:
            echo(f"{self.name}: {what}")
            p = subprocess.run(argv, capture_output=True, text=True)
            if p.returncode != 0:
                tail = (p.stderr or p.stdout).strip().splitlines()[-3:]
                raise D3MKitError(error("systems.install", "", f"{self.name}: could not {what}: "
                                        f"{' / '.join(tail) or 'exit ' + str(p.returncode)}", str(where)))
        p = subprocess.run([str(self.python()), "-c", f"import {self.probe} as m; print(m.__version__)"],
                           capture_output=True, text=True)
        if p.returncode != 0:
            raise D3MKitError(error("systems.install", "", f"{self.name}: installed, but 'import {self.probe}' "
                                    f"fails: {p.stderr.strip().splitlines()[-1:]}", str(where)))
        (where / STAMP).write_text(json.dumps({"version": p.stdout.strip(), "pins": list(self.pins)}),
                                   encoding="utf-8")

    def command(self, paths: dict, options) -> list[str]:
        """``VENV/bin/python -I SCRIPT TRAIN TEST PROBLEM OUT OPTIONS_JSON``. ``-I``: neither
        the caller's environment variables nor the script's directory shape ``sys.path``."""
        return [str(self.python()), "-I", str(EXEC_DIR / self.script), paths["train"], paths["test"],
                paths["problem"], paths["out"], json.dumps(options.to_dict())]
