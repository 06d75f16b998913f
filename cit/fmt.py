"""The one place numbers become text, so the same number never prints two ways: plain
formats, the named units (docs/numbers.md, "Units") and the formats upstream's
results.md is printed in (UPSTREAM_FORMATS; "Upstream's formats")."""

import math
from dataclasses import dataclass


def missing(x) -> bool:
    return x is None or (isinstance(x, float) and math.isnan(x))


def fmt(x, d: int) -> str:
    """`n/a` when missing, else thousands separators and exactly d decimals."""
    if missing(x):
        return "n/a"
    return f"{x:,.{d}f}"


def fmt_int(x) -> str:
    return fmt(x, 0)


def fmt_pct(x, d: int | None = None) -> str:
    """A fraction shown as a percentage with its % sign (PCT): upstream's format."""
    return PCT.labelled(x, d)


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
# second, FLOP/s, a fraction) printed in the unit the site shows it in, the same way at
# every call site (docs/numbers.md, "Units"). One `Unit` gives both the value in the
# display unit (for the registry and charts) and its text, so the two cannot disagree;
# changing how a unit prints is an edit of its line below.

def _p10(e: int) -> float:
    """10**e as the literal `1e{e}` reads (exact for the powers used here)."""
    return float(f"1e{e}")


@dataclass(frozen=True)
class Unit:
    """A display unit 10**exp10 times its base unit (MB: 6, ms: -3, %: -2), printed with
    `digits` decimals, or `digits` significant figures when `sig`."""
    label: str          # as pages print it after the number: "MB", "µs", "%"
    exp10: int
    digits: int
    sig: bool = False
    joiner: str = " "   # between the number and the label ("" for %)

    def of(self, x):
        """x (base unit) in the display unit; None stays None."""
        if x is None:
            return None
        return x / _p10(self.exp10) if self.exp10 >= 0 else x * _p10(-self.exp10)

    def base(self, v):
        """v, given in the display unit (as a scenario file types it), in the base unit."""
        return None if v is None else v * _p10(self.exp10)

    def text(self, x, digits: int | None = None, *, sig: bool | None = None,
             scaled: bool = False, signed: bool = False) -> str:
        """x as the site prints it, without the label; `scaled`: x is already in the
        display unit; `digits`/`sig` override the unit's precision for one quantity;
        `signed`: a leading + on positive values."""
        if missing(x):
            return "n/a"
        v = x if scaled else self.of(x)
        d = self.digits if digits is None else digits
        if self.sig if sig is None else sig:
            return fmt_sig(v, d)
        return f"{v:+,.{d}f}" if signed else fmt(v, d)

    def after(self, text: str) -> str:
        """A number's text followed by this unit's label: `12.3 MB`, `1.50%`."""
        return f"{text}{self.joiner}{self.label}"

    def labelled(self, x, digits: int | None = None, **kw) -> str:
        """`text` followed by the label: `12.3 MB`, `1.50%`; a missing x is `n/a` alone."""
        return "n/a" if missing(x) else self.after(self.text(x, digits, **kw))

    @property
    def how(self) -> str:
        """The conversion in words for a registry computation: `÷ 1e6`, `× 100`."""
        n = abs(self.exp10)
        factor = "100" if n == 2 else f"1e{n}"
        return f"÷ {factor}" if self.exp10 > 0 else f"× {factor}"


SECONDS = Unit("s", 0, 2)
MS = Unit("ms", -3, 3)                     # seconds shown in milliseconds
US = Unit("µs", -6, 2)                     # seconds shown in microseconds
KJ = Unit("kJ", 3, 2)                      # joules shown in kilojoules
MB = Unit("MB", 6, 1)                      # bytes shown in megabytes (10^6): upstream's
GB = Unit("GB", 9, 2)                      # bytes shown in gigabytes (10^9)
GBPS = Unit("GB/s", 9, 3, sig=True)        # bytes per second shown in GB/s
TFLOPS = Unit("TFLOP/s", 12, 1)            # FLOP per second shown in TFLOP/s
GFLOPS = Unit("GFLOP/s", 9, 0)             # FLOP per second shown in GFLOP/s
GVALUES = Unit("billion values/s", 9, 3)   # values per second shown in billions
PJ = Unit("pJ", -12, 2)                    # joules shown in picojoules
PCT = Unit("%", -2, 2, joiner="")          # a fraction shown as a percentage: upstream's

# The formats whose output reproduces upstream's results.md character for character
# (docs/numbers.md, "Upstream's formats"): the cells checked against it use only these.
UPSTREAM_FORMATS = frozenset({"fmt", "fmt_int", "fmt_pct", "fmt_ratio", "fmt_plain",
                              "fmt_sci", "fmt_general", "MB", "PCT"})


def fmt_ms(seconds, d: int | None = None) -> str:
    """Seconds shown in milliseconds (MS)."""
    return MS.text(seconds, d)


def fmt_kj(joules, d: int | None = None) -> str:
    """Joules shown in kilojoules (KJ)."""
    return KJ.text(joules, d)


def fmt_mb(nbytes, d: int | None = None) -> str:
    """Bytes shown in megabytes (MB)."""
    return MB.text(nbytes, d)


def fmt_gb(nbytes, d: int | None = None) -> str:
    """Bytes shown in gigabytes (GB)."""
    return GB.text(nbytes, d)


def fmt_gbps(bytes_per_s, sig: int | None = None) -> str:
    """A bandwidth in bytes per second shown in GB/s (GBPS, significant figures)."""
    return GBPS.text(bytes_per_s, sig)


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
