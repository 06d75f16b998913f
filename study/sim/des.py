"""The discrete-event simulation (SimPy) of data-parallel training across data centres.

Scenario (numbers from data/sim/scenario.yaml and the run logs, via `Params`):
`workers` GPUs split evenly over one or two data centres. Each direction of each link is
a FIFO resource (capacity one): every worker's link to its switch, up and down, and the
WAN between the two switches, each way. A transfer holds every link on its path
(cut-through) for the sum of the path's latencies plus its bytes over the slowest link;
a transfer that finds a link busy waits its turn.

Actors, one process function each:
- `_local`: a worker's compute, then its compression (GPU time, then the module, a
  resource of its own per worker or per switch port);
- `ring`: a worker's side of a ring collective: at each ring step it waits for the piece
  it needs from its predecessor, then sends to its successor. The flat ring runs over all
  workers (all-reduce: 2(N−1) steps of S/N; all-gather: N−1 steps of the payload); the
  hierarchical layout runs one ring inside each data centre at once;
- `exchange`: the hierarchical layout's step across the WAN: one flow each way, holding
  every sending worker's up link, the WAN direction and every receiving worker's down
  link, with the latency of one crossing paid once;
- `innet`: E′: reduce-scatter rings in each data centre, the band across the WAN each way
  (one flow each way), the band's return down each data centre's ring (latency only).

A training step ends when every worker holds the aggregate (a barrier), so every
simulated step takes the same time: the first step is already the steady state, and
`simulate` checks it. There is no randomness, so nothing needs a seed.
"""

from __future__ import annotations

import simpy

from .closed import Params, Step, gpu_macs, modules, module_rate, wan_alpha


class Link:
    """One direction of one link: a FIFO resource with latency, bandwidth and J/bit."""
    __slots__ = ("idx", "name", "res", "alpha", "bw", "j_per_bit")

    def __init__(self, env, idx, name, alpha, bw, j_per_bit):
        self.idx, self.name = idx, name
        self.res = simpy.Resource(env, capacity=1)
        self.alpha, self.bw, self.j_per_bit = alpha, bw, j_per_bit


class Net:
    """The links of the topology and the energy and bytes that crossed them."""

    def __init__(self, env: simpy.Environment, p: Params):
        self.env, self.p = env, p
        n, dcs = p.workers, p.dcs
        self.per_dc = n // dcs
        links = []

        def add(name, alpha, bw, jpb):
            link = Link(env, len(links), name, alpha, bw, jpb)
            links.append(link)
            return link

        self.up = [add(f"up{w}", p.alpha_intra, p.bw_nic, p.j_per_bit_intra) for w in range(n)]
        self.down = [add(f"down{w}", p.alpha_intra, p.bw_nic, p.j_per_bit_intra)
                     for w in range(n)]
        self.wan = {}
        if dcs == 2:
            self.wan[(0, 1)] = add("wan0->1", p.alpha_wan, p.bw_wan, p.j_per_bit_wan)
            self.wan[(1, 0)] = add("wan1->0", p.alpha_wan, p.bw_wan, p.j_per_bit_wan)
        self.links = links
        self.link_j = 0.0
        self.wan_bytes = 0.0
        self.sent = [0.0] * n            # bytes each worker put on its own up link

    def dc(self, w: int) -> int:
        return w // self.per_dc

    def path(self, a: int, b: int) -> list[Link]:
        hops = [self.up[a]]
        if self.dc(a) != self.dc(b):
            hops.append(self.wan[(self.dc(a), self.dc(b))])
        hops.append(self.down[b])
        return hops

    def flow(self, hops: list[tuple[Link, float]], latency: float):
        """Hold every hop's link (acquired in a fixed global order, so two flows never
        deadlock), for `latency` plus the longest serialisation among the hops."""
        env = self.env
        held = []
        for link, _ in sorted(hops, key=lambda h: h[0].idx):
            req = link.res.request()
            yield req
            held.append((link, req))
        yield env.timeout(latency + max(b / link.bw for link, b in hops))
        for link, b in hops:
            self.link_j += b * 8 * link.j_per_bit
            if link.name.startswith("wan"):
                self.wan_bytes += b
            elif link.name.startswith("up"):
                self.sent[int(link.name[2:])] += b
        for link, req in held:
            link.res.release(req)

    def transfer(self, a: int, b: int, nbytes: float):
        hops = self.path(a, b)
        return self.flow([(h, nbytes) for h in hops], sum(h.alpha for h in hops))


def ring(net: Net, ring_steps: int, chunk: float, order: list[int] | None = None):
    """A ring collective as a chunk schedule: at ring step k each worker sends one chunk
    to its successor, once it has the chunk its predecessor sent at step k−1. Returns an
    event that fires when every worker has sent (and so received) everything."""
    env = net.env
    order = list(range(net.p.workers)) if order is None else order
    n = len(order)
    got = {w: [env.event() for _ in range(ring_steps)] for w in order}

    def worker(pos):
        me, nxt = order[pos], order[(pos + 1) % n]
        for k in range(ring_steps):
            if k:
                yield got[me][k - 1]
            yield from net.transfer(me, nxt, chunk)
            got[nxt][k].succeed()

    return env.all_of([env.process(worker(i)) for i in range(n)])


def ring_allreduce(net: Net, size: float, order=None):
    n = net.p.workers
    return ring(net, 2 * (n - 1), size / n, order)


def ring_allgather(net: Net, payload: float, order=None):
    return ring(net, net.p.workers - 1, payload, order)


