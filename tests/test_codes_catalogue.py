"""One catalogue of issue codes (d3mkit/codes.py): every code literal any d3mkit module
emits — through error(), warning(), make(), D3MKitError.single(), Issue(...) or a code=
keyword — is listed, with the severity it is emitted with; ``d3mkit codes`` lists them."""

import ast
import json
import re
from pathlib import Path

from d3mkit.cli import main
from d3mkit.codes import CODES, severity_of

REPO = Path(__file__).resolve().parents[1]
FAMILIES = {c.split(".")[0] for c in CODES}
CODE_LIKE = re.compile(r"^[a-z][A-Za-z_]*(\.[a-z][a-z_]*)+$")


def emitted():
    """(code, severity or None, where) for every code literal in d3mkit's sources."""
    for f in sorted((REPO / "d3mkit").rglob("*.py")):
        for n in ast.walk(ast.parse(f.read_text(encoding="utf-8"))):
            if not isinstance(n, ast.Call):
                continue
            name = n.func.attr if isinstance(n.func, ast.Attribute) else getattr(n.func, "id", None)

            def arg(i):
                a = n.args[i] if len(n.args) > i else None
                return a.value if isinstance(a, ast.Constant) and isinstance(a.value, str) else None
            where = f"{f.relative_to(REPO)}:{n.lineno}"
            if name in ("error", "warning"):
                code, sev = arg(0), name
            elif name == "make":
                code, sev = arg(0), None
            elif name == "single":
                code, sev = arg(1), "error"
            elif name == "Issue":
                code, sev = arg(1), arg(0)
            else:
                code, sev = None, None
            for k in n.keywords:
                if k.arg == "code" and isinstance(k.value, ast.Constant) and isinstance(k.value.value, str):
                    code, sev = k.value.value, "error"
            if code:
                yield code, sev, where
            # a code a helper passes on (_bad("visudo.count", ...), _parse_numeric(..., code, ...)):
            # any argument spelled like a code of a catalogued family; and the scorer's
            # f"{kind}.suffix" codes, kind being "predictions" or "truth"
            for a in list(n.args) + [k.value for k in n.keywords]:
                if isinstance(a, ast.Constant) and isinstance(a.value, str) and a.value != code \
                        and CODE_LIKE.match(a.value) and a.value.split(".")[0] in FAMILIES:
                    yield a.value, None, where
                if isinstance(a, ast.JoinedStr) and len(a.values) == 2 \
                        and isinstance(a.values[0], ast.FormattedValue) \
                        and getattr(a.values[0].value, "id", None) == "kind" \
                        and isinstance(a.values[1], ast.Constant) and CODE_LIKE.match("x" + a.values[1].value):
                    sev_kind = name if name in ("error", "warning") else None
                    for kind in ("predictions", "truth"):
                        yield kind + a.values[1].value, sev_kind, where


def test_every_emitted_code_is_catalogued_with_its_severity():
    found = list(emitted())
    assert len(found) > 150
    missing = [f"{w}: {c}" for c, _, w in found if c not in CODES and not c.startswith("schema.")]
    assert not missing, "add to d3mkit/codes.py:\n" + "\n".join(missing)
    wrong = [f"{w}: {c} emitted as {s}, catalogued as {severity_of(c)}"
             for c, s, w in found if s in ("error", "warning") and c in CODES and s != CODES[c][0]]
    assert not wrong, "\n".join(wrong)


def test_metric_unknown_has_one_severity():
    """The review's example: metric.unknown was a warning in validation and an error in the
    registry. Now the registry's unknown name is an error; validation's 'not registered
    here' is its own code, a warning."""
    sevs = {s for c, s, _ in emitted() if c == "metric.unknown"}
    assert sevs == {"error"} and CODES["metric.unknown"][0] == "error"
    assert CODES["metric.unregistered"][0] == "warning"


def test_codes_command(capsys):
    assert main(["codes"]) == 0
    out = capsys.readouterr().out
    assert "metric.unknown" in out and "predictions.index_set" in out and "visudo.checksum" in out
    assert main(["codes", "--format", "json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert {r["code"] for r in rows} == set(CODES)
    assert all(r["severity"] in ("error", "warning") and r["description"] for r in rows)
