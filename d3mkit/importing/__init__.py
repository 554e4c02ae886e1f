"""Bring your own data: packaging a user's table, ARFF file or image folder as a D3M task
root (``d3mkit import``), and describing any root (``d3mkit info``).

One module per source — :mod:`~d3mkit.importing.source` (CSV, TSV, gzip, Parquet files and
DataFrames as text cells), :mod:`~d3mkit.importing.arff` (ARFF and OpenML split files),
:mod:`~d3mkit.importing.images` (ImageFolder layouts) — one for the inference rules
(:mod:`~d3mkit.importing.infer`), the core that checks and writes the root
(:mod:`~d3mkit.importing.table`) and :mod:`~d3mkit.importing.info`. The public functions are
:func:`d3mkit.import_table`, :func:`d3mkit.import_arff`, :func:`d3mkit.import_images` and
:func:`d3mkit.info` (docs/import.md).
"""
