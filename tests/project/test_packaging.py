"""The distributions carry the licence, the notices and the docs (issue 12, hygiene)."""

from __future__ import annotations

import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def dists(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    out = tmp_path_factory.mktemp("dist")
    # README, Install: `make dist` is how a user builds what to install while memwarden is not on
    # PyPI; the tests install what it made.
    result = subprocess.run(
        ["make", "-s", "dist", f"DIST={out}", f"BIN={Path(sys.executable).parent}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    (sdist,) = out.glob("memwarden-*.tar.gz")
    (wheel,) = out.glob("memwarden-*.whl")
    return sdist, wheel


@pytest.mark.slow
def test_the_wheel_carries_the_licence_the_notice_and_the_models_notice(dists: tuple[Path, Path]) -> None:
    names = zipfile.ZipFile(dists[1]).namelist()
    assert any(n.endswith(".dist-info/licenses/LICENSE") for n in names)
    assert any(n.endswith(".dist-info/licenses/NOTICE") for n in names)
    assert "memwarden/embed/data/NOTICE.md" in names
    assert "memwarden/embed/data/all-MiniLM-L6-v2.tokenizer.json" in names


@pytest.mark.slow
def test_the_sdist_carries_the_licence_the_notice_the_changelog_and_the_docs(
    dists: tuple[Path, Path],
) -> None:
    with tarfile.open(dists[0]) as archive:
        names = {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}
    assert {"LICENSE", "NOTICE", "CHANGELOG.md", "README.md"} <= names
    docs = {p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").rglob("*") if p.is_file()}
    assert docs and docs <= names


def test_the_licence_is_the_apache_2_text_the_metadata_declares() -> None:
    text = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert 'license = "Apache-2.0"' in (ROOT / "pyproject.toml").read_text(encoding="utf-8")
