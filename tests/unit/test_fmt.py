"""cit/fmt.py, the one place numbers become text, and the small shared text helpers
(cit/markup.py wrap_text, cit/pipetable.py)."""

import math

import pytest

from cit.fmt import (SERIES_FORMATS, fmt, fmt_gb, fmt_gbps, fmt_general, fmt_int, fmt_kj,
                     fmt_mb, fmt_ms, fmt_pct, fmt_plain, fmt_ratio, fmt_sci, fmt_sci_sig,
                     fmt_sig, series_cell, series_text)
from cit.markup import json_for_script, wrap_text
from cit.pipetable import is_separator, read_table, split_row
from cit.registry import Series


def test_fmt_gives_thousands_separators_and_exactly_d_decimals():
    assert fmt(1234567.891, 2) == "1,234,567.89"
    assert fmt(3, 3) == "3.000"
    assert fmt_int(1234567) == "1,234,567"


@pytest.mark.parametrize("missing", [None, float("nan")])
def test_every_formatter_prints_a_missing_value_as_n_a(missing):
    for f in (lambda x: fmt(x, 1), fmt_int, fmt_pct, fmt_ratio, fmt_sig, fmt_plain, fmt_sci_sig,
              fmt_ms, fmt_kj, fmt_mb, fmt_gb, fmt_gbps):
        assert f(missing) == "n/a"


def test_percentages_ratios_and_plain_integers():
    assert fmt_pct(0.0123) == "1.23%"
    assert fmt_pct(0.5, 1) == "50.0%"
    assert fmt_ratio(8) == "8.0x"
    assert fmt_plain(3000.0) == "3000"


def test_named_unit_formats_take_the_si_unit_and_print_the_sites():
    assert fmt_ms(0.0123456) == "12.346"
    assert fmt_kj(12345.6) == "12.35"
    assert fmt_mb(12_345_678) == "12.3"
    assert fmt_gb(1_234_567_890) == "1.23"
    assert fmt_gbps(12_345_678_901) == "12.3"


def test_significant_figures_carry_into_the_next_decade():
    assert fmt_sig(1234.5) == "1,230"
    assert fmt_sig(0.012345) == "0.0123"
    assert fmt_sig(9.996) == "10.0"
    assert fmt_sig(0) == "0.00"


def test_short_general_and_scientific_forms():
    assert fmt_general(8.0) == "8"
    assert fmt_general(0.001) == "0.001"
    assert fmt_sci(0.001) == "1e-3"
    assert fmt_sci_sig(0.0000163) == "1.6e-5"


def test_series_cells_show_the_seed_range_only_where_seeds_differ():
    s = Series("s", (1, 2), (1.5, 2.25), {"lo": (1.25, 2.25), "hi": (1.75, 2.25)},
               "measured", (), "", "")
    assert series_cell(s, 0, "dec3", True) == "1.500 (1.250 to 1.750)"
    assert series_cell(s, 1, "dec3", True) == "2.250"
    assert series_cell(s, 0, "dec3", False) == "1.500"
    assert series_text(math.inf, "dec3") == "n/a"
    assert set(SERIES_FORMATS) == {"int", "dec3", "sig3"}


def test_wrap_text_breaks_words_or_phrases_at_the_width():
    assert wrap_text("one two three four", 9) == ["one two", "three", "four"]
    assert wrap_text("a, bb, ccc", 6, ", ") == ["a, bb,", "ccc"]
    assert wrap_text("unbreakablelongword", 4) == ["unbreakablelongword"]
    assert wrap_text("", 10) == []


def test_json_for_a_script_element_cannot_close_it():
    text = json_for_script({"b": "</script>", "a": "&"})
    assert "</" not in text and text.index('"a"') < text.index('"b"')


def test_one_pipe_table_reader_for_both_results_files():
    lines = ["| A | B |", "|---|--:|", "| 1 | x |", "| 2 | y |", "", "prose"]
    assert split_row(lines[0]) == ["A", "B"]
    assert is_separator(split_row(lines[1])) and not is_separator(split_row(lines[2]))
    header, body, after = read_table(lines, 0)
    assert header == ["A", "B"]
    assert body == [(3, ["1", "x"]), (4, ["2", "y"])]
    assert lines[after] == ""
