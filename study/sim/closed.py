"""The closed-form (α-β) model of the same topology as the discrete-event simulation.

It serves two purposes: a check on the SimPy model (they must agree to 1e-9 relative
wherever no two transfers share a link at once), and the source of the explorer's
JavaScript port (study/static/explorer.js), which repeats every expression below in
the same order, so the two give the same floating-point results and, through the same
formatting rules, the same strings.

Units are SI throughout: seconds, bytes, bytes/s, FLOP/s, values/s, watts, joules.

Topology: `workers` GPUs, split evenly over `dcs` data centres (one or two), k = workers /
dcs in each. Each worker has a full-duplex link to its data centre's switch (latency
`alpha_intra`, bandwidth `bw_nic`); the WAN joins the two switches (`alpha_wan`, `bw_wan`,
full duplex). A transfer from worker a to worker b holds every link on its path
(cut-through) and lasts the sum of their latencies plus bytes over the slowest link.

Per training step, with no overlap between phases (DeMo's sign update needs the whole
aggregate; we do not overlap a step's communication with the next step's compute):
compute, then compression (on the GPU and/or in a module), then communication.

Two layouts of the collectives (`layout`):

hierarchical (the default). intra = 2·α_intra (one step inside a data centre),
wan = 2·α_intra + α_wan (one exchange across the WAN), L = bw_nic, W = bw_wan:
- all-reduce of S bytes: a ring reduce-scatter in each data centre, one exchange of the
  partial sums across the WAN (every worker sends its shard to its peer; one flow each
  way), a ring all-gather in each data centre:
      2(k−1)·(intra + S/(k·L)) + wan + max(S/W, S/(k·L))
- all-gather of p bytes: an exchange with the peer worker across the WAN, then a ring
  all-gather of the pairs in each data centre:
      wan + max(k·p/W, p/L) + (k−1)·(intra + 2p/L)
- E′: a dense reduce-scatter in each data centre, the module at the data centre's
  WAN-facing switch port computes the band of the sum, one band crosses the WAN each
  way, and the band's return to the workers costs latency only:
      (k−1)·(intra + D/(k·L)) + wan + b/W + (k−1)·intra
With one data centre the WAN terms drop out (and the all-gather's "pairs" are single
payloads).

flat-ring (for comparison): one ring over all workers, data centre by data centre, so
it crosses the WAN twice; its slowest hop (α_p, B_p) is 2·α_intra + α_wan and
min(bw_nic, bw_wan) across the WAN, 2·α_intra and bw_nic inside one data centre:
- all-reduce: 2(N−1)·(α_p + S/(N·B_p));  all-gather: (N−1)·(α_p + p/B_p)
E′ is the same in both layouts: its in-network sum is laid out by data centre anyway.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, replace


@dataclass(frozen=True)
class Params:
    """Every number the model uses, in SI units (built from the scenario and the logs)."""
    workers: int
    dcs: int
    bw_wan: float              # bytes/s, one direction
    bw_nic: float              # bytes/s, one direction
    alpha_intra: float         # s, one link worker <-> switch
    alpha_wan: float           # s, switch <-> switch
    n_params: int
    tokens: int                # tokens per worker per step
    flops_per_param_token: float
    gpu_rate: float            # FLOP/s achieved: peak x utilisation
    gpu_flops_per_mac: float
    dct2d_macs: float          # multiply-adds per value, one way (B)
    band_macs: float           # multiply-adds per value, the band computed directly
    fft_macs: float            # multiply-adds per value, a fast transform of the chunk
    module_port_rate: float    # values/s
    module_budget: float       # operations/s
    module_ops_per_mac: float
    module_uses_fft: bool
    transform_counts: bool     # does the optical transform count against the budget?
    j_per_bit_intra: float
    j_per_bit_wan: float
    gpu_power: float           # W
    module_power: float        # W
    dense_bytes: float
    topk_bytes: float
    band_bytes: float
    layout: str = "hierarchical"   # hierarchical | flat-ring

    def with_(self, **changes) -> "Params":
        return replace(self, **changes)

    def as_json(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class Variant:
    """One way of syncing. `mech` selects the step-time model; rows that share a mech
    (the two E′ rows) have the same step time and differ only in their steps."""
    key: str          # registry id part: A, B, C, Cprime, E, Eprime_Esteps, Eprime_Csteps
    label: str        # shown in results.md
    mech: str         # A | B | C | Cprime | E | Eprime
    collective: str   # allreduce | allgather | innet
    steps_from: str   # A | B | C | E
    hypothetical: bool


VARIANTS = (
    Variant("A", "A", "A", "allreduce", "A", False),
    Variant("B", "B", "B", "allgather", "B", False),
    Variant("C", "C", "C", "allgather", "C", False),
    Variant("Cprime", "C′", "Cprime", "allreduce", "C", True),
    Variant("E", "E", "E", "allgather", "E", False),
    Variant("Eprime_Esteps", "E′ (E's steps)", "Eprime", "innet", "E", True),
    Variant("Eprime_Csteps", "E′ (C's steps)", "Eprime", "innet", "C", True),
)
BY_KEY = {v.key: v for v in VARIANTS}
MECHS = ("A", "B", "C", "Cprime", "E", "Eprime")

LAYOUTS = ("hierarchical", "flat-ring")
COLLECTIVE_LABEL = {
    "hierarchical": {"allreduce": "hierarchical all-reduce",
                     "allgather": "hierarchical all-gather", "innet": "in-network sum"},
    "flat-ring": {"allreduce": "ring all-reduce", "allgather": "ring all-gather",
                  "innet": "in-network sum"},
}
LAYOUT_LABEL = {"hierarchical": "hierarchical (a ring in each data centre, one exchange "
                "across the WAN)", "flat-ring": "flat ring (one ring of all workers, "
                "crossing the WAN twice)"}


@dataclass(frozen=True)
class Step:
    """One training step of one mechanism at one WAN bandwidth."""
    compute: float
    gpu: float           # compression on the GPU
    module: float        # compression in the module
    comm: float
    gpu_j: float         # energy, all workers
    link_j: float
    module_j: float
    wan_bytes: float     # both directions
    wire: float          # bytes one worker sends onto its own link

    @property
    def compress(self) -> float:
        return self.gpu + self.module

    @property
    def total(self) -> float:
        return self.compute + self.gpu + self.module + self.comm

    @property
    def energy(self) -> float:
        return self.gpu_j + self.link_j + self.module_j


def module_rate(p: Params) -> float:
    """Values per second through a module: the port rate, or less if the budget binds."""
    if not p.transform_counts:
        return p.module_port_rate
    cost = p.fft_macs if p.module_uses_fft else p.band_macs
    return min(p.module_port_rate, p.module_budget / (cost * p.module_ops_per_mac))


def per_dc(p: Params) -> int:
    """k: workers in each data centre."""
    return p.workers // p.dcs


def intra_alpha(p: Params) -> float:
    """Latency of one transfer inside a data centre: up to the switch and down."""
    return 2 * p.alpha_intra


def wan_alpha(p: Params) -> float:
    """Latency of one transfer across the WAN: up, across, down."""
    return 2 * p.alpha_intra + p.alpha_wan


def ring_path(p: Params) -> tuple[float, float]:
    """(latency, bandwidth) of the flat ring's slowest hop."""
    if p.dcs > 1:
        return wan_alpha(p), min(p.bw_nic, p.bw_wan)
    return intra_alpha(p), p.bw_nic


