"""Weak supervision strategy 2, *Caption Querying*, and the interface of strategy 3,
*Image Querying* (``d3mkit prism query``).

What this module owns:

* :func:`length_mask` — keep texts whose length (in words) is within one standard
  deviation of the mean, the bounds rounded to the nearest integer (premises and captions
  are filtered separately);
* encoders (:class:`Encoder`): ``tfidf`` (word 1–2-gram TF-IDF, scikit-learn, offline),
  ``tfidf-char`` (character 3–5-grams), ``lsa`` (TF-IDF + truncated SVD, seeded) and
  ``st:NAME`` (a sentence-transformers model, only when that package is installed; NAME
  is passed to it as given — a local path keeps it offline). The paper used three
  sentence-transformers models (``paper``: all-distilroberta-v1, all-MiniLM-L12-v2,
  all-mpnet-base-v2) and approximate nearest neighbours; d3mkit searches exactly (cosine
  similarity). The default (:func:`default_encoders`) is several encoders - the three
  offline ones, plus the paper's models that are installed and already in the local
  Hugging Face cache (nothing is downloaded) - because with one encoder the model
  agreement is undefined and Copeland's method only repeats that encoder's ranking (a
  single encoder is allowed, with a warning);
* :func:`nearest` — each encoder's ``k`` nearest captions per premise;
* :func:`copeland` — Copeland's method over the encoders' rankings (unranked candidates
  tie below every ranked one); the winner is the chosen caption (ties: better mean rank,
  then the earlier caption);
* :func:`rbo_ext` — extrapolated rank-biased overlap (Webber et al. 2010, eq. 32);
  *model agreement* is its mean over encoder pairs (``None`` with one encoder);
* *perplexity* — the mean cosine distance (1 − cosine) of the chosen caption across
  encoders; an encoder that did not rank it contributes the distance of its last ranked
  caption;
* :class:`ImageSearch` — the protocol an image search engine must satisfy for Image
  Querying, and :func:`image_query`, which forms queries (punctuation removed, abstract
  premises excluded) and asks the engine. d3mkit ships no engine and no network code.
"""

from __future__ import annotations

import io
import json
import math
import re
import sys
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path
from typing import Iterable, Protocol, Sequence, TextIO

import numpy as np

from d3mkit.core.errors import InvalidArgument, UsageError

DEFAULT_P = 0.9
OFFLINE_ENCODERS = ("tfidf", "tfidf-char", "lsa")
PAPER_ENCODERS = ("st:sentence-transformers/all-distilroberta-v1", "st:sentence-transformers/all-MiniLM-L12-v2",
                  "st:sentence-transformers/all-mpnet-base-v2")
ONE_ENCODER_WARNING = ("warning: one encoder: the model agreement is undefined (null) and Copeland's method "
                       "only repeats that encoder's ranking; the paper combines several encoders "
                       "(e.g. --encoders tfidf,tfidf-char,lsa, or paper with sentence-transformers)")


def _cached_locally(model: str) -> bool:
    try:
        from huggingface_hub import try_to_load_from_cache
    except ImportError:
        return False
    try:
        return isinstance(try_to_load_from_cache(model, "config.json"), str)
    except Exception:  # noqa: BLE001 - any cache problem means: not available offline
        return False


def default_encoders() -> list[str]:
    """The offline encoders, plus the paper's sentence-transformers models when that
    package is installed and the model is already in the local cache."""
    out = list(OFFLINE_ENCODERS)
    try:
        import importlib.util
        if importlib.util.find_spec("sentence_transformers") is None:
            return out
    except (ImportError, ValueError):
        return out
    return out + [e for e in PAPER_ENCODERS if _cached_locally(e[3:])]


def encoder_specs(text: str) -> list[str]:
    """``--encoders`` to encoder specs: ``default``, ``paper`` or a comma-separated list
    (``default`` and ``paper`` may appear in it).

    >>> encoder_specs("tfidf,lsa")
    ['tfidf', 'lsa']
    >>> encoder_specs("paper")[0]
    'st:sentence-transformers/all-distilroberta-v1'
    """
    out: list[str] = []
    for part in (p.strip() for p in text.split(",")):
        if part == "default":
            out += default_encoders()
        elif part == "paper":
            out += list(PAPER_ENCODERS)
        elif part:
            out.append(part)
    return out


