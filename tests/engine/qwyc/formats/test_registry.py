"""The model-format registry: one table in engine.io, one reader per key in engine.qwyc.formats."""

import ast
from pathlib import Path

import pytest

from engine.io import INPUT_KINDS, model_formats_sentence
from engine.io._model_formats import (
    MODEL_FORMATS,
    how_to_save_models,
    model_file_extensions,
    model_format,
    model_format_by_key,
)
from engine.qwyc._models import load_model
from engine.qwyc.formats import READERS
from tests.fuzz.model_corpus import lightgbm_text, skops_file, xgboost_json

ROOT = Path(__file__).resolve().parents[4]


def test_every_format_has_a_reader_and_every_reader_a_format():
    assert [f.key for f in MODEL_FORMATS] == list(READERS)
    assert len({f.key for f in MODEL_FORMATS}) == len(MODEL_FORMATS)
    for f in MODEL_FORMATS:  # the reader is the one its module defines for the key, nothing else
        assert READERS[f.key].__module__ == f"engine.qwyc.formats.{f.key}"
        assert READERS[f.key].__name__ == f"read_{f.key}"


def test_a_new_format_is_one_registry_line(monkeypatch):
    """Registering a format in MODEL_FORMATS alone makes its reader module's reader the one load_model calls."""
    import importlib
    import sys
    import types

    from engine.io import _model_formats as model_formats
    from engine.io._model_formats import ModelFormat
    from engine.qwyc import _models as models
    from engine.qwyc import formats
    from engine.qwyc.formats._common import ReadModel

    module = types.ModuleType("engine.qwyc.formats.toyformat")
    module.read_toyformat = lambda raw, name: ReadModel(load_model(lightgbm_text()).ensemble, ("x",), False)
    monkeypatch.setitem(sys.modules, "engine.qwyc.formats.toyformat", module)
    toy = ModelFormat("toyformat", "Toy", ("toy",), lambda raw: raw.startswith(b"TOY"), "a toy", "TOY...")
    monkeypatch.setattr(model_formats, "MODEL_FORMATS", (*MODEL_FORMATS, toy))
    try:
        monkeypatch.setattr(models, "READERS", importlib.reload(formats).READERS)
        loaded = load_model(b"TOY model", name="m.toy")
        assert loaded.file_format == "toyformat" and loaded.feature_names == ("x",)
        assert "Toy (.toy)" in model_formats.model_formats_sentence()
    finally:
        monkeypatch.undo()
        importlib.reload(formats)


def test_engine_io_never_imports_the_qwyc_engine():
    """Sniffing lives in engine.io; the readers are looked up by key on the qwyc side (no upward import)."""
    for path in sorted((ROOT / "engine" / "io").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom):
                target = ("." * node.level) + (node.module or "")
                assert "qwyc" not in target, f"{path.name} imports {target}"


@pytest.mark.parametrize("key,raw", [("lightgbm", lightgbm_text), ("xgboost", xgboost_json), ("skops", skops_file)])
def test_each_sniffer_recognises_its_own_files_only(key, raw):
    content = raw()
    assert model_format(content) == key
    assert [f.key for f in MODEL_FORMATS if f.sniff(content)] == [key]
    assert load_model(content).file_format == key


def test_texts_are_derived_from_the_table():
    kind = INPUT_KINDS["model_file"]
    for f in MODEL_FORMATS:
        assert f.title in kind.what and f.how_to_save in kind.what and f.title in kind.example
        assert f.title in model_formats_sentence() and f.how_to_save in how_to_save_models()
        assert model_format_by_key(f.key) is f
    assert set(model_file_extensions()) == {e for f in MODEL_FORMATS for e in f.extensions}
    with pytest.raises(Exception, match="not a model file this studio reads") as info:
        load_model(b"a,b\n1,2\n", name="x.csv")
    assert all(f.how_to_save in str(info.value) for f in MODEL_FORMATS)
    from engine.cli import _parser

    help_text = (
        _parser()
        ._subparsers._group_actions[0]
        .choices["qwyc"]
        ._subparsers._group_actions[0]
        .choices["fit"]
        .format_help()
    )
    assert all(f.title in " ".join(help_text.split()) for f in MODEL_FORMATS)
