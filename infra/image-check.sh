#!/usr/bin/env bash
# Build the function image without a Docker daemon, start it, and report what a deployment would see:
# image size, time to the first /healthz, and time to the first /recall of a 10,000-memory tenant on a
# cold instance. Targets: image < 300 MB uncompressed, first /recall < 2 s. Takes minutes; not in CI.
#
#   bash infra/image-check.sh              # build (reusing layers) and measure
#   BASE_IMAGE=python:3.11-slim-bookworm bash infra/image-check.sh   # with a registry you can reach
#
# Needs podman (apt-get install -y podman debootstrap) and root. When no registry image can be pulled,
# the base is a Debian bookworm made with debootstrap and Debian's Python 3.11, standing in for
# python:3.11-slim-bookworm. Storage is vfs (no overlay mounts needed); it is slow but works anywhere.
set -euo pipefail
cd "$(dirname "$0")/.."

STORE=(--storage-driver vfs)
CHROOT=$(command -v chroot)  # env -i below clears PATH: call it by its path
BASE_IMAGE="${BASE_IMAGE:-localhost/engram-base:bookworm}"
IMAGE="${IMAGE:-localhost/engram:check}"
WORK="${WORK:-/tmp/engram-image-check}"
MEMORIES="${MEMORIES:-10000}"
mkdir -p "$WORK"
say() { printf 'image-check: %s\n' "$*" >&2; }