# ---------------------------------------------------------------------------------------
# length filter
# ---------------------------------------------------------------------------------------
def length_mask(texts: Sequence[str]) -> np.ndarray:
    """Boolean mask: word count within mean ± one standard deviation (bounds rounded).

    >>> texts = ["w"] + ["w w w w w"] * 4 + ["w " * 9]     # 1, 5, 5, 5, 5, 9 words
    >>> length_mask(texts).tolist()                      # mean 5, std 2.31: keep 3..7 words
    [False, True, True, True, True, False]
    """
    n = np.array([len(t.split()) for t in texts], dtype=float)
    if len(n) == 0:
        return np.zeros(0, dtype=bool)
    mean, std = n.mean(), n.std()
    lo, hi = _round_half_up(mean - std), _round_half_up(mean + std)
    return (n >= lo) & (n <= hi)


def _round_half_up(x: float) -> int:
    return int(math.floor(x + 0.5))


# ---------------------------------------------------------------------------------------
# encoders
# ---------------------------------------------------------------------------------------
class Encoder(Protocol):
    name: str

    def fit(self, corpus: Sequence[str]) -> "Encoder": ...

    def encode(self, texts: Sequence[str]):
        """Row-normalized vectors (numpy array or scipy sparse matrix)."""


@dataclass
class TfidfEncoder:
    name: str = "tfidf"
    analyzer: str = "word"
    ngram_range: tuple[int, int] = (1, 2)

    def fit(self, corpus):
        from sklearn.feature_extraction.text import TfidfVectorizer
        self._vec = TfidfVectorizer(analyzer=self.analyzer, ngram_range=self.ngram_range,
                                    sublinear_tf=True, norm="l2")
        self._vec.fit(list(corpus))
        return self

    def encode(self, texts):
        return self._vec.transform(list(texts))


@dataclass
class LsaEncoder:
    name: str = "lsa"
    dims: int = 100
    seed: int = 0

    def fit(self, corpus):
        from sklearn.decomposition import TruncatedSVD
        corpus = list(corpus)
        self._tfidf = TfidfEncoder().fit(corpus)
        x = self._tfidf.encode(corpus)
        k = max(1, min(self.dims, x.shape[1] - 1, x.shape[0] - 1))
        self._svd = TruncatedSVD(n_components=k, random_state=self.seed).fit(x)
        return self

    def encode(self, texts):
        z = self._svd.transform(self._tfidf.encode(texts))
        norm = np.linalg.norm(z, axis=1, keepdims=True)
        return z / np.where(norm == 0, 1.0, norm)


@dataclass
class SentenceTransformerEncoder:
    model: str
    name: str = ""

    def __post_init__(self):
        self.name = self.name or f"st:{self.model}"

    def fit(self, corpus):
        try:
            from sentence_transformers import SentenceTransformer
        except ImportError:
            raise UsageError(f"encoder {self.name!r} needs the sentence-transformers package, which is "
                             "not installed; use tfidf, tfidf-char or lsa") from None
        self._m = SentenceTransformer(self.model)
        return self

    def encode(self, texts):
        return np.asarray(self._m.encode(list(texts), normalize_embeddings=True))


def make_encoder(spec: str, seed: int = 0) -> Encoder:
    """An encoder from its name: ``tfidf``, ``tfidf-char``, ``lsa``, ``st:MODEL``."""
    spec = spec.strip()
    if spec == "tfidf":
        return TfidfEncoder()
    if spec == "tfidf-char":
        return TfidfEncoder("tfidf-char", "char_wb", (3, 5))
    if spec == "lsa":
        return LsaEncoder(seed=seed)
    if spec.startswith("st:") and len(spec) > 3:
        return SentenceTransformerEncoder(spec[3:])
    raise UsageError(f"unknown encoder {spec!r} (tfidf, tfidf-char, lsa or st:MODEL)")


def _similarity(q, c) -> np.ndarray:
    s = q @ c.T
    return s.toarray() if hasattr(s, "toarray") else np.asarray(s)


