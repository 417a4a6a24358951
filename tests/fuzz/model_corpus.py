"""Hostile model files, generated from small real models (nothing binary is committed).

* LightGBM text: the crashers of issue 21 (half a file, a non-numeric threshold,
  ``split_feature`` out of range, ``num_leaves=2000000000``) and more edits;
* XGBoost JSON / UBJSON: split index -3, a node pointing back to the root, missing
  ``learner_model_param`` / ``trees``, base_score 0 and 1, deep nesting;
* skops: payloads that run code when skops constructs them (``builtins.exec``,
  ``builtins.eval``, ``builtins.open``, ``os.system``), getattr chains, NumPy
  functions, method / partial / operator / type nodes, a bit generator named after a
  NumPy function, a cycle, an object-dtype array, and two decompression bombs.
"""

from __future__ import annotations

import io
import json
import re
import zipfile
from functools import cache

import numpy as np
import pandas as pd


def _data(n=400, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 4))
    y = (x[:, 0] - x[:, 1] + rng.normal(size=n) > 0).astype(int)
    return pd.DataFrame(x, columns=["a", "b", "c", "d"]), y


@cache
def lightgbm_text() -> bytes:
    import lightgbm

    frame, y = _data()
    return (
        lightgbm.LGBMClassifier(n_estimators=20, num_leaves=7, verbose=-1)
        .fit(frame, y)
        .booster_.model_to_string()
        .encode()
    )


@cache
def xgboost_json() -> bytes:
    import xgboost

    frame, y = _data()
    return bytes(xgboost.XGBClassifier(n_estimators=10, max_depth=3).fit(frame, y).get_booster().save_raw("json"))


@cache
def skops_file(kind: str = "hist") -> bytes:
    import skops.io as sio
    from sklearn.ensemble import GradientBoostingClassifier, HistGradientBoostingClassifier

    frame, y = _data()
    model = (
        HistGradientBoostingClassifier(max_iter=5, early_stopping=False)
        if kind == "hist"
        else GradientBoostingClassifier(n_estimators=5)
    ).fit(frame, y)
    return sio.dumps(model)


def _sub_first(text: str, pattern: str, repl: str) -> str:
    out, n = re.subn(pattern, repl, text, count=1, flags=re.M)
    assert n == 1, pattern
    return out


