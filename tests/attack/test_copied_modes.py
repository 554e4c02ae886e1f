"""Files copied into a task root, a view or a converted tree get the umask's mode, never
their source's (issue 10, class 4): a 0o777, setuid, setgid or sticky source must not carry
its bits over (d3mkit.io.atomic.copy_file is the one copier). Run through ``build prism``
(premise images copied byte for byte), ``views`` and ``convert --out`` of the built root,
under two umasks."""

from __future__ import annotations

import json
import os
import stat

import pytest

from _attack_util import run

HOSTILE = [0o777, 0o4755, 0o2775, 0o6777, 0o1777, 0o4711, 0o600, 0o444]


@pytest.fixture()
def umask_of(request):
    old = os.umask(request.param)
    yield request.param
    os.umask(old)


def _modes(root):
    return {p.relative_to(root).as_posix(): stat.S_IMODE(os.lstat(p).st_mode)
            for p in root.rglob("*") if not p.is_symlink()}


@pytest.mark.slow
@pytest.mark.parametrize("umask_of", [0o022, 0o077], indirect=True)
def test_copied_media_get_the_umask_mode(tmp_path, capsys, umask_of):
    from PIL import Image
    img = tmp_path / "imgs"
    img.mkdir()
    recs = []
    for i, mode in enumerate(HOSTILE):
        p = img / f"p{i}.png"
        Image.new("RGB", (8, 8), (i * 30, 0, 0)).save(p)
        os.chmod(p, mode)
        recs.append({"hypothesis": f"a cup holds water {i}", "image": p.name,
                     "label": "allow" if i % 2 else "prevent"})
    m = tmp_path / "m.jsonl"
    m.write_text("".join(json.dumps(r) + "\n" for r in recs))
    code, _, err = run(["build", "prism", "--manifest", m, "--images", img, "--out", tmp_path / "o",
                        "--quiet"], capsys)
    assert code == 0, err
    root = tmp_path / "o" / "prism_pvli"
    fmode, dmode = 0o666 & ~umask_of, 0o777 & ~umask_of
    media = sorted((root / "prism_pvli_dataset" / "media").iterdir())
    assert len(media) == len(HOSTILE)
    code, _, err = run(["views", root, "--out", tmp_path / "v"], capsys)
    assert code == 0, err
    code, _, err = run(["convert", root, "--to", "3.1.2", "--out", tmp_path / "c"], capsys)
    assert code == 0, err
    for made in (root, tmp_path / "v", tmp_path / "c"):
        modes = _modes(made)
        wrong = {k: oct(v) for k, v in modes.items()
                 if v != (dmode if (made / k).is_dir() else fmode)}
        assert not wrong, (made, wrong)
        assert any(k.endswith(".png") for k in modes), made


def test_copy_file_refuses_what_is_not_a_regular_file(tmp_path):
    from d3mkit.io.atomic import copy_file
    from d3mkit.core.errors import D3MKitError
    os.mkfifo(tmp_path / "fifo")
    for src, code in ((tmp_path / "fifo", "file.not_regular"), ("/dev/zero", "file.not_regular"),
                      (tmp_path, "file.is_directory"), (tmp_path / "none", "file.missing")):
        with pytest.raises(D3MKitError) as exc:
            copy_file(src, tmp_path / "dst")
        assert exc.value.issues[0].code == code
    (tmp_path / "real").write_text("r")
    (tmp_path / "dst").symlink_to(tmp_path / "real")
    (tmp_path / "src").write_text("s")
    with pytest.raises(OSError):                      # never written through a symlink
        copy_file(tmp_path / "src", tmp_path / "dst")
    assert (tmp_path / "real").read_text() == "r"


# --- other readers found without the regular-file check (issue 10's sweep) ------------------
@pytest.mark.parametrize("kind", ["fifo", "dev_zero"])
def test_split_and_prism_extract_refuse_nonregular_files(tmp_path, capsys, kind):
    from _attack_util import class_task, problem_doc, refused
    root = class_task(tmp_path)
    sp = problem_doc(root).parent / "dataSplits.csv"
    sp.unlink()

    def make(p):
        if kind == "fifo":
            os.mkfifo(p)
        else:
            try:
                os.mknod(p, stat.S_IFCHR | 0o644, os.stat("/dev/zero").st_rdev)
            except OSError:
                pytest.skip("cannot make a device node here")
    make(sp)
    refused(["split", root], capsys, "file.not_regular", path=sp)
    cap = tmp_path / "captions.txt"
    make(cap)
    refused(["prism", "extract", "--captions", cap, "--out", tmp_path / "out.jsonl"], capsys, "file.not_regular", path=cap)


def test_evaluate_digest_reads_nothing_outside_the_dataset(tmp_path, monkeypatch):
    """evaluate keys its cache on a digest of the files scoring reads; a table symlinked out
    of the dataset is named in the digest but its bytes are never read (the path policy)."""
    from _attack_util import class_task, dataset_doc, problem_doc
    from d3mkit.documents import ProblemDoc
    from d3mkit.evaluate import discover
    root = class_task(tmp_path)
    secret = tmp_path / "secret.csv"
    secret.write_text("d3mIndex,y\n0,leak\n")
    (dataset_doc(root).parent / "tables" / "extra.csv").symlink_to(secret)
    read: list[str] = []
    real = discover.file_digest
    monkeypatch.setattr(discover, "file_digest", lambda p, h=None: read.append(str(p)) or real(p, h))
    pdoc = problem_doc(root)
    discover._problem_digest(pdoc, ProblemDoc.load(pdoc), dataset_doc(root))
    assert read and not any("secret" in p or p.endswith("extra.csv") for p in read), read
