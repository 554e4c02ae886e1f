"""``d3mkit build abstraction``: one protocol of the paper as a D3M task root.

What this module owns: the build options, turning a :class:`~.protocol.Protocol` into a
task root (PNG per sample, learningData, datasetDoc, problemDoc with accuracy and the
custom metrics, the predetermined TRAIN/TEST dataSplits, ``_debug/samples.csv``,
``_debug/shapes.png`` and the manifest) and the bad-input messages.

Images are 8-bit grayscale PNGs holding pixel value ``v`` (0-10: lines are 9, noise is
clipped to [0, 10] and truncated, as in the paper's notebook) as gray level ``25 * v``;
``round(p / 25)`` recovers ``v`` exactly and ``v / 9`` is what the paper's network sees.
The task root name defaults to ``abstraction_<transform>_k<K>_n<n_train>_noise<L>_s<seed>``.

    d3mkit build abstraction --out DIR --transform rotation --transformed 5 \\
        --n-train 1000 --noise 2 --seed 0
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd

from d3mkit.benchmarks.abstraction import shapes as S
from d3mkit.benchmarks.abstraction.protocol import Protocol, generate
from d3mkit.benchmarks.abstraction.transforms import TRANSFORMS, get

MEDIA = "media"
BOOL_COLUMNS = ("transformed", "identity", "trainedTransformed")


def add_build_arguments(parser) -> None:
    parser.add_argument("--transform", default="rotation", metavar="NAME",
                        help=f"transformation: {', '.join(TRANSFORMS)} (default rotation)")
    parser.add_argument("--transformed", type=int, default=0, metavar="K",
                        help="the first K shapes (0-10) appear transformed in training (default 0)")
    parser.add_argument("--n-train", type=int, default=1000, help="training images (default 1000)")
    parser.add_argument("--n-test", type=int, default=None,
                        help="test images, all transformed (default: as many as --n-train, "
                             "as the paper)")
    parser.add_argument("--noise", type=float, default=0.0, metavar="L",
                        help="Gaussian noise standard deviation, lines being 9 (default 0)")
    parser.add_argument("--test-noise", type=float, default=None, metavar="L",
                        help="noise of the test set when it differs from --noise (Table 1)")
    parser.add_argument("--train-transformed-only", action="store_true",
                        help="transformed training images never show an identity outcome "
                             "(not in the paper)")
    parser.add_argument("--name", default=None, help="task root name (default from the options)")
    from d3mkit.io.executor import add_executor_arguments
    add_executor_arguments(parser, "image files (same bytes whatever the count)")


def protocol_from_args(args) -> Protocol:
    return Protocol(transform=args.transform, transformed=args.transformed,
                    n_train=args.n_train, n_test=args.n_test, noise=args.noise,
                    train_transformed_only=args.train_transformed_only,
                    test_noise=args.test_noise)


def default_name(p: Protocol, seed: int) -> str:
    """``abstraction_rotation_k5_n1000_noise2_s0`` (test noise and flags appended).

    >>> default_name(Protocol("translation", 2, 250, noise=2.5), 3)
    'abstraction_translation_k2_n250_noise2p5_s3'
    """
    lvl = lambda x: f"{x:g}".replace(".", "p").replace("-", "m")
    name = f"abstraction_{p.transform}_k{p.transformed}_n{p.n_train}_noise{lvl(p.noise)}"
    if p.test_noise is not None:
        name += f"_testnoise{lvl(p.test_noise)}"
    if p.train_transformed_only:
        name += "_only"
    return f"{name}_s{seed}"


def metric_list(p: Protocol) -> list[dict]:
    """accuracy plus the custom metrics that are defined for this protocol.

    expectedAccuracyWithoutAbstraction needs a transformation; chanceCorrectedAccuracy
    needs something left to correct (K < 10); heldOutShapeAccuracy needs a held-out
    shape (K < 10).
    """
    out = [{"metric": "accuracy"}]
    if p.transform != "none":
        out.append({"metric": "other", "specifyOther": "expectedAccuracyWithoutAbstraction"})
        if p.transformed < S.N_SHAPES:
            out.append({"metric": "other", "specifyOther": "chanceCorrectedAccuracy"})
    if p.transformed < S.N_SHAPES:
        out.append({"metric": "other", "specifyOther": "heldOutShapeAccuracy"})
    return out


PNG_STEP = 25            # gray level of pixel value v is 25 * v (0..250)


def encode_png(img: np.ndarray) -> np.ndarray:
    """0-10 pixel values -> 8-bit gray levels (0, 25, ..., 250).

    >>> encode_png(np.array([0, 9, 10])).tolist()
    [0, 225, 250]
    """
    return (img.astype(np.uint16) * PNG_STEP).astype(np.uint8)


def decode_png(pix: np.ndarray) -> np.ndarray:
    """8-bit gray levels -> 0-10 pixel values (exact inverse of :func:`encode_png`; any
    other level goes to the nearest value).

    >>> decode_png(np.array([0, 225, 250, 255])).tolist()
    [0, 9, 10, 10]
    """
    return np.minimum(np.rint(pix.astype(np.float64) / PNG_STEP), S.CLIP).astype(np.uint8)


def samples_table(meta: pd.DataFrame) -> pd.DataFrame:
    """The metadata as written to ``samples.csv`` (booleans as true/false)."""
    out = meta.copy()
    for c in BOOL_COLUMNS:
        out[c] = np.where(out[c].to_numpy(dtype=bool), "true", "false")
    return out


def documents(name: str, p: Protocol, seed: int, n_rows: int):
    from d3mkit.documents import Column, DatasetDoc, ProblemDoc, Resource, Target
    t = get(p.transform)
    cols = [Column(0, "d3mIndex", "integer", ("index",)),
            Column(1, "image", "string", ("attribute",), {"resID": MEDIA, "resObject": "item"}),
            Column(2, "shape", "categorical", ("suggestedTarget",))]
    ddoc = DatasetDoc.new(
        f"{name}_dataset", name,
        [Resource.collection(MEDIA, f"{MEDIA}/", "image", ["image/png"]),
         Resource.table("learningData", "tables/learningData.csv", cols)],
        description=(f"Abstraction shapes: 28x28 images of ten line shapes (labels 0-9); "
                     f"transformation {p.transform} ({t.n_outcomes} outcome(s)), the first "
                     f"{p.transformed} shapes transformed in training, all test images "
                     f"transformed; noise {p.noise:g} (test {p.noise_test:g}). Pixel value v "
                     f"(0-10, lines 9) is stored as gray level 25*v."),
        source="d3mkit abstraction benchmark after Hudáky, Lehotay-Kéry and Kiss, "
               "J. Imaging 2021, 7(8), 152")
    desc = (f"Classify the shape (0-9) of each image. Training: {p.n_train} images, shapes "
            f"0..{p.transformed - 1 if p.transformed else -1} transformed by {p.transform}, the "
            f"others untransformed; test: {p.n_test} images, all transformed. The custom "
            f"metrics (expectedAccuracyWithoutAbstraction, chanceCorrectedAccuracy, "
            f"heldOutShapeAccuracy) need per-row metadata: the scorer reads "
            f"{name}_debug/samples.csv in this task root (columns d3mIndex, split, shape, "
            f"transformed, transform, outcome, noise, identity, untransformedChance, "
            f"trainedTransformed) and aligns its rows with the predictions by d3mIndex; "
            f"with `d3mkit score --problem` it is found next to the problem directory.")
    splits = {"method": "holdOut", "testSize": p.n_test / n_rows, "stratified": False,
              "numRepeats": 0, "randomSeed": seed}
    pdoc = ProblemDoc.new(f"{name}_problem", name, "classification", "multiClass",
                          f"{name}_dataset", [Target(0, "learningData", 2, "shape")],
                          metric_list(p), description=desc, splits=splits)
    return ddoc, pdoc


def _write_png(job) -> None:
    """One image file (a module-level function: it runs on executor workers)."""
    from PIL import Image
    path, pixels = job
    Image.fromarray(pixels, mode="L").save(path, format="PNG")


def build_task_root(out: Path, p: Protocol, *, seed: int = 0, name: str | None = None,
                    force: bool = False, quiet: bool = True, executor=None) -> Path:
    """Write ``out/<name>/`` for protocol ``p`` and return its path. The PNG files are
    written on ``executor`` (:mod:`d3mkit.io.executor`; default this process): the images
    are drawn first, in order, so the bytes do not depend on it."""
    from d3mkit.io.executor import Executor
    from d3mkit.taskroot.writer import TaskRootWriter

    problem = p.problem()
    if problem is not None:
        raise problem
    name = name or default_name(p, seed)
    images, meta = generate(p, np.random.default_rng(seed))
    n = len(meta)
    files = [f"{i:06d}.png" for i in range(n)]
    ld = pd.DataFrame({"d3mIndex": meta["d3mIndex"], "image": files,
                       "shape": meta["shape"].astype(str)})
    splits = pd.DataFrame({"d3mIndex": meta["d3mIndex"], "type": meta["split"],
                           "repeat": 0, "fold": 0})
    ddoc, pdoc = documents(name, p, seed, n)
    t = get(p.transform)
    params = {**p.as_dict(), "nOutcomes": t.n_outcomes,
              "identityOutcomes": list(t.identity_names),
              "untransformedChance": t.untransformed_chance, "image": S.IMAGE,
              "pixelEncoding": "png gray = 25 * v, v in 0..10 (lines 9)",
              "shapesLines": [S.lines_of(i) for i in range(S.N_SHAPES)]}
    pix = encode_png(images)
    with TaskRootWriter(out, name, benchmark="abstraction", seed=seed, parameters=params,
                        force=force) as w:
        media = w.media_path(f"{MEDIA}/{files[0]}").parent
        (executor or Executor()).map(_write_png, [(str(media / files[i]), pix[i]) for i in range(n)],
                                     chunksize=256, progress=not quiet, desc=f"{name}: images",
                                     unit="img")
        w.write_table("tables/learningData.csv", ld)
        w.write_dataset_doc(ddoc)
        w.write_problem_doc(pdoc, splits)
        w.write_debug_table("samples.csv", samples_table(meta))
        S.contact_sheet(w.debug_dir / "shapes.png")
    return w.root


def build(args) -> list[Path]:
    import sys
    p = protocol_from_args(args)
    from d3mkit.io.executor import from_args
    quiet = args.quiet or not sys.stderr.isatty()
    with from_args(args) as ex:   # --workers N | --scheduler ADDRESS
        return [build_task_root(args.out, p, seed=args.seed, name=args.name, force=args.force,
                                quiet=quiet, executor=ex)]


def load_images(task, indices=None) -> tuple[np.ndarray, pd.DataFrame]:
    """Images (0-10 values, ``(n, 28, 28)`` uint8) and learningData rows of a task root,
    for ``indices`` (d3mIndex strings) or all rows."""
    from d3mkit.io.images import read_image
    from d3mkit.core.errors import D3MKitError, error
    ld = task.learning_data().set_index("d3mIndex", drop=False)
    if indices is not None:
        ld = ld.loc[list(indices)]
    if not task.dataset.media_columns():   # learningData's image column, as the datasetDoc says
        from d3mkit.core.errors import UsageError
        raise UsageError("not an abstraction task root: learningData has no image column (one whose "
                         "refersTo names an item of a collection)", str(task.root))
    paths = task.media_paths(rows=ld)
    out = np.empty((len(ld), S.IMAGE, S.IMAGE), dtype=np.uint8)
    for j, path in enumerate(paths):
        f = path.name
        arr = np.asarray(read_image(path, "L", location=f"image {f}"))
        if arr.shape != (S.IMAGE, S.IMAGE):
            raise D3MKitError(error("abstraction.image", f"image {f}",
                                    f"is {arr.shape[1]}x{arr.shape[0]}, expected 28x28", str(path)))
        out[j] = decode_png(arr)
    return out, ld.reset_index(drop=True)
