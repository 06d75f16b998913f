"""The formulas /method shows (content/pages/method.md, docs/math-citations.md) are what
the simulator computes (study/sim/closed.py): each labelled TeX formula of the page is
read here, pinned to the Python that says what it means, and that Python is compared
with the closed form on made-up parameters (tests/unit/test_sim_models.py's)."""

import math
import re
from pathlib import Path

import numpy as np
import pytest

from study.sim import closed
from tests.unit.test_sim_models import params

ROOT = Path(__file__).resolve().parents[2]
REL = 1e-12
# label -> the formula's TeX as the page writes it
TEX = {
    "eq:band": r"X_u = \alpha_u \sum_{m=0}^{M-1} x_m \cos\frac{\pi\,(\const{2}m+\const{1})\,u}"
               r"{\const{2}M}, \qquad \alpha_u = \begin{cases}\sqrt{\const{1}/M} & u = \const{0}"
               r"\\ \sqrt{\const{2}/M} & \text{otherwise}\end{cases}",
    "eq:hier": r"w_{\text{hier}} = \frac{\const{2}(k-\const{1})}{k}\,S + \frac{S}{k}",
    "eq:ring": r"w_{\text{ring}} = \frac{\const{2}(N-\const{1})}{N}\,S",
    "eq:energy": r"E_{\text{step}} = N P_{\text{GPU}}\,(t_{\text{compute}} + t_{\text{compress}}) + "
                 r"\const{8}\,(B_{\text{link}}\,e_{\text{link}} + B_{\text{WAN}}\,e_{\text{WAN}}) + "
                 r"m\,P_{\text{mod}}\,t_{\text{mod}}",
}


def page_formulas() -> dict[str, str]:
    text = (ROOT / "content" / "pages" / "method.md").read_text(encoding="utf-8")
    return {m.group(2): m.group(1).strip()
            for m in re.finditer(r"^\$\$(.+?)\$\$ \((eq:[a-z0-9-]+)\)$", text, re.M)}


def test_the_page_shows_the_formulas_tested_here():
    assert page_formulas() == TEX


def _close(a, b):
    return math.isclose(a, b, rel_tol=REL)


@pytest.mark.parametrize("mech", ["A", "Cprime"])
def test_the_wire_bytes_of_an_all_reduce_are_eq_hier_and_eq_ring(mech):
    hier = params()
    k, S = hier.workers // hier.dcs, {"A": hier.dense_bytes}.get(mech, hier.band_bytes)
    assert _close(closed.traffic(hier, mech)[3], 2 * (k - 1) / k * S + S / k)       # eq:hier
    flat = params(layout="flat-ring")
    N = flat.workers
    assert _close(closed.traffic(flat, mech)[3], 2 * (N - 1) / N * S)              # eq:ring


@pytest.mark.parametrize("mech", ["A", "B", "C", "Cprime", "E", "Eprime"])
def test_the_energy_of_a_step_is_eq_energy(mech):
    p = params()
    st = closed.step(p, mech)
    _, b_link, b_wan, _ = closed.traffic(p, mech)
    m = {"E": p.workers, "Eprime": p.dcs}.get(mech, 0)
    energy = (p.workers * p.gpu_power * (st.compute + st.gpu)
              + 8 * (b_link * p.j_per_bit_intra + b_wan * p.j_per_bit_wan)
              + m * p.module_power * st.module)
    assert _close(st.energy, energy)


@pytest.mark.parametrize("M", [64, 256])
def test_eq_band_is_the_orthonormal_dct_ii(M):
    """Each coefficient a fixed weighted sum (eq:band); the weights form an orthonormal
    matrix, and at u = 0 the sum is the chunk's mean times the square root of M."""
    u, m = np.arange(M)[:, None], np.arange(M)[None, :]
    alpha = np.where(u == 0, np.sqrt(1 / M), np.sqrt(2 / M))
    C = alpha * np.cos(np.pi * (2 * m + 1) * u / (2 * M))
    assert np.allclose(C @ C.T, np.eye(M), atol=1e-12)
    x = np.random.default_rng(M).normal(size=M)
    assert _close((C @ x)[0], x.mean() * math.sqrt(M))
