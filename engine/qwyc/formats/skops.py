"""scikit-learn gradient boosting models saved with skops (``.skops``): audited, then read without skops.

A skops file is a zip archive: ``schema.json`` describes a tree of nodes, each with a
loader (``ObjectNode``, ``NdArrayNode`` ...) and a type (``module.class``), and
``.npy`` members hold the arrays. skops' loaders import and *call* the types a file
names (``ConstructorFromReduceNode`` calls ``type(*args)``, ``LossNode`` its
constructor, ``NdArrayNode`` a scalar type on the array, ``ObjectNode`` runs
``__setstate__``), so a file naming ``builtins.exec`` or ``builtins.eval`` runs its
payload while it loads. This module never hands the bytes to skops: it

1. inflates every member within limits (:func:`engine.untrusted.check_zip`),
2. parses ``schema.json`` with :func:`engine.untrusted.parse_json` (size, nesting),
3. walks every node the way skops' ``get_tree`` would (same children, same object-id
   memo) and refuses any (loader, type) pair outside :data:`SKOPS_ALLOWED` — exact
   type names found in real ``GradientBoostingClassifier`` /
   ``HistGradientBoostingClassifier`` files (skops 0.10-0.16, scikit-learn 1.4-1.9),
   no prefixes, no function, method, partial, operator, type-other-than-``str`` or
   reduce-constructor nodes —, checks each ``.npy`` header (no object dtype, the data
   exactly as long as the shape says), the arguments and state of
   ``sklearn.tree._tree.Tree`` (scikit-learn indexes them without bounds checks) and
   the bit generator a ``numpy.random.Generator`` is rebuilt with,

and then reads the model straight from the audited nodes and ``.npy`` members: the
estimator's attributes are the plain values skops would set (JSON, arrays, lists), the
tree arrays are checked and cast as scikit-learn's own ``__setstate__`` does, and
:func:`engine.qwyc._ensembles.sklearn_ensemble` turns them into trees. Nothing the file
names is constructed, and neither skops nor scikit-learn is imported. The trees are
checked again like every other format's.
"""

from __future__ import annotations

import io
import zipfile
from typing import NamedTuple

import numpy as np

from ...errors import InputError
from ...untrusted import check_zip, parse_json
from .._ensembles import AdditiveEnsemble, sklearn_ensemble
from ._common import MAX_FEATURES, ReadModel, check_size, checked_tree, refuse

__all__ = ["read_skops", "SKOPS_ALLOWED", "SKOPS_ALLOWED_TYPES"]

KEY = "skops"
_GB = "sklearn.ensemble._gb.GradientBoostingClassifier"
_HGB = "sklearn.ensemble._hist_gradient_boosting.gradient_boosting.HistGradientBoostingClassifier"
_LOSSES = ("sklearn._loss._loss.CyHalfBinomialLoss", "sklearn._loss._loss.CyExponentialLoss")

