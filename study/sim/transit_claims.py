"""Checked claims about the transit simulation (docs/claims.md): predicates over the
simulator's computed values (the same `Computed` that writes every cell of
data/sim/results.md) and the registry's scenario and experiment figures. Nothing here
assumes a figure: each predicate reads what this build's simulation produced.

`register_transit_claims(reg, computed, experiment, results_path)` is called by the simulator stage
after its figures are in the registry.
"""

from __future__ import annotations

from cit.claims import Verdict
from cit.fmt import fmt, fmt_int, fmt_pct
from cit.registry import Registry, Source
from . import closed
from .closed import BY_KEY, BreakEven
from .report import f_be
from .compute import Computed


def _gbps(bw: float | None) -> str:
    return "none" if bw is None else f"{fmt(bw / 1e9, 3)} GB/s"


class _Sim:
    def __init__(self, reg: Registry, c: Computed, results_path: str):
        self.reg, self.c = reg, c
        self.book = reg.claim_book()
        self.sources = (Source(results_path), Source("data/sim/scenario.yaml"))

    def v(self, id):
        return self.reg.numbers[id].value

    def add(self, id, checked, verdict, computation, extra=(), one_seed=False):
        self.book.add(id, checked, verdict, sources=self.sources + tuple(extra),
                      computation=computation, one_seed=one_seed)

    def step_at(self, key: str, i: int) -> float:
        """Simulated step time (s) of variant `key` at grid point i."""
        return self.c.sweep[BY_KEY[key].mech][i]

    def time(self, key: str) -> float | None:
        return self.c.time(key, self.c.default[BY_KEY[key].mech].total)


def register_transit_claims(reg: Registry, computed: Computed, experiment, results_path: str) -> None:
    s = _Sim(reg, computed, results_path)
    for fn in (_breakevens, _target, _sweep, _bytes, _layout, _module):
        fn(s, experiment)


def _breakevens(s: _Sim, exp) -> None:
    c = s.c
    e_none = [r for r in c.enob if r.e_vs_a.kind == "none"]
    s.add("sim.e_never_breaks_even",
          "E breaks even with AdamW nowhere in the swept range, at its default ENOB or any other",
          Verdict(c.breakevens["E_vs_A"].kind == "none" and len(e_none) == len(c.enob),
                  (("E vs A", c.breakevens["E_vs_A"].kind),
                   ("repaired runs where E never breaks even", f"{len(e_none)} of {len(c.enob)}"))),
          "BreakEven.kind of E vs A, at the default and for every repaired run")
    be = c.enob_breakeven
    planes = s.v("scenario.e_planes")
    reach = sorted((r for r in c.enob if r.run.planes == planes and r.run.steps.mean is not None),
                   key=lambda r: r.run.enob)
    ok = (be is not None and be[1] == "E′" and reach and reach[0].run.enob == be[0].enob
          and reach[0].eprime_vs_a.kind != "none")
    s.add("sim.enob_breakeven_is_eprime",
          "at the break-even ENOB it is the switch variant E′ that beats AdamW, and no lower "
          "ENOB with E's plane count reaches the target",
          Verdict(bool(ok), (("break-even ENOB", fmt(be[0].enob, 0) if be else "none"),
                             ("beats A as", be[1] if be else "neither"),
                             ("lowest ENOB reaching the target",
                              fmt(reach[0].run.enob, 0) if reach else "none"))),
          "compute.enob_breakeven and the repaired runs' steps to target", one_seed=True)
    none = f_be(BreakEven("none", None))
    quoted = {k: s.reg.numbers[f"quoted.breakeven.{k}"].text for k in ("E_vs_A", "Eprime_vs_Cprime")}
    s.add("sim.quoted_e_and_eprime_never",
          "the original page's figures, as quoted, have E never breaking even with AdamW and "
          "E′ never beating C′ on the exact band's steps",
          Verdict(all(t == none for t in quoted.values()),
                  (("quoted E vs A", quoted["E_vs_A"]), ("quoted E′ vs C′", quoted["Eprime_vs_Cprime"]))),
          "text of the quoted break-evens against the text of 'none in the range'",
          extra=(Source("data/sim/quoted.yaml"),))
    ours = {k: c.breakevens[k].kind for k in ("E_vs_A", "Eprime_vs_Cprime")}
    s.add("sim.unfitted_comparisons_agree",
          "in ours as in the original's figures, E never beats AdamW and E′ never beats C′ on "
          "the exact band's steps",
          Verdict(all(v == "none" for v in ours.values()) and all(t == none for t in quoted.values()),
                  (("ours, E vs A", ours["E_vs_A"]), ("ours, E′ vs C′", ours["Eprime_vs_Cprime"]),
                   ("quoted, E vs A", quoted["E_vs_A"]), ("quoted, E′ vs C′", quoted["Eprime_vs_Cprime"]))),
          "BreakEven.kind of ours and the quoted texts", extra=(Source("data/sim/quoted.yaml"),))
    cp, ep = c.breakevens["Cprime_vs_A"], c.breakevens["Eprime_Esteps_vs_A"]
    s.add("sim.cprime_breaks_even_higher",
          "C′ breaks even with AdamW at a higher WAN bandwidth than E′ on the optics' steps",
          Verdict(cp.kind == "below" and ep.kind == "below" and cp.at > ep.at,
                  (("C′ vs A", _gbps(cp.at)), ("E′ vs A", _gbps(ep.at)))),
          "BreakEven.at of C′ vs A > that of E′ (E's steps) vs A")