def dc_members(net: Net) -> list[list[int]]:
    """The workers of each data centre, in ring order."""
    k = net.per_dc
    return [list(range(d * k, (d + 1) * k)) for d in range(net.p.dcs)]


def dc_rings(net: Net, ring_steps: int, chunk: float):
    """One ring inside each data centre, all at once."""
    return net.env.all_of([ring(net, ring_steps, chunk, m) for m in dc_members(net)])


def exchange(net: Net, up: float, across: float, down: float, workers: bool = True):
    """The WAN step of the hierarchical layout: one flow each way between the two data
    centres. With `workers`, every worker of the sending side puts `up` bytes on its up
    link and every worker of the receiving side takes `down` from its down link (peer to
    peer); without, the flow starts and ends at the switches' WAN ports (E′'s module)."""
    members = dc_members(net)
    flows = []
    for src, dst in ((0, 1), (1, 0)):
        hops = [(net.wan[(src, dst)], across)]
        if workers:
            hops += [(net.up[w], up) for w in members[src]]
            hops += [(net.down[w], down) for w in members[dst]]
        flows.append(net.env.process(net.flow(hops, wan_alpha(net.p))))
    return net.env.all_of(flows)


def run_hier_allreduce(net: Net, size: float):
    k = net.per_dc
    yield dc_rings(net, k - 1, size / k)                    # reduce-scatter
    if net.p.dcs > 1:
        yield exchange(net, size / k, size, size / k)       # partial sums across
    yield dc_rings(net, k - 1, size / k)                    # all-gather


def run_hier_allgather(net: Net, payload: float):
    k = net.per_dc
    if net.p.dcs > 1:
        yield exchange(net, payload, k * payload, payload)  # swap with the peer
    yield dc_rings(net, k - 1, net.p.dcs * payload)         # the pairs, in each DC


def innet(net: Net, dense: float, band: float):
    """E′ (the module's time is the step's module phase)."""
    k = net.per_dc
    yield dc_rings(net, k - 1, dense / k)                   # dense reduce-scatter
    if net.p.dcs > 1:
        yield exchange(net, 0.0, band, 0.0, workers=False)  # one band each way
    yield dc_rings(net, k - 1, 0.0)                         # the band's return


def _collective(net: Net, mech: str):
    p = net.p
    size = {"A": p.dense_bytes, "B": p.topk_bytes}.get(mech, p.band_bytes)
    if mech == "Eprime":
        return net.env.process(innet(net, p.dense_bytes, p.band_bytes))
    if mech not in ("A", "B", "C", "Cprime", "E"):
        raise ValueError(f"unknown mechanism {mech!r}")
    reduce = mech in ("A", "Cprime")
    if p.layout == "flat-ring":
        return ring_allreduce(net, size) if reduce else ring_allgather(net, size)
    return net.env.process(run_hier_allreduce(net, size) if reduce
                           else run_hier_allgather(net, size))


def simulate(p: Params, mech: str, steps: int) -> tuple[Step, list[float]]:
    """Simulate `steps` training steps of one mechanism; return the last step (times,
    energy, bytes) and every step's duration."""
    env = simpy.Environment()
    net = Net(env, p)
    n = p.workers
    t_compute = p.flops_per_param_token * p.n_params * p.tokens / p.gpu_rate
    t_gpu = p.gpu_flops_per_mac * gpu_macs(p, mech) * p.n_params / p.gpu_rate
    uses_module = mech in ("E", "Eprime")
    t_module = p.n_params / module_rate(p) if uses_module else 0.0
    n_mod = modules(p, mech)
    units = [simpy.Resource(env, capacity=1) for _ in range(n_mod)]
    energy = {"gpu": 0.0, "module": 0.0}
    records = []

    def compute(w):
        yield env.timeout(t_compute)
        energy["gpu"] += p.gpu_power * t_compute

    def gpu_compress(w):
        yield env.timeout(t_gpu)
        energy["gpu"] += p.gpu_power * t_gpu

    def module_compress(w):
        with units[w].request() as req:
            yield req
            yield env.timeout(t_module)
        energy["module"] += p.module_power * t_module

    def phase(fn):
        return env.all_of([env.process(fn(w)) for w in range(n)])

    def training():
        for _ in range(steps):
            before = (energy["gpu"], energy["module"], net.link_j, net.wan_bytes,
                      net.sent[0])
            t0 = env.now
            yield phase(compute)
            t1 = env.now
            if t_gpu:
                yield phase(gpu_compress)
            t2 = env.now
            if uses_module:
                yield env.all_of([env.process(module_compress(u)) for u in range(n_mod)])
            t3 = env.now
            yield _collective(net, mech)
            t4 = env.now
            records.append(Step(
                compute=t1 - t0, gpu=t2 - t1, module=t3 - t2, comm=t4 - t3,
                gpu_j=energy["gpu"] - before[0], link_j=net.link_j - before[2],
                module_j=energy["module"] - before[1],
                wan_bytes=net.wan_bytes - before[3], wire=net.sent[0] - before[4]))

    env.process(training())
    env.run()
    durations = [r.total for r in records]
    return records[-1], durations


def steady_spread(durations: list[float]) -> float:
    """Largest relative difference between any step's duration and the first's."""
    first = durations[0]
    return max(abs(d - first) / first for d in durations)


__all__ = ["Net", "ring", "ring_allreduce", "ring_allgather", "run_hier_allreduce",
           "run_hier_allgather", "exchange", "innet", "simulate", "steady_spread"]
