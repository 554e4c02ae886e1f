"""PRISM: preconditioned visual language inference (PVLI) and rationalization (PVLr).

Sub-modules, each owning one thing:

* :mod:`.preprocess` — caption/statement clean-up of the paper's appendix A.1;
* :mod:`.labeling` — the Table 3 labeling functions, kept as data, compiled to regexes;
* :mod:`.extract` — weak supervision strategy 1, *Extraction from Captions*;
* :mod:`.query` — strategy 2, *Caption Querying* (length filter, encoders, Copeland,
  extrapolated RBO, perplexity) and the interface for strategy 3, *Image Querying*;
* :mod:`.manifest` — reading PVLI/PVLr record manifests (CSV or JSONL);
* :mod:`.cli` — ``d3mkit build prism``: manifest + images to a task root;
* :mod:`.metrics` — ``rationaleTokenF1``, ``rationaleRougeL``, ``rationaleRougeLStandard``;
* :mod:`.baseline` — zero-rate, random, text and fusion baselines;
* :mod:`.demo` — the ``prism`` part of ``d3mkit demo`` on the synthetic demo corpus.
"""
