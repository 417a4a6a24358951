"""scikit-learn gradient boosting models saved with skops (``.skops``), audited before skops constructs anything.

A skops file is a zip archive: ``schema.json`` describes a tree of nodes, each with a
loader (``ObjectNode``, ``NdArrayNode`` ...) and a type (``module.class``), and
``.npy`` members hold the arrays. skops' loaders import and *call* the types a file
names (``ConstructorFromReduceNode`` calls ``type(*args)``, ``LossNode`` its
constructor, ``NdArrayNode`` a scalar type on the array, ``ObjectNode`` runs
``__setstate__``), so a file naming ``builtins.exec`` or ``builtins.eval`` runs its
payload while it loads. Before skops sees the bytes this module therefore

1. inflates every member within limits (:func:`engine.untrusted.check_zip`),
2. parses ``schema.json`` with :func:`engine.untrusted.parse_json` (size, nesting),
3. walks every node the way skops' ``get_tree`` will (same children, same object-id
   memo) and refuses any (loader, type) pair outside :data:`SKOPS_ALLOWED` — exact
   type names found in real ``GradientBoostingClassifier`` /
   ``HistGradientBoostingClassifier`` files (skops 0.10-0.16, scikit-learn 1.4-1.9),
   no prefixes, no function, method, partial, operator, type-other-than-``str`` or
   reduce-constructor nodes —, checks each ``.npy`` header (no object dtype, the data
   exactly as long as the shape says), the arguments and state of
   ``sklearn.tree._tree.Tree`` (scikit-learn indexes them without bounds checks) and
   the bit generator a ``numpy.random.Generator`` is rebuilt with,

and only then calls ``skops.io.loads`` with exactly the audited types trusted. The
trees read from the loaded model are checked again like every other format's.
"""

from __future__ import annotations

import io
import warnings
import zipfile

import numpy as np

from ...errors import InputError
from ...untrusted import check_zip, parse_json
from ..ensembles import from_sklearn
from ._common import MAX_FEATURES, ReadModel, checked_tree, check_size, refuse

__all__ = ["read_skops", "SKOPS_ALLOWED", "SKOPS_ALLOWED_TYPES"]

KEY = "skops"
_GB = "sklearn.ensemble._gb.GradientBoostingClassifier"
_HGB = "sklearn.ensemble._hist_gradient_boosting.gradient_boosting.HistGradientBoostingClassifier"
_LOSSES = ("sklearn._loss._loss.CyHalfBinomialLoss", "sklearn._loss._loss.CyExponentialLoss")

