"""The simulator's scenario (data/sim/scenario.yaml), validated with pydantic.

Every input has a value (or names a figure measured in the run logs, or copies another
key), a unit, a source tag (paper | original | experiment | assumption | fitted) and a short
citation. A `fitted` input also carries `fit:` (the quoted figures it was fitted to, the
procedure and the residual), written by `python -m study.sim calibrate` (calibrate.py),
which the build re-runs.
A malformed file fails with a BuildError naming the file, the line and the key.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import yaml

from cit import yamlio
from pydantic import (BaseModel, ConfigDict, Field, StrictBool, ValidationError,
                      field_validator, model_validator)

from cit.errors import BuildError
from cit.reads import Reads

# Figures inputs.py measures in the run logs; an `experiment` entry must name one of them.
MEASURED = ("workers", "n_params", "tokens_per_step", "value_bytes", "target_loss")
LINK_TYPES = ("optics_400g", "optics_800g", "cpo")


class Fit(BaseModel):
    """How a fitted input was computed (written by the calibration, never by hand)."""
    model_config = ConfigDict(extra="forbid", frozen=True)
    figures: list[str] = Field(min_length=1)    # keys of data/sim/quoted.yaml
    procedure: str = Field(min_length=1)
    significant: int = Field(ge=1, le=17)     # the value is recorded to this many figures
    residual: float = Field(ge=0)             # RMS relative residual over `figures`


class Entry(BaseModel):
    """One scenario input as written in the file."""
    model_config = ConfigDict(extra="forbid", frozen=True)
    label: str = Field(min_length=1)
    value: StrictBool | int | float | str | None = None
    measured: str | None = None
    same_as: str | None = None
    unit: str = Field(min_length=1)
    source: Literal["paper", "original", "experiment", "assumption", "fitted"]
    cite: str = Field(min_length=1)
    fit: Fit | None = None

    @field_validator("label", "unit")
    @classmethod
    def _no_digits(cls, v: str) -> str:
        # labels and units appear as plain text on the site, where every digit must be
        # a registered number
        if any(ch.isdigit() for ch in v):
            raise ValueError("must not contain digits (it is shown as text on the site)")
        return v

    @model_validator(mode="after")
    def _one_origin(self):
        given = [k for k in ("value", "measured", "same_as") if getattr(self, k) is not None]
        if len(given) != 1:
            raise ValueError("give exactly one of value, measured, same_as "
                             f"(found {', '.join(given) or 'none'})")
        if (self.source == "experiment") != (self.measured is not None):
            raise ValueError("an entry is `measured` exactly when its source is experiment")
        if (self.source == "fitted") != (self.fit is not None):
            raise ValueError("an entry carries `fit` exactly when its source is fitted")
        if self.fit is not None and not isinstance(self.value, (int, float)):
            raise ValueError("a fitted entry needs a numeric value")
        if self.measured is not None and self.measured not in MEASURED:
            raise ValueError(f"measured must be one of {', '.join(MEASURED)}")
        return self


_pos = dict(gt=0)


class Values(BaseModel):
    """The resolved inputs with their types and ranges (measured ones None until known)."""
    model_config = ConfigDict(extra="forbid", frozen=True)
    workers: int | None = Field(None, gt=0)
    dcs: int = Field(ge=1, le=2)  # the topology has one WAN link: one or two DCs
    wan_bandwidth: float = Field(**_pos)
    wan_distance_km: float = Field(ge=0)
    fibre_us_per_km: float = Field(ge=0)
    nic_bandwidth: float = Field(**_pos)
    intra_dc_latency_us: float = Field(ge=0)
    target_loss: float | None = None
    e_planes: int = Field(gt=0)
    n_params: int | None = Field(None, gt=0)
    tokens_per_step: int | None = Field(None, gt=0)
    value_bytes: float | None = Field(None, gt=0)
    training_flops_per_param_token: float = Field(**_pos)
    gpu_peak_flops: float = Field(**_pos)
    gpu_power: float = Field(ge=0)
    utilisation: float = Field(gt=0, le=1)
    gpu_flops_per_multiply_add: float = Field(**_pos)
    dct2d_multiply_adds_per_value: float = Field(ge=0)
    module_port_rate: float = Field(**_pos)
    module_budget_min: float = Field(**_pos)
    module_budget_max: float = Field(**_pos)
    module_budget: float = Field(**_pos)
    band_direct_flops_per_value: float = Field(**_pos)
    fft_flops_per_value: float = Field(**_pos)
    module_uses_fft: StrictBool
    module_ops_per_multiply_add: float = Field(**_pos)
    transform_counts_against_budget: StrictBool
    optics_400g_pj_per_bit: float = Field(ge=0)
    optics_800g_pj_per_bit: float = Field(ge=0)
    cpo_pj_per_bit: float = Field(ge=0)
    intra_link_type: Literal["optics_400g", "optics_800g", "cpo"]
    wan_link_type: Literal["optics_400g", "optics_800g", "cpo"]
    optics_800g_w: float = Field(ge=0)
    module_power: float = Field(ge=0)
    simulated_steps: int = Field(gt=0)
    sweep_min: float = Field(**_pos)
    sweep_max: float = Field(**_pos)
    sweep_points_per_decade: int = Field(gt=0)
    bisection_iterations: int = Field(gt=0, le=200)
    collective_layout: Literal["hierarchical", "flat-ring"]

    @model_validator(mode="after")
    def _ranges(self):
        if self.sweep_min >= self.sweep_max:
            raise ValueError("sweep_min must be below sweep_max")
        if self.module_budget_min > self.module_budget_max:
            raise ValueError("module_budget_min must not exceed module_budget_max")
        if self.workers is not None and self.workers % self.dcs:
            raise ValueError(f"{self.workers} workers do not split evenly over {self.dcs} "
                             "data centres")
        return self


@dataclass(frozen=True)
class Scenario:
    """The validated file: entries in file order, each with its line, and the values
    known without the run logs. `resolve(measured)` gives the complete `Values`."""
    path: str
    entries: dict[str, Entry]
    lines: dict[str, int]
    static: Values

    def line_of(self, key: str) -> str:
        return f"{self.path}:{self.lines.get(key, 1)}"

    def raw(self, key: str, measured: dict | None = None):
        e = self.entries[key]
        if e.measured is not None:
            if measured is None or e.measured not in measured:
                raise BuildError(self.line_of(key), f"inputs.{key}: measured figure "
                                 f"{e.measured!r} was not supplied by the run logs")
            return measured[e.measured]
        if e.same_as is not None:
            return self.raw(e.same_as, measured)
        return e.value

    def resolve(self, measured: dict) -> Values:
        vals = {k: self.raw(k, measured) for k in self.entries}
        values = _validate(vals, self)
        for key in MEASURED:
            if getattr(values, key) is None:
                raise BuildError(self.line_of(""), f"inputs.{key}: required input missing "
                                 f"(an experiment entry with `measured: {key}`)")
        return values


def _validate(vals: dict, scen_like) -> Values:
    try:
        return Values.model_validate(vals)
    except ValidationError as e:
        err = e.errors()[0]
        key = str(err["loc"][0]) if err["loc"] else ""
        if not key:
            # a rule across inputs: point at the first input its message names
            named = [k for k in Values.model_fields if k in err["msg"]]
            key = named[0] if named else ""
        where = scen_like.line_of(key) if key else scen_like.line_of("")
        what = f"inputs.{key}" if key else "inputs"
        if err["type"] == "missing":
            raise BuildError(where, f"{what}: required input missing") from None
        if err["type"] == "extra_forbidden":
            raise BuildError(where, f"{what}: unknown input") from None
        raise BuildError(where, f"{what}: {err['msg']}") from None


def _key_lines(text: str, path: str) -> tuple[int, dict[str, int], dict[str, dict[str, int]]]:
    """Line numbers (1-based) of `inputs:`, of each key under it, and of each field."""
    try:
        root = yamlio.compose(text, path)
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        line = mark.line + 1 if mark else 1
        raise BuildError(f"{path}:{line}", f"not valid YAML: {e}") from None
    if root is None or not isinstance(root, yaml.MappingNode):
        raise BuildError(f"{path}:1", "the file must be a mapping with an `inputs:` key")
    inputs_line, keys, fields = 1, {}, {}
    for knode, vnode in root.value:
        if knode.value != "inputs":
            continue
        inputs_line = knode.start_mark.line + 1
        if not isinstance(vnode, yaml.MappingNode):
            raise BuildError(f"{path}:{inputs_line}", "`inputs` must be a mapping")
        for k2, v2 in vnode.value:
            keys[k2.value] = k2.start_mark.line + 1
            if isinstance(v2, yaml.MappingNode):
                fields[k2.value] = {k3.value: k3.start_mark.line + 1 for k3, _ in v2.value}
    return inputs_line, keys, fields


def load_scenario(path: Path, display: str = "data/sim/scenario.yaml",
                  reads: Reads | None = None) -> Scenario:
    """Read (through `reads`, cit/reads.py) and validate the scenario file; errors name
    `display`:line and the key."""
    text = (reads or Reads.beside(path)).maybe_text(path)
    if text is None:
        raise BuildError(display, "scenario file missing")
    inputs_line, key_lines, field_lines = _key_lines(text, display)
    raw = yamlio.load(text, display)
    if set(raw) != {"inputs"}:
        extra = sorted(set(raw) - {"inputs"})
        raise BuildError(f"{display}:1", f"unknown top-level key(s) {extra}; only `inputs`")
    inputs = raw["inputs"] or {}
    entries = {}
    for key, body in inputs.items():
        where = f"{display}:{key_lines.get(key, inputs_line)}"
        if not isinstance(body, dict):
            raise BuildError(where, f"inputs.{key}: must be a mapping with value, unit, "
                             "source and cite")
        try:
            entries[key] = Entry.model_validate(body)
        except ValidationError as e:
            err = e.errors()[0]
            field = str(err["loc"][0]) if err["loc"] else ""
            line = field_lines.get(key, {}).get(field, key_lines.get(key, inputs_line))
            name = f"inputs.{key}.{field}" if field else f"inputs.{key}"
            msg = "required field missing" if err["type"] == "missing" else err["msg"]
            raise BuildError(f"{display}:{line}", f"{name}: {msg}") from None
    for key, e in entries.items():
        if e.measured is not None and e.measured != key:
            raise BuildError(f"{display}:{field_lines[key].get('measured', key_lines[key])}",
                             f"inputs.{key}: a measured entry must carry its own name "
                             f"(measured: {key})")
        if e.same_as is not None and (e.same_as not in entries
                                      or entries[e.same_as].same_as is not None):
            raise BuildError(f"{display}:{key_lines[key]}",
                             f"inputs.{key}: same_as must name another key that has a value")
    lines = dict(key_lines)
    lines[""] = inputs_line
    stub = Scenario(display, entries, lines, None)  # type: ignore[arg-type]
    static = {k: stub.raw(k) for k, e in entries.items() if e.measured is None}
    values = _validate(static, stub)
    return Scenario(display, entries, lines, values)
