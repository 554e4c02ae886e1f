"""PRISM Extraction from Captions: preprocessing, Table 3 labeling functions, the CLI."""

from __future__ import annotations

import json
import time

import pytest

from d3mkit.benchmarks.prism import labeling
from d3mkit.benchmarks.prism.extract import Summary, extract_records, match_sentence, read_captions
from d3mkit.benchmarks.prism.labeling import (TABLE3, by_conjunction, compile_pattern, enabled,
                                              load_labeling_functions)
from d3mkit.benchmarks.prism.preprocess import (preprocess_caption, preprocess_statement,
                                                replace_people, split_sentences)
from d3mkit.cli import main
from d3mkit.core.errors import D3MKitError

# one example sentence per labeling function (already preprocessed), with action/precondition
EXAMPLES = {
    "so that": ("she opens the window so that the room cools down.", "the room cools down", "she opens the window"),
    "in order to": ("he climbs the ladder in order to reach the roof.", "reach the roof", "he climbs the ladder"),
    "because": ("the road is wet because it rained all night.", "the road is wet", "it rained all night"),
    "due to": ("the game was stopped due to heavy rain.", "the game was stopped", "heavy rain"),
    "in case": ("take an umbrella in case it rains later.", "take an umbrella", "it rains later"),
    "as if": ("the dog looks as if it is smiling.", "the dog looks", "it is smiling"),
    "as long as": ("you can swim as long as the pool is open.", "you can swim", "the pool is open"),
    "if": ("the plant grows if it gets sunlight.", "the plant grows", "it gets sunlight"),
    "unless": ("swimming pools have cold water in the winter unless they are heated.",
               "swimming pools have cold water in the winter", "they are heated"),
    "even though": ("he went out even though it was snowing.", "he went out", "it was snowing"),
    "despite": ("the team won despite the injury.", "the team won", "the injury"),
    "if not": ("the bread goes stale if not wrapped in paper.", "the bread goes stale", "wrapped in paper"),
    "without": ("you cannot drive without a driving license.", "you cannot drive", "a driving license"),
    # {NP}: kept only with a negation, reported made positive (PInKS)
    "but": ("the car is new but the battery is not charged.", "the car is new", "the battery is charged"),
    "makes possible": ("a new bridge makes crossing the river possible.", "crossing the river", "a new bridge"),
}


def test_preprocessing_people_tags_case_and_possessive():
    assert preprocess_statement("Alice helps Bob") == "the person helps another person"
    assert preprocess_statement("PersonX takes PersonY's coat and PersonZ waits") == \
        "the person takes another person's coat and a third person waits"
    assert preprocess_statement("PersonX  lost  PersonX's   keys") == "the person lost their keys"
    assert preprocess_caption("<PERSON> and <PERSON> attend the gala.\nA Dog RUNS") == \
        ["the person and another person attend the gala.", "a dog runs"]
    # extra names (the paper finds them with NER) numbered after the fixed identifiers
    assert replace_people("PersonX meets Maria", names=["Maria"]) == "the person meets another person"


def test_sentence_splitting_keeps_abbreviations_and_decimals():
    assert split_sentences("Mr. Brown waits at St. Mary's. The bus is late.") == \
        ["Mr. Brown waits at St. Mary's.", "The bus is late."]
    assert split_sentences("It costs 2.50 dollars! Wow?  \"Yes.\" Fine") == \
        ["It costs 2.50 dollars!", "Wow?", "\"Yes.\"", "Fine"]


@pytest.mark.parametrize("conj", sorted(EXAMPLES))
def test_each_labeling_function_extracts_its_slots(conj):
    sentence, action, precondition = EXAMPLES[conj]
    rec = match_sentence(sentence, [by_conjunction()[conj]])
    assert rec is not None, conj
    assert (rec["action"], rec["precondition"]) == (action, precondition)
    assert rec["label"] == by_conjunction()[conj].label