def _target(s: _Sim, exp) -> None:
    target = s.v("sim.target")
    groups = {g.slug: g for g in exp.groups}
    two = next(g for g in exp.groups if g.first.group == s.c.inputs.target_group)
    missing = [r for r in two.runs if r.first_step_at_or_below(target) is None]
    s.reg.add("sim.target_missed.seeds", len(missing), str(len(missing)), unit="seeds",
              kind="derived", sources=s.sources + s.reg.numbers[f"final_loss_mean.{two.slug}"].sources,
              locator="derived from the eval records of the target group's logs",
              computation="seeds of the target's own group with no eval at or below the target")
    s.add("sim.target_not_reached_by_all_its_seeds",
          "some seeds of the group that defines the target never reach it",
          Verdict(len(missing) >= 1, (("target", fmt(target, 3)),
                                      ("seeds never reaching it", f"{len(missing)} of {len(two.runs)}")),
                  (len(two.runs),)),
          "first eval step at or below the target, per seed of the target group")
    high = groups["F.high.2d64"]
    hl = high.first.final_val_loss
    s.add("sim.target_not_worst_band",
          "the high band ended above the target, so the target is not the worst exact band",
          Verdict(hl > target, (("high band", fmt(hl, 3)), ("target", fmt(target, 3)))),
          "final val loss of the high band > target")


def _sweep(s: _Sim, exp) -> None:
    c = s.c
    keys = [k for k in BY_KEY if c.steps[k] is not None]
    last = len(c.grid) - 1
    change = [max(abs(s.step_at(k, i) / s.step_at(k, last) - 1) for k in keys)
              for i in range(len(c.grid))]
    flat = min(i for i in range(len(c.grid)) if max(change[i:]) < 0.02)
    s.reg.add("sim.sweep_flat_from", c.grid[flat] / 1e9, fmt(c.grid[flat] / 1e9, 0), unit="GB/s",
              kind="simulated", sources=s.sources, locator=f"{s.sources[0].path} §6",
              computation="lowest grid bandwidth from which every variant's simulated step "
                          "time stays within two percent of its time at the top of the sweep")
    s.add("sim.sweep_flat_above",
          "the curves flatten inside the swept range: from a bandwidth below its top, no "
          "variant's time changes by two percent or more",
          Verdict(0 < flat < last, (("flat from", _gbps(c.grid[flat])),
                                    ("largest change from there", fmt_pct(max(change[flat:]), 2)),
                                    ("largest change one grid point lower", fmt_pct(change[flat - 1], 2)))),
          "max over variants of |step(bw) ÷ step(top) − 1| on the sweep grid")
    part = lambda k, what: getattr(c.default[BY_KEY[k].mech], what) / s.step_at(k, last)
    compute = {k: part(k, "compute") for k in keys}
    comm = {k: part(k, "comm") for k in ("A", "B")}
    s.add("sim.step_parts_at_max",
          "at the top of the sweep, compute is more than half of the step for C and C′ and "
          "for no other variant, and communication is more than half for A and B",
          Verdict({k for k, v in compute.items() if v > 0.5} == {"C", "Cprime"}
                  and min(comm.values()) > 0.5,
                  tuple((f"compute, {BY_KEY[k].label}", fmt_pct(v, 0)) for k, v in compute.items())
                  + tuple((f"communication, {BY_KEY[k].label}", fmt_pct(v, 0)) for k, v in comm.items())),
          "phase time ÷ simulated step time at the top of the sweep, per variant")
    mod = {k: part(k, "module") for k in ("E", "Eprime_Esteps")}
    s.add("sim.module_largest_part_of_e",
          "at the top of the sweep, the module's compression is more than half of the step "
          "of E and of E′",
          Verdict(min(mod.values()) > 0.5, tuple((BY_KEY[k].label, fmt_pct(v, 0)) for k, v in mod.items())),
          "module compression ÷ simulated step time at the top of the sweep")
    cb, bb = c.default["C"], c.default["B"]
    s.add("sim.cheaper_steps_still_slower",
          "C's step is shorter than B's, yet C takes longer to reach the target",
          Verdict(cb.total < bb.total and s.time("C") > s.time("B"),
                  (("C step", f"{fmt(cb.total * 1e3, 3)} ms"), ("B step", f"{fmt(bb.total * 1e3, 3)} ms"),
                   ("C to target", f"{fmt(s.time('C'), 2)} s"), ("B to target", f"{fmt(s.time('B'), 2)} s"))),
          "default-WAN step times and times to target")


