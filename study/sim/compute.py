"""Run the simulator: scenario + measured inputs -> every figure of data/sim/results.md.

Times and energies at the default WAN and on the sweep grid come from the SimPy model
(des.py), which must agree with the closed form (closed.py) to 1e-9 relative there (no
transfer in these schedules shares a link with another). Break-evens are found by
bisection on the closed form, whose sign changes the simulated sweep confirms.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from cit.errors import BuildError
from cit.fmt import GBPS, GFLOPS, GVALUES, PJ, TFLOPS, US
from cit.reads import Reads
from ..runs import Folder, load_folder
from . import calibrate, closed, counterfactual, des, interval
from .closed import BREAKEVENS, VARIANTS, BreakEven, Params, Step, breakeven_pair
from .inputs import Inputs, OpticsRun, load_inputs
from .quoted import QUOTED, QuotedFile, load_quoted
from .scenario import Scenario, Values, load_scenario

ROOT = Path(__file__).resolve().parents[2]

AGREE = 1e-9          # DES vs closed form, relative

@dataclass
class EnobRow:
    run: OpticsRun
    e_vs_a: BreakEven
    eprime_vs_a: BreakEven


@dataclass
class Computed:
    """Everything results.md shows, plus what produced it."""
    scenario: Scenario
    values: Values
    inputs: Inputs
    params: Params
    controls: dict                      # the explorer's knobs at their recorded settings
    steps: dict                         # variant key -> mean steps or None
    default: dict                       # mech -> DES Step at the default WAN
    closed_default: dict                # mech -> closed-form Step at the default WAN
    spread: float                       # largest relative step-to-step spread seen
    grid: list                          # bytes/s
    sweep: dict                         # mech -> [DES step seconds at each grid point]
    breakevens: dict                    # id suffix -> BreakEven
    enob: list                          # EnobRow, in table order
    enob_breakeven: tuple | None        # (OpticsRun, variant label) or None
    quoted: QuotedFile | None = None    # the original's figures (data/sim/quoted.yaml)
    calibration: object = None          # calibrate.Calibration of the fitted inputs
    sweep_flat_a: list = field(default_factory=list)  # A under the flat ring, per grid bw
    files: tuple = field(default_factory=tuple)
    # the evaluation grid's interval (interval.py): variant key -> (fewest, most) steps or
    # None; break-even id -> (BreakEven at the first variant's fewest, at its most); per
    # ENOB row {end: interval.EnobEnd}; {end: the break-even ENOB there}
    ends: dict = field(default_factory=dict)
    breakeven_ends: dict = field(default_factory=dict)
    enob_ends: list = field(default_factory=list)
    enob_breakeven_ends: dict = field(default_factory=dict)
    # counterfactual.py: Outcome per case; variant key -> WAN bytes to target (grid,
    # fewest, most) or None
    counterfactuals: list = field(default_factory=list)
    wan_to_target: dict = field(default_factory=dict)
    # counterfactual.py: E′ with what its model leaves out charged; E one evaluation later
    charged: object = None
    later: object = None

    def time(self, key: str, step_s: float) -> float | None:
        s = self.steps[key]
        return None if s is None else s * step_s


def build_params(v: Values, inputs: Inputs, controls: dict | None = None) -> tuple[Params, dict]:
    """Params (SI) from the scenario's values and the measured inputs. `controls` are the
    explorer's knobs in display units; the JavaScript port rebuilds Params from them with
    the same operations in the same order."""
    c = {"wan_gbps": v.wan_bandwidth,
         "wan_latency_us": v.wan_distance_km * v.fibre_us_per_km,
         "module_budget_gflops": v.module_budget,
         "utilisation": v.utilisation,
         "transform_counts": v.transform_counts_against_budget,
         "layout": v.collective_layout}
    if controls:
        c.update(controls)
    pj = {"optics_400g": v.optics_400g_pj_per_bit, "optics_800g": v.optics_800g_pj_per_bit,
          "cpo": v.cpo_pj_per_bit}
    p = Params(
        workers=v.workers, dcs=v.dcs,
        bw_wan=GBPS.base(c["wan_gbps"]), bw_nic=GBPS.base(v.nic_bandwidth),
        alpha_intra=US.base(v.intra_dc_latency_us), alpha_wan=US.base(c["wan_latency_us"]),
        n_params=v.n_params, tokens=v.tokens_per_step,
        flops_per_param_token=v.training_flops_per_param_token,
        gpu_rate=TFLOPS.base(v.gpu_peak_flops) * c["utilisation"],
        gpu_flops_per_mac=v.gpu_flops_per_multiply_add,
        dct2d_macs=v.dct2d_multiply_adds_per_value,
        band_macs=v.band_direct_flops_per_value, fft_macs=v.fft_flops_per_value,
        module_port_rate=GVALUES.base(v.module_port_rate),
        module_budget=GFLOPS.base(c["module_budget_gflops"]),
        module_ops_per_mac=v.module_ops_per_multiply_add,
        module_uses_fft=v.module_uses_fft, transform_counts=c["transform_counts"],
        j_per_bit_intra=PJ.base(pj[v.intra_link_type]),
        j_per_bit_wan=PJ.base(pj[v.wan_link_type]),
        gpu_power=v.gpu_power, module_power=v.module_power,
        dense_bytes=inputs.payload["dense"], topk_bytes=inputs.payload["topk"],
        band_bytes=inputs.payload["band"], layout=c["layout"])
    return p, c


def variant_steps(inputs: Inputs) -> dict:
    """Mean steps to target per variant (C′ and E′ borrow C's or E's)."""
    def mean(src):
        s = inputs.steps.get(src)
        return None if s is None else s.mean
    return {v.key: mean(v.steps_from) for v in VARIANTS}


def _agree(a: Step, b: Step, where: str) -> None:
    # relative to the whole step (time) or the step's energy: a part that is zero in the
    # closed form comes out of the simulation as a difference of clock readings
    scale = {"compute": b.total, "gpu": b.total, "module": b.total, "comm": b.total,
             "gpu_j": b.energy, "link_j": b.energy, "module_j": b.energy,
             "wan_bytes": b.wire, "wire": b.wire}
    for name, ref in scale.items():
        x, y = getattr(a, name), getattr(b, name)
        if abs(x - y) > AGREE * max(abs(x), abs(y), ref):
            raise BuildError("study/sim/des.py", f"{where}: simulated {name} {x!r} differs "
                             f"from the closed form {y!r} by more than {AGREE} relative")


def enob_pick(rows, e_planes: int):
    """The break-even ENOB: (run, "E" or "E′") for the lowest ENOB among runs with E's
    plane count that reaches the target and whose E, else E′, beats A somewhere; None
    if none does. `rows`: (OpticsRun, E vs A, E′ vs A)."""
    for run, e_vs_a, eprime_vs_a in sorted((r for r in rows if r[0].planes == e_planes),
                                           key=lambda r: r[0].enob):
        if run.steps.mean is None:
            continue
        if e_vs_a.kind != "none":
            return run, "E"
        if eprime_vs_a.kind != "none":
            return run, "E′"
    return None


def compute(folder: Folder, scenario: Scenario, target_group: str,
            quoted: QuotedFile | None = None) -> Computed:
    """Run everything. `folder` is the headline folder of run logs (completed runs);
    `quoted` the original's figures (read from data/sim/quoted.yaml when not given)."""
    if quoted is None:
        quoted = load_quoted(ROOT / QUOTED)
    e_planes = scenario.static.e_planes
    inputs = load_inputs(folder, target_group, e_planes)
    values = scenario.resolve(inputs.measured)
    p, controls = build_params(values, inputs)
    steps = variant_steps(inputs)
    nsteps = values.simulated_steps
    cal = calibrate.calibrate(scenario, values, p, steps, quoted)
    calibrate.check_calibration(scenario, cal)

    default, closed_default, spread = {}, {}, 0.0
    for mech in closed.MECHS:
        st, durs = des.simulate(p, mech, nsteps)
        spread = max(spread, des.steady_spread(durs))
        cl = closed.step(p, mech)
        _agree(st, cl, f"mechanism {mech} at the default WAN")
        default[mech], closed_default[mech] = st, cl

    # the model's collectives must send what the experiment counted on the wire
    for mech in ("A", "B", "C"):
        if default[mech].wire != inputs.log_wire[mech]:
            raise BuildError(inputs.payload_files["dense" if mech == "A" else
                                                  "topk" if mech == "B" else "band"] + ":1",
                             f"the model's wire bytes for {mech} ({default[mech].wire!r}) "
                             f"differ from the log's wire_bytes_per_step "
                             f"({inputs.log_wire[mech]!r})")

    lo, hi = GBPS.base(values.sweep_min), GBPS.base(values.sweep_max)
    grid = closed.sweep_grid(lo, hi, values.sweep_points_per_decade)
    sweep = {m: [] for m in closed.MECHS}
    flat = {"hierarchical": "flat-ring", "flat-ring": "hierarchical"}[p.layout]
    sweep_other = []
    for bw in grid:
        pb = p.with_(bw_wan=bw)
        runs = [(pb, mech, sweep[mech]) for mech in closed.MECHS]
        runs.append((pb.with_(layout=flat), "A", sweep_other))
        for pr, mech, out in runs:
            # one step per grid point: the runs above (nsteps each, spread checked) show
            # every step equals the first, and each point is still held to the closed form
            st, durs = des.simulate(pr, mech, 1)
            spread = max(spread, des.steady_spread(durs))
            _agree(st, closed.step(pr, mech), f"mechanism {mech} ({pr.layout}) at {bw!r} "
                   "bytes/s")
            out.append(st.total)
    if spread > AGREE:
        raise BuildError("study/sim/des.py", f"simulated steps are not steady: relative "
                         f"spread {spread!r} exceeds {AGREE}")

    iters = values.bisection_iterations
    bes = {bid: breakeven_pair(p, steps, a, b, lo, hi, iters)
           for bid, _, a, b in BREAKEVENS}

    enob_rows = []
    for run in inputs.repaired:
        s = dict(steps)
        s["E"] = s["Eprime_Esteps"] = run.steps.mean
        enob_rows.append(EnobRow(run, breakeven_pair(p, s, "E", "A", lo, hi, iters),
                                 breakeven_pair(p, s, "Eprime_Esteps", "A", lo, hi, iters)))
    enob_be = enob_pick([(r.run, r.e_vs_a, r.eprime_vs_a) for r in enob_rows], e_planes)

    c = Computed(scenario, values, inputs, p, controls, steps, default, closed_default,
                 spread, grid, sweep, bes, enob_rows, enob_be, quoted, cal, sweep_other,
                 inputs.files, ends=interval.variant_ends(inputs))
    carry_interval(c, lo, hi, iters, e_planes)
    c.counterfactuals = counterfactual.run(c, lo, hi, iters)
    c.wan_to_target = counterfactual.wan_to_target(c)
    c.charged = counterfactual.charged(c, lo, hi, iters)
    c.later = counterfactual.one_eval_later(c, lo, hi, iters)
    return c