def ring_allreduce(p: Params, size: float) -> float:
    alpha, bw = ring_path(p)
    return 2 * (p.workers - 1) * (alpha + size / p.workers / bw)


def ring_allgather(p: Params, payload: float) -> float:
    alpha, bw = ring_path(p)
    return (p.workers - 1) * (alpha + payload / bw)


def hier_allreduce(p: Params, size: float) -> float:
    k = per_dc(p)
    t = 2 * (k - 1) * (intra_alpha(p) + size / (k * p.bw_nic))
    if p.dcs > 1:
        t += wan_alpha(p) + max(size / p.bw_wan, size / (k * p.bw_nic))
    return t


def hier_allgather(p: Params, payload: float) -> float:
    k = per_dc(p)
    t = (k - 1) * (intra_alpha(p) + p.dcs * payload / p.bw_nic)
    if p.dcs > 1:
        t = wan_alpha(p) + max(k * payload / p.bw_wan, payload / p.bw_nic) + t
    return t


def innet_sum(p: Params, dense: float, band: float) -> float:
    """E′: dense reduce-scatter in each data centre, one band across the WAN each way,
    the band's return to the workers (latency only)."""
    k = per_dc(p)
    t = (k - 1) * (intra_alpha(p) + dense / (k * p.bw_nic))
    if p.dcs > 1:
        t += wan_alpha(p) + band / p.bw_wan
    return t + (k - 1) * intra_alpha(p)


def innet_left_out(p: Params, dense: float, band: float) -> float:
    """What `innet_sum` leaves out of E′'s step (docs/simulator.md, "What E′'s model leaves
    out"): each worker's reduce-scattered shard (dense/k) up its own link to the module at
    the switch, and the band's bytes back down each worker's link (innet_sum charges
    that way back its latency only). Used only by the counterfactual of results.md §9,
    never in E′'s step."""
    return p.alpha_intra + dense / (per_dc(p) * p.bw_nic) + band / p.bw_nic


def gpu_macs(p: Params, mech: str) -> float:
    """Multiply-adds per value the GPU spends compressing and decompressing."""
    if mech == "A":
        return 0.0
    if mech == "B":
        return 2 * p.dct2d_macs           # forward and inverse 2-D DCT
    if mech in ("C", "Cprime"):
        return 2 * p.band_macs            # the band forward, and its inverse
    return p.band_macs                    # E, E′: the module computes the band; GPU inverts


def modules(p: Params, mech: str) -> int:
    """Modules at work: one per worker for E, one per data centre for E′."""
    return {"E": p.workers, "Eprime": p.dcs}.get(mech, 0)