def lightgbm_crashers() -> dict[str, bytes]:
    """Edited LightGBM texts that crash LightGBM's own parser or are silently misread by it."""
    text = lightgbm_text().decode()
    return {
        "half_file.txt": text[: len(text) // 2].encode(),
        "non_numeric_threshold.txt": _sub_first(text, r"^threshold=\S+", "threshold=abc").encode(),
        "split_feature_out_of_range.txt": _sub_first(text, r"^split_feature=\S+", "split_feature=99").encode(),
        "huge_num_leaves.txt": _sub_first(text, r"^num_leaves=\d+", "num_leaves=2000000000").encode(),
        "negative_num_leaves.txt": _sub_first(text, r"^num_leaves=\d+", "num_leaves=-5").encode(),
        "nan_leaf.txt": _sub_first(text, r"^leaf_value=\S+", "leaf_value=nan").encode(),
        "child_cycle.txt": _sub_first(text, r"^left_child=\S+", "left_child=0").encode(),
        "child_out_of_range.txt": _sub_first(text, r"^right_child=\S+", "right_child=-99").encode(),
        "short_leaf_values.txt": _sub_first(text, r"^leaf_value=\S+ ", "leaf_value=").encode(),
        "decision_type_categorical.txt": _sub_first(text, r"^decision_type=\d+", "decision_type=1").encode(),
        "decision_type_unknown.txt": _sub_first(text, r"^decision_type=\d+", "decision_type=12").encode(),
        "huge_feature_index.txt": _sub_first(text, r"^max_feature_idx=\d+", "max_feature_idx=99999999999").encode(),
        "overflow_int.txt": _sub_first(text, r"^split_feature=\S+", "split_feature=99999999999999999999999").encode(),
        "not_utf8.txt": text.encode()[:200] + b"\xff\xfe" + text.encode()[200:],
        "no_trees.txt": text[: text.index("Tree=0")].encode() + b"end of trees\n",
        "renumbered_tree.txt": text.replace("Tree=1\n", "Tree=7\n", 1).encode(),
    }


_DROP = object()


def set_at(path: list, value=_DROP):
    """An edit of a parsed JSON document: the value at ``path`` (keys and indices) becomes ``value``
    (without a value, the key is removed)."""

    def edit(doc):
        obj = doc
        for k in path[:-1]:
            obj = obj[k]
        if value is _DROP:
            del obj[path[-1]]
        else:
            obj[path[-1]] = value

    return edit


def drop_at(path: list):
    """An edit that removes the key at ``path``."""
    return set_at(path)


def assert_refused(read, raw: bytes, name: str, needle: str | None = None) -> None:
    """``read(raw, name)`` raises one InputError: one line, naming the file (and ``needle`` when given)."""
    from engine.errors import InputError

    try:
        read(raw, name)
    except InputError as exc:
        message = str(exc)
        assert name in message and "\n" not in message and len(message) < 600, message
        assert needle is None or needle in message, (needle, message)
        return
    raise AssertionError(f"{name} was read")


def _learner_edit(edit) -> bytes:
    doc = json.loads(xgboost_json())
    edit(doc)
    return json.dumps(doc).encode()


def _tree(doc, i=0):
    return doc["learner"]["gradient_booster"]["model"]["trees"][i]


def xgboost_crashers() -> dict[str, bytes]:
    """Edited XGBoost JSON models that crash XGBoost, raise a library error or are silently misread."""

    def tree_edit(key, i, value):
        return set_at(["learner", "gradient_booster", "model", "trees", 0, key, i], value)

    inner = next(
        i
        for i, c in enumerate(
            json.loads(xgboost_json())["learner"]["gradient_booster"]["model"]["trees"][0]["left_children"]
        )
        if c > 0 and i > 0
    )
    return {
        "split_index_negative.json": _learner_edit(tree_edit("split_indices", 0, -3)),
        "split_index_out_of_range.json": _learner_edit(tree_edit("split_indices", 0, 40)),
        "node_points_to_root.json": _learner_edit(tree_edit("left_children", inner, 0)),
        "child_out_of_range.json": _learner_edit(tree_edit("right_children", 0, 10_000)),
        "one_child.json": _learner_edit(tree_edit("right_children", 0, -1)),
        "float_index.json": _learner_edit(tree_edit("split_indices", 0, 1.5)),
        "nan_condition.json": _learner_edit(tree_edit("split_conditions", 0, 1e300)),
        "no_learner_model_param.json": _learner_edit(drop_at(["learner", "learner_model_param"])),
        "no_trees.json": _learner_edit(drop_at(["learner", "gradient_booster", "model", "trees"])),
        "trees_not_a_list.json": _learner_edit(set_at(["learner", "gradient_booster", "model", "trees"], {"a": 1})),
        "base_score_0.json": _learner_edit(set_at(["learner", "learner_model_param", "base_score"], "0")),
        "base_score_1.json": _learner_edit(set_at(["learner", "learner_model_param", "base_score"], "1")),
        "base_score_text.json": _learner_edit(set_at(["learner", "learner_model_param", "base_score"], "abc")),
        "num_nodes_huge.json": _learner_edit(lambda d: _tree(d)["tree_param"].update(num_nodes="2000000000")),
        "num_feature_huge.json": _learner_edit(set_at(["learner", "learner_model_param", "num_feature"], "9" * 30)),
        "learner_is_a_list.json": json.dumps({"learner": [1, 2]}).encode(),
        "deep_nesting.json": b'{"learner": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
        "ubjson_truncated.ubj": b"{L\x00\x00\x00\x00\x00\x00\x00\x07learner{",
        "ubjson_huge_count.ubj": b"{i\x07learner[$d#L\x7f\xff\xff\xff\xff\xff\xff\xff",
        "ubjson_null_array.ubj": b"{i\x07learner[$Z#L\x00\x00\x00\x00\xff\xff\xff\xff}",
        "ubjson_deep.ubj": b"{i\x07learner" + b"[" * 10_000 + b"]" * 10_000 + b"}",
    }


# --- skops -----------------------------------------------------------------------------------------------------------


def _json_node(value) -> dict:
    return {
        "__class__": "str",
        "__module__": "builtins",
        "__loader__": "JsonNode",
        "content": json.dumps(value),
        "is_json": True,
    }


def _tuple_node(*items) -> dict:
    return {"__class__": "tuple", "__module__": "builtins", "__loader__": "TupleNode", "content": list(items)}


def _call(module: str, name: str, *args) -> dict:
    """skops' ConstructorFromReduceNode: loading it calls module.name(*args)."""
    return {
        "__class__": name,
        "__module__": module,
        "__loader__": "ConstructorFromReduceNode",
        "content": _tuple_node(*[a if isinstance(a, dict) else _json_node(a) for a in args]),
    }


def _type(module: str, name: str) -> dict:
    return {"__class__": name, "__module__": module, "__loader__": "TypeNode"}


def with_node(raw: bytes, node: dict, *, key: str = "evil", members: dict | None = None) -> bytes:
    """A real skops file with one more attribute on the model (and its key type), plus extra archive members."""
    with zipfile.ZipFile(io.BytesIO(raw)) as z:
        files = {n: z.read(n) for n in z.namelist()}
    schema = json.loads(files["schema.json"])
    schema["content"]["content"][key] = node
    schema["content"]["key_types"]["content"].append(_type("builtins", "str"))
    files["schema.json"] = json.dumps(schema).encode()
    files.update(members or {})
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for n, data in files.items():
            z.writestr(n, data)
    return out.getvalue()


def skops_payloads(marker: str) -> dict[str, bytes]:
    """skops files that write ``marker`` when skops loads them with their types trusted."""
    base = skops_file()
    return {
        "exec.skops": with_node(base, _call("builtins", "exec", f"open({marker!r}, 'w').write('x')")),
        "eval.skops": with_node(base, _call("builtins", "eval", f"__import__('os').system('touch {marker}')")),
        "open.skops": with_node(base, _call("builtins", "open", marker, "w")),
        "os_system.skops": with_node(base, _call("os", "system", f"touch {marker}")),
        "posix_system.skops": with_node(base, _call("posix", "system", f"touch {marker}")),
    }


def skops_hostile(marker: str) -> dict[str, bytes]:
    """Other refused skops content (types, loaders, structures, bombs): none may construct anything."""
    base = skops_file()
    npy = io.BytesIO()
    np.save(npy, np.zeros(3))
    header_only = npy.getvalue()[:128]
    files = {
        "getattr_chain.skops": with_node(base, _call("builtins", "getattr", _type("os", "system"), "__call__")),
        "numpy_function.skops": with_node(
            base, {"__class__": "save", "__module__": "numpy", "__loader__": "FunctionNode"}
        ),
        "numpy_load_as_array.skops": with_node(
            base,
            {
                "__class__": "fromfile",
                "__module__": "numpy",
                "__loader__": "NdArrayNode",
                "type": "numpy",
                "file": "extra.npy",
            },
            members={"extra.npy": npy.getvalue()},
        ),
        "method.skops": with_node(
            base,
            {
                "__class__": "dict",
                "__module__": "builtins",
                "__loader__": "MethodNode",
                "content": {
                    "func": "clear",
                    "obj": {
                        "__class__": "dict",
                        "__module__": "builtins",
                        "__loader__": "DictNode",
                        "content": {},
                        "key_types": {
                            "__class__": "list",
                            "__module__": "builtins",
                            "__loader__": "ListNode",
                            "content": [],
                        },
                    },
                },
            },
        ),
        "partial.skops": with_node(
            base,
            {
                "__class__": "partial",
                "__module__": "functools",
                "__loader__": "PartialNode",
                "content": {
                    "func": {"__class__": "system", "__module__": "os", "__loader__": "FunctionNode"},
                    "args": _tuple_node(_json_node(f"touch {marker}")),
                    "kwds": _json_node({}),
                    "namespace": _json_node(None),
                },
            },
        ),
        "operator.skops": with_node(
            base,
            {
                "__class__": "attrgetter",
                "__module__": "operator",
                "__loader__": "OperatorFuncNode",
                "attrs": _tuple_node(_json_node("x")),
            },
        ),
        "type_os.skops": with_node(base, _type("os", "system")),
        "loss_exec.skops": with_node(
            base,
            {
                "__class__": "exec",
                "__module__": "builtins",
                "__loader__": "LossNode",
                "__reduce__": {"args": _tuple_node(_json_node("1"))},
                "content": _json_node({}),
            },
        ),
        "object_subprocess.skops": with_node(
            base, {"__class__": "Popen", "__module__": "subprocess", "__loader__": "ObjectNode"}
        ),
        "sklearn_prefix_trick.skops": with_node(
            base, {"__class__": "load", "__module__": "sklearn.utils._joblib", "__loader__": "ObjectNode"}
        ),
        "object_array.skops": with_node(
            base,
            {
                "__class__": "ndarray",
                "__module__": "numpy",
                "__loader__": "NdArrayNode",
                "type": "numpy",
                "file": "obj.npy",
            },
            members={"obj.npy": header_only.replace(b"'<f8'", b"'|O' ")},
        ),
        "short_array.skops": with_node(
            base,
            {
                "__class__": "ndarray",
                "__module__": "numpy",
                "__loader__": "NdArrayNode",
                "type": "numpy",
                "file": "short.npy",
            },
            members={"short.npy": header_only},
        ),
        "missing_member.skops": with_node(
            base,
            {
                "__class__": "ndarray",
                "__module__": "numpy",
                "__loader__": "NdArrayNode",
                "type": "numpy",
                "file": "nope.npy",
            },
        ),
        "cycle.skops": with_node(
            base,
            {
                "__class__": "list",
                "__module__": "builtins",
                "__loader__": "ListNode",
                "__id__": 7,
                "content": [{"__class__": "list", "__module__": "builtins", "__loader__": "CachedNode", "__id__": 7}],
            },
        ),
        "cached_unknown.skops": with_node(
            base, {"__class__": "list", "__module__": "builtins", "__loader__": "CachedNode", "__id__": 123456}
        ),
        "root_exec.skops": _replace_schema(base, lambda s: s.update(__class__="exec", __module__="builtins")),
        "protocol_0.skops": _replace_schema(base, lambda s: s.update(protocol=0)),
        "protocol_true.skops": _replace_schema(base, lambda s: s.update(protocol=True)),
        "deep_schema.skops": _replace_member(base, "schema.json", b"[" * 5000 + b"]" * 5000),
        "not_json_schema.skops": _replace_member(base, "schema.json", b"\x00\x01"),
    }
    files.update(_bit_generator_files(base))
    return files


def _nodes(doc, loader: str) -> list[dict]:
    """Every node of a parsed skops schema with this loader."""
    found = []

    def walk(o):
        if isinstance(o, dict):
            if o.get("__loader__") == loader:
                found.append(o)
            for v in o.values():
                walk(v)
        elif isinstance(o, list):
            for v in o:
                walk(v)

    walk(doc)
    return found


def _bit_generator_files(base: bytes) -> dict[str, bytes]:
    """The model's numpy Generator rebuilt with a NumPy function's name instead of a bit generator's."""
    with zipfile.ZipFile(io.BytesIO(base)) as z:
        if not _nodes(json.loads(z.read("schema.json")), "RandomGeneratorNode"):
            return {}

    def rename(name):
        def edit(schema):
            node = _nodes(schema, "RandomGeneratorNode")[0]
            node["content"]["bit_generator"]["content"]["bit_generator"]["content"] = json.dumps(name)

        return edit

    return {
        "bit_generator_seed.skops": _replace_schema(base, rename("seed")),
        "bit_generator_set.skops": _replace_schema(base, rename("set_bit_generator")),
    }


def _replace_member(raw: bytes, member: str, data: bytes) -> bytes:
    with zipfile.ZipFile(io.BytesIO(raw)) as z:
        files = {n: z.read(n) for n in z.namelist()}
    files[member] = data
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for n, d in files.items():
            z.writestr(n, d)
    return out.getvalue()


def _replace_schema(raw: bytes, edit) -> bytes:
    with zipfile.ZipFile(io.BytesIO(raw)) as z:
        schema = json.loads(z.read("schema.json"))
    edit(schema)
    return _replace_member(raw, "schema.json", json.dumps(schema).encode())


def skops_bombs(size: int = 300_000_000) -> dict[str, bytes]:
    """An archive whose array member inflates to ``size`` bytes, and one whose schema.json is mostly whitespace.

    The issue's files held 2.4 GB and 1.5 GB; a size over the member limit (128 MB) tests the same path.
    """
    base = skops_file()
    return {
        "array_bomb.skops": _deflated(base, "bomb.npy", size),
        "whitespace_bomb.skops": _deflated(base, "schema.json", size),
    }


def _deflated(base: bytes, member: str, size: int) -> bytes:
    """``base`` with ``member`` replaced by ``size`` bytes of spaces, deflated while written (a few MB in all)."""
    with zipfile.ZipFile(io.BytesIO(base)) as z:
        files = {n: z.read(n) for n in z.namelist() if n != member}
    out = io.BytesIO()
    chunk = b" " * (16 * 2**20)
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for n, d in files.items():
            z.writestr(n, d)
        with z.open(member, "w", force_zip64=True) as stream:
            left = size
            while left > 0:
                stream.write(chunk[: min(left, len(chunk))])
                left -= len(chunk)
    return out.getvalue()