def test_negative_lookaheads():
    lfs = by_conjunction()
    assert match_sentence("the road is closed because of snow.", [lfs["because"]]) is None
    assert match_sentence("bring a coat in case of rain.", [lfs["in case"]]) is None
    assert match_sentence("the man talks on condition of anonymity.", [lfs["on condition"]]) is None
    assert match_sentence("the dog barks if not fed.", [lfs["if"]]) is None
    assert match_sentence("she looks as if she is tired.", [lfs["if"]]) is None
    assert match_sentence("prices fall if not more people buy.", [lfs["if not"]]) is None


def test_table3_is_data_with_the_paper_precisions():
    assert len(TABLE3) == 29
    lfs = {r["conjunction"]: r for r in TABLE3}
    assert lfs["unless"]["precision"] == 0.75 and lfs["unless"]["label"] == "prevent"
    assert lfs["so that"]["precision"] == 0.689 and lfs["so that"]["label"] == "allow"
    assert lfs["only if"]["precision"] is None
    assert all(set(r) <= {"label", "conjunction", "precision", "pattern", "starred", "note", "also"} for r in TABLE3)
    # the threshold enables exactly those at or above it; None only at threshold 0
    assert {lf.conjunction for lf in enabled(0.6)} == {"so that", "in order to", "because", "unless"}
    assert {lf.conjunction for lf in enabled(0.55)} >= {"due to", "even though"}
    assert "only if" not in {lf.conjunction for lf in enabled(0.01)}
    assert "only if" in {lf.conjunction for lf in enabled(0.0)}


def test_higher_precision_wins():
    # "because" (0.625) and "unless" (0.75) both match; unless wins
    s = "the shop stays open because it is busy unless it snows heavily."
    rec = match_sentence(s, enabled(0.6))
    assert rec["lf"] == "unless" and rec["precision"] == 0.75
    # with unless disabled by a custom list, because wins
    rec = match_sentence(s, [by_conjunction()["because"]])
    assert rec["lf"] == "because"


def test_multi_sentence_event_pattern():
    cap = ('To understand the event "a man rides a bike", it is important to know that he has a bike. '
           'The statement "a man rides a bike" is true because he has a bike.')
    rows = list(extract_records([("e", cap)], threshold=0.0))
    assert rows[0]["lf"] == "to understand event statement is true"
    assert rows[0]["action"] == "a man rides a bike" and rows[0]["precondition"] == "he has a bike"


def test_threshold_filters_and_summary_counts():
    caps = [("1", "The grass is green because it rained a lot."), ("2", "The grass grows if it rains a lot."),
            ("3", "Nothing to see here.")]
    s = Summary()
    rows = list(extract_records(caps, threshold=0.6, summary=s))
    assert [r["caption_id"] for r in rows] == ["1"]
    assert (s.captions, s.sentences, s.matches) == (3, 3, 1)
    rows = list(extract_records(caps, threshold=0.1))
    assert [r["lf"] for r in rows] == ["because", "if"]


@pytest.mark.slow
def test_long_unicode_and_quote_heavy_captions_do_not_hang():
    big_one_sentence = "a unless b " * 10_000                     # ~110 KB, one sentence
    many = "The tea is hot because it was boiled. " * 2_700   # ~100 KB, many sentences
    quotes = '"' * 50_000 + ' “nested “quotes” here” because «x» ' + "'" * 50_000
    uni = "Ünïcödé café 🚲 rides because 天气 is nice. " * 2_000
    adversarial = "a makes b possible. c " * 5_000                # worst case for a tail literal
    s = Summary()
    t0 = time.perf_counter()
    rows = list(extract_records([("big", big_one_sentence), ("many", many), ("q", quotes),
                                 ("u", uni), ("adv", adversarial)], threshold=0.0, summary=s))
    assert time.perf_counter() - t0 < 60.0   # catches catastrophic backtracking (a hang), not a benchmark
    assert s.too_long >= 2                       # the one-sentence giants are skipped, counted
    assert sum(r["caption_id"] == "many" for r in rows) == 2_700
    # PInKS' slot characters are ASCII: the unicode sentences match only with loose slots
    assert not any(r["caption_id"] == "u" for r in rows)
    rows = list(extract_records([("u", uni)], threshold=0.0, strict_slots=False))
    assert any("café" in r["sentence"] for r in rows)
    # the regexes themselves stay fast on 100 KB when the length limit is lifted
    t0 = time.perf_counter()
    rec = match_sentence(big_one_sentence.lower(), enabled(0.0), strict_slots=False)
    assert rec["lf"] == "unless" and time.perf_counter() - t0 < 30.0   # a hang catcher, not a benchmark