def traffic(p: Params, mech: str) -> tuple[float, float, float, float]:
    """(communication time, bytes on worker links counted per link, bytes across the WAN
    both ways, bytes one worker sends on its own link) of one step's collective."""
    n, k, cross = p.workers, per_dc(p), p.dcs > 1
    if mech == "Eprime":
        shard = p.dense_bytes / k
        wan = 2 * p.band_bytes if cross else 0.0
        return (innet_sum(p, p.dense_bytes, p.band_bytes),
                n * (k - 1) * shard * 2, wan, (k - 1) * shard)
    reduce = mech in ("A", "Cprime")
    size = {"A": p.dense_bytes, "B": p.topk_bytes}.get(mech, p.band_bytes)
    if p.layout == "flat-ring":
        steps, chunk = (2 * (n - 1), size / n) if reduce else (n - 1, size)
        comm = ring_allreduce(p, size) if reduce else ring_allgather(p, size)
        wan = steps * chunk * 2 if cross else 0.0
        return comm, n * steps * chunk * 2, wan, steps * chunk
    if reduce:
        ring_bytes, x_up, x_wan = 2 * (k - 1) * size / k, size / k, size
        comm = hier_allreduce(p, size)
    else:
        ring_bytes, x_up, x_wan = (k - 1) * p.dcs * size, size, k * size
        comm = hier_allgather(p, size)
    if not cross:
        x_up = x_wan = 0.0
    return comm, n * (ring_bytes + x_up) * 2, 2 * x_wan, ring_bytes + x_up


def step(p: Params, mech: str) -> Step:
    """The closed-form step of one mechanism."""
    n = p.workers
    compute = p.flops_per_param_token * p.n_params * p.tokens / p.gpu_rate
    gpu = p.gpu_flops_per_mac * gpu_macs(p, mech) * p.n_params / p.gpu_rate
    module = p.n_params / module_rate(p) if mech in ("E", "Eprime") else 0.0
    comm, link_bytes, wan_bytes, wire = traffic(p, mech)
    link_j = link_bytes * 8 * p.j_per_bit_intra + wan_bytes * 8 * p.j_per_bit_wan
    return Step(compute, gpu, module, comm,
                gpu_j=n * p.gpu_power * (compute + gpu),
                link_j=link_j,
                module_j=modules(p, mech) * p.module_power * module,
                wan_bytes=wan_bytes, wire=wire)


def time_to_target(p: Params, mech: str, steps: float | None) -> float | None:
    return None if steps is None else steps * step(p, mech).total


def sweep_grid(lo: float, hi: float, per_decade: int) -> list[float]:
    """The fixed log grid from lo to hi (bytes/s), `per_decade` points a decade."""
    n = round(math.log10(hi / lo) * per_decade)
    return [lo * 10 ** (k / per_decade) for k in range(n)] + [hi]


@dataclass(frozen=True)
class BreakEven:
    """Where variant `a` stops (or starts) beating `b` as the WAN bandwidth grows."""
    kind: str                  # below | above | whole | none
    at: float | None           # bytes/s, for below/above


def break_even(time_a, time_b, lo: float, hi: float, iterations: int) -> BreakEven:
    """Bisection in log-bandwidth (geometric midpoints) on `time_a(bw) < time_b(bw)`.

    time_a/time_b return seconds to target, or None if that variant never reaches it.
    """
    def wins(bw):
        ta, tb = time_a(bw), time_b(bw)
        if ta is None:
            return False
        if tb is None:
            return True
        return ta < tb

    w_lo, w_hi = wins(lo), wins(hi)
    if w_lo and w_hi:
        return BreakEven("whole", None)
    if not w_lo and not w_hi:
        return BreakEven("none", None)
    a, b = lo, hi
    for _ in range(iterations):
        mid = math.sqrt(a * b)
        if wins(mid) == w_lo:
            a = mid
        else:
            b = mid
    return BreakEven("below" if w_lo else "above", math.sqrt(a * b))


# (registry id suffix, label, variant a, variant b): a's time against b's
BREAKEVENS = (
    ("E_vs_A", "E vs A", "E", "A"),
    ("Eprime_Esteps_vs_A", "E′ vs A (E's steps)", "Eprime_Esteps", "A"),
    ("Eprime_Csteps_vs_A", "E′ vs A (C's steps)", "Eprime_Csteps", "A"),
    ("Cprime_vs_A", "C′ vs A", "Cprime", "A"),
    ("Eprime_vs_Cprime", "E′ vs C′ (C's steps)", "Eprime_Csteps", "Cprime"),
    ("B_vs_A", "B vs A", "B", "A"),
    ("C_vs_A", "C vs A", "C", "A"),
)


def time_fn(p: Params, steps: dict, key: str):
    mech = BY_KEY[key].mech
    s = steps[key]
    return lambda bw: None if s is None else s * step(p.with_(bw_wan=bw), mech).total


def breakeven_pair(p: Params, steps: dict, a: str, b: str, lo: float, hi: float,
                   iters: int) -> BreakEven:
    return break_even(time_fn(p, steps, a), time_fn(p, steps, b), lo, hi, iters)