#: the (loader, exact type) pairs a model file may contain; everything else is refused before loading
SKOPS_ALLOWED: dict[str, frozenset[str]] = {
    "ObjectNode": frozenset(
        {
            _GB,
            _HGB,
            "sklearn.tree._classes.DecisionTreeRegressor",
            "sklearn.dummy.DummyClassifier",
            "sklearn.ensemble._hist_gradient_boosting.predictor.TreePredictor",
            "sklearn.ensemble._hist_gradient_boosting.binning._BinMapper",
            "sklearn.preprocessing._label.LabelEncoder",
            "sklearn._loss.loss.HalfBinomialLoss",
            "sklearn._loss.loss.ExponentialLoss",
            "sklearn._loss.link.LogitLink",
            "sklearn._loss.link.HalfLogitLink",
            "sklearn._loss.link.Interval",
            *_LOSSES,  # skops 0.10 writes the Cython losses as objects, later versions with LossNode
        }
    ),
    "LossNode": frozenset(_LOSSES),
    "TreeNode": frozenset({"sklearn.tree._tree.Tree"}),
    "NdArrayNode": frozenset({"numpy.ndarray", "numpy.float64", "numpy.uint64"}),
    "RandomStateNode": frozenset({"numpy.random.mtrand.RandomState"}),
    "RandomGeneratorNode": frozenset({"numpy.random._generator.Generator"}),
    "DictNode": frozenset({"builtins.dict"}),
    "ListNode": frozenset({"builtins.list"}),
    "TupleNode": frozenset({"builtins.tuple"}),
    "JsonNode": frozenset({"builtins.str"}),
    "TypeNode": frozenset({"builtins.str"}),  # the key type of dicts
}
#: every type name of :data:`SKOPS_ALLOWED` (the types a readable file may name)
SKOPS_ALLOWED_TYPES: tuple[str, ...] = tuple(sorted(set().union(*SKOPS_ALLOWED.values())))
_PROTOCOL = 2  # the skops file protocol audited here (skops 0.10 to 0.16)
_BIT_GENERATORS = ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64")
_SEED_KEYS = {"entropy", "spawn_key", "pool_size", "n_children_spawned"}
_PREDICTOR = "sklearn.ensemble._hist_gradient_boosting.predictor.TreePredictor"
#: ``sklearn.ensemble._hist_gradient_boosting.common.PREDICTOR_RECORD_DTYPE``: TreePredictor.__setstate__ casts to it
_PREDICTOR_RECORD = np.dtype(
    [
        ("value", np.float64),
        ("count", np.uint32),
        ("feature_idx", np.intp),
        ("num_threshold", np.float64),
        ("missing_go_to_left", np.uint8),
        ("left", np.uint32),
        ("right", np.uint32),
        ("gain", np.float64),
        ("depth", np.uint32),
        ("is_leaf", np.uint8),
        ("bin_threshold", np.uint8),
        ("is_categorical", np.uint8),
        ("bitset_idx", np.uint32),
    ]
)
#: ``sklearn.tree._tree.NODE_DTYPE`` (the C struct ``Node``): Tree.__setstate__ accepts it with the index fields
#: in the other bitness and either byte order, and casts to it
_TREE_NODE = np.dtype(
    [
        ("left_child", np.intp),
        ("right_child", np.intp),
        ("feature", np.intp),
        ("threshold", np.float64),
        ("impurity", np.float64),
        ("n_node_samples", np.intp),
        ("weighted_n_node_samples", np.float64),
        ("missing_go_to_left", np.uint8),
    ],
    align=True,
)
_INDEX_FIELDS = ("left_child", "right_child", "feature", "n_node_samples")
_SCALARS = {"numpy.float64": np.float64, "numpy.uint64": np.uint64}  # the scalar types an NdArrayNode may hold
_MAX_NODES = 5_000_000
_MEMBER_BYTES = 128 * 1024 * 1024
_TOTAL_BYTES = 256 * 1024 * 1024


class _Refused(Exception):
    """The file is refused; the message says which node and why."""


