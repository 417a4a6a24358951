"""skops files audited before skops constructs anything: payloads never run, bombs never inflate."""

import importlib
import io
import json
import os
import tracemalloc
import zipfile

import pytest

from engine.errors import InputError
from engine.qwyc.formats import SKOPS_ALLOWED, SKOPS_ALLOWED_TYPES, read_skops
from tests.fuzz.model_corpus import skops_bombs, skops_file, skops_hostile, skops_payloads

import skops.io as sio


def test_the_payloads_are_live_under_plain_skops(tmp_path):
    """The oracle that the payload files are real: skops, told to trust their types, runs them."""
    for name in skops_payloads("unused"):
        marker = tmp_path / name
        payload = skops_payloads(str(marker))[name]
        sio.loads(payload, trusted=sio.get_untrusted_types(data=payload))
        assert marker.exists(), name


def test_payloads_are_refused_before_anything_is_constructed(tmp_path, monkeypatch):
    marker = tmp_path / "marker"
    calls = []
    monkeypatch.setattr(sio, "loads", lambda *a, **k: calls.append(a))
    files = {**skops_payloads(str(marker)), **skops_hostile(str(marker))}
    assert len(files) >= 25
    for name, raw in files.items():
        with pytest.raises(InputError) as info:
            read_skops(raw, name)
        assert name in str(info.value) and "\n" not in str(info.value)
        assert not marker.exists(), name
    assert calls == []  # skops never saw any of them
    message = str(pytest.raises(InputError, read_skops, skops_payloads(str(marker))["exec.skops"], "e.skops").value)
    assert "builtins.exec" in message and "not trusted" in message and "Nothing in the file was run" in message


def test_the_allow_list_is_exact_type_names_and_covers_real_files():
    from sklearn.ensemble import GradientBoostingClassifier, HistGradientBoostingClassifier

    for name in SKOPS_ALLOWED_TYPES:  # exact names of real classes, no prefixes
        module, _, cls = name.rpartition(".")
        assert isinstance(getattr(importlib.import_module(module), cls), type), name
    import numpy as np

    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 3))
    y = (x[:, 0] > 0).astype(int)
    models = [GradientBoostingClassifier(n_estimators=2, loss=loss, random_state=rs).fit(x, y)
              for loss in ("log_loss", "exponential") for rs in (None, 0, np.random.RandomState(1))]
    models.append(GradientBoostingClassifier(n_estimators=30, n_iter_no_change=2, validation_fraction=0.3,
                                             subsample=0.5).fit(x, y))  # oob_score_ is a numpy.float64
    models += [HistGradientBoostingClassifier(max_iter=2, early_stopping=es, max_features=mf, random_state=0).fit(x, y)
               for es in (False, True) for mf in (1.0, 0.5)]
    seen = set()

    def walk(o):
        if isinstance(o, dict):
            if o.get("__loader__") not in (None, "CachedNode"):
                seen.add((o["__loader__"], f"{o['__module__']}.{o['__class__']}"))
            for v in o.values():
                walk(v)
        elif isinstance(o, list):
            for v in o:
                walk(v)
    for model in models:
        raw = sio.dumps(model)
        walk(json.loads(zipfile.ZipFile(io.BytesIO(raw)).read("schema.json")))
        read_skops(raw, "real.skops")
    allowed = {(loader, t) for loader, types in SKOPS_ALLOWED.items() for t in types}
    assert seen <= allowed
    # every allowed pair is one real files hold (the Cython losses as ObjectNode: skops 0.10's way)
    extra = allowed - seen
    assert extra <= {("ObjectNode", "sklearn._loss._loss.CyHalfBinomialLoss"),
                     ("ObjectNode", "sklearn._loss._loss.CyExponentialLoss")}, extra


@pytest.mark.parametrize("name", ["array_bomb.skops", "whitespace_bomb.skops"])
def test_decompression_bombs_are_refused_within_bounded_memory(name):
    raw = skops_bombs()[name]
    assert len(raw) < 3_000_000
    tracemalloc.start()
    try:
        with pytest.raises(InputError, match="inflates to more than"):
            read_skops(raw, name)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * 2**20, peak


def test_a_real_file_still_reads_after_the_audit():
    model = read_skops(skops_file("classic"), "gb.skops")
    assert model.ensemble.n_models == 5 and model.feature_names == ("a", "b", "c", "d")
    assert os.environ.get("NEVER_SET_BY_A_PAYLOAD") is None
