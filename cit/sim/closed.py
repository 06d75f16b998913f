"""The closed-form (α-β) model of the same topology as the discrete-event simulation.

It serves two purposes: a check on the SimPy model (they must agree to 1e-9 relative
wherever no two transfers share a link at once), and the source of the explorer's
JavaScript port (templates/static/explorer.js), which repeats every expression below in
the same order, so the two give the same floating-point results and, through the same
formatting rules, the same strings.

Units are SI throughout: seconds, bytes, bytes/s, FLOP/s, values/s, watts, joules.

Topology: `workers` GPUs, split evenly over `dcs` data centres (one or two). Each worker
has a full-duplex link to its data centre's switch (latency `alpha_intra`, bandwidth
`bw_nic`); the WAN joins the two switches (`alpha_wan`, `bw_wan`). A transfer from
worker a to worker b holds every link on its path (cut-through) and lasts the sum of
their latencies plus bytes over the slowest link. The ring visits the workers in order,
data centre by data centre, so it crosses the WAN exactly twice.

Per training step, with no overlap between phases (DeMo's sign update needs the whole
aggregate; we do not overlap a step's communication with the next step's compute):
compute, then compression (on the GPU and/or in a module), then communication.

- ring all-reduce of S bytes: 2(N−1) steps of S/N:  2(N−1)·(α_p + S/(N·B_p))
- ring all-gather of p bytes: N−1 steps of p:       (N−1)·(α_p + p/B_p)
  with (α_p, B_p) the ring's slowest hop: across the WAN, 2·α_intra + α_wan and
  min(bw_nic, bw_wan); inside one data centre, 2·α_intra and bw_nic.
- in-network sum (E′): the switches sum the band as it streams through them (as SHARP
  does), so the tiers pipeline: up, across, down cost α_intra + α_wan + α_intra plus the
  largest of (bytes up / bw_nic, bytes across / bw_wan, bytes down / bw_nic). Inside one
  data centre, with S bytes each way, this is 2·α + S/B.
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

COLLECTIVE_LABEL = {"allreduce": "ring all-reduce", "allgather": "ring all-gather",
                    "innet": "in-network sum"}


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


def ring_path(p: Params) -> tuple[float, float]:
    """(latency, bandwidth) of the ring's slowest hop."""
    if p.dcs > 1:
        return 2 * p.alpha_intra + p.alpha_wan, min(p.bw_nic, p.bw_wan)
    return 2 * p.alpha_intra, p.bw_nic


def ring_allreduce(p: Params, size: float) -> float:
    alpha, bw = ring_path(p)
    return 2 * (p.workers - 1) * (alpha + size / p.workers / bw)


def ring_allgather(p: Params, payload: float) -> float:
    alpha, bw = ring_path(p)
    return (p.workers - 1) * (alpha + payload / bw)


def innet_sum(p: Params, up: float, across: float, down: float) -> float:
    """Streamed in-network sum: one latency per tier, the slowest tier's serialisation."""
    if p.dcs > 1:
        return (p.alpha_intra + p.alpha_wan + p.alpha_intra
                + max(up / p.bw_nic, across / p.bw_wan, down / p.bw_nic))
    return p.alpha_intra + p.alpha_intra + max(up / p.bw_nic, down / p.bw_nic)


def gpu_macs(p: Params, mech: str) -> float:
    """Multiply-adds per value the GPU spends compressing and decompressing."""
    if mech == "A":
        return 0.0
    if mech == "B":
        return 2 * p.dct2d_macs           # forward and inverse 2-D DCT
    if mech in ("C", "Cprime"):
        return 2 * p.band_macs            # the band forward, and its inverse
    return p.band_macs                    # E, E′: the module computes the band; GPU inverts


def step(p: Params, mech: str) -> Step:
    """The closed-form step of one mechanism."""
    n = p.workers
    wan_hops = 2 if p.dcs > 1 else 0
    compute = p.flops_per_param_token * p.n_params * p.tokens / p.gpu_rate
    gpu = p.gpu_flops_per_mac * gpu_macs(p, mech) * p.n_params / p.gpu_rate
    module = p.n_params / module_rate(p) if mech in ("E", "Eprime") else 0.0
    if mech == "Eprime":
        comm = innet_sum(p, p.dense_bytes, p.band_bytes, p.band_bytes)
        link_bits = (n * p.dense_bytes * 8 * p.j_per_bit_intra
                     + wan_hops * p.band_bytes * 8 * p.j_per_bit_wan
                     + n * p.band_bytes * 8 * p.j_per_bit_intra)
        wan_bytes = wan_hops * p.band_bytes
        wire = p.dense_bytes
    else:
        if mech in ("A", "Cprime"):
            size = p.dense_bytes if mech == "A" else p.band_bytes
            comm = ring_allreduce(p, size)
            k, chunk = 2 * (n - 1), size / n
        else:
            payload = p.topk_bytes if mech == "B" else p.band_bytes
            comm = ring_allgather(p, payload)
            k, chunk = n - 1, payload
        link_bits = k * chunk * 8 * (2 * n * p.j_per_bit_intra + wan_hops * p.j_per_bit_wan)
        wan_bytes = k * chunk * wan_hops
        wire = k * chunk
    return Step(compute, gpu, module, comm,
                gpu_j=n * p.gpu_power * (compute + gpu),
                link_j=link_bits,
                module_j=n * p.module_power * module,
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
