"""The SimPy model against the closed forms (the hierarchical and the flat-ring layouts),
and where they part.

The parameters here are test inputs (a small made-up network); every expected value is
computed from docs/simulator.md's formulas, never typed.
"""

import math

import pytest
import simpy

from study.sim import closed, des
from study.sim.closed import Params

REL = 1e-9


def params(**changes) -> Params:
    base = Params(
        workers=8, dcs=2, bw_wan=12.5e9, bw_nic=50e9, alpha_intra=3e-6, alpha_wan=49e-6,
        n_params=1_000_000, tokens=2048, flops_per_param_token=6, gpu_rate=4e14,
        gpu_flops_per_mac=2, dct2d_macs=128, band_macs=16, fft_macs=4,
        module_port_rate=12.5e9, module_budget=99e9, module_ops_per_mac=1,
        module_uses_fft=False, transform_counts=True, j_per_bit_intra=22.5e-12,
        j_per_bit_wan=21e-12, gpu_power=700, module_power=17,
        dense_bytes=32_000_000, topk_bytes=4_000_000, band_bytes=2_000_000)
    return base.with_(**changes)


def run_collective(p: Params, start):
    """Simulate one collective on a fresh network; return (seconds, the network)."""
    env = simpy.Environment()
    net = des.Net(env, p)
    done = start(net)
    env.run(until=done)
    return env.now, net


def close(a, b):
    return math.isclose(a, b, rel_tol=REL, abs_tol=0.0)


WHERE = {"inside one data centre": dict(dcs=1), "across the WAN": dict(dcs=2)}


def spec_alpha_beta(p: Params):
    """The ring's slowest hop as docs/simulator.md describes it: two worker links, plus the WAN
    when the ring spans two data centres; bandwidth the slowest link on that hop."""
    if p.dcs == 2:
        return 2 * p.alpha_intra + p.alpha_wan, min(p.bw_nic, p.bw_wan)
    return 2 * p.alpha_intra, p.bw_nic


@pytest.mark.parametrize("where", WHERE)
@pytest.mark.parametrize("wan_gbps", [0.1, 12.5, 400.0])
def test_the_simulated_ring_all_reduce_matches_its_closed_form(where, wan_gbps):
    p = params(bw_wan=wan_gbps * 1e9, **WHERE[where])
    n, size = p.workers, p.dense_bytes
    t, _ = run_collective(p, lambda net: des.ring_allreduce(net, size))
    alpha, bw = spec_alpha_beta(p)
    assert close(t, 2 * (n - 1) * (alpha + size / (n * bw)))
    assert close(t, closed.ring_allreduce(p, size))


@pytest.mark.parametrize("where", WHERE)
@pytest.mark.parametrize("wan_gbps", [0.1, 12.5, 400.0])
def test_the_simulated_ring_all_gather_matches_its_closed_form(where, wan_gbps):
    p = params(bw_wan=wan_gbps * 1e9, **WHERE[where])
    n, payload = p.workers, p.band_bytes
    t, _ = run_collective(p, lambda net: des.ring_allgather(net, payload))
    alpha, bw = spec_alpha_beta(p)
    assert close(t, (n - 1) * (alpha + payload / bw))
    assert close(t, closed.ring_allgather(p, payload))


def spec_hier(p: Params):
    """The hierarchical layout's pieces as docs/simulator.md writes them: (k, intra step, WAN step,
    L, W)."""
    return (p.workers // p.dcs, 2 * p.alpha_intra, 2 * p.alpha_intra + p.alpha_wan,
            p.bw_nic, p.bw_wan)


def spec_hier_allreduce(p: Params, s: float) -> float:
    k, intra, wan, L, W = spec_hier(p)
    t = 2 * (k - 1) * (intra + s / (k * L))
    return t + (wan + max(s / W, s / (k * L)) if p.dcs == 2 else 0.0)


def spec_hier_allgather(p: Params, b: float) -> float:
    k, intra, wan, L, W = spec_hier(p)
    if p.dcs == 1:
        return (k - 1) * (intra + b / L)
    return wan + max(k * b / W, b / L) + (k - 1) * (intra + 2 * b / L)


def spec_innet(p: Params, d: float, b: float) -> float:
    k, intra, wan, L, W = spec_hier(p)
    cross = wan + b / W if p.dcs == 2 else 0.0
    return (k - 1) * (intra + d / (k * L)) + cross + (k - 1) * intra