class _Audit:
    """Walks the schema like skops' ``get_tree``: each node's children, the ``__id__`` memo, ``CachedNode``s."""

    def __init__(self, archive: zipfile.ZipFile):
        self.archive = archive
        self.members = set(archive.namelist())
        self.done: dict[int, dict] = {}  # id -> state of a node completely audited
        self.open: set[int] = set()  # ids of the nodes being audited (ancestors)
        self.types: set[str] = set()
        self.count = 0
        self.checked: dict[str, tuple] = {}  # member -> what _checked_member found
        self.headers: dict[bytes, tuple] = {}  # .npy header -> (shape, Fortran order, dtype)

    def node(self, state, path: str) -> dict:
        """Audit one node and its children; returns the state it stands for (a CachedNode's target)."""
        self.count += 1
        if self.count > _MAX_NODES:
            raise _Refused(f"the schema has more than {_MAX_NODES:,} nodes")
        if not isinstance(state, dict):
            raise _Refused(f"{path} is not a node")
        loader, module, cls = state.get("__loader__"), state.get("__module__"), state.get("__class__")
        if not all(isinstance(v, str) for v in (loader, module, cls)):
            raise _Refused(f"{path} has no loader, module and class")
        name = f"{module}.{cls}"
        oid = state.get("__id__")
        if oid is not None and (isinstance(oid, bool) or not isinstance(oid, int)):
            raise _Refused(f"{path} has an object id that is not an integer")
        if loader == "CachedNode":
            # skops returns the earlier node with this id; a reference to an ancestor would be a cycle
            if not oid or oid not in self.done:
                raise _Refused(f"{path} refers to object {oid!r}, which is not an earlier complete object")
            target = self.done[oid]
            if f"{target['__module__']}.{target['__class__']}" != name:
                raise _Refused(f"{path} refers to object {oid} as {name}, but it is another type")
            return target
        if oid and oid in self.open:
            raise _Refused(f"{path} reuses the object id {oid} of one of its ancestors (a cycle)")
        if oid and oid in self.done:
            # skops returns the node first read with this id and ignores this state: so does the audit
            target = self.done[oid]
            if f"{target['__module__']}.{target['__class__']}" != name or target["__loader__"] != loader:
                raise _Refused(f"{path} reuses object id {oid} for another type")
            return target
        if name not in SKOPS_ALLOWED.get(loader, ()):
            raise _Refused(f"{path} is {name} (loader {loader[:40]}), which is not trusted here", name)
        self.types.add(name)
        if oid:
            self.open.add(oid)
        getattr(self, "_" + loader)(state, path)
        if oid:
            self.open.discard(oid)
            self.done[oid] = state
        return state

    def _field(self, state: dict, key: str, path: str, kind):
        value = state.get(key)
        if not isinstance(value, kind):
            raise _Refused(f"{path}.{key} is missing or malformed")
        return value

    # one method per allowed loader: the fields skops reads, audited the same way
    def _ObjectNode(self, state, path):
        if state.get("content") is not None:
            self.node(state["content"], f"{path}.content")

    def _DictNode(self, state, path):
        self.node(self._field(state, "key_types", path, dict), f"{path}.key_types")
        for key, value in self._field(state, "content", path, dict).items():
            self.node(value, f"{path}.{key[:40]}")

    def _ListNode(self, state, path):
        for i, value in enumerate(self._field(state, "content", path, list)):
            self.node(value, f"{path}[{i}]")

    _TupleNode = _ListNode

    def _JsonNode(self, state, path):
        parse_json(
            self._field(state, "content", path, str), what=f"skops value at {path}", max_bytes=1 << 20, max_depth=16
        )

    def _TypeNode(self, state, path):
        pass

    def _NdArrayNode(self, state, path):
        kind = state.get("type")
        if kind == "json":
            if f"{state['__module__']}.{state['__class__']}" != "numpy.ndarray":
                raise _Refused(f"{path}: an object array must be a numpy.ndarray")
            self._ListNode(state, path)
            self.node(self._field(state, "shape", path, dict), f"{path}.shape")
        elif kind == "numpy":
            self.array(state, path)
        else:
            raise _Refused(f"{path} has array type {kind!r:.40}")

    def _LossNode(self, state, path):
        self.node(self._field(self._field(state, "__reduce__", path, dict), "args", path, dict), f"{path}.args")
        self.node(self._field(state, "content", path, dict), f"{path}.content")

    def _TreeNode(self, state, path):
        self._LossNode(state, path)
        # Tree(n_features, n_classes, n_outputs) and its state are indexed by scikit-learn without bounds checks
        args = self.resolve(state["__reduce__"]["args"])
        items = args.get("content") if args.get("__loader__") == "TupleNode" else None
        if not isinstance(items, list) or len(items) != 3:
            raise _Refused(f"{path}: the tree's arguments are not (n_features, n_classes, n_outputs)")
        n_features, n_outputs = self.json(items[0]), self.json(items[2])
        n_classes = self.array_values(items[1], f"{path}.args[1]")
        if not (
            isinstance(n_features, int)
            and 1 <= n_features <= MAX_FEATURES
            and n_outputs == 1
            and n_classes.shape == (1,)
            and n_classes.dtype.kind in "iu"
            and n_classes[0] == 1
        ):
            raise _Refused(f"{path}: the tree's arguments are not those of a regression tree with one output")
        content = self.resolve(state["content"])
        fields = content.get("content") if content.get("__loader__") == "DictNode" else None
        if not isinstance(fields, dict) or not {"node_count", "nodes", "values"} <= set(fields):
            raise _Refused(f"{path}: the tree's state has no node_count, nodes and values")
        count = self.json(fields["node_count"])
        _, nodes_shape = self.array_meta(self.resolve(fields["nodes"]), f"{path}.nodes")
        _, values_shape = self.array_meta(self.resolve(fields["values"]), f"{path}.values")
        if not (isinstance(count, int) and count >= 1 and nodes_shape == (count,) and values_shape == (count, 1, 1)):
            raise _Refused(f"{path}: node_count, nodes and values of the tree disagree")

    def _RandomStateNode(self, state, path):
        self.node(self._field(state, "content", path, dict), f"{path}.content")

    def _RandomGeneratorNode(self, state, path):
        content = self._field(state, "content", path, dict)
        bits = self.node(self._field(content, "bit_generator", path, dict), f"{path}.bit_generator")
        seed = self.node(self._field(content, "seed_seq", path, dict), f"{path}.seed_seq")
        # skops calls numpy.random.<name>(seed_seq) with the name stored in the state
        name = (
            self.json(bits.get("content", {}).get("bit_generator")) if isinstance(bits.get("content"), dict) else None
        )
        if name not in _BIT_GENERATORS:
            raise _Refused(f"{path}: bit generator {name!r:.40} is not one of NumPy's")
        seed_fields = seed.get("content") if seed.get("__loader__") == "DictNode" else None
        if not isinstance(seed_fields, dict) or not set(seed_fields) <= _SEED_KEYS:
            raise _Refused(f"{path}: the seed sequence has unexpected fields")
        values = {k: self.json(v) for k, v in seed_fields.items() if k != "spawn_key"}
        entropy = values.get("entropy")
        if (
            values.get("pool_size", 4) != 4
            or not isinstance(values.get("n_children_spawned", 0), int)
            or not (entropy is None or (isinstance(entropy, int) and 0 <= entropy < 2**256))
        ):
            raise _Refused(f"{path}: the seed sequence's pool size or entropy is not NumPy's")

    # values of already-audited nodes (to check arguments, and to read the model without constructing it)
    def resolve(self, state) -> dict:
        """The node skops uses for ``state``: the first one audited with its object id (a CachedNode's target)."""
        if not isinstance(state, dict):
            return {}
        oid = state.get("__id__")
        if oid and isinstance(oid, int) and oid in self.done:
            return self.done[oid]
        return {} if state.get("__loader__") == "CachedNode" else state

    def value(self, state, path: str):
        """What skops would build for an audited node, with plain values only: JSON values, arrays, lists,
        tuples and dicts as themselves, every other object as a :class:`_Stored` view of its attributes."""
        state = self.resolve(state)
        loader = state.get("__loader__")
        if loader == "JsonNode":
            return self.json(state)
        if loader in ("ListNode", "TupleNode"):
            items = [self.value(v, f"{path}[{i}]") for i, v in enumerate(state["content"])]
            return items if loader == "ListNode" else tuple(items)
        if loader == "DictNode":
            return {k: self.value(v, f"{path}.{k[:40]}") for k, v in state["content"].items()}
        if loader == "NdArrayNode":
            return self._array_value(state, path)
        if loader == "TypeNode":
            return str  # the only type allowed (the key type of dicts)
        if loader == "TreeNode":
            return _tree_arrays(self, state, path)
        content = self.resolve(state.get("content")) if loader == "ObjectNode" else {}
        if content.get("__loader__") == "DictNode":
            return _Stored(self, f"{state['__module__']}.{state['__class__']}", content["content"], path)
        if content and self.json(content) is not None:  # skops sets no attributes for a missing or null state
            raise _Refused(f"{path} has a state that is not a dict")
        return _Stored(self, f"{state['__module__']}.{state['__class__']}", {}, path)

    def _array_value(self, state: dict, path: str):
        if state["type"] == "numpy":
            array = self.array_values(state, path)
            scalar = _SCALARS.get(f"{state['__module__']}.{state['__class__']}")
            return array if scalar is None else scalar(array)
        items = [self.value(v, f"{path}[{i}]") for i, v in enumerate(state["content"])]
        shape = self.value(state["shape"], f"{path}.shape")
        try:  # as skops builds an object array
            if len(shape) == 1:
                out = np.empty(len(items), dtype=object)
                for i, v in enumerate(items):
                    out[i] = v
                return out
            return np.array(items, dtype=object)
        except (TypeError, ValueError) as exc:
            raise _Refused(f"{path}: an object array that does not fit its shape ({str(exc)[:80]})") from None

    def json(self, state):
        state = self.resolve(state)
        if state.get("__loader__") != "JsonNode" or not isinstance(state.get("content"), str):
            return None
        return parse_json(state["content"], what="skops value", max_bytes=1 << 20, max_depth=16)

    def array_meta(self, state: dict, path: str) -> tuple[np.dtype, tuple[int, ...]]:
        if state.get("__loader__") != "NdArrayNode" or state.get("type") != "numpy":
            raise _Refused(f"{path} is not a NumPy array")
        return self.array(state, path)[:2]

    def array_values(self, state, path: str) -> np.ndarray:
        state = self.resolve(state)
        dtype, shape = self.array_meta(state, path)
        raw, offset, fortran = self.checked[state["file"]][3:]
        array = np.frombuffer(raw, dtype=dtype, count=int(np.prod(shape, dtype=np.int64)), offset=offset)
        return array.reshape(shape[::-1]).transpose() if fortran else array.reshape(shape)  # as numpy.load

    def array(self, state: dict, path: str):
        member = state.get("file")
        if not isinstance(member, str) or member not in self.members:
            raise _Refused(f"{path} names a member {member!r:.60} that is not in the archive")
        if member not in self.checked:
            self.checked[member] = self._checked_member(member, path)
        return self.checked[member][:3]

    def _checked_member(self, member: str, path: str) -> tuple:
        """(dtype, shape, member, bytes, data offset, Fortran order) of a ``.npy`` member whose header and
        length agree (read once; a header seen before is not parsed again)."""
        raw = self.archive.read(member)
        size = {b"\x93NUMPY\x01\x00": 2, b"\x93NUMPY\x02\x00": 4}.get(raw[:8])
        key = raw[: 10 + 2 * (size == 4) + int.from_bytes(raw[8 : 8 + size], "little")] if size else None
        if key not in self.headers:
            buffer = io.BytesIO(raw)
            try:
                version = np.lib.format.read_magic(buffer)
                read_header = {
                    (1, 0): np.lib.format.read_array_header_1_0,
                    (2, 0): np.lib.format.read_array_header_2_0,
                }.get(version)
                if read_header is None:
                    raise ValueError(f"NPY version {version}")
                shape, fortran, dtype = read_header(buffer)
            except (ValueError, TypeError, SyntaxError, OverflowError) as exc:
                raise _Refused(f"{path}: {member[:60]} is not a NumPy array file ({str(exc)[:80]})") from None
            key = raw[: buffer.tell()]
            self.headers[key] = (shape, fortran, dtype)
        shape, fortran, dtype = self.headers[key]
        data = len(raw) - len(key)
        if (
            dtype.hasobject
            or dtype.itemsize == 0
            or any(d < 0 for d in shape)
            or int(np.prod(shape, dtype=object)) * dtype.itemsize != data
        ):
            raise _Refused(
                f"{path}: {member[:60]} holds {data:,} bytes, not an array of shape {shape} and type {dtype}"
            )
        return dtype, tuple(int(d) for d in shape), member, raw, len(key), fortran


