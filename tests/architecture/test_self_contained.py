"""The repository is self-contained: no file names a path of one machine or a file outside
the repository (design notes live in docs/, reference data in tests/data/)."""

import pytest
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SCANNED = ["README.md", "pyproject.toml", "d3mkit", "tests", "tools", "docs", "datasets"]
SKIP_DIRS = {"__pycache__", ".hypothesis", ".pytest_cache"}
TEXT = {".py", ".md", ".toml", ".json", ".txt", ".csv", ".jsonl", ".pgn", ".cfg", ".yml", ".yaml"}
# written in pieces so that this file does not match itself
FORBIDDEN = re.compile("|".join([
    r"/" + r"work/", r"/" + r"root/", r"/" + r"home/\w", r"venv-" + r"d3m", r"\.py" + r"env",
    r"DESIGN" + r"\.md", r"\.\./" + r"shared", r"/" + r"tmp/",
]))


def _files():
    for name in SCANNED:
        p = REPO / name
        if p.is_file():
            yield p
            continue
        for f in p.rglob("*"):
            if f.is_file() and f.suffix in TEXT and not SKIP_DIRS & set(f.relative_to(REPO).parts):
                yield f


@pytest.mark.slow
def test_no_machine_paths_or_outside_files():
    hits = []
    for f in _files():
        try:
            text = f.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        for n, line in enumerate(text.splitlines(), 1):
            m = FORBIDDEN.search(line)
            if m:
                hits.append(f"{f.relative_to(REPO)}:{n}: {m.group(0)!r} in {line.strip()[:100]}")
    assert not hits, "\n".join(hits)


def test_relative_links_of_readme_and_docs_exist():
    pages = [REPO / "README.md", *sorted((REPO / "docs").rglob("*.md"))]
    missing = []
    for page in pages:
        for link in re.findall(r"\]\(([^)#]+)\)", page.read_text()):
            if "://" not in link and not (page.parent / link).exists():
                missing.append(f"{page.relative_to(REPO)} -> {link}")
    assert len(pages) > 10 and not missing, missing