def test_read_captions_formats_and_bad_records(tmp_path):
    (tmp_path / "c.jsonl").write_text('{"id": 1, "caption": "A because B."}\n{bad json\n'
                                      '{"id": 2}\n[1, 2]\n{"id": 3, "caption": 5}\n', encoding="utf-8")
    s = Summary()
    got = list(read_captions(tmp_path / "c.jsonl", summary=s))
    assert got == [("1", "A because B.")]
    assert [w.split(": ")[-1] for w, _ in s.skipped] == ["line 2", "line 3", "line 4", "line 5"]
    (tmp_path / "c.csv").write_text('id,caption\nx,"He said ""stop"", unless it rains."\ny,\n', encoding="utf-8")
    s = Summary()
    assert list(read_captions(tmp_path / "c.csv", summary=s)) == [("x", 'He said "stop", unless it rains.')]
    assert s.skipped[0][0].endswith("line 3")
    (tmp_path / "nocol.csv").write_text("name,text\na,b\n", encoding="utf-8")
    with pytest.raises(D3MKitError) as ei:
        list(read_captions(tmp_path / "nocol.csv"))
    assert "missing column(s) id, caption" in ei.value.issues[0].message


def test_custom_labeling_functions_file(tmp_path):
    p = tmp_path / "lfs.json"
    p.write_text(json.dumps([{"label": "disables", "conjunction": "until", "precision": 0.9,
                              "pattern": "{A} until {P}"}]))
    lfs = load_labeling_functions(p)
    assert lfs[0].label == "prevent"
    assert match_sentence("the shop is closed until the owner is back.", lfs)["precondition"] == "the owner is back"
    p.write_text(json.dumps([{"label": "maybe", "conjunction": "x", "pattern": "{A} x {P}"}]))
    with pytest.raises(D3MKitError, match="unknown label"):
        load_labeling_functions(p)
    p.write_text(json.dumps([{"label": "allow", "conjunction": "x", "pattern": "{A} x ("}]))
    with pytest.raises(D3MKitError, match="needs an action|bad pattern"):
        load_labeling_functions(p)
    with pytest.raises(ValueError):
        compile_pattern("no slots here")