def hier(mech_fn):
    return lambda net: net.env.process(mech_fn(net))


@pytest.mark.parametrize("where", WHERE)
@pytest.mark.parametrize("wan_gbps", [0.1, 12.5, 400.0])
def test_the_simulated_hierarchical_all_reduce_matches_its_closed_form(where, wan_gbps):
    p = params(bw_wan=wan_gbps * 1e9, **WHERE[where])
    for size in (p.dense_bytes, p.band_bytes):
        t, net = run_collective(p, hier(lambda net: des.run_hier_allreduce(net, size)))
        assert close(t, spec_hier_allreduce(p, size))
        assert close(t, closed.hier_allreduce(p, size))
        # one dense vector each way across the WAN, not the flat ring's 1.75
        assert net.wan_bytes == pytest.approx(2 * size if p.dcs == 2 else 0.0, rel=REL)


@pytest.mark.parametrize("where", WHERE)
@pytest.mark.parametrize("wan_gbps", [0.1, 12.5, 400.0])
def test_the_simulated_hierarchical_all_gather_matches_its_closed_form(where, wan_gbps):
    p = params(bw_wan=wan_gbps * 1e9, **WHERE[where])
    for payload in (p.topk_bytes, p.band_bytes):
        t, net = run_collective(p, hier(lambda net: des.run_hier_allgather(net, payload)))
        assert close(t, spec_hier_allgather(p, payload))
        assert close(t, closed.hier_allgather(p, payload))


@pytest.mark.parametrize("where", WHERE)
@pytest.mark.parametrize("wan_gbps", [0.1, 12.5, 400.0])
def test_the_simulated_in_network_sum_matches_its_closed_form(where, wan_gbps):
    p = params(bw_wan=wan_gbps * 1e9, **WHERE[where])
    d, b = p.dense_bytes, p.band_bytes
    t, net = run_collective(p, hier(lambda net: des.innet(net, d, b)))
    assert close(t, spec_innet(p, d, b))
    assert close(t, closed.innet_sum(p, d, b))
    assert net.wan_bytes == pytest.approx(2 * b if p.dcs == 2 else 0.0, rel=REL)


def test_the_wan_exchange_pays_its_latency_once_and_k_separate_flows_would_queue():
    """Contention: the exchange is one flow each way. Sent as k peer-to-peer transfers
    instead, they queue on the WAN (one transfer at a time per direction), each paying
    the WAN step's latency, so the closed form no longer applies."""
    p = params(bw_wan=400e9)
    k, _, wan, L, W = spec_hier(p)
    shard = p.dense_bytes / k
    t_one, _ = run_collective(p, lambda net: des.exchange(net, shard, p.dense_bytes, shard))

    def separate(net):
        flows = [net.env.process(net.transfer(a, a + k, shard)) for a in range(k)]
        flows += [net.env.process(net.transfer(a + k, a, shard)) for a in range(k)]
        return net.env.all_of(flows)

    t_sep, _ = run_collective(p, separate)
    assert close(t_one, wan + max(p.dense_bytes / W, shard / L))
    assert close(t_sep, k * (wan + shard / min(L, W)))
    assert t_sep > t_one


def test_two_hierarchical_all_reduces_at_once_share_the_links_and_queue():
    p = params()
    size = p.dense_bytes
    one = closed.hier_allreduce(p, size)

    def both(net):
        a = net.env.process(des.run_hier_allreduce(net, size))
        b = net.env.process(des.run_hier_allreduce(net, size))
        return net.env.all_of([a, b])

    t, net = run_collective(p, both)
    # every link carried both collectives' bytes, one transfer at a time, so the closed
    # form (one collective, nothing queued) no longer applies: each ring step of one waits
    # for the other's transfer on the shared link, and here the interleaving ends later
    # than the two run back to back would
    assert net.wan_bytes == pytest.approx(2 * 2 * size, rel=REL)
    assert t > 2 * one


def test_the_flat_ring_crosses_the_wan_exactly_twice_per_ring_step():
    p = params()
    n, size = p.workers, p.dense_bytes
    _, net = run_collective(p, lambda net: des.ring_allreduce(net, size))
    ring_steps = 2 * (n - 1)
    assert net.wan_bytes == pytest.approx(2 * ring_steps * size / n, rel=REL)