def _bytes(s: _Sim, exp) -> None:
    c = s.c
    wan, nic = s.v("scenario.wan_bandwidth"), s.v("scenario.nic_bandwidth")
    s.add("sim.wan_slower_than_worker_links",
          "the scenario's default WAN is slower than each worker's link inside a data centre",
          Verdict(wan < nic, (("WAN, default", f"{fmt(wan, 1)} GB/s"),
                              ("worker link", f"{fmt(nic, 1)} GB/s"))),
          "scenario wan_bandwidth < nic_bandwidth")
    d = c.default
    wan = {k: c.wan_to_target[k][0] for k in ("C", "E")}
    s.add("sim.e_fewer_wan_bytes_yet_slower",
          "E sends fewer bytes across the WAN on its way to the target than C, yet takes longer",
          Verdict(wan["E"] < wan["C"] and s.time("E") > s.time("C"),
                  (("E, WAN bytes to target", f"{fmt(wan['E'] / 1e9, 1)} GB"),
                   ("C, WAN bytes to target", f"{fmt(wan['C'] / 1e9, 1)} GB"),
                   ("E to target", f"{fmt(s.time('E'), 2)} s"), ("C to target", f"{fmt(s.time('C'), 2)} s"))),
          "steps × WAN bytes per step, and times to target at the default WAN")
    dense = s.v("sim.payload.A")
    ep, cc, cp = d["Eprime"], d["C"], d["Cprime"]
    s.add("sim.eprime_saves_on_wan_only",
          "under E′ each worker sends more bytes a step than under C, and only the WAN "
          "carries fewer",
          Verdict(ep.wire > cc.wire and ep.wan_bytes < cc.wan_bytes,
                  (("E′ bytes per worker", fmt_int(ep.wire)), ("C bytes per worker", fmt_int(cc.wire)),
                   ("dense delta", fmt_int(dense)),
                   ("E′ WAN bytes", fmt_int(ep.wan_bytes)), ("C WAN bytes", fmt_int(cc.wan_bytes)))),
          "per-worker wire bytes and WAN bytes per step at the default WAN")
    s.add("sim.cprime_fewer_wan_bytes",
          "summing the band on the GPUs (C′) sends fewer bytes across the WAN each step than "
          "gathering it (C)",
          Verdict(cp.wan_bytes < cc.wan_bytes, (("C′", fmt_int(cp.wan_bytes)), ("C", fmt_int(cc.wan_bytes)))),
          "WAN bytes per step at the default WAN")


