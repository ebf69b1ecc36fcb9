"""Tenant data on disk is its owner's alone: directories 0700 and files 0600, whatever the process umask."""

from __future__ import annotations

import os
import stat
from pathlib import Path

PRIVATE_DIR = 0o700
PRIVATE_FILE = 0o600


def private_dir(path: Path) -> Path:
    """Create ``path`` and every missing parent as private directories; existing ones are left as they are."""
    missing = []
    current = Path(path)
    while not current.exists() and current != current.parent:
        missing.append(current)
        current = current.parent
    for folder in reversed(missing):
        try:
            folder.mkdir(mode=PRIVATE_DIR)
        except FileExistsError:  # another thread or process made it first
            continue
        os.chmod(folder, PRIVATE_DIR)  # mkdir's mode is filtered by the umask: say it exactly
    return Path(path)


def private_file(path: Path) -> None:
    """Create the file empty and private unless it exists. SQLite gives its -wal and -shm files the mode of
    the database file, so they come out private too."""
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, PRIVATE_FILE))
    except FileExistsError:
        pass


def write_private(path: Path, data: bytes) -> None:
    """Write a file that is private from its first byte."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)


def tighten(path: Path) -> None:
    """Take group and other access away from a path this process manages (stores made by older versions)."""
    try:
        current = stat.S_IMODE(path.stat().st_mode)
        if current & 0o077:
            os.chmod(path, current & ~0o077)
    except FileNotFoundError:
        return
