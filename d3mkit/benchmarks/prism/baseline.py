"""PRISM reference baselines: ``zero-rate``, ``random``, ``text`` and ``fusion``.

What this module owns: training on TRAIN and predicting TEST (repeat 0, fold 0) of a
PVLI or PVLr task root, then writing and scoring ``predictions.csv`` through the scorer.

* ``zero-rate`` — the majority training label (the paper's zero-rate classifier);
* ``random`` — labels drawn from the training label distribution with the seed (the
  paper's "Random" row of Table 1 is a random guess; its exact form is not given);
* ``text`` — TF-IDF (word 1–2-grams) + logistic regression on the hypothesis only
  (scikit-learn); it cannot see the premise image;
* ``fusion`` — a small torch model: a 3-layer CNN on the 64x64 premise image and a linear
  projection of the hypothesis TF-IDF vector, concatenated into a 2-way classifier
  (Adam, cross-entropy; CUDA when present; ``--epochs``, default 30).

PVLr rationales: ``text`` and ``fusion`` retrieve the rationale of the nearest training
hypothesis (TF-IDF cosine); ``zero-rate`` predicts the most frequent training rationale
and ``random`` a random training rationale.

Torch is imported only inside the fusion baseline.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

import numpy as np
import pandas as pd

from d3mkit.benchmarks.config import BaselineConfig, check_choice

MODELS = ("zero-rate", "random", "text", "fusion")
IMAGE_SIZE = 64


def _data(task):
    ld = task.learning_data().set_index("d3mIndex")
    train, test = task.split_indices(0, 0)
    targets = task.problem.target_names
    missing = [c for c in ("hypothesis", "label") if c not in ld.columns]
    if missing or "label" not in targets:
        from d3mkit.core.errors import UsageError
        raise UsageError(f"not a PRISM task root: learningData needs hypothesis and label columns "
                         f"with label a target (missing: {', '.join(missing) or 'label as target'})",
                         str(task.root))
    return ld, np.asarray(train), np.asarray(test), targets


def _majority(values) -> str:
    counts = Counter(values)
    best = max(counts.values())
    return sorted(v for v, c in counts.items() if c == best)[0]


def _tfidf(train_text, *texts, max_features: int | None = None):
    from sklearn.feature_extraction.text import TfidfVectorizer
    vec = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, min_df=1, max_features=max_features)
    xtr = vec.fit_transform(train_text)
    return (xtr, *[vec.transform(t) for t in texts])


def retrieve_rationales(train_hyp, train_rat, test_hyp) -> list[str]:
    """The rationale of the nearest training hypothesis (TF-IDF cosine; ties: first).

    >>> retrieve_rationales(["a glass holds water", "cats are pets"], ["it is whole", "it has a collar"],
    ...                     ["my cats are pets"])
    ['it has a collar']
    """
    xtr, xte = _tfidf(list(train_hyp), list(test_hyp))
    sims = (xte @ xtr.T).toarray()
    return [str(train_rat[i]) for i in sims.argmax(axis=1)]


def predict_labels(model: str, ld: pd.DataFrame, train, test, args, task=None, echo=None) -> np.ndarray:
    y = ld.loc[train, "label"].astype(str).to_numpy()
    if model == "zero-rate":
        return np.full(len(test), _majority(y), dtype=object)
    if model == "random":
        rng = np.random.default_rng(getattr(args, "seed", 0))
        classes, counts = np.unique(y, return_counts=True)
        return rng.choice(classes, size=len(test), p=counts / counts.sum()).astype(object)
    if model == "text":
        if len(set(y)) < 2:
            return np.full(len(test), y[0], dtype=object)
        from sklearn.linear_model import LogisticRegression
        xtr, xte = _tfidf(ld.loc[train, "hypothesis"].astype(str), ld.loc[test, "hypothesis"].astype(str))
        clf = LogisticRegression(max_iter=2000, C=10.0)
        clf.fit(xtr, y)
        return clf.predict(xte).astype(object)
    if model == "fusion":
        return _fusion(ld, train, test, args, task, echo)
    raise ValueError(f"unknown PRISM baseline {model!r}")


def load_images(paths, size: int = IMAGE_SIZE) -> np.ndarray:
    """``(n, 3, size, size)`` uint8 from image files (scaled to [0, 1] per batch, so
    16 000 images take 200 MB, not 800)."""
    from PIL import Image

    from d3mkit.io.images import read_image
    out = np.empty((len(paths), 3, size, size), dtype=np.uint8)
    for i, p in enumerate(paths):
        im = read_image(p, "RGB").resize((size, size), Image.BILINEAR)
        out[i] = np.asarray(im, dtype=np.uint8).transpose(2, 0, 1)
    return out


def _fusion(ld, train, test, args, task, echo) -> np.ndarray:
    from d3mkit.baselines.common import batches, choose_device, require_torch, seed_everything
    torch = require_torch()
    nn = torch.nn
    device = choose_device(getattr(args, "device", "auto") or "auto")
    epochs = getattr(args, "epochs", None)
    if epochs is not None and epochs < 1:
        from d3mkit.core.errors import InvalidArgument
        raise InvalidArgument("epochs", f"must be at least 1, got {epochs}")
    epochs = epochs or 30
    rng = seed_everything(getattr(args, "seed", 0) or 0)
    classes = np.array(sorted(set(ld.loc[train, "label"].astype(str))))
    if len(classes) < 2:
        return np.full(len(test), classes[0], dtype=object)
    # the premise images: learningData's media column, as the datasetDoc declares it
    xi_tr = load_images(list(task.media_paths(rows=ld.loc[train])))
    xi_te = load_images(list(task.media_paths(rows=ld.loc[test])))
    xt_tr, xt_te = _tfidf(ld.loc[train, "hypothesis"].astype(str), ld.loc[test, "hypothesis"].astype(str),
                          max_features=4000)
    xt_tr, xt_te = xt_tr.astype(np.float32).tocsr(), xt_te.astype(np.float32).tocsr()   # densified per batch
    y = np.searchsorted(classes, ld.loc[train, "label"].astype(str).to_numpy())

    class Fusion(nn.Module):
        def __init__(self, n_text: int):
            super().__init__()
            self.cnn = nn.Sequential(
                nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                nn.Conv2d(32, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
            self.text = nn.Sequential(nn.Linear(n_text, 32), nn.ReLU())
            self.head = nn.Sequential(nn.Dropout(0.2), nn.Linear(64, 32), nn.ReLU(), nn.Linear(32, len(classes)))

        def forward(self, img, txt):
            return self.head(torch.cat([self.cnn(img), self.text(txt)], dim=1))

    from d3mkit.baselines import ddp
    ctx = ddp.current()          # data-parallel under torchrun; inactive: as before
    model = ctx.wrap(Fusion(xt_tr.shape[1]).to(device))
    opt = torch.optim.Adam(model.parameters(), lr=3e-3, weight_decay=1e-4)
    loss_fn = nn.CrossEntropyLoss()
    ti = torch.from_numpy(xi_tr)
    ty = torch.from_numpy(y.astype(np.int64))
    model.train()
    for epoch in range(epochs):
        total, seen = 0.0, 0
        for b in ctx.batches(len(y), 32, rng):
            bi = torch.from_numpy(b)
            opt.zero_grad()
            txt = torch.from_numpy(xt_tr[b].toarray()).to(device)
            with ctx.autocast(device):
                loss = loss_fn(model(ctx.inputs(ti[bi].to(device).float() / 255.0), txt),
                               ty[bi].to(device))
            loss.backward()
            opt.step()
            total += loss.item() * len(b)
            seen += len(b)
        if echo is not None and ctx.is_main and (epoch + 1) % max(1, epochs // 3) == 0:
            echo(f"     fusion epoch {epoch + 1}/{epochs}: train loss {total / max(1, seen):.4f}")
    model = ctx.unwrap(model)
    model.eval()
    pred = np.empty(len(test), dtype=np.int64)
    with torch.no_grad():
        for b in batches(len(test), 256):
            img = torch.from_numpy(xi_te[b]).to(device).float() / 255.0
            txt = torch.from_numpy(xt_te[b].toarray()).to(device)
            pred[b] = model(img, txt).argmax(dim=1).cpu().numpy()
    return classes[pred].astype(object)


def predictions(task, model: str, args, echo=None) -> pd.DataFrame:
    """The predictions frame (d3mIndex + targets) of ``model`` on TEST."""
    if model not in MODELS:
        from d3mkit.core.errors import UsageError
        raise UsageError(f"unknown PRISM baseline {model!r} ({', '.join(MODELS)})")
    ld, train, test, targets = _data(task)
    out = pd.DataFrame({"d3mIndex": test})
    out["label"] = predict_labels(model, ld, train, test, args, task, echo)
    if "rationale" in targets:
        rat = ld.loc[train, "rationale"].astype(str).to_numpy()
        if model == "zero-rate":
            out["rationale"] = _majority(rat)
        elif model == "random":
            rng = np.random.default_rng((getattr(args, "seed", 0) or 0) + 1)
            out["rationale"] = rng.choice(rat, size=len(test))
        else:
            out["rationale"] = retrieve_rationales(ld.loc[train, "hypothesis"].astype(str).to_numpy(), rat,
                                                   ld.loc[test, "hypothesis"].astype(str).to_numpy())
    return out


@dataclass(frozen=True)
class PrismBaselineConfig(BaselineConfig):
    """``d3mkit baseline ROOT --model zero-rate|random|text|fusion``: the shared baseline
    fields, checked once (``epochs`` None means 30 for fusion).

    >>> PrismBaselineConfig().model
    'text'
    >>> PrismBaselineConfig(model="bert")
    Traceback (most recent call last):
    ...
    d3mkit.core.errors.InvalidArgument: error [usage] model must be one of zero-rate, random, text, fusion, got 'bert'
    """

    model: str | None = "text"

    def check(self) -> None:
        super().check()
        check_choice("model", self.model, MODELS)


CONFIG = PrismBaselineConfig


def run_baseline(task, model: str, args, echo=None):
    """``d3mkit baseline TASK --model zero-rate|random|text|fusion``: returns the report.
    ``args`` is a :class:`PrismBaselineConfig` (an argparse namespace is turned into one)."""
    from d3mkit.baselines.common import write_solution
    if not isinstance(args, PrismBaselineConfig):
        args = PrismBaselineConfig.from_args(args, model=model)
    elif args.model != model:
        args = args.replace(model=model)
    pred = predictions(task, model, args, echo)
    info = {"benchmark": "prism", "repeat": 0, "fold": 0, "seed": getattr(args, "seed", 0),
            "rationale": "retrieval (nearest training hypothesis)" if model in ("text", "fusion") else model}
    if model == "fusion":
        info["epochs"] = getattr(args, "epochs", None) or 30
        info["imageSize"] = IMAGE_SIZE
    return write_solution(task, pred, model=model, info=info)
