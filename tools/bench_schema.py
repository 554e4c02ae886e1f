"""Time the schema checks (JSON Schema and cerberus forms) on datasetDocs of growing width.

    PYTHONPATH=. python tools/bench_schema.py

Prints one row per column count: milliseconds per check_dataset_schema and per
cerberus_errors call on a datasetDoc with one learningData table of that many columns.
"""


from _bench_data import best_of
from d3mkit.validation.schema import cerberus_errors, check_dataset_schema


def dataset_doc(n_cols: int) -> dict:
    cols = [{"colIndex": 0, "colName": "d3mIndex", "colType": "integer", "role": ["index"]}]
    cols += [{"colIndex": i, "colName": f"c{i}", "colType": "real", "role": ["attribute"]}
             for i in range(1, n_cols)]
    return {"about": {"datasetID": "b_dataset", "datasetName": "b", "license": "CC0",
                      "datasetSchemaVersion": "3.1.2"},
            "dataResources": [{"resID": "learningData", "resPath": "tables/learningData.csv",
                               "resType": "table", "resFormat": ["text/csv"], "isCollection": False,
                               "columns": cols}]}


def timed(fn, *args, repeat=3) -> float:
    """Milliseconds of the fastest of ``repeat`` calls (tools/_bench_data.best_of)."""
    return best_of(lambda: fn(*args), repeat) * 1000


def main() -> None:
    check_dataset_schema(dataset_doc(2))   # load and compile the schemas once
    cerberus_errors("dataset", dataset_doc(2))
    print(f"{'columns':>8} {'jsonschema ms':>14} {'cerberus ms':>12}")
    for n in (10, 100, 1000, 10000):
        doc = dataset_doc(n)
        assert check_dataset_schema(doc) == [] and cerberus_errors("dataset", doc) == []
        print(f"{n:>8} {timed(check_dataset_schema, doc):>14.1f} {timed(cerberus_errors, 'dataset', doc):>12.1f}")


if __name__ == "__main__":
    main()
