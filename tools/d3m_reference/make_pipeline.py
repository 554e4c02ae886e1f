"""Print D3M pipelines (JSON) of standard primitives, for fit-score.

Run with the reference interpreter (d3m 2022.5.5 + common primitives + sklearn wrappers):

    $D3MKIT_D3M_PYTHON tools/d3m_reference/make_pipeline.py LEARNER [--confidence]
    $D3MKIT_D3M_PYTHON tools/d3m_reference/make_pipeline.py --all   # {kind: pipeline} for fit_score.py

Steps: denormalize (joins the tables and collections a learningData refers to) ->
dataset_to_dataframe -> column_parser -> extract the Attribute (and FileName: an
objectDetection image is an index, not an attribute) columns and the TrueTarget columns ->
LEARNER (fit on attributes and targets), then either construct_predictions (d3mIndex +
targets: hard labels) or, with ``--confidence``, d3m's own confidence construction:
compute_unique_values (the TRAIN labels as the targets' ``all_distinct_values``) ->
horizontal_concat (attributes, targets) -> construct_confidence with the fitted LEARNER as
its ``primitive_learner`` (a PRIMITIVE hyperparameter): one row per (d3mIndex, label) with
the learner's probability of that label (``exp`` of its ``log_likelihoods``) in a
``confidence`` column — the layout d3m's rocAuc metrics read, and for objectDetection one
scored box per (image, TRAIN box). Primitive ids and versions come from the installed
index, so the pipeline matches the environment it runs in. Does not import d3mkit.
"""

import json
import sys
import uuid

import d3m.index


def ref(python_path):
    m = d3m.index.get_primitive(python_path).metadata.query()
    return {"id": m["id"], "version": m["version"], "python_path": python_path, "name": m["name"]}


def step(python_path, arguments, hyperparams=None, primitives=None):
    s = {"type": "PRIMITIVE", "primitive": ref(python_path),
         "arguments": {k: {"type": "CONTAINER", "data": v} for k, v in arguments.items()},
         "outputs": [{"id": "produce"}]}
    if hyperparams or primitives:
        s["hyperparams"] = {k: {"type": "VALUE", "data": v} for k, v in (hyperparams or {}).items()}
        # a fitted step of this pipeline passed as a hyperparameter (d3m's PRIMITIVE argument type)
        s["hyperparams"].update({k: {"type": "PRIMITIVE", "data": v} for k, v in (primitives or {}).items()})
    return s


def pipeline(learner, confidence=False):
    types = "https://metadata.datadrivendiscovery.org/types/"
    steps = [
        step("d3m.primitives.data_transformation.denormalize.Common", {"inputs": "inputs.0"}),
        step("d3m.primitives.data_transformation.dataset_to_dataframe.Common", {"inputs": "steps.0.produce"}),
        # realVector cells (bounding polygons) stay text: a label-predicting learner needs hashable values
        step("d3m.primitives.data_transformation.column_parser.Common", {"inputs": "steps.1.produce"},
             {"parse_semantic_types": ["http://schema.org/Boolean", types + "CategoricalData",
                                       "http://schema.org/Integer", "http://schema.org/Float",
                                       "http://schema.org/DateTime"]}),
        step("d3m.primitives.data_transformation.extract_columns_by_semantic_types.Common",
             {"inputs": "steps.2.produce"}, {"semantic_types": [types + "Attribute", types + "FileName"]}),
        step("d3m.primitives.data_transformation.extract_columns_by_semantic_types.Common",
             {"inputs": "steps.2.produce"}, {"semantic_types": [types + "TrueTarget"]}),
        step(learner, {"inputs": "steps.3.produce", "outputs": "steps.4.produce"}),
    ]
    if confidence:
        # LEARNER (its probabilities must be a function of the row: the dummy's draw anew for
        # each call) on the character n-grams (tf-idf) of the attributes, which in the
        # benchmarks that score confidences are file names (images)
        steps[5:] = [
            step("d3m.primitives.feature_extraction.tfidf_vectorizer.SKlearn", {"inputs": "steps.3.produce"},
                 {"analyzer": "char", "ngram_range": [1, 2]}),
            step(learner, {"inputs": "steps.5.produce", "outputs": "steps.4.produce"}),
            # the TRAIN labels as the targets' all_distinct_values (construct_confidence reads them)
            step("d3m.primitives.operator.compute_unique_values.Common", {"inputs": "steps.4.produce"}),
            # the learner's inputs, then the targets (construct_confidence drops the targets)
            step("d3m.primitives.data_transformation.horizontal_concat.DataFrameCommon",
                 {"left": "steps.5.produce", "right": "steps.7.produce"}),
            # one row per (d3mIndex, label) with the learner's probability of that label
            step("d3m.primitives.data_transformation.construct_confidence.Common",
                 {"inputs": "steps.8.produce", "reference": "steps.1.produce"}, primitives={"primitive_learner": 6}),
        ]
    else:
        steps.append(step("d3m.primitives.data_transformation.construct_predictions.Common",
                          {"inputs": "steps.5.produce", "reference": "steps.1.produce"}))
    kind = learner + ("+confidence" if confidence else "")
    return {"id": str(uuid.uuid5(uuid.NAMESPACE_URL, "d3mkit/" + kind)),
            "schema": "https://metadata.datadrivendiscovery.org/schemas/v0/pipeline.json",
            "created": "2020-01-01T00:00:00Z", "name": "d3mkit reference: " + learner.split(".")[-2] + (" with confidences" if confidence else ""),
            "inputs": [{"name": "inputs"}], "outputs": [{"data": "steps.%d.produce" % (len(steps) - 1), "name": "predictions"}],
            "steps": steps}


# fit_score.py's kinds: a scikit-learn dummy runs on any attributes (images, text) and its
# "stratified" strategy gives seeded, varied labels; confidences come from logistic regression
KINDS = {"classification": ("d3m.primitives.classification.dummy.SKlearn", False),
         "classification+confidence": ("d3m.primitives.classification.logistic_regression.SKlearn", True),
         "regression": ("d3m.primitives.regression.dummy.SKlearn", False)}


if __name__ == "__main__":
    args = sys.argv[1:]
    if args == ["--all"]:
        print(json.dumps({k: pipeline(*v) for k, v in KINDS.items()}, indent=1))
        sys.exit(0)
    confidence = "--confidence" in args
    args = [a for a in args if a != "--confidence"]
    if len(args) != 1:
        sys.exit("usage: make_pipeline.py LEARNER_PYTHON_PATH [--confidence] | --all")
    print(json.dumps(pipeline(args[0], confidence), indent=1))