def nearest(query_vecs, caption_vecs, k: int, chunk: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(indices, distances)`` of the ``k`` most similar captions per query, best first;
    distance = 1 − cosine. Ties keep the lower caption index. Exact search, in chunks of
    queries sized to keep the similarity block near 20 million entries.

    >>> q = np.array([[1.0, 0.0]]); c = np.array([[0.0, 1.0], [1.0, 0.0], [0.6, 0.8]])
    >>> idx, dist = nearest(q, c, 2)
    >>> idx.tolist(), np.round(dist, 3).tolist()
    ([[1, 2]], [[0.0, 0.4]])
    """
    n_c = caption_vecs.shape[0]
    k = min(k, n_c)
    n_q = query_vecs.shape[0]
    chunk = chunk or max(1, min(1024, 20_000_000 // max(n_c, 1)))
    idx = np.empty((n_q, k), dtype=np.int64)
    dist = np.empty((n_q, k), dtype=np.float64)
    for start in range(0, n_q, chunk):
        sim = _similarity(query_vecs[start:start + chunk], caption_vecs)
        for r in range(sim.shape[0]):
            row = sim[r]
            if k < n_c:
                kth = np.partition(row, n_c - k)[n_c - k]      # the k-th largest similarity
                cand = np.flatnonzero(row >= kth)              # every tie at the boundary too
            else:
                cand = np.arange(n_c)
            order = cand[np.lexsort((cand, -row[cand]))][:k]
            idx[start + r] = order
            dist[start + r] = 1.0 - row[order]
    return idx, np.clip(dist, 0.0, 2.0)


# ---------------------------------------------------------------------------------------
# aggregation and agreement
# ---------------------------------------------------------------------------------------
def copeland(rankings: Sequence[Sequence[int]]) -> tuple[list[int], np.ndarray]:
    """Copeland's method: ``(candidates best first, scores)``. A candidate's score is its
    pairwise wins minus losses, a pairwise contest being won by the candidate ranked higher
    by more rankings; a ranking that omits a candidate places it below all it ranks.

    >>> order, scores = copeland([[1, 2, 3], [2, 1, 3], [1, 3, 2]])
    >>> order, scores.tolist()
    ([1, 2, 3], [2, 0, -2])
    """
    cands = list(dict.fromkeys(c for r in rankings for c in r))
    pos = {c: i for i, c in enumerate(cands)}
    n, m = len(cands), len(rankings)
    ranks = np.empty((m, n), dtype=np.float64)
    for e, r in enumerate(rankings):
        ranks[e].fill(len(r))                       # unranked: below every ranked candidate
        for j, c in enumerate(r):
            ranks[e, pos[c]] = j
    better = (ranks[:, :, None] < ranks[:, None, :]).sum(axis=0)      # better[a, b]
    scores = np.sign(better - better.T).sum(axis=1).astype(np.int64)
    mean_rank = ranks.mean(axis=0)
    order = sorted(range(n), key=lambda i: (-scores[i], mean_rank[i], i))
    return [cands[i] for i in order], scores[order]


def rbo_ext(s: Sequence, t: Sequence, p: float = DEFAULT_P) -> float:
    """Extrapolated rank-biased overlap of two rankings (Webber, Moffat & Zobel 2010,
    equation 32; lists of unequal length allowed, items unique within a list).

    >>> rbo_ext([1, 2, 3], [1, 2, 3])
    1.0
    >>> rbo_ext([1, 2, 3], [4, 5, 6])
    0.0
    >>> round(rbo_ext("abcde", "bacde"), 4)
    0.9
    """
    if not 0.0 < p < 1.0:
        raise ValueError("p must be in (0, 1)")
    if len(s) > len(t):
        s, t = t, s
    sl, ll = len(s), len(t)
    if sl == 0:
        return 1.0 if ll == 0 else 0.0
    if list(s) == list(t):
        return 1.0                             # exact, without the float sum's last-bit error
    seen_s: set = set()
    seen_t: set = set()
    x = np.zeros(ll + 1)                       # x[d] = overlap of the depth-d prefixes
    overlap = 0
    for d in range(1, ll + 1):
        a = s[d - 1] if d <= sl else None
        b = t[d - 1]
        if a is not None and a == b:
            overlap += 1
        else:
            if a is not None:
                overlap += a in seen_t
                seen_s.add(a)
            overlap += b in seen_s
            seen_t.add(b)
        x[d] = overlap
    d = np.arange(1, ll + 1)
    pw = p ** d
    total = np.sum(x[1:] / d * pw)
    x_s, x_l = x[sl], x[ll]
    if ll > sl:
        dd = np.arange(sl + 1, ll + 1)
        total += np.sum(x_s * (dd - sl) / (sl * dd) * p ** dd)
    value = (1 - p) / p * total + ((x_l - x_s) / ll + x_s / sl) * p ** ll
    return float(min(1.0, max(0.0, value)))


def agreement(rankings: Sequence[Sequence], p: float = DEFAULT_P) -> float | None:
    """Mean pairwise :func:`rbo_ext`; None for fewer than two rankings."""
    pairs = list(combinations(rankings, 2))
    if not pairs:
        return None
    return float(np.mean([rbo_ext(a, b, p) for a, b in pairs]))


# ---------------------------------------------------------------------------------------
# caption querying
# ---------------------------------------------------------------------------------------
@dataclass
class QuerySummary:
    premises: int = 0
    premises_kept: int = 0
    captions: int = 0
    captions_kept: int = 0
    grounded: int = 0
    warnings: list = field(default_factory=list)

    def lines(self) -> list[str]:
        return list(self.warnings) + [f"premises: {self.premises} ({self.premises_kept} within the length filter)",
                f"caption sentences: {self.captions} ({self.captions_kept} within the length filter)",
                f"premises grounded: {self.grounded}"]


def caption_query(premises: Iterable[tuple[str, str]], captions: Iterable[tuple[str, str]], *,
                  top_k: int = 50, encoders: Sequence[str | Encoder] | None = None,
                  length_filter: bool = True, seed: int = 0, p: float = DEFAULT_P,
                  summary: QuerySummary | None = None) -> list[dict]:
    """Ground each premise in its best caption sentence. Returns one record per kept
    premise: ``premise_id, premise, caption_id, caption, perplexity, agreement, copeland,
    ranks`` (rank of the chosen caption per encoder, None when unranked)."""
    from d3mkit.benchmarks.prism.preprocess import preprocess_caption, preprocess_statement
    k = top_k
    if k < 1:
        raise InvalidArgument("top_k", f"must be at least 1, got {k}")
    summary = summary if summary is not None else QuerySummary()
    prem = [(pid, preprocess_statement(t)) for pid, t in premises]
    prem = [(pid, t) for pid, t in prem if t]
    caps = [(cid, s) for cid, c in captions for s in preprocess_caption(c)]
    summary.premises, summary.captions = len(prem), len(caps)
    if length_filter:
        prem = [x for x, keep in zip(prem, length_mask([t for _, t in prem])) if keep]
        caps = [x for x, keep in zip(caps, length_mask([t for _, t in caps])) if keep]
    summary.premises_kept, summary.captions_kept = len(prem), len(caps)
    if not prem or not caps:
        return []
    if encoders is None:
        encoders = default_encoders()
    encs = [make_encoder(e, seed) if isinstance(e, str) else e for e in encoders]
    if not encs:
        raise UsageError("no encoder given")
    if len(encs) == 1 and ONE_ENCODER_WARNING not in summary.warnings:
        summary.warnings.append(ONE_ENCODER_WARNING)
    if len({e.name for e in encs}) != len(encs):
        raise UsageError("an encoder is listed twice")
    p_texts, c_texts = [t for _, t in prem], [t for _, t in caps]
    results = []
    for enc in encs:
        enc.fit(c_texts + p_texts)
        results.append(nearest(enc.encode(p_texts), enc.encode(c_texts), k))
    out = []
    for qi, (pid, ptext) in enumerate(prem):
        rankings = [idx[qi].tolist() for idx, _ in results]
        order, scores = copeland(rankings)
        best = order[0]
        dists, ranks = [], []
        for idx, dist in results:
            row = idx[qi].tolist()
            if best in row:
                j = row.index(best)
                dists.append(float(dist[qi, j]))
                ranks.append(j + 1)
            else:
                dists.append(float(dist[qi, -1]))
                ranks.append(None)
        out.append({"premise_id": pid, "premise": ptext, "caption_id": caps[best][0],
                    "caption": caps[best][1], "perplexity": float(np.mean(dists)),
                    "agreement": agreement(rankings, p), "copeland": int(scores[0]),
                    "ranks": dict(zip((e.name for e in encs), ranks))})
    summary.grounded = len(out)
    return out



def run_query(premises: Path, captions: Path, *, top_k: int = 50, encoders: str = "default",
              length_filter: bool = True, fmt: str = "jsonl", output: Path | None = None,
              seed: int = 0, stderr: TextIO | None = None) -> QuerySummary:
    """The ``d3mkit prism query`` command."""
    from d3mkit.benchmarks.prism.extract import Summary, read_captions, write_output
    read_sum = Summary()
    prem = list(read_captions(premises, summary=read_sum, text_fields=("premise", "text", "caption"),
                              what="premises"))
    caps = list(read_captions(captions, summary=read_sum))
    for path, what, got in ((premises, "premises", prem), (captions, "captions", caps)):
        if not got:
            from d3mkit.core.errors import D3MKitError, error
            raise D3MKitError(error("prism.captions", "", f"no {what} could be read from this file",
                                    str(path)))
    summary = QuerySummary()
    rows = caption_query(prem, caps, top_k=top_k, encoders=encoder_specs(encoders),
                         length_filter=length_filter, seed=seed, summary=summary)
    buf = io.StringIO()
    if fmt == "jsonl":
        for r in rows:
            buf.write(json.dumps(r, ensure_ascii=False) + "\n")
    elif fmt == "csv":
        import csv
        cols = ["premise_id", "premise", "caption_id", "caption", "perplexity", "agreement", "copeland"]
        w = csv.DictWriter(buf, fieldnames=cols, lineterminator="\n", extrasaction="ignore")
        w.writeheader()
        for r in rows:
            w.writerow({**r, "agreement": "" if r["agreement"] is None else r["agreement"]})
    else:
        raise UsageError(f"unknown output format {fmt!r} (jsonl or csv)")
    if output is None:
        sys.stdout.write(buf.getvalue())
    else:
        write_output(Path(output), buf.getvalue())
    err = stderr or sys.stderr
    for line in summary.lines() + [f"records skipped: {len(read_sum.skipped)}"] + \
            [f"  {w}: {why}" for w, why in read_sum.skipped[:20]]:
        print(line, file=err)
    return summary


# ---------------------------------------------------------------------------------------
# image querying: interface only
# ---------------------------------------------------------------------------------------
@dataclass(frozen=True)
class ImageHit:
    url: str
    title: str = ""
    page: str = ""


class ImageSearch(Protocol):
    """What Image Querying needs from a web image search engine (none ships with d3mkit)."""

    def search(self, query: str, k: int) -> list[ImageHit]:
        """The top ``k`` images for ``query``, best first."""


ABSTRACT_WORDS = frozenset({"responsible", "responsibility", "grateful", "gratitude", "thankful",
                            "honest", "honesty", "trust", "trusted", "guilty", "guilt", "proud",
                            "ashamed", "obligated", "obligation", "deserve", "deserves", "believes",
                            "believe", "wants", "hopes", "respect", "respected"})
_PUNCT_RE = re.compile(r"[^\w\s]", re.UNICODE)


def search_query(premise: str) -> str:
    """The search query for a premise: punctuation removed, whitespace collapsed.

    >>> search_query("You're in a desert!")
    'youre in a desert'
    """
    from d3mkit.benchmarks.prism.preprocess import normalize
    return " ".join(_PUNCT_RE.sub("", normalize(premise)).split())


def is_abstract(premise: str) -> bool:
    """True for premises about abstract notions (responsibility, gratitude, ...), which
    the paper excludes from image search.

    >>> is_abstract("the person is responsible"), is_abstract("the glass is broken")
    (True, False)
    """
    return bool(ABSTRACT_WORDS & set(search_query(premise).split()))


def image_query(premises: Iterable[tuple[str, str]], engine: ImageSearch, *, k: int = 10,
                length_filter: bool = True) -> list[dict]:
    """Image Querying: one record per image hit (``premise_id, premise, query, rank, url``);
    premises outside the length filter or abstract are skipped."""
    prem = list(premises)
    if length_filter and prem:
        prem = [x for x, keep in zip(prem, length_mask([t for _, t in prem])) if keep]
    out = []
    for pid, text in prem:
        if is_abstract(text):
            continue
        q = search_query(text)
        for rank, hit in enumerate(engine.search(q, k)[:k], start=1):
            out.append({"premise_id": pid, "premise": text, "query": q, "rank": rank, "url": hit.url})
    return out
