"""cit/fmt.py, the one place numbers become text, and the small shared text helpers
(cit/markup.py wrap_text, cit/pipetable.py)."""

import math

import pytest

from cit import fmt as fmt_module
from cit.fmt import (GB, GBPS, GFLOPS, GVALUES, KJ, MB, MS, PCT, PJ, SECONDS, TFLOPS,
                     UPSTREAM_FORMATS, US, SERIES_FORMATS, Unit, fmt, fmt_gb, fmt_gbps,
                     fmt_general, fmt_int, fmt_kj, fmt_mb, fmt_ms, fmt_pct, fmt_plain, fmt_ratio,
                     fmt_sci, fmt_sci_sig, fmt_sig, series_cell, series_text)

UNITS = (SECONDS, MS, US, KJ, MB, GB, GBPS, TFLOPS, GFLOPS, GVALUES, PJ, PCT)
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


@pytest.mark.parametrize("missing", [None, float("nan")])
@pytest.mark.parametrize("unit", UNITS, ids=lambda u: u.label)
def test_every_unit_prints_a_missing_value_as_n_a_without_its_label(unit, missing):
    assert unit.text(missing) == "n/a"
    assert unit.labelled(missing) == "n/a"
    assert unit.text(missing, scaled=True) == "n/a"


def test_a_unit_converts_by_its_power_of_ten_both_ways():
    # a display unit is 10**exp10 base units: MB 10^6 bytes, ms 10^-3 s, % 10^-2
    assert MB.of(2_500_000) == 2.5
    assert MS.of(0.25) == 250.0
    assert PCT.of(0.5) == 50.0
    assert GBPS.base(2.5) == 2.5e9
    assert US.base(3) == 3e-6
    assert PJ.base(4) == 4e-12
    assert MB.of(None) is None and MB.base(None) is None
    for u in UNITS:
        assert u.of(u.base(1.0)) == 1.0


def test_each_unit_prints_its_default_precision_and_label():
    assert SECONDS.labelled(12.3456) == "12.35 s"             # 2 decimals
    assert MS.labelled(0.0123456) == "12.346 ms"              # 12.3456 ms, 3 decimals
    assert US.labelled(0.0000123) == "12.30 µs"               # 12.3 µs, 2 decimals
    assert KJ.labelled(12345.6) == "12.35 kJ"                 # 12.3456 kJ, 2 decimals
    assert MB.labelled(12_345_678) == "12.3 MB"               # 12.345678 MB, 1 decimal
    assert GB.labelled(1_234_567_890) == "1.23 GB"            # 1.23456789 GB, 2 decimals
    assert GBPS.labelled(12_345_678_901) == "12.3 GB/s"       # 3 significant figures
    assert TFLOPS.labelled(1.234e14) == "123.4 TFLOP/s"       # 123.4, 1 decimal
    assert GFLOPS.labelled(1.2344e12) == "1,234 GFLOP/s"      # 1234.4, 0 decimals
    assert GVALUES.labelled(2e9) == "2.000 billion values/s"  # 2, 3 decimals
    assert PCT.labelled(0.125) == "12.50%"                    # 12.5, 2 decimals, no space


def test_unit_rounding_carries_and_keeps_thousands_separators():
    assert MB.text(999_999_960) == "1,000.0"        # 999.99996 MB rounds up to 1,000.0
    assert MS.text(0.0099996) == "10.000"           # 9.9996 ms
    assert GBPS.text(9.996e9) == "10.0"             # 9.996 to 3 significant figures
    assert KJ.text(1_234_567.891) == "1,234.57"
    assert MB.text(1_234_567_000_000) == "1,234,567.0"


def test_a_quantity_may_override_a_units_precision_or_give_its_value_scaled():
    assert US.text(0.0000123, 1) == "12.3"
    assert GBPS.text(12_345_678_901, 0, sig=False) == "12"       # fixed decimals, not sig
    assert GBPS.labelled(12.5, 1, sig=False, scaled=True) == "12.5 GB/s"
    assert GFLOPS.text(1234.4, scaled=True) == "1,234"           # already in GFLOP/s
    assert PCT.labelled(0.0123, 1, signed=True) == "+1.2%"
    assert PCT.labelled(-0.0123, 1, signed=True) == "-1.2%"
    assert PCT.text(12.3456, 1, signed=True) == "+1,234.6"       # 1234.56, separators kept


def test_the_named_functions_are_their_units():
    for x in (0.0123456, 12_345_678.0, 9.996e9):
        assert fmt_ms(x) == MS.text(x) and fmt_kj(x) == KJ.text(x)
        assert fmt_mb(x) == MB.text(x) and fmt_gb(x) == GB.text(x)
        assert fmt_gbps(x) == GBPS.text(x) and fmt_pct(x) == PCT.labelled(x)


def test_a_conversion_in_words_names_the_factor():
    assert MB.how == "÷ 1e6"
    assert MS.how == "× 1e3"
    assert PCT.how == "× 100"


def test_the_upstream_formats_are_names_of_the_module():
    for name in UPSTREAM_FORMATS:
        f = getattr(fmt_module, name)
        assert callable(f) or isinstance(f, Unit)


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