def _layout(s: _Sim, exp) -> None:
    """The single ring against the hierarchical layout, for AdamW (A): the WAN bytes of
    its all-reduce, and its time to target at the default WAN against the original's."""
    c, mech = s.c, BY_KEY["A"].mech
    hier, flat = (c.params.with_(layout=x) for x in ("hierarchical", "flat-ring"))
    ratio = closed.traffic(flat, mech)[2] / closed.traffic(hier, mech)[2]
    where = ("closed form at the scenario's defaults, data/sim/scenario.yaml with "
             "collective_layout flat-ring and hierarchical")
    s.reg.add("sim.flat_ring.wan_ratio", ratio, fmt(ratio, 2), kind="simulated",
              sources=s.sources[1:], locator=where,
              computation="WAN bytes per step of A's all-reduce laid out as one ring of all "
                          "workers ÷ laid out by data centre")
    t = closed.time_to_target(flat, mech, c.steps["A"])
    s.reg.add("sim.flat_ring.time.A", t, fmt(t, 2), unit="s", kind="simulated",
              sources=s.sources, locator=where,
              computation="A's steps to target × its step time with one ring of all workers, "
                          "at the default WAN")
    quoted = c.quoted.figures["time.A"]
    shown = fmt(t, quoted.decimals)
    s.add("sim.flat_ring_misses_quoted_a",
          "with one ring of all workers, AdamW's time to target does not read as the "
          "original's at the precision it printed",
          Verdict(shown != quoted.text(), (("A, flat ring", f"{shown} s"),
                                           ("original", f"{quoted.text()} s"))),
          "A's time to target under the flat ring, rounded as the original rounds it")


def _module(s: _Sim, exp) -> None:
    port = s.v("scenario.module_port_rate")            # billion values/s
    per_mac = s.v("scenario.module_ops_per_multiply_add")
    direct = port * s.v("scenario.band_direct_flops_per_value") * per_mac
    fast = port * s.v("scenario.fft_flops_per_value") * per_mac
    for key, v, how in (("direct", direct, "band_direct_flops_per_value"),
                        ("fft", fast, "fft_flops_per_value")):
        s.reg.add(f"sim.band_gflops_at_port.{key}", v, fmt(v, 0), unit="GFLOP/s", kind="derived",
                  sources=(Source("data/sim/scenario.yaml"),), locator="data/sim/scenario.yaml",
                  computation=f"module_port_rate × {how} × module_ops_per_multiply_add")
    top = s.v("scenario.module_budget_max")
    s.add("sim.band_at_port_rate_exceeds_budget",
          "computing the band at the module's port rate, directly or through a fast transform, "
          "takes more FLOP/s than the top of the module's budget",
          Verdict(min(direct, fast) > top, (("direct", f"{fmt(direct, 0)} GFLOP/s"),
                                            ("fast transform", f"{fmt(fast, 0)} GFLOP/s"),
                                            ("budget, top", f"{fmt(top, 0)} GFLOP/s"))),
          "port rate × multiply-adds per value × budget operations per multiply-add, "
          "against module_budget_max")
    fit, low = s.v("sim.fitted.module_budget"), s.v("scenario.module_budget_min")
    s.add("sim.fitted_budget_in_range",
          "the fitted module budget lies inside the module paper's range",
          Verdict(low <= fit <= top, (("fitted", f"{fmt(fit, 2)} GFLOP/s"),
                                      ("range", f"{fmt(low, 0)} to {fmt(top, 0)} GFLOP/s"))),
          "module_budget_min ≤ sim.fitted.module_budget ≤ module_budget_max")
    ratio = s.v("scenario.band_direct_flops_per_value") / s.v("scenario.fft_flops_per_value")
    s.add("sim.direct_needs_budget_above_range",
          "computing the band directly at the fitted time per step would need a budget above "
          "the top of the paper's range",
          Verdict(fit * ratio > top, (("budget needed", f"{fmt(fit * ratio, 1)} GFLOP/s"),
                                      ("budget, top", f"{fmt(top, 0)} GFLOP/s"))),
          "fitted budget × (direct ÷ fast-transform multiply-adds per value) > module_budget_max")
    rate = s.v("sim.module_rate")
    s.add("sim.module_budget_bound",
          "the module processes values more slowly than its port rate: its budget binds",
          Verdict(rate < port, (("module rate", f"{fmt(rate, 3)} billion values/s"),
                                ("port rate", f"{fmt(port, 1)} billion values/s"))),
          "sim.module_rate < scenario.module_port_rate")