#: the (loader, exact type) pairs a model file may contain; everything else is refused before loading
SKOPS_ALLOWED: dict[str, frozenset[str]] = {
    "ObjectNode": frozenset({
        _GB, _HGB,
        "sklearn.tree._classes.DecisionTreeRegressor",
        "sklearn.dummy.DummyClassifier",
        "sklearn.ensemble._hist_gradient_boosting.predictor.TreePredictor",
        "sklearn.ensemble._hist_gradient_boosting.binning._BinMapper",
        "sklearn.preprocessing._label.LabelEncoder",
        "sklearn._loss.loss.HalfBinomialLoss", "sklearn._loss.loss.ExponentialLoss",
        "sklearn._loss.link.LogitLink", "sklearn._loss.link.HalfLogitLink", "sklearn._loss.link.Interval",
        *_LOSSES,  # skops 0.10 writes the Cython losses as objects, later versions with LossNode
    }),
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
#: every type name of :data:`SKOPS_ALLOWED` (what skops is told to trust once the audit passed)
SKOPS_ALLOWED_TYPES: tuple[str, ...] = tuple(sorted(set().union(*SKOPS_ALLOWED.values())))
_PROTOCOL = 2  # the skops file protocol audited here (skops 0.10 to 0.16)
_BIT_GENERATORS = ("PCG64", "PCG64DXSM", "MT19937", "Philox", "SFC64")
_SEED_KEYS = {"entropy", "spawn_key", "pool_size", "n_children_spawned"}
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
        parse_json(self._field(state, "content", path, str), what=f"skops value at {path}", max_bytes=1 << 20,
                   max_depth=16)

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
        if not (isinstance(n_features, int) and 1 <= n_features <= MAX_FEATURES and n_outputs == 1
                and n_classes.shape == (1,) and n_classes.dtype.kind in "iu" and n_classes[0] == 1):
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
        name = self.json(bits.get("content", {}).get("bit_generator")) if isinstance(bits.get("content"), dict) \
            else None
        if name not in _BIT_GENERATORS:
            raise _Refused(f"{path}: bit generator {name!r:.40} is not one of NumPy's")
        seed_fields = seed.get("content") if seed.get("__loader__") == "DictNode" else None
        if not isinstance(seed_fields, dict) or not set(seed_fields) <= _SEED_KEYS:
            raise _Refused(f"{path}: the seed sequence has unexpected fields")
        values = {k: self.json(v) for k, v in seed_fields.items() if k != "spawn_key"}
        entropy = values.get("entropy")
        if values.get("pool_size", 4) != 4 or not isinstance(values.get("n_children_spawned", 0), int) \
                or not (entropy is None or (isinstance(entropy, int) and 0 <= entropy < 2 ** 256)):
            raise _Refused(f"{path}: the seed sequence's pool size or entropy is not NumPy's")

    # values of already-audited nodes (to check arguments before they are constructed)
    def resolve(self, state) -> dict:
        if isinstance(state, dict) and state.get("__loader__") == "CachedNode":
            return self.done.get(state.get("__id__"), {})
        return state if isinstance(state, dict) else {}

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
        self.array_meta(state, path)
        return np.load(io.BytesIO(self.archive.read(state["file"])), allow_pickle=False)

    def array(self, state: dict, path: str):
        member = state.get("file")
        if not isinstance(member, str) or member not in self.members:
            raise _Refused(f"{path} names a member {member!r:.60} that is not in the archive")
        buffer = io.BytesIO(self.archive.read(member))
        try:
            version = np.lib.format.read_magic(buffer)
            read_header = {(1, 0): np.lib.format.read_array_header_1_0,
                           (2, 0): np.lib.format.read_array_header_2_0}.get(version)
            if read_header is None:
                raise ValueError(f"NPY version {version}")
            shape, _, dtype = read_header(buffer)
        except (ValueError, TypeError, SyntaxError, OverflowError) as exc:
            raise _Refused(f"{path}: {member[:60]} is not a NumPy array file ({str(exc)[:80]})") from None
        data = len(buffer.getbuffer()) - buffer.tell()
        if dtype.hasobject or dtype.itemsize == 0 or any(d < 0 for d in shape) \
                or int(np.prod(shape, dtype=object)) * dtype.itemsize != data:
            raise _Refused(f"{path}: {member[:60]} holds {data:,} bytes, not an array of shape {shape} and "
                           f"type {dtype}")
        return dtype, tuple(int(d) for d in shape), member


def _audit(raw: bytes, name: str) -> tuple[str, ...]:
    """Refuse the file unless every node of its schema is allowed; returns the type names it holds."""
    check_zip(raw, what=f"skops file '{name}'", max_member_bytes=_MEMBER_BYTES, max_total_bytes=_TOTAL_BYTES)
    with zipfile.ZipFile(io.BytesIO(raw)) as archive:
        if "schema.json" not in archive.namelist():
            raise refuse(name, KEY, "the archive has no schema.json")
        schema = parse_json(archive.read("schema.json"), what=f"schema.json of '{name}'")
        if not isinstance(schema, dict):
            raise refuse(name, KEY, "schema.json is not an object")
        protocol = schema.get("protocol")
        if isinstance(protocol, bool) or protocol != _PROTOCOL:
            raise refuse(name, KEY, f"it has skops protocol {protocol!r:.20}; files written by skops 0.10 or later "
                                    f"(protocol {_PROTOCOL}) are read")
        root = f"{schema.get('__module__')}.{schema.get('__class__')}"
        if schema.get("__loader__") != "ObjectNode" or root not in (_GB, _HGB):
            raise InputError(f"'{name}' holds {str(root)[:120]} (unsupported model {str(schema.get('__class__'))[:60]}),"
                             " which is not trusted here: only scikit-learn GradientBoostingClassifier and "
                             "HistGradientBoostingClassifier models are read. Nothing in the file was run.")
        audit = _Audit(archive)
        try:
            audit.node(schema, "model")
        except _Refused as exc:
            detail = exc.args[0]
            if len(exc.args) > 1:
                raise InputError(f"'{name}' contains types that are not trusted here: {exc.args[1][:120]} "
                                 f"({detail[:200]}). Nothing in the file was run; only scikit-learn gradient "
                                 "boosting models with their usual parts are read.") from None
            raise refuse(name, KEY, detail) from None
        except InputError as exc:  # a JSON value inside the schema
            raise refuse(name, KEY, str(exc).rstrip(".")) from None
        return tuple(sorted(audit.types))


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
    types = _audit(raw, name)
    try:
        import skops.io as sio
    except ImportError:
        raise InputError("Reading .skops models needs the skops package (pip install skops).") from None
    try:
        with warnings.catch_warnings():  # version-mismatch warnings are not the user's business here
            warnings.simplefilter("ignore")
            model = sio.loads(raw, trusted=list(types))
    except Exception as exc:  # noqa: BLE001 - only audited types are built; their own errors mean a damaged file
        raise refuse(name, KEY, f"its content is inconsistent ({type(exc).__name__})") from None
    try:
        ensemble = from_sklearn(model)
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
    except (TypeError, ValueError) as exc:
        raise InputError(f"'{name}': {exc}") from None
    except (AttributeError, IndexError, KeyError) as exc:
        raise refuse(name, KEY, f"the model lacks a fitted part ({type(exc).__name__})") from None
    return ReadModel(type(ensemble)(trees, ensemble.bias, ensemble.source), features, False)