def test_cli_extract(tmp_path, capsys):
    caps = tmp_path / "caps.txt"
    caps.write_text("Kids wear coats so that they stay warm.\nA bus.\nThe dog sleeps unless it rains hard.\n",
                    encoding="utf-8")
    out = tmp_path / "out.jsonl"
    assert main(["prism", "extract", "--captions", str(caps), "--threshold", "0.6",
                 "--format", "jsonl", "--out", str(out)]) == 0
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["caption_id"] for r in rows] == ["1", "3"]
    assert list(rows[0]) == ["caption_id", "sentence", "action", "precondition", "label", "lf", "precision"]
    assert "matches: 2" in capsys.readouterr().err
    assert main(["prism", "extract", "--captions", str(tmp_path / "missing.txt")]) == 2
    assert main(["prism", "extract", "--captions", str(caps), "--threshold", "1.5"]) == 2
    assert main(["prism", "extract", "--captions", str(caps), "--max-chars", "0"]) == 2
    assert main(["prism", "extract", "--captions", str(caps), "--format", "csv"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "caption_id,sentence,action,precondition,label,lf,precision"


def test_labeling_module_has_no_code_per_function():
    # every function is a record; compiling all of them works
    assert all(lf.regex.groupindex for lf in labeling.default_labeling_functions())


from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_WORDS = st.sampled_from(["unless", "because", "of", "if", "not", "as", "so", "that", "in", "order", "to",
                          "makes", "possible.", "but", ".", "!", "\n", '"', "«", "<PERSON>", "PersonX",
                          "Alice's", "the", "É", "🚲", "  "])


@pytest.mark.slow
@settings(max_examples=100, deadline=None)
@given(st.one_of(st.text(max_size=300), st.lists(_WORDS, max_size=60).map(" ".join)))
def test_arbitrary_captions_never_crash(caption):
    for rec in extract_records([("x", caption)], threshold=0.0):
        assert rec["action"] and rec["precondition"] and rec["label"] in ("allow", "prevent")
        assert rec["sentence"] == rec["sentence"].lower() or not rec["sentence"].isascii()


def test_manifest_output_feeds_build(tmp_path):
    from PIL import Image

    from d3mkit.benchmarks.prism.cli import build_task_root
    (tmp_path / "img").mkdir()
    caps = ["The road is wet because it rained today.", "Kids wear coats so that they stay warm.",
            "The shop is closed unless it is noon now.", "A dog sleeps unless it rains hard.", "A red bus."]
    lines = []
    for i, c in enumerate(caps):
        Image.new("RGB", (8, 8), (i * 40, 0, 0)).save(tmp_path / "img" / f"{i}.png")
        lines.append(json.dumps({"id": f"c{i}", "caption": c, "image": f"img/{i}.png"}))
    lines.append(json.dumps({"id": "noimg", "caption": "It is late because the bus broke down."}))
    (tmp_path / "caps.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = tmp_path / "manifest.csv"
    assert main(["prism", "extract", "--captions", str(tmp_path / "caps.jsonl"), "--format", "manifest",
                 "--out", str(out)]) == 0
    rows = out.read_text().splitlines()
    assert rows[0] == "hypothesis,image,label,rationale,strategy,source,lf,precision"
    assert len(rows) == 5                                  # 4 matches with an image
    root = build_task_root(tmp_path / "out", out, tmp_path, "pvlr")
    import pandas as pd
    ld = pd.read_csv(root / "prism_pvlr_dataset" / "tables" / "learningData.csv")
    assert ld.loc[0, "hypothesis"] == "the road is wet" and ld.loc[0, "rationale"] == "it rained today"


def test_np_slot_keeps_only_negated_noun_phrases_and_flips_them():
    but = [by_conjunction()["but"]]
    assert match_sentence("the kids want to swim but the pool is open today.", but) is None
    for sentence, pre in [("the kids want to swim but the pool is not open today.", "the pool is open today"),
                          ("he wants to read the sign but he cannot see it well.", "he can see it well"),
                          ("the dog wants to go out but it isn't dry outside.", "it is dry outside"),
                          ("she wants to call home but she can't find her phone.", "she can find her phone")]:
        rec = match_sentence(sentence, but)
        assert rec is not None and rec["precondition"] == pre and rec["label"] == "prevent", sentence


def test_sentence_initial_unless_and_pinks_slot_constraints():
    unless = [by_conjunction()["unless"]]
    rec = match_sentence("unless the gate is locked, the dogs run into the field.", unless)
    assert (rec["action"], rec["precondition"]) == ("the dogs run into the field", "the gate is locked")
    rec = match_sentence("but unless the gate is locked, the dogs run into the field.", unless)
    assert rec["precondition"] == "the gate is locked"
    # a comma inside a trailing slot is no match; a leading slot starts after its last comma
    assert match_sentence("unless the gate is locked, the dogs, cats run out.", unless) is None
    rec = match_sentence("on a cold day, kids wear coats so that they stay warm.", [by_conjunction()["so that"]])
    assert rec["precondition"] == "kids wear coats"
    # fewer than 10 characters in a slot: no match (PInKS), unless loose slots are asked for
    assert match_sentence("dogs bark unless fed.", unless) is None
    assert match_sentence("dogs bark unless fed.", unless, strict_slots=False)["precondition"] == "fed"


def test_captions_keep_person_names_statements_replace_them():
    assert preprocess_caption("Bob Dylan sings with Alice Cooper on stage.") == \
        ["bob dylan sings with alice cooper on stage."]
    rows = list(extract_records([("c", "Bob Dylan sings loudly so that the crowd can hear him.")]))
    assert rows[0]["precondition"] == "bob dylan sings loudly"
    assert preprocess_statement("Bob helps Alice") == "another person helps the person"


def test_caption_corpora_formats(tmp_path, capsys):
    # Conceptual Captions TSV: caption TAB url, no header; the URL is the image, never the text
    cc = tmp_path / "Train_GCC-training.tsv"
    cc.write_text("kids wear warm coats so that they stay warm\thttp://x.org/a.jpg\n"
                  "a line without a tab\n"
                  "the road is wet because it rained all night\thttps://x.org/b.jpg?s=1\n", encoding="utf-8")
    s = Summary()
    images = {}
    assert list(read_captions(cc, summary=s, images=images)) == [
        ("1", "kids wear warm coats so that they stay warm"), ("3", "the road is wet because it rained all night")]
    assert images == {"1": "http://x.org/a.jpg", "3": "https://x.org/b.jpg?s=1"} and "line 2" in s.skipped[0][0]
    out = tmp_path / "cc.jsonl"
    assert main(["prism", "extract", "--captions", str(cc), "--out", str(out)]) == 0
    rows = [json.loads(x) for x in out.read_text().splitlines()]
    assert [r["action"] for r in rows] == ["they stay warm", "the road is wet"]
    assert not any("http" in r["action"] + r["precondition"] for r in rows)
    # COCO captions JSON (and VizWiz, the same layout with rejected / precanned flags)
    coco = tmp_path / "captions_val2014.json"
    coco.write_text(json.dumps({
        "images": [{"id": 7, "file_name": "COCO_val2014_000000000007.jpg"}, {"id": 8, "file_name": "v8.jpg"}],
        "annotations": [{"id": 70, "image_id": 7, "caption": "A man holds an umbrella so that he stays dry."},
                        {"id": 71, "image_id": 8, "caption": "Quality issues are too severe to recognize "
                         "visual content.", "is_precanned": True, "is_rejected": False},
                        {"id": 72, "image_id": 8, "caption": 5},
                        {"id": 73, "image_id": 8, "caption": "A dog sleeps on the sofa unless it is hungry."}]}))
    s, images = Summary(), {}
    got = list(read_captions(coco, summary=s, images=images))
    assert [cid for cid, _ in got] == ["70", "73"]
    assert images == {"70": "COCO_val2014_000000000007.jpg", "73": "v8.jpg"} and len(s.skipped) == 2
    man = tmp_path / "manifest.csv"
    assert main(["prism", "extract", "--captions", str(coco), "--format", "manifest", "--out", str(man)]) == 0
    assert "v8.jpg" in man.read_text()
    # not COCO-shaped JSON, an unknown extension: named errors, nothing written
    (tmp_path / "x.json").write_text('{"captions": []}')
    assert main(["prism", "extract", "--captions", str(tmp_path / "x.json")]) == 1
    assert "annotations" in capsys.readouterr().err
    (tmp_path / "c.parquet").write_text("x")
    assert main(["prism", "extract", "--captions", str(tmp_path / "c.parquet")]) == 2
    err = capsys.readouterr().err
    assert "unknown caption file extension '.parquet'" in err and "c.parquet" in err
    # --input-format overrides the extension
    (tmp_path / "cc.data").write_text("kids wear warm coats so that they stay warm\thttp://x.org/a.jpg\n")
    assert main(["prism", "extract", "--captions", str(tmp_path / "cc.data"), "--input-format", "cc"]) == 0
    assert "http" not in capsys.readouterr().out