def carry_interval(c: Computed, lo: float, hi: float, iters: int, e_planes: int) -> None:
    """Every break-even and the ENOB table at both ends of the steps' interval."""
    def pair(steps, a, b):
        return breakeven_pair(c.params, steps, a, b, lo, hi, iters)
    c.breakeven_ends = {bid: interval.breakeven_ends(c, pair, a, b)
                        for bid, _, a, b in BREAKEVENS}
    c.enob_ends, c.enob_breakeven_ends = interval.enob_ends(c, pair, e_planes, enob_pick)


def _sources(root: Path, folder: Folder | None, reads: Reads | None = None):
    from cit import yamlio
    reads = reads or Reads(root)
    study_path = root / "data" / "study.yaml"
    try:
        study = yamlio.load(reads.text(study_path), "data/study.yaml")
        target_group = study["sim_target_group"]
        headline = study["headline"]
    except (FileNotFoundError, KeyError, TypeError) as e:
        raise BuildError("data/study.yaml", f"needs `headline` and `sim_target_group` ({e})") \
            from None
    scenario = load_scenario(root / "data" / "sim" / "scenario.yaml", reads=reads)
    if folder is None:
        folder = _headline(root, headline, reads)
    return folder, scenario, target_group, reads


def _headline(root: Path, headline: str, reads: Reads) -> Folder:
    vdir = root / "vendored" / headline
    if not reads.glob(vdir, "*.jsonl"):     # listed there, or held in memory (--check)
        raise BuildError(f"vendored/{headline}", "vendored logs missing; materialise "
                         "them first: python -m cit.vendor fetch")
    return load_folder(vdir, headline, reads)


