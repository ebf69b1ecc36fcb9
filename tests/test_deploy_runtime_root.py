"""infra/runtime-root.py: the final image's whole filesystem, assembled from a build stage.

Assembled here from a small venv of the test interpreter (the image's build stage does the same with the
full venv and its import probe), then checked for what the image relies on: an interpreter that starts
from the root alone, bytecode exactly for what was imported (unchecked hashes, so COPY's file times do
not matter), and none of what a function never runs (shell, pip, test suites, type stubs).
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys
import venv
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "infra" / "runtime-root.py"
PROBE = "import json, sys, email.message\nprint(json.dumps([m.__file__ for m in list(sys.modules.values()) " \
        "if getattr(m, '__file__', None)]))"


def _module():
    spec = importlib.util.spec_from_file_location("runtime_root", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def assembled(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    work = tmp_path_factory.mktemp("runtime-root")
    env_dir = work / "venv"
    venv.EnvBuilder(with_pip=False, symlinks=True).create(env_dir)
    site = env_dir / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}" / "site-packages"
    (site / "unused_stub.pyi").write_text("x: int\n")
    (site / "never_imported.py").write_text("VALUE = 1\n")
    root = work / "root"
    _module().main(str(env_dir), str(root), probe=PROBE)
    return env_dir, root


def _inside(root: Path, path: str | os.PathLike) -> Path:
    return root / os.path.relpath(os.path.abspath(path), "/")


def test_the_root_has_no_shell_package_manager_or_build_tools(assembled: tuple[Path, Path]) -> None:
    env_dir, root = assembled
    for program in ("sh", "bash", "dash", "apt-get", "dpkg", "pip", "pip3", "gcc", "cc", "perl"):
        for folder in ("bin", "usr/bin", "usr/local/bin", "sbin", "usr/sbin"):
            assert not (root / folder / program).exists(), f"{folder}/{program} is in the image"
    assert not list(root.rglob("pip")) and not list(root.rglob("ensurepip"))
    stdlib = _inside(root, os.path.dirname(os.__file__))
    assert (stdlib / "os.py").is_file()
    assert not any((stdlib / name).exists() for name in ("test", "idlelib", "tkinter", "lib2to3", "site-packages"))
    assert not list(root.rglob("*.pyi"))
    assert "engram:x:10001:10001:" in (root / "etc" / "passwd").read_text()
    assert (root / "tmp").stat().st_mode & 0o1777 == 0o1777


def test_bytecode_is_exactly_for_what_was_imported_with_unchecked_hashes(assembled: tuple[Path, Path]) -> None:
    env_dir, root = assembled
    stdlib = os.path.dirname(os.__file__)
    imported = _inside(root, importlib.util.cache_from_source(os.path.join(stdlib, "email", "message.py")))
    assert imported.is_file()
    flags = int.from_bytes(imported.read_bytes()[4:8], "little")
    assert flags == 0b01  # hash-based, unchecked: the source's time after COPY does not matter
    unused = _inside(root, importlib.util.cache_from_source(os.path.join(stdlib, "tarfile.py")))
    assert (unused.parent.parent / "tarfile.py").is_file() and not unused.exists()  # source only
    site = next(_inside(root, env_dir).rglob("site-packages"))
    assert (site / "never_imported.py").is_file() and not (site / "__pycache__").exists()


def test_every_linked_library_is_in_the_root(assembled: tuple[Path, Path]) -> None:
    env_dir, root = assembled
    module = _module()
    for elf in module.elf_files(root):
        for library in module.linked_libraries(elf, str(env_dir), str(root)):
            assert _inside(root, module.real_dir(library)).exists(), f"{elf} needs {library}"
    assert not _inside(root, root).exists()  # libraries found inside the root are not copied into it again


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("chroot") is None, reason="chroot needs root")
def test_the_venvs_python_runs_inside_the_root_alone(assembled: tuple[Path, Path]) -> None:
    env_dir, root = assembled
    program = ("import email.message, json, sqlite3, ssl, zoneinfo\n"
               "cas = ssl.create_default_context().cert_store_stats()['x509_ca']\n"
               "print(json.dumps([cas > 0, str(zoneinfo.ZoneInfo('Asia/Shanghai')), sqlite3.sqlite_version > '3']))")
    command = [shutil.which("chroot"), "--userspec=10001:10001", str(root), f"{env_dir}/bin/python", "-c", program]
    result = subprocess.run(command, capture_output=True, text=True, env={"PATH": "/usr/bin", "HOME": "/tmp"},
                            timeout=60)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout) == [True, "Asia/Shanghai", True]  # CA bundle, time zones, SQLite
