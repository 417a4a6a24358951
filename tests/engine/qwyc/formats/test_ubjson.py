"""The bounded UBJSON decoder: against XGBoost's own UBJSON/JSON pair, hand-made documents and hostile counts."""

import json
import struct

import numpy as np
import pytest
import xgboost

from engine.errors import InputError
from engine.qwyc.formats import decode_ubjson


def plain(value):
    """numpy arrays as lists (the JSON side's types)."""
    if isinstance(value, dict):
        return {k: plain(v) for k, v in value.items()}
    if isinstance(value, (list, np.ndarray)):
        return [plain(v) for v in value]
    return value.item() if isinstance(value, np.generic) else value


def test_xgboosts_ubjson_decodes_to_its_json():
    """Oracle: XGBoost writes the same model as JSON; float32 values compare after rounding to float32."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(300, 4))
    booster = xgboost.XGBClassifier(n_estimators=5, max_depth=3).fit(x, x[:, 0] > 0).get_booster()
    ours = plain(decode_ubjson(bytes(booster.save_raw("ubj")), what="m"))
    theirs = json.loads(booster.save_raw("json"))

    def same(a, b, path="$"):
        if isinstance(b, dict):
            assert isinstance(a, dict) and set(a) == set(b), path
            for k in b:
                same(a[k], b[k], f"{path}.{k}")
        elif isinstance(b, list):
            assert isinstance(a, list) and len(a) == len(b), path
            for i, (u, v) in enumerate(zip(a, b)):
                same(u, v, f"{path}[{i}]")
        elif isinstance(b, float):
            assert np.float32(a) == np.float32(b), path
        else:
            assert a == b, path

    same(ours, theirs)


def test_hand_made_documents():
    doc = (
        b"{"
        + b"i\x01aU\x05"
        + b"i\x01bSi\x02hi"
        + b"i\x01c[$l#i\x02"
        + struct.pack(">ii", -3, 7)
        + b"i\x01d[TFZD"
        + struct.pack(">d", 1.5)
        + b"]"
        + b"i\x01e{#i\x01i\x01xC"
        + b"q"
        + b"}"
    )
    value = decode_ubjson(doc, what="doc")
    assert value["a"] == 5 and value["b"] == "hi" and value["c"].tolist() == [-3, 7]
    assert value["d"] == [True, False, None, 1.5] and value["e"] == {"x": "q"}


@pytest.mark.parametrize(
    "doc,needle",
    [
        (b"", "ends early"),
        (b"[$d#L" + struct.pack(">q", 2**60), "ends early"),
        (b"[#L" + struct.pack(">q", 2**40) + b"Z", "more than the bytes left"),
        (b"[$Z#L" + struct.pack(">q", 2**40), "without payload"),
        (b"[" * 100 + b"]" * 100, "deeper than"),
        (b"Si\xff", "negative"),
        (b"Si\x02\xff\xfe", "not UTF-8"),
        (b"X", "unknown marker"),
        (b"Ti\x01", "follow the document"),
        (b"[$di\x01", "no count"),
    ],
)
def test_hostile_documents_are_input_errors(doc, needle):
    with pytest.raises(InputError, match=needle):
        decode_ubjson(doc, what="doc")
