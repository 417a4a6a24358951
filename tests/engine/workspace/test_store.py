"""The dataset store: bytes by SHA-256 (hashlib as the oracle), atomic writes, checked reads, the size limit."""

from __future__ import annotations

import hashlib
import io
import os
from concurrent.futures import ThreadPoolExecutor

import pytest

from engine.errors import InputError
from engine.workspace._store import DatasetStore


def _files(root) -> list[str]:
    return sorted(os.path.relpath(os.path.join(d, f), root) for d, _, fs in os.walk(root) for f in fs)


def test_bytes_are_stored_once_under_their_sha256(tmp_path):
    store = DatasetStore(str(tmp_path / "s"), 2**20)
    data = os.urandom(10_000)
    sha, size = store.put(io.BytesIO(data), "x.csv")
    assert sha == hashlib.sha256(data).hexdigest() and size == len(data)
    assert _files(tmp_path / "s") == [f"{sha[:2]}/{sha}"]  # no temporary file left
    assert store.get(sha) == data and store.exists(sha)
    assert store.put(io.BytesIO(data), "again.csv") == (sha, size)
    assert _files(tmp_path / "s") == [f"{sha[:2]}/{sha}"]


def test_a_changed_file_is_refused_and_adding_the_bytes_again_repairs_it(tmp_path):
    store = DatasetStore(str(tmp_path), 2**20)
    sha, _ = store.put(io.BytesIO(b"a,b\n1,2\n"), "x.csv")
    path = tmp_path / sha[:2] / sha
    path.write_bytes(b"a,b\n1,3\n")
    with pytest.raises(InputError, match="no longer match their SHA-256"):
        store.get(sha)
    store.put(io.BytesIO(b"a,b\n1,2\n"), "x.csv")
    assert store.get(sha) == b"a,b\n1,2\n"


def test_missing_bytes_say_how_to_restore(tmp_path):
    store = DatasetStore(str(tmp_path), 2**20)
    with pytest.raises(InputError, match="has no bytes for dataset 0000000000"):
        store.get("0" * 64)
    with pytest.raises(InputError, match="is not a SHA-256"):
        store.get("../../etc/passwd")


def test_over_the_limit_is_refused_with_the_variable_and_nothing_is_kept(tmp_path):
    store = DatasetStore(str(tmp_path), 5 * 2**20)
    with pytest.raises(InputError) as info:
        store.put(io.BytesIO(b"x" * (9 * 2**20)), "big.csv")
    assert str(info.value).startswith("'big.csv' is more than 5 MB; the workspace stores datasets of at most 5 MB ")
    assert "(OPSTUDIO_MAX_DATASET_MB)" in str(info.value)
    assert _files(tmp_path) == []


def test_concurrent_writers_of_the_same_bytes_all_succeed(tmp_path):
    store = DatasetStore(str(tmp_path), 2**22)
    data = os.urandom(3 * 2**20)
    with ThreadPoolExecutor(8) as pool:
        results = list(pool.map(lambda _: store.put(io.BytesIO(data), "x"), range(16)))
    assert {r[0] for r in results} == {hashlib.sha256(data).hexdigest()}
    assert len(_files(tmp_path)) == 1 and store.get(results[0][0]) == data


@pytest.mark.parametrize("scheme", ["memory", "file"])
def test_an_fsspec_url_works_like_a_folder(tmp_path, scheme):
    location = f"memory://opstudio-{os.getpid()}/datasets" if scheme == "memory" else f"file://{tmp_path}/remote"
    store = DatasetStore(location, 2**20)
    sha, _ = store.put(io.BytesIO(b"doc,score,label\n1,0.5,1\n"), "x.csv")
    assert store.get(sha) == b"doc,score,label\n1,0.5,1\n" and store.exists(sha)
    with pytest.raises(InputError, match="at most 1 MB"):
        store.put(io.BytesIO(b"y" * (2**20 + 1)), "big")
    if scheme == "file":
        assert _files(tmp_path / "remote") == [f"{sha[:2]}/{sha}"]