def headline_folder(root: Path, reads: Reads) -> Folder:
    """The headline folder of run logs data/study.yaml names, read through `reads`."""
    from cit import yamlio
    study = yamlio.load(reads.text(root / "data" / "study.yaml"), "data/study.yaml")
    if not isinstance(study, dict) or "headline" not in study:
        raise BuildError("data/study.yaml", "needs `headline`")
    return _headline(root, study["headline"], reads)


def fit_from_paths(root: Path, folder: Folder | None = None):
    """(scenario, Calibration) from the project's files, without checking the recorded
    fitted values (the calibrate command writes them)."""
    folder, scenario, target_group, reads = _sources(root, folder)
    inputs = load_inputs(folder, target_group, scenario.static.e_planes)
    values = scenario.resolve(inputs.measured)
    p, _ = build_params(values, inputs)
    quoted = load_quoted(root / QUOTED, reads=reads)
    return scenario, calibrate.calibrate(scenario, values, p, variant_steps(inputs), quoted)


def compute_from_paths(root: Path, folder: Folder | None = None,
                       reads: Reads | None = None) -> Computed:
    """Compute from the project's own files, read through `reads` (cit/reads.py):
    data/study.yaml (the target group), data/sim/scenario.yaml, data/sim/quoted.yaml
    and the vendored headline logs (unless `folder` is given)."""
    folder, scenario, target_group, reads = _sources(root, folder, reads)
    return compute(folder, scenario, target_group, load_quoted(root / QUOTED, reads=reads))

