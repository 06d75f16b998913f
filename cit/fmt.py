"""The one place numbers become text, so the same number never prints two ways."""

import math


def missing(x) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def fmt(x, d: int) -> str:
    """`n/a` when missing, else thousands separators and exactly d decimals."""
    if missing(x):
        return "n/a"
    return f"{x:,.{d}f}"


def fmt_int(x) -> str:
    return fmt(x, 0)


def fmt_pct(x, d: int = 2) -> str:
    """A fraction shown as a percentage (x 100) with d decimals and a % sign."""
    return "n/a" if missing(x) else fmt(x * 100, d) + "%"


def fmt_ratio(x, d: int = 1) -> str:
    """A ratio shown as `8.0x`."""
    return "n/a" if missing(x) else fmt(x, d) + "x"


def fmt_general(x) -> str:
    """Shortest general form of a float: 8.0 -> `8`, 0.001 -> `0.001`."""
    return f"{x:g}"


def fmt_sig(x, sig: int = 3) -> str:
    """x to `sig` significant figures, with thousands separators, no exponent."""
    if missing(x):
        return "n/a"
    if x == 0:
        return fmt(0, sig - 1)
    digits = sig - 1 - math.floor(math.log10(abs(x)))
    rounded = round(x, digits)
    # rounding can carry into a new decade (9.996 -> 10.0): recompute the decimals
    digits = sig - 1 - math.floor(math.log10(abs(rounded))) if rounded else digits
    return fmt(rounded, max(digits, 0))


# Named unit formats: a value in its SI base unit (seconds, joules, bytes, bytes per
# second) printed in the unit the site shows it in, the same way at every call site.

def fmt_ms(seconds, d: int = 3) -> str:
    """Seconds shown in milliseconds, `d` decimals."""
    return "n/a" if missing(seconds) else fmt(seconds * 1e3, d)


def fmt_kj(joules, d: int = 2) -> str:
    """Joules shown in kilojoules, `d` decimals."""
    return "n/a" if missing(joules) else fmt(joules / 1e3, d)


def fmt_mb(nbytes, d: int = 1) -> str:
    """Bytes shown in megabytes (10^6 bytes), `d` decimals."""
    return "n/a" if missing(nbytes) else fmt(nbytes / 1e6, d)


def fmt_gb(nbytes, d: int = 2) -> str:
    """Bytes shown in gigabytes (10^9 bytes), `d` decimals."""
    return "n/a" if missing(nbytes) else fmt(nbytes / 1e9, d)


def fmt_gbps(bytes_per_s, sig: int = 3) -> str:
    """A bandwidth in bytes per second shown in GB/s, `sig` significant figures."""
    return "n/a" if missing(bytes_per_s) else fmt_sig(bytes_per_s / 1e9, sig)


def fmt_plain(x) -> str:
    """An integer with no separators (as prose prints step counts: `3000`)."""
    return "n/a" if missing(x) else str(int(x))


def fmt_sci(x) -> str:
    """Short scientific form without exponent padding: 0.001 -> `1e-3`."""
    mantissa, exp = f"{x:e}".split("e")
    return f"{float(mantissa):g}e{int(exp)}"


def fmt_sci_sig(x, sig: int = 2) -> str:
    """A tiny share in short scientific form to `sig` significant figures: `1.6e-5`."""
    return "n/a" if missing(x) else fmt_sci(float(f"{x:.{sig - 1}e}"))


# how a chart's fallback table shows a series value, by the name its axis gives
SERIES_FORMATS = {"int": fmt_int, "dec3": lambda v: fmt(v, 3), "sig3": fmt_sig}


def series_text(v, name: str) -> str:
    """A series value as a chart's fallback table shows it: format `name` of
    SERIES_FORMATS, or "n/a" for a missing or non-finite value."""
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "n/a"
    return SERIES_FORMATS[name](v)


def series_cell(s, i: int, name: str, ranged: bool) -> str:
    """Cell i of series `s` in a fallback table: y, and when `ranged` and the series
    has lo/hi that differ there, the lowest and highest seed in brackets (a single
    seed, lo == hi, needs none)."""
    y = series_text(s.y[i], name)
    lo, hi = s.extra.get("lo"), s.extra.get("hi")
    if not ranged or lo is None or hi is None or lo[i] == hi[i]:
        return y
    return f"{y} ({series_text(lo[i], name)} to {series_text(hi[i], name)})"
