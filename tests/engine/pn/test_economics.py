"""The break-even target from money: the same operating point as the net value's maximum (brute force)."""

import numpy as np
import pytest

from engine.errors import InputError
from engine.pn import Economics, operating_point, pn_curve, target_from_money
from engine.pn.display import money_statement


@pytest.mark.parametrize("seed", range(20))
def test_money_operating_point_maximises_the_net_value(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 400))
    s = np.round(rng.random(n), int(rng.integers(1, 4)))
    y = (rng.random(n) < s**2).astype(int)
    c, v, f = (float(x) for x in rng.integers(1, 20, 3))
    v += c  # a positive must repay its review
    op = operating_point(s, y, target_from_money(c, v, f))
    curve = pn_curve(s, y)
    net = np.r_[0.0, v * curve.tp - c * (curve.tp + curve.fp) - f * curve.fp]  # "flag nothing" first
    thresholds = np.r_[np.inf, curve.thresholds]
    best = net.max()
    scale = max(1.0, v * curve.tp[-1] + (c + f) * curve.fp[-1])
    first_best = int(np.flatnonzero(net >= best - 1e-9 * scale)[0])  # ties: the highest threshold
    assert op.threshold == thresholds[first_best]


def test_target_formula_and_statement():
    assert target_from_money(3, 10) == 0.3
    assert target_from_money(2, 9, 1) == 0.3
    e = Economics(3, 10)
    assert e.document_value(0.3) == pytest.approx(0.0)  # break even at the target
    st = money_statement(70, 30, e, days=10, marginal_precision=0.25)
    assert (st.value_caught, st.review_cost, st.net_value, st.net_per_day) == (700, 300, 400, 40)
    assert st.last_document_value == pytest.approx(-0.5)
    assert "net $400 ($40 per day over 10 days)" in st.sentence("$")


def test_money_that_is_not_a_target_is_refused():
    with pytest.raises(InputError, match="must exceed the review cost"):
        target_from_money(5, 5)
    with pytest.raises(InputError, match="flags everything"):
        target_from_money(0, 5)
    with pytest.raises(InputError, match=r"review cost must be a finite number in \[0, 1e\+15\], got -1"):
        target_from_money(-1, 5)
    with pytest.raises(InputError, match="days must be"):
        money_statement(1, 1, Economics(1, 5), days=0)
