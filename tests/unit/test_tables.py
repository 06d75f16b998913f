"""Both upstream results.md files are recomputed from the logs, number for number."""

import re

import pytest

from study import resultsmd, tables
from cit.errors import BuildError
from study.runs import load_folder
from tests.conftest import edit_cell

TS = "results/tinystories-gpu"
SH = "results/shakespeare-optics-check"


@pytest.fixture(scope="module")
def ts_doc(vendored_root):
    return tables.tinystories_doc(load_folder(vendored_root / TS, TS), f"{TS}/results.md")


@pytest.fixture(scope="module")
def sh_doc(vendored_root, study):
    return tables.shakespeare_doc(load_folder(vendored_root / SH, SH), f"{SH}/results.md",
                                  study["shakespeare"]["rows"])


def _text(vendored_root, rel):
    return (vendored_root / rel / "results.md").read_text()


def test_tinystories_results_md_is_recomputed_n_of_n(ts_doc, vendored_root):
    text = _text(vendored_root, TS)
    checked = resultsmd.check(ts_doc, text, "results.md")
    n = len(re.findall(r"\d+", text))
    print(f"tinystories-gpu results.md: {checked.verified} of {checked.total} numbers verified")
    assert checked.verified == checked.total == n > 0


def test_shakespeare_results_md_is_recomputed_n_of_n(sh_doc, vendored_root):
    text = _text(vendored_root, SH)
    checked = resultsmd.check(sh_doc, text, "results.md")
    n = len(re.findall(r"\d+", text))
    print(f"shakespeare-optics-check results.md: {checked.verified} of {checked.total} "
          "numbers verified")
    assert checked.verified == checked.total == n > 0


@pytest.mark.parametrize("section_index,row_index,col_index", [(0, 1, 2), (1, 5, 4), (2, 3, 2)])
def test_an_edited_tinystories_cell_names_section_row_column_and_both_strings(
        ts_doc, vendored_root, section_index, row_index, col_index):
    text, cells, col, old, new = edit_cell(_text(vendored_root, TS), section_index,
                                           row_index, col_index)
    label = cells[0]
    with pytest.raises(BuildError) as e:
        resultsmd.check(ts_doc, text, "results.md")
    msg = str(e.value)
    assert f"§{section_index + 1} row \"{label}" in msg
    assert f"col \"{col}\"" in msg and f'"{new}"' in msg and f'"{old}"' in msg


def test_an_edited_shakespeare_cell_names_row_column_and_both_strings(sh_doc, vendored_root):
    text, _, col, old, new = edit_cell(_text(vendored_root, SH), 0, 3, 4)
    with pytest.raises(BuildError) as e:
        resultsmd.check(sh_doc, text, "results.md")
    msg = str(e.value)
    assert f'col "{col}"' in msg and f'"{new}"' in msg and f'"{old}"' in msg


def test_an_edited_prose_number_names_its_line(ts_doc, vendored_root):
    text = _text(vendored_root, TS)
    target = ts_doc.prose[3][0].text           # the target loss as results.md prints it
    i = text.index(target)
    edited = text[:i] + target[:-1] + str((int(target[-1]) + 1) % 10) + text[i + len(target):]
    line = text[:i].count("\n") + 1
    with pytest.raises(BuildError) as e:
        resultsmd.check(ts_doc, edited, "results.md")
    assert str(e.value).startswith(f"results.md:{line}: exp.target")


def test_an_unaccounted_number_fails_coverage_naming_its_line(ts_doc, vendored_root):
    text = _text(vendored_root, TS) + "\nA stray line ending in a number: 7\n"
    with pytest.raises(BuildError) as e:
        resultsmd.check(ts_doc, text, "results.md")
    line = len(text.split("\n")) - 1
    assert str(e.value).startswith(f"results.md:{line}: numbers ['7'] that the "
                                   "recomputation does not name (")


def test_a_prose_line_with_a_number_added_in_the_middle_is_named(ts_doc, vendored_root):
    """Issue 23's review (C4): the error said `7 prose lines carry numbers, recomputation
    names quantities for 6`, naming no line."""
    lines = _text(vendored_root, TS).split("\n")
    at = next(i for i, l in enumerate(lines) if l.startswith("## ")) - 1   # before §1
    lines[at:at] = ["", "A stray line with 17 in it."]
    with pytest.raises(BuildError) as e:
        resultsmd.check(ts_doc, "\n".join(lines), "results.md")
    n = len(ts_doc.prose)
    assert str(e.value) == (f"results.md:{at + 2}: numbers ['17'] that the recomputation "
                            f"does not name ({n + 1} prose lines carry numbers, "
                            f"recomputation names quantities for {n})")


def test_a_missing_prose_line_is_named_by_the_lines_around_it(ts_doc, vendored_root):
    text = _text(vendored_root, TS)
    target = ts_doc.prose[3][0]                # the target line's quantity
    lines = text.split("\n")
    k = next(i for i, l in enumerate(lines) if target.text in l and not l.startswith("|"))
    numbered = [i + 1 for i, l in enumerate(lines)
                if resultsmd.TOKEN.search(l) and not l.startswith(("|", "#"))]
    before, after = numbered[numbered.index(k + 1) - 1], numbered[numbered.index(k + 1) + 1]
    del lines[k]
    with pytest.raises(BuildError) as e:
        resultsmd.check(ts_doc, "\n".join(lines), "results.md")
    assert str(e.value).startswith(
        f"results.md:{after - 1}: a prose line with ['{target.id}'] is missing before "
        f"this line (after line {before}) (")


def test_group_statistics_use_the_sample_standard_deviation():
    mean, sd = tables.stats([1.0, 2.0, 3.0, float("nan")])
    assert (mean, sd) == (2.0, 1.0)
    assert tables.stats([5.0]) == (5.0, 0.0)
    assert tables.stats([]) == (None, None)


def test_the_upstream_bound_cells_use_only_upstream_formats():
    """study/tables.py makes every cell checked against upstream's results.md: it may take
    from cit/fmt.py only the formats marked as upstream's (UPSTREAM_FORMATS, docs/numbers.md),
    so a change to any other format cannot reach those cells."""
    import ast
    from pathlib import Path
    from cit.fmt import UPSTREAM_FORMATS
    tree = ast.parse(Path(tables.__file__).read_text(encoding="utf-8"))
    taken = {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
             and n.module == "cit.fmt" for a in n.names}
    assert taken and taken <= UPSTREAM_FORMATS, taken - UPSTREAM_FORMATS


def test_stats_gives_pandas_mean_and_sd_to_the_last_bit():
    """tables.stats computes in numpy by pandas' formula: the same floats as
    Series.mean() and Series.std(ddof=1), NaN dropped, over lengths 0 to 40 and values
    across six orders of magnitude."""
    import math
    import random
    import pandas as pd
    from study.tables import stats
    rng = random.Random(29)
    for n in list(range(41)) * 20:
        values = [rng.uniform(2, 6) * 10 ** rng.randint(-3, 3) for _ in range(n)]
        if n and rng.random() < 0.2:
            values[rng.randrange(n)] = math.nan
        s = pd.Series(values, dtype="float64").dropna()
        want = ((None, None) if s.empty else
                (float(s.mean()), float(s.std(ddof=1)) if len(s) > 1 else 0.0))
        assert stats(values) == want, values