class _Stored:
    """An object of the file, never constructed: its type name and the attributes skops would set, read on access."""

    __slots__ = ("_audit", "_type", "_attrs", "_path")

    def __init__(self, audit: _Audit, type_name: str, attrs: dict, path: str):
        self._audit, self._type, self._attrs, self._path = audit, type_name, attrs, path

    def __getattr__(self, key: str):
        if key.startswith("__") or key not in self._attrs:
            raise AttributeError(key)
        value = self._audit.value(self._attrs[key], f"{self._path}.{key}")
        if self._type == _PREDICTOR and key == "nodes":  # TreePredictor.__setstate__
            if not isinstance(value, np.ndarray):
                raise _Refused(f"{self._path}.nodes is not an array")
            if value.dtype != _PREDICTOR_RECORD:
                value = _cast(value, _PREDICTOR_RECORD, "same_kind", f"{self._path}.nodes")
        return value


class _TreeArrays(NamedTuple):
    """What the trees of ``GradientBoostingClassifier`` show of ``sklearn.tree._tree.Tree``."""

    children_left: np.ndarray
    children_right: np.ndarray
    feature: np.ndarray
    threshold: np.ndarray
    value: np.ndarray
    missing_go_to_left: np.ndarray


def _fields(dtype: np.dtype) -> dict[str, str] | None:
    return None if dtype.fields is None else {k: v[0].str for k, v in dtype.fields.items()}


