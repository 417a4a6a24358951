"""The input-kind registry: every kind well formed, a shipped sample per tabular kind read by its loader."""

import pytest

from engine.io import INPUT_KINDS, SAMPLES


@pytest.mark.parametrize("key", list(INPUT_KINDS))
def test_every_kind_is_well_formed(key):
    kind = INPUT_KINDS[key]
    assert kind.key == key
    assert all(isinstance(v, str) and v for v in (kind.title, kind.what, kind.example))
    assert isinstance(kind.tabular, bool)


def test_every_sample_is_of_a_known_kind_and_its_companion_is_rated_data():
    for sample in SAMPLES.values():
        assert sample.kind is None or sample.kind in INPUT_KINDS
        assert sample.companion is None or SAMPLES[sample.companion].kind == "rated"
    assert SAMPLES["satimage_audit"].companion == "satimage_rated"
