"""Print a D3M pipeline (JSON) of standard primitives ending in LEARNER, for fit-score.

Run with the reference interpreter (d3m 2022.5.5 + common primitives + sklearn wrappers):

    $D3MKIT_D3M_PYTHON tools/d3m_reference/make_pipeline.py d3m.primitives.classification.dummy.SKlearn

Steps: denormalize (joins the tables and collections a learningData refers to) ->
dataset_to_dataframe -> column_parser -> extract the Attribute (and FileName: an
objectDetection image is an index, not an attribute) columns and the TrueTarget columns ->
LEARNER (fit on attributes and targets) -> construct_predictions (d3mIndex +
targets). Primitive ids and versions come from the installed index, so the pipeline
matches the environment it runs in. Does not import d3mkit.
"""

import json
import sys
import uuid

import d3m.index


def ref(python_path):
    m = d3m.index.get_primitive(python_path).metadata.query()
    return {"id": m["id"], "version": m["version"], "python_path": python_path, "name": m["name"]}


def step(python_path, arguments, hyperparams=None):
    s = {"type": "PRIMITIVE", "primitive": ref(python_path),
         "arguments": {k: {"type": "CONTAINER", "data": v} for k, v in arguments.items()},
         "outputs": [{"id": "produce"}]}
    if hyperparams:
        s["hyperparams"] = {k: {"type": "VALUE", "data": v} for k, v in hyperparams.items()}
    return s


def pipeline(learner):
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
        step("d3m.primitives.data_transformation.construct_predictions.Common",
             {"inputs": "steps.5.produce", "reference": "steps.1.produce"}),
    ]
    return {"id": str(uuid.uuid5(uuid.NAMESPACE_URL, "d3mkit/" + learner)),
            "schema": "https://metadata.datadrivendiscovery.org/schemas/v0/pipeline.json",
            "created": "2020-01-01T00:00:00Z", "name": "d3mkit reference: " + learner.split(".")[-2],
            "inputs": [{"name": "inputs"}], "outputs": [{"data": "steps.6.produce", "name": "predictions"}],
            "steps": steps}


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: make_pipeline.py LEARNER_PYTHON_PATH")
    print(json.dumps(pipeline(sys.argv[1]), indent=1))
