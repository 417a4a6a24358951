"""The workspace's settings from OPSTUDIO_* variables, and database URLs shown without their password."""

from __future__ import annotations

from pathlib import Path

import pytest

from engine.errors import InputError
from engine.workspace import settings_from_env
from engine.workspace._config import redacted_url


def test_everything_lives_under_opstudio_home_by_default(tmp_path):
    s = settings_from_env({"OPSTUDIO_HOME": str(tmp_path)})
    assert s.database_url == f"sqlite:///{tmp_path / 'workspace.db'}"
    assert s.datasets == str(tmp_path / "datasets")
    assert s.max_dataset_bytes == 1024 * 2**20 and s.public_url == "http://localhost:8501"


def test_without_opstudio_home_the_platform_user_data_folder(monkeypatch, tmp_path):
    from platformdirs import user_data_dir

    s = settings_from_env({})
    assert s.datasets == str(Path(user_data_dir("opstudio", appauthor=False)) / "datasets")


def test_each_variable_is_honoured():
    s = settings_from_env(
        {
            "OPSTUDIO_HOME": "/srv/x",
            "OPSTUDIO_DATABASE_URL": "postgresql+psycopg://studio@db/studio",
            "OPSTUDIO_DATASETS": "s3://bucket/datasets",
            "OPSTUDIO_MAX_DATASET_MB": "2.5",
            "OPSTUDIO_PUBLIC_URL": "https://studio.example.org/",
        }
    )
    assert s.database_url == "postgresql+psycopg://studio@db/studio" and s.datasets == "s3://bucket/datasets"
    assert s.max_dataset_bytes == int(2.5 * 2**20) and s.public_url == "https://studio.example.org"


@pytest.mark.parametrize("value", ["0", "-1", "lots", "inf", "nan"])
def test_a_bad_size_limit_is_refused(value):
    with pytest.raises(InputError, match="OPSTUDIO_MAX_DATASET_MB is"):
        settings_from_env({"OPSTUDIO_MAX_DATASET_MB": value})


def test_urls_are_shown_without_password():
    assert (
        redacted_url("postgresql+psycopg://ana:s3cret@db:5432/studio") == "postgresql+psycopg://ana:***@db:5432/studio"
    )
    assert redacted_url("sqlite:////tmp/w.db") == "sqlite:////tmp/w.db"