def _other_bitness(fields: dict[str, str]) -> dict[str, str]:
    size, other = ("8", "4") if np.dtype(np.intp).itemsize == 8 else ("4", "8")
    return {k: v.replace(size, other) if k in _INDEX_FIELDS else v for k, v in fields.items()}


#: the node dtypes Tree.__setstate__ accepts (sklearn.tree._tree._all_compatible_dtype_dicts)
_TREE_NODE_FIELDS = [
    f(d) for d in (_fields(_TREE_NODE), _fields(_TREE_NODE.newbyteorder())) for f in (lambda d: d, _other_bitness)
]


def _cast(array: np.ndarray, dtype: np.dtype, casting: str, path: str) -> np.ndarray:
    try:
        return array.astype(dtype, casting=casting)
    except (TypeError, ValueError) as exc:
        raise _Refused(f"{path} has type {array.dtype}, not {dtype} ({str(exc)[:80]})") from None


def _tree_arrays(audit: _Audit, state: dict, path: str) -> _TreeArrays:
    """A GradientBoosting tree's arrays, checked and cast as ``sklearn.tree._tree.Tree.__setstate__`` does."""
    fields = audit.resolve(state["content"])["content"]  # the audit checked node_count, nodes, values
    if "max_depth" not in fields:
        raise _Refused(f"{path}: the tree's state has no max_depth")
    nodes = audit.array_values(fields["nodes"], f"{path}.nodes")
    values = audit.array_values(fields["values"], f"{path}.values")
    if _fields(nodes.dtype) not in _TREE_NODE_FIELDS:
        raise _Refused(f"{path}.nodes has type {nodes.dtype}, not scikit-learn's tree nodes")
    if not values.dtype.str.endswith("f8"):
        raise _Refused(f"{path}.values has type {values.dtype}, not float64")
    nodes = _cast(nodes, _TREE_NODE, "same_kind", f"{path}.nodes")
    values = values.astype(np.float64, casting="equiv")
    return _TreeArrays(
        nodes["left_child"],
        nodes["right_child"],
        nodes["feature"],
        nodes["threshold"],
        values,
        nodes["missing_go_to_left"],
    )


