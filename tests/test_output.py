"""kg/output.py: the folded terminal table, --columns, CSV at full precision. Expected cells are
written out by hand from the row values."""
import csv
import io
import json

import pytest

from kg.catalogue import IRI, CatalogueError, Rate, parse_file
from kg.output import ColumnError, choose, fold, rate_cell, render

ID = "https://kg.example/id/"
PASS1 = Rate("pass_at_1", of="cases_at_1", count="passed_at_1", low="pass_at_1_low", high="pass_at_1_high")
PASSK = Rate("pass_at_k", of="cases_at_k", low="pass_at_k_low", high="pass_at_k_high")
DIFF = Rate("difference", of="paired", low="difference_low", high="difference_high", signed=True)


def test_a_rate_cell_carries_its_count_denominator_and_interval():
    row = {"passed_at_1": 14, "cases_at_1": 16, "pass_at_1": 0.875, "pass_at_1_low": 0.6398, "pass_at_1_high": 0.9650}
    assert rate_cell(row, PASS1) == "14/16 87.5% [64.0–96.5]"
    # a mean over cases has no count: its denominator comes after
    row = {"cases_at_k": 28, "pass_at_k": 0.8452, "pass_at_k_low": 0.7598, "pass_at_k_high": 0.9306}
    assert rate_cell(row, PASSK) == "84.5% [76.0–93.1] of 28"
    # a difference of rates, in percentage points with their signs
    row = {"paired": 16, "difference": 0.0625, "difference_low": -0.031, "difference_high": 0.155}
    assert rate_cell(row, DIFF) == "+6.2 pts [-3.1, +15.5] of 16"


def test_a_rate_that_could_not_be_computed_says_so_never_zero():
    row = {"passed_at_1": 0, "cases_at_1": 0, "pass_at_1": None, "pass_at_1_low": None, "pass_at_1_high": None}
    assert rate_cell(row, PASS1) == "0/0 n/a"
    assert rate_cell({"cases_at_k": 0, "pass_at_k": None}, PASSK) == "n/a of 0"
    assert rate_cell({"cases_at_k": None, "pass_at_k": None}, PASSK) == "n/a"  # no denominator: not "n/a of "


COLUMNS = ["system", "grader_kind", "k", "passed_at_1", "cases_at_1", "excluded_grader", "excluded_environment",
           "excluded_cases", "pass_at_1", "pass_at_1_low", "pass_at_1_high"]


def rows():
    return [
        {"system": IRI(ID + "system/cubby@1.4.0"), "grader_kind": "model", "k": 3, "passed_at_1": 14, "cases_at_1": 16,
         "excluded_grader": 2, "excluded_environment": 0, "excluded_cases": 1,
         "pass_at_1": 0.875, "pass_at_1_low": 0.6398, "pass_at_1_high": 0.965},
        {"system": IRI(ID + "system/cubby@1.5.0"), "grader_kind": "human", "k": 3, "passed_at_1": 0, "cases_at_1": 0,
         "excluded_grader": 0, "excluded_environment": 0, "excluded_cases": 0,
         "pass_at_1": None, "pass_at_1_low": None, "pass_at_1_high": None},
    ]


def test_the_table_folds_rates_reasons_and_constant_columns():
    columns, cells, above = fold(COLUMNS, rows(), {"pass_at_1": PASS1})
    assert above == ["k: 3"]
    # excluded_cases is a total in cases, not a reason: it stays a column of its own
    assert columns == ["system", "grader_kind", "excluded", "excluded_cases", "pass_at_1"]
    assert cells[0] == {"system": "cubby@1.4.0", "grader_kind": "model", "excluded": "grader 2",
                        "excluded_cases": "1", "pass_at_1": "14/16 87.5% [64.0–96.5]"}
    assert cells[1]["excluded"] == "none" and cells[1]["pass_at_1"] == "0/0 n/a"