def test_a_ring_that_alternates_data_centres_queues_on_the_wan_and_runs_slower():
    """Contention: ordering the ring w0, w4, w1, w5, ... puts every hop on the WAN, so four
    transfers queue on each WAN direction at every ring step. The closed form (which
    assumes no queueing) no longer applies; the WAN's capacity bounds the time instead."""
    p = params()
    n, size = p.workers, p.dense_bytes
    half = n // 2
    order = [w for pair in zip(range(half), range(half, n)) for w in pair]
    t_good, net_good = run_collective(p, lambda net: des.ring_allreduce(net, size))
    t_bad, net_bad = run_collective(p, lambda net: des.ring_allreduce(net, size, order))
    # every one of the n hops now crosses the WAN, not two of them
    assert net_bad.wan_bytes == pytest.approx(net_good.wan_bytes * n / 2, rel=REL)
    # each WAN direction must serialise half of those bytes: a lower bound on the time
    per_direction = net_bad.wan_bytes / 2
    bound = per_direction / p.bw_wan
    assert t_bad >= bound * (1 - REL)
    # ...and that bound already exceeds the uncontended closed form, which the good
    # ordering meets
    assert bound > closed.ring_allreduce(p, size)
    assert close(t_good, closed.ring_allreduce(p, size))
    assert t_bad > t_good


@pytest.mark.parametrize("mech", closed.MECHS)
@pytest.mark.parametrize("dcs", [1, 2])
@pytest.mark.parametrize("layout", closed.LAYOUTS)
def test_a_simulated_training_step_matches_the_closed_form_in_every_part(mech, dcs, layout):
    p = params(dcs=dcs, layout=layout)
    st, durations = des.simulate(p, mech, 3)
    cl = closed.step(p, mech)
    for part in ("compute", "gpu", "module", "comm"):
        assert math.isclose(getattr(st, part), getattr(cl, part), rel_tol=REL,
                            abs_tol=REL * cl.total), part
    for part in ("gpu_j", "link_j", "module_j"):
        assert math.isclose(getattr(st, part), getattr(cl, part), rel_tol=REL,
                            abs_tol=REL * cl.energy), part
    assert st.wire == pytest.approx(cl.wire, rel=REL)
    assert st.wan_bytes == pytest.approx(cl.wan_bytes, rel=REL)
    assert des.steady_spread(durations) < REL


def test_the_module_runs_at_the_port_rate_when_the_transform_does_not_count():
    p = params(transform_counts=False, module_budget=1.0)
    assert closed.module_rate(p) == p.module_port_rate
    q = params(transform_counts=True)
    assert closed.module_rate(q) == min(q.module_port_rate,
                                        q.module_budget / (q.band_macs * q.module_ops_per_mac))
    r = params(transform_counts=True, module_uses_fft=True)
    assert closed.module_rate(r) == min(r.module_port_rate,
                                        r.module_budget / (r.fft_macs * r.module_ops_per_mac))


def test_bisection_finds_where_two_times_cross_to_the_bracket_it_reports():
    # a synthetic pair whose crossing is known exactly: t_a = 2 + 1/bw, t_b = 1 + 3/bw
    # cross where 1 = 2/bw, at bw = 2
    be = closed.break_even(lambda b: 2 + 1 / b, lambda b: 1 + 3 / b, 0.1, 1000.0, 60)
    assert be.kind == "below"
    assert be.at == pytest.approx(2.0, rel=1e-12)
    whole = closed.break_even(lambda b: 1.0, lambda b: 2.0, 0.1, 1000.0, 10)
    none = closed.break_even(lambda b: 2.0, lambda b: 1.0, 0.1, 1000.0, 10)
    never = closed.break_even(lambda b: None, lambda b: 1.0, 0.1, 1000.0, 10)
    assert (whole.kind, none.kind, never.kind) == ("whole", "none", "none")
    above = closed.break_even(lambda b: 1 + 3 / b, lambda b: 2 + 1 / b, 0.1, 1000.0, 60)
    assert above.kind == "above" and above.at == pytest.approx(2.0, rel=1e-12)


def test_the_sweep_grid_is_logarithmic_and_ends_on_both_limits():
    g = closed.sweep_grid(0.1e9, 1000e9, 10)
    assert g[0] == 0.1e9 and g[-1] == 1000e9
    ratios = [b / a for a, b in zip(g, g[1:])]
    assert all(math.isclose(r, ratios[0], rel_tol=1e-9) for r in ratios)
    assert math.isclose(ratios[0] ** 10, 10.0, rel_tol=1e-9)