def _classes(schema: dict) -> int | None:
    """How many classes the root estimator's attributes say it has (>= 3: multiclass; 0: a multinomial loss without a
    count), or None when they do not say.

    Read from the schema's plain entries only (JSON text and type names), before the allow-list: a multiclass
    model's multinomial loss is a type the audit refuses, and the user should hear why their model is not read.
    """
    content = schema.get("content")
    attrs = content.get("content") if isinstance(content, dict) else None
    if not isinstance(attrs, dict):
        return None
    found = {}
    for key in ("n_classes_", "n_trees_per_iteration_"):  # a multiclass model grows one tree per class
        node = attrs.get(key)
        if isinstance(node, dict) and node.get("__loader__") == "JsonNode" and isinstance(node.get("content"), str):
            value = node["content"].strip()
            if value.isdigit() and len(value) < 10:
                found[key] = int(value)
    if "n_classes_" in found:
        return found["n_classes_"]
    if found.get("n_trees_per_iteration_", 1) > 1:
        return found["n_trees_per_iteration_"]
    loss = attrs.get("_loss")
    return 0 if isinstance(loss, dict) and "Multinomial" in str(loss.get("__class__", "")) else None


def _refuse_multiclass(schema: dict, name: str) -> None:
    classes = _classes(schema)
    if classes is not None and classes != 2 and classes != 1:
        counted = f"{classes} classes" if classes else "a multinomial loss"
        raise InputError(
            f"'{name}' is a multiclass model ({counted}): multiclass models are not supported. Early exit "
            "reproduces a binary classifier's score; train one class against the rest and save that model. "
            "Nothing in the file was run."
        )