build_debootstrap_base() {
  # A minimal bookworm with Debian's Python 3.11 (+ headers and venv), like python:3.11-slim-bookworm.
  local root="$WORK/rootfs"
  rm -rf "$root"
  debootstrap --variant=minbase --include=python3,python3-venv,python3-dev,ca-certificates,passwd \
    bookworm "$root" http://deb.debian.org/debian >"$WORK/debootstrap.log" 2>&1
  ln -sf python3 "$root/usr/bin/python"
  # ENVIRONMENT WORKAROUND, not part of the image's design: this machine reaches PyPI through a
  # TLS-intercepting proxy, so the stand-in base trusts the host's CA bundle and uses its pip settings.
  # An image built on python:3.11-slim-bookworm from a registry needs neither.
  cp /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
  if [ -f /etc/pip.conf ]; then cp /etc/pip.conf "$root/etc/pip.conf"; fi
  rm -rf "$root/var/cache/apt/archives"/*.deb "$root/var/lib/apt/lists"/*
  tar -C "$root" -c . | podman "${STORE[@]}" import - "$BASE_IMAGE" >/dev/null
  rm -rf "$root"
}

if ! podman "${STORE[@]}" image exists "$BASE_IMAGE"; then
  if [[ "$BASE_IMAGE" == localhost/* ]]; then
    say "building the stand-in base $BASE_IMAGE with debootstrap"
    build_debootstrap_base
  else
    podman "${STORE[@]}" pull "$BASE_IMAGE"
  fi
fi
[ "${BASE_ONLY:-}" = 1 ] && { say "base ready: $BASE_IMAGE"; exit 0; }

build_s="-"
if [ "${SKIP_BUILD:-}" != 1 ]; then  # SKIP_BUILD=1: measure the image built last time
  say "building $IMAGE (log: $WORK/build.log)"
  started=$(date +%s)
  podman "${STORE[@]}" build --isolation chroot --network host --build-arg "PYTHON_IMAGE=$BASE_IMAGE" \
    -f infra/Dockerfile -t "$IMAGE" . >"$WORK/build.log" 2>&1 || { tail -40 "$WORK/build.log"; exit 1; }
  build_s=$(( $(date +%s) - started ))
fi

size=$(podman "${STORE[@]}" image inspect "$IMAGE" --format '{{.Size}}')
base_size=$(podman "${STORE[@]}" image inspect "$BASE_IMAGE" --format '{{.Size}}')

# `podman run` needs CAP_SYS_RESOURCE for its rlimits, which a sandbox may not give; the image's
# filesystem is mounted instead and its ENTRYPOINT/CMD run in a chroot as its USER, with a clean env.
mount=$(podman "${STORE[@]}" image mount "$IMAGE")
trap 'podman "${STORE[@]}" image unmount "$IMAGE" >/dev/null 2>&1 || true' EXIT
user=$(podman "${STORE[@]}" image inspect "$IMAGE" --format '{{.Config.User}}')
crc=$(chroot --userspec="$user:$user" "$mount" /opt/engram/bin/python -c \
  'import crcmod._crcfunext, oss2.utils as u, time; d=bytes(8<<20); t=time.perf_counter(); c=u.Crc64(); c.update(d); print(f"{8/(time.perf_counter()-t):.0f}")')
torch=$(chroot "$mount" /opt/engram/bin/python -c 'import importlib.util as u; print(bool(u.find_spec("torch")))')

say "filling a $MEMORIES-memory tenant (outside the image, with the project's own venv)"
data="$WORK/data"
rm -rf "$data" && mkdir -p "$data"
.venv/bin/python - "$data" "$MEMORIES" <<'PY'
import sys
from pathlib import Path
from engram_core.adapters.minilm import MiniLMEmbedder
from engram_core.bench.mcp import TENANT, fill_tenant
root, count = Path(sys.argv[1]), int(sys.argv[2])
fill_tenant(root / "tenants", MiniLMEmbedder(), count, seed=7)  # the image's default embedder
print(TENANT, file=open(root / "tenant.txt", "w"))
PY
tenant=$(cat "$data/tenant.txt")
key=$(.venv/bin/python -c 'from engram_core.credentials import new_key; print(new_key())')
entries=$(.venv/bin/python -c "import json,sys; from engram_core.credentials import KeyEntry, hash_key; print(json.dumps([KeyEntry(tenant='$tenant', hash=hash_key('$key')).model_dump()]))")
mkdir -p "$mount/tmp/check" && cp -a "$data/tenants" "$mount/tmp/check/" && chown -R "$user:$user" "$mount/tmp/check"

port=$(.venv/bin/python -c 'from engram_core.bench.processes import free_port; print(free_port())')
start_ns=$(date +%s%N)
env -i PATH=/opt/engram/bin:/usr/bin:/bin HOME=/tmp PYTHONUNBUFFERED=1 PYTHONDONTWRITEBYTECODE=1 \
  ENGRAM_TENANT_STORE=/tmp/check/tenants ENGRAM_API_KEYS="$entries" ENGRAM_LOG_LEVEL=WARNING \
  "$CHROOT" --userspec="$user:$user" "$mount" python -m functions --host 127.0.0.1 --port "$port" \
  >"$WORK/server.log" 2>&1 &
server=$!
trap 'kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; podman "${STORE[@]}" image unmount "$IMAGE" >/dev/null 2>&1 || true' EXIT
until curl -fsS "http://127.0.0.1:$port/healthz" >/dev/null 2>&1; do
  kill -0 "$server" 2>/dev/null || { cat "$WORK/server.log"; exit 1; }
  sleep 0.02
done
healthz_ms=$(( ($(date +%s%N) - start_ns) / 1000000 ))
t0=$(date +%s%N)
curl -fsS -o /dev/null -X POST "http://127.0.0.1:$port/initialize"
init_ms=$(( ($(date +%s%N) - t0) / 1000000 ))
t0=$(date +%s%N)
curl -fsS -o "$WORK/recall.json" -X POST "http://127.0.0.1:$port/recall" -H "Authorization: Bearer $key" \
  -H 'Content-Type: application/json' -d '{"query": "what do I do on weekends?", "budget_tokens": 512}'
recall_ms=$(( ($(date +%s%N) - t0) / 1000000 ))

mb() { echo $(( $1 / 1000000 )); }
cat <<EOF
image:            $IMAGE (base $BASE_IMAGE)
build:            ${build_s} s (vfs storage)
image size:       $(mb "$size") MB uncompressed (base $(mb "$base_size") MB, Engram's layers $(mb $((size - base_size))) MB); target < 300 MB
runs as:          uid $user; torch installed: $torch
crcmod C ext:     present; oss2 CRC64 at ${crc} MiB/s
start -> /healthz ${healthz_ms} ms
POST /initialize  ${init_ms} ms (MiniLM loaded, weights checked)
first /recall     ${recall_ms} ms on a cold instance, tenant of $MEMORIES memories; target < 2000 ms
load:             $(cut -d' ' -f1-3 /proc/loadavg)
EOF
