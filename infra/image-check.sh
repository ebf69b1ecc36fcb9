#!/usr/bin/env bash
# Build the function image without a Docker daemon, start it, and report what a deployment would see:
# image size, time to the first /healthz, and time to the first /recall of a 10,000-memory tenant on a
# cold instance. Targets: image < 300 MB uncompressed, first /recall < 2 s. Takes minutes; not in CI.
#
#   bash infra/image-check.sh              # build (reusing layers) and measure
#   BASE_IMAGE=python:3.11-slim-bookworm bash infra/image-check.sh   # with a registry you can reach
#   LOCAL_EMBEDDER=false IMAGE=localhost/engram:qwen-only bash infra/image-check.sh  # size without MiniLM
#
# Needs podman (apt-get install -y podman debootstrap) and root. When no registry image can be pulled,
# the bases are Debian bookworm made with debootstrap and Debian's Python 3.11, standing in for
# python:3.11-slim-bookworm: one to build on (with Python's headers and venv), and one to run on, with
# Python and its libraries only (no headers, documentation, man pages, locales or apt lists). Storage is
# vfs (no overlay mounts needed); it is slow but works anywhere.
set -euo pipefail
cd "$(dirname "$0")/.."

STORE=(--storage-driver vfs)
CHROOT=$(command -v chroot)  # env -i below clears PATH: call it by its path
BUILD_BASE="${BASE_IMAGE:-localhost/engram-base:bookworm-build}"
RUNTIME_BASE="${BASE_IMAGE:-localhost/engram-base:bookworm}"
IMAGE="${IMAGE:-localhost/engram:check}"
WORK="${WORK:-/tmp/engram-image-check}"
MEMORIES="${MEMORIES:-10000}"
mkdir -p "$WORK"
say() { printf 'image-check: %s\n' "$*" >&2; }
load() { cut -d' ' -f1-3 /proc/loadavg; }