def _audit(raw: bytes, name: str) -> tuple[_Audit, dict]:
    """Refuse the file unless every node of its schema is allowed; returns the walker (its arrays read) and the
    schema."""
    check_zip(raw, what=f"skops file '{name}'", max_member_bytes=_MEMBER_BYTES, max_total_bytes=_TOTAL_BYTES)
    with zipfile.ZipFile(io.BytesIO(raw)) as archive:
        if "schema.json" not in archive.namelist():
            raise refuse(name, KEY, "the archive has no schema.json")
        schema = parse_json(archive.read("schema.json"), what=f"schema.json of '{name}'")
        if not isinstance(schema, dict):
            raise refuse(name, KEY, "schema.json is not an object")
        protocol = schema.get("protocol")
        if isinstance(protocol, bool) or protocol != _PROTOCOL:
            raise refuse(
                name,
                KEY,
                f"it has skops protocol {protocol!r:.20}; files written by skops 0.10 or later "
                f"(protocol {_PROTOCOL}) are read",
            )
        root = f"{schema.get('__module__')}.{schema.get('__class__')}"
        if schema.get("__loader__") != "ObjectNode" or root not in (_GB, _HGB):
            raise InputError(
                f"'{name}' holds {str(root)[:120]} (unsupported model {str(schema.get('__class__'))[:60]}),"
                " which is not trusted here: only scikit-learn GradientBoostingClassifier and "
                "HistGradientBoostingClassifier models are read. Nothing in the file was run."
            )
        _refuse_multiclass(schema, name)
        audit = _Audit(archive)
        try:
            audit.node(schema, "model")
        except _Refused as exc:
            detail = exc.args[0]
            if len(exc.args) > 1:
                raise InputError(
                    f"'{name}' contains types that are not trusted here: {exc.args[1][:120]} "
                    f"({detail[:200]}). Nothing in the file was run; only scikit-learn gradient "
                    "boosting models with their usual parts are read."
                ) from None
            raise refuse(name, KEY, detail) from None
        except InputError as exc:  # a JSON value inside the schema
            raise refuse(name, KEY, str(exc).rstrip(".")) from None
        return audit, schema


def read_skops(raw: bytes, name: str) -> ReadModel:
    """Read a skops file of a binary ``GradientBoostingClassifier`` / ``HistGradientBoostingClassifier``.

    Parameters
    ----------
    raw : bytes
        The file (``skops.io.dump(model, 'model.skops')``).
    name : str
        The file name, for messages.

    Returns
    -------
    ReadModel
        The trees (learning rate folded into the leaves), the initial log-odds as bias, and the
        feature names (``x0``... when the model was fitted without names).

    Raises
    ------
    InputError
        A zip or JSON limit exceeded, any node outside :data:`SKOPS_ALLOWED` (nothing is
        constructed then), an inconsistent array or tree, or a model that is not a binary
        classifier with numeric splits.
    """
    check_size(raw, name, KEY)
    audit, schema = _audit(raw, name)
    try:
        model = audit.value(schema, "model")
        ensemble = sklearn_ensemble(schema["__class__"], model)
        n = getattr(model, "n_features_in_", None)
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= MAX_FEATURES:
            raise ValueError(f"n_features_in_ is {n!r:.40}")
        trees = tuple(checked_tree(t, int(n), f"tree {k}") for k, t in enumerate(ensemble.trees))
        if not np.isfinite(ensemble.bias):
            raise ValueError("the initial score is not finite")
        names = getattr(model, "feature_names_in_", None)
        features = tuple(str(c) for c in names) if names is not None else tuple(f"x{j}" for j in range(int(n)))
        if len(features) != n:
            raise ValueError(f"feature_names_in_ has {len(features)} names for {n} features")
    except _Refused as exc:  # what skops or scikit-learn would fail on while constructing the model
        raise refuse(name, KEY, f"its content is inconsistent ({exc.args[0][:200]})") from None
    except (TypeError, ValueError, ArithmeticError) as exc:
        raise InputError(f"'{name}': {exc}") from None
    except (AttributeError, IndexError, KeyError) as exc:
        raise refuse(name, KEY, f"the model lacks a fitted part ({type(exc).__name__})") from None
    return ReadModel(AdditiveEnsemble(trees, ensemble.bias, ensemble.source), features, False)