def test_short_ids_grow_until_they_are_told_apart():
    same_tail = [{"system": IRI(ID + "system/agent")}, {"system": IRI("https://other.example/agent")}]
    _, cells, _ = fold(["system"], same_tail, None, {"id": ID})
    assert [c["system"] for c in cells] == ["system/agent", "other.example/agent"]
    # as in the W3C SHACL reports: two implementations whose IRIs both end in /api
    w3c = [{"s": IRI("http://netage.com/shacl/earl/api")}, {"s": IRI("http://topquadrant.com/shacl/api")},
           {"s": IRI("http://aksw.org/projects/RDFUnit")}]
    _, cells, _ = fold(["s"], w3c, None, None)
    assert [c["s"] for c in cells] == ["earl/api", "shacl/api", "RDFUnit"]
    # a grader version and a run read as kg names them: NAME@DIGEST (cut to 12 hex digits), NAME@RUN
    named = [{"s": IRI(ID + "grader/check-state/version/sha256%3A" + "9998e1c09c5a" + "0" * 52)},
             {"s": IRI(ID + "system/mockllm%2Fmodel/run/abc123")}, {"s": IRI(ID + "grader/alice")}]
    _, cells, _ = fold(["s"], named, None, None)
    assert [c["s"] for c in cells] == ["check-state@sha256:9998e1c09c5a", "mockllm/model@abc123", "alice"]
    # a string that only looks like an IRI (a literal) is shown as it is, not cut to a tail
    _, cells, _ = fold(["note"], [{"note": "see https://x.example/a/b"}, {"note": "y"}], None, None)
    assert cells[0]["note"] == "see https://x.example/a/b"


def test_a_narrow_terminal_keeps_what_a_row_is_about_and_its_rates():
    text = render(COLUMNS, rows(), rates={"pass_at_1": PASS1}, width=40)
    lines = text.splitlines()
    # the grader kind stays (a row without it would read as pooled), and so does the rate
    assert lines[1].split() == ["system", "grader_kind", "pass_at_1"]
    below = " ".join(lines[lines.index("(2 rows)") + 1:])
    assert below.startswith("not shown to fit the terminal: excluded, excluded_cases (--wide")
    assert all(len(line) <= 40 for line in lines)
    wide = render(COLUMNS, rows(), rates={"pass_at_1": PASS1}, wide=True, prefixes={"id": ID}, width=40)
    assert wide.splitlines()[0].split() == COLUMNS and "id:system/cubby@1.4.0" in wide


def pass_at_k_rows():
    """Four rows as pass-at-k gives them: two systems of one replay set, two grader kinds each, three rates."""
    out = []
    for system in ("cubby@1.4.0", "cubby@1.5.0-rc1"):
        for kind, grader in (("mechanical", "check-state/version/sha256%3A9998e1c09c5a" + "0" * 52),
                             ("model", "judge-v2/version/sha256%3A34ec69826dd8" + "0" * 52)):
            out.append({"replay_set": IRI(ID + "replayset/cubby-routing"), "suite_kind": "capability",
                        "system": IRI(ID + "system/" + system), "grader_kind": kind, "grader": IRI(ID + "grader/" + grader),
                        "cases": 28, "trials": 84, "excluded_grader": 2, "excluded_environment": 1,
                        "passed_at_1": 14, "cases_at_1": 27, "pass_at_1": 14 / 27, "pass_at_1_low": 0.34, "pass_at_1_high": 0.693,
                        "cases_at_k": 28, "pass_at_k": 0.845, "pass_at_k_low": 0.76, "pass_at_k_high": 0.931,
                        "pass_hat_k": 0.321, "pass_hat_k_low": 0.177, "pass_hat_k_high": 0.466})
    return out


PASS_AT_K = ["replay_set", "suite_kind", "system", "grader_kind", "grader", "cases", "trials", "excluded_grader",
             "excluded_environment", "passed_at_1", "cases_at_1", "pass_at_1", "pass_at_1_low", "pass_at_1_high",
             "cases_at_k", "pass_at_k", "pass_at_k_low", "pass_at_k_high", "pass_hat_k", "pass_hat_k_low", "pass_hat_k_high"]
PASS_AT_K_RATES = {"pass_at_1": PASS1, "pass_at_k": PASSK,
                   "pass_hat_k": Rate("pass_hat_k", of="cases_at_k", low="pass_hat_k_low", high="pass_hat_k_high")}