slim_rootfs() {  # what nothing in the image reads: documentation (licences stay), man pages, locales, apt lists
  local root="$1"
  find "$root/usr/share/doc" -mindepth 1 ! -name copyright ! -type d -delete
  find "$root/usr/share/doc" -mindepth 1 -type d -empty -delete
  rm -rf "$root"/usr/share/{man,info,lintian,locale}/* "$root"/var/cache/debconf/*-old "$root"/var/log/*.log
  cat >"$root/etc/dpkg/dpkg.cfg.d/engram-slim" <<'CFG'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
CFG
}

build_debootstrap_base() {  # image name, then the Debian packages beyond minbase; build or runtime flavour
  local image="$1" packages="$2" flavour="$3" root="$WORK/rootfs"
  rm -rf "$root"
  debootstrap --variant=minbase --include="$packages" bookworm "$root" http://deb.debian.org/debian \
    >"$WORK/debootstrap-$flavour.log" 2>&1
  ln -sf python3 "$root/usr/bin/python"
  if [ "$flavour" = build ]; then
    # ENVIRONMENT WORKAROUND, not part of the image's design: this machine reaches PyPI and Debian
    # through a TLS-intercepting proxy, so the stand-in build base trusts the host's CA bundle and uses
    # its pip settings. An image built on python:3.11-slim-bookworm from a registry needs neither, and
    # the runtime base (what the final image is made of) has neither.
    cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
    if [ -f /etc/pip.conf ]; then cp /etc/pip.conf "$root/etc/pip.conf"; fi
  else
    slim_rootfs "$root"
  fi
  rm -rf "$root/var/cache/apt/archives"/*.deb "$root/var/cache/apt"/*.bin "$root/var/lib/apt/lists"/*
  tar -C "$root" -c . | podman "${STORE[@]}" import - "$image" >/dev/null
  rm -rf "$root"
}

ensure_base() {  # image name, packages, flavour
  podman "${STORE[@]}" image exists "$1" && return
  if [[ "$1" == localhost/* ]]; then
    say "building the stand-in $3 base $1 with debootstrap"
    build_debootstrap_base "$@"
  else
    podman "${STORE[@]}" pull "$1"
  fi
}

ensure_base "$BUILD_BASE" python3,python3-venv,python3-dev,ca-certificates,passwd build
ensure_base "$RUNTIME_BASE" python3,ca-certificates,passwd runtime
[ "${BASE_ONLY:-}" = 1 ] && { say "bases ready: $BUILD_BASE, $RUNTIME_BASE"; exit 0; }

build_s="-"
if [ "${SKIP_BUILD:-}" != 1 ]; then  # SKIP_BUILD=1: measure the image built last time
  say "building $IMAGE (log: $WORK/build.log)"
  started=$(date +%s)
  podman "${STORE[@]}" build --isolation chroot --network host --build-arg "PYTHON_IMAGE=$BUILD_BASE" \
    --build-arg "RUNTIME_IMAGE=$RUNTIME_BASE" ${LOCAL_EMBEDDER:+--build-arg "LOCAL_EMBEDDER=$LOCAL_EMBEDDER"} \
    -f infra/Dockerfile -t "$IMAGE" . >"$WORK/build.log" 2>&1 || { tail -40 "$WORK/build.log"; exit 1; }
  build_s=$(( $(date +%s) - started ))
fi

size=$(podman "${STORE[@]}" image inspect "$IMAGE" --format '{{.Size}}')
base_size=$(podman "${STORE[@]}" image inspect "$RUNTIME_BASE" --format '{{.Size}}')

# `podman run` needs CAP_SYS_RESOURCE for its rlimits, which a sandbox may not give; the image's
# filesystem is copied to a scratch directory instead (a fresh instance; the image itself stays as built)
# and its ENTRYPOINT/CMD run there in a chroot as its USER, with a clean environment.
instance="$WORK/instance"
rm -rf "$instance"
mount=$(podman "${STORE[@]}" image mount "$IMAGE")
cp -a "$mount" "$instance"
podman "${STORE[@]}" image unmount "$IMAGE" >/dev/null
user=$(podman "${STORE[@]}" image inspect "$IMAGE" --format '{{.Config.User}}')
inside() { "$CHROOT" --userspec="$user:$user" "$instance" /opt/engram/bin/python "$@"; }
crc=$(inside -c 'import crcmod._crcfunext, oss2.utils as u, time; d=bytes(8<<20); t=time.perf_counter(); c=u.Crc64(); c.update(d); print(f"{8/(time.perf_counter()-t):.0f}")')
torch=$(inside -c 'import importlib.util as u; print(bool(u.find_spec("torch")))')
largest=$(du -s "$instance"/opt/engram/lib/python3.11/site-packages/* | sort -rn | head -8 |
  awk '{n=split($2, p, "/"); printf "%s%s %d MB", (NR>1 ? ", " : ""), p[n], $1/1024}')
venv_mb=$(du -sm "$instance/opt/engram" | cut -f1)

if [ "${LOCAL_EMBEDDER:-true}" != true ]; then  # the tenant below has MiniLM vectors: size only
  echo "image size:       $(( size / 1000000 )) MB uncompressed (runtime base $(( base_size / 1000000 )) MB), without the local embedder"
  echo "/opt/engram:      $venv_mb MB by du; largest: $largest"
  rm -rf "$instance"
  exit 0
fi

# The tenant is filled outside the image with the project's own venv and the image's default embedder
# (MiniLM), in batches, once per count: BLAS runs single-threaded there, because on a busy machine
# OpenBLAS's spinning threads made the same fill about ten times slower.
data="$WORK/fill-$MEMORIES"
if [ ! -s "$data/tenant.txt" ]; then
  say "filling a $MEMORIES-memory tenant once (outside the image, with the project's own venv)"
  rm -rf "$data" && mkdir -p "$data"
  OPENBLAS_NUM_THREADS=1 .venv/bin/python - "$data" "$MEMORIES" <<'PY'
import sys
from pathlib import Path
from engram_core.adapters.minilm import MiniLMEmbedder
from engram_bench.mcp import TENANT, fill_tenant
root, count = Path(sys.argv[1]), int(sys.argv[2])
fill_tenant(root / "tenants", MiniLMEmbedder(), count, seed=7)  # the image's default embedder
(root / "tenant.txt").write_text(TENANT + "\n")
PY
fi
tenant=$(cat "$data/tenant.txt")
key=$(.venv/bin/python -c 'from engram_core.tenants.credentials import new_key; print(new_key())')
entries=$(.venv/bin/python -c "import json,sys; from engram_core.tenants.credentials import KeyEntry, hash_key; print(json.dumps([KeyEntry(tenant='$tenant', hash=hash_key('$key')).model_dump()]))")
mkdir -p "$instance/tmp/check" && cp -a "$data/tenants" "$instance/tmp/check/" && chown -R "$user:$user" "$instance/tmp/check"

# As on FC: the memories function (it serves /recall), the platform's initializer, then the first request.
port=$(.venv/bin/python -c 'from engram_bench.processes import free_port; print(free_port())')
load_start=$(load)
start_ns=$(date +%s%N)
env -i PATH=/opt/engram/bin:/usr/bin:/bin HOME=/tmp PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 \
  ENGRAM_PLATFORM=fc ENGRAM_FUNCTION=memories ENGRAM_TENANT_STORE=/tmp/check/tenants \
  ENGRAM_API_KEYS="$entries" ENGRAM_LOG_LEVEL=WARNING \
  "$CHROOT" --userspec="$user:$user" "$instance" python -m functions --host 127.0.0.1 --port "$port" \
  >"$WORK/server.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; rm -rf "$instance"' EXIT
until curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1; do
  kill -0 "$server" 2>/dev/null || { cat "$WORK/server.log"; exit 1; }
  sleep 0.02
done
healthz_ms=$(( ($(date +%s%N) - start_ns) / 1000000 ))
timed() {  # milliseconds of one request; its body goes to $WORK/last.json
  local t0; t0=$(date +%s%N)
  curl -fsS -o "$WORK/last.json" "$@" || { cat "$WORK/server.log"; exit 1; }
  echo $(( ($(date +%s%N) - t0) / 1000000 ))
}
load_init=$(load)
init_ms=$(timed -X POST -H "x-fc-request-id: image-check-initialize" "http://127.0.0.1:$port/initialize")
recall() { timed -X POST "http://127.0.0.1:$port/recall" -H "Authorization: Bearer $key" \
  -H 'Content-Type: application/json' -d "{\"query\": \"$1\", \"budget_tokens\": 512}"; }
load_recall=$(load)
recall_ms=$(recall "what do I do on weekends?")
items=$(.venv/bin/python -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["items"]))' "$WORK/last.json")
warm_ms=$(recall "who cancelled the sourdough starter?")

mb() { echo $(( $1 / 1000000 )); }
cat <<EOF
image:            $IMAGE (build base $BUILD_BASE, runtime base $RUNTIME_BASE)
build:            ${build_s} s (vfs storage)
image size:       $(mb "$size") MB uncompressed (runtime base $(mb "$base_size") MB, Engram's layers $(mb $((size - base_size))) MB); target < 300 MB
/opt/engram:      $venv_mb MB by du; largest: $largest
runs as:          uid $user; torch installed: $torch
crcmod C ext:     present; oss2 CRC64 at ${crc} MiB/s
start -> /healthz ${healthz_ms} ms (load $load_start)
POST /initialize  ${init_ms} ms (MiniLM loaded, weights checked; load $load_init)
first /recall     ${recall_ms} ms on a cold instance, tenant of $MEMORIES memories, $items items; target < 2000 ms (load $load_recall)
second /recall    ${warm_ms} ms (warm)
load after:       $(load)
EOF