@pytest.mark.parametrize("width", [60, 80, 120, 200])
def test_the_results_are_never_what_is_left_out_and_every_line_fits(width):
    text = render(PASS_AT_K, pass_at_k_rows(), rates=PASS_AT_K_RATES, width=width)
    lines = text.splitlines()
    assert all(len(line) <= width for line in lines), max(lines, key=len)
    for rate in ("pass_at_1", "pass_at_k", "pass_hat_k"):
        assert any(rate in line.split() for line in lines), rate
    # each rate's value and interval, however it was wrapped (14/27 = 51.9%, interval 34.0-69.3)
    assert "14/27 51.9%" in text and "[34.0–69.3]" in text and "[17.7–46.6]" in text
    # what a row is about is there: each system, each grader kind (as a column or a heading)
    assert "cubby@1.5.0-rc1" in text and "mechanical" in text and "model" in text
    below = " ".join(lines[lines.index("(4 rows)") + 1:])
    assert not {"pass_at_1", "pass_at_k", "pass_hat_k", "grader_kind", "system"} & set(below.replace(",", " ").split())


def test_rows_sharing_their_leading_columns_are_sectioned_before_anything_is_cut():
    lines = render(PASS_AT_K, pass_at_k_rows(), rates=PASS_AT_K_RATES, width=120).splitlines()
    # replay set and suite kind are the same for every row: said once above; the system heads sections
    assert lines[:2] == ["replay_set: cubby-routing", "suite_kind: capability"]
    assert "cubby@1.4.0" in lines and "cubby@1.5.0-rc1" in lines


def test_a_table_no_width_can_hold_is_shown_a_row_at_a_time():
    lines = render(PASS_AT_K, pass_at_k_rows(), rates=PASS_AT_K_RATES, width=30).splitlines()
    assert lines.count("-[ row 1 ]" + "-" * 20) == 1 and all(len(line) <= 30 for line in lines)
    assert any(line.startswith("pass_hat_k") for line in lines)


def test_columns_chooses_in_order_and_refuses_an_unknown_name():
    assert choose(COLUMNS, "pass_at_1, system") == ["pass_at_1", "system"]
    with pytest.raises(ColumnError, match="did you mean .*pass_at_1"):
        choose(COLUMNS, "pass_at1")
    assert json.loads(render(COLUMNS, rows(), "json", chosen="system,k")) == [
        {"system": ID + "system/cubby@1.4.0", "k": 3}, {"system": ID + "system/cubby@1.5.0", "k": 3}]
    # the table with --columns shows what the default table does (short ids, a rate's folded cell,
    # `excluded`); CSV takes `excluded` as each of its counts
    table = render(COLUMNS, rows(), rates={"pass_at_1": PASS1}, chosen="system,excluded,pass_at_1,k", width=200)
    assert table.splitlines()[0].split() == ["system", "excluded", "pass_at_1", "k"]
    assert "cubby@1.4.0  grader 2" in table and "14/16 87.5% [64.0–96.5]" in table and "id:" not in table
    assert render(COLUMNS, rows(), "csv", chosen="system,excluded").splitlines()[0] == \
        "system,excluded_grader,excluded_environment"


def test_csv_keeps_every_digit_and_full_iris():
    row = {"x": 0.20654931437723742, "iri": IRI(ID + "system/a"), "none": None, "flag": True}
    parsed = list(csv.DictReader(io.StringIO(render(["x", "iri", "none", "flag"], [row], "csv"))))
    assert float(parsed[0]["x"]) == row["x"] and parsed[0]["iri"] == ID + "system/a"
    assert parsed[0]["none"] == "" and parsed[0]["flag"] == "true"


def test_iri_short_id_is_the_last_segment_decoded():
    assert IRI(ID + "system/cubby@1.4.0").short == "cubby@1.4.0"
    assert IRI("https://x.example/ns#Thing").short == "Thing"
    assert IRI(ID + "case/a%20b").short == "a b"


def test_a_rate_naming_a_column_the_query_does_not_show_is_refused(tmp_path):
    path = tmp_path / "broken.rq"
    path.write_text("#+ summary: a rate over a hidden column\n#+ columns:\n#+   n: count\n#+   r: rate\n"
                    "#+ hide: [n]\n#+ rates:\n#+   r: {of: n}\n"
                    "SELECT ?n ?r WHERE { BIND(1 AS ?n) BIND(1.0 AS ?r) }\n")
    with pytest.raises(CatalogueError, match=r"rate r names \['n'\]"):
        parse_file(path)
    path.write_text(path.read_text().replace("#+ hide: [n]\n", "").replace("{of: n}", "{per: n}"))
    with pytest.raises(CatalogueError, match="needs {of: DENOMINATOR_COLUMN}"):
        parse_file(path)
