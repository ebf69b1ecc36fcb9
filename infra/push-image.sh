#!/usr/bin/env bash
# Build the function image once, tag it with the git commit, push it once, print ENGRAM_IMAGE.
#
#   bash infra/push-image.sh "$(terraform -chdir=infra output -raw image_repository)"
#
# A tag names exactly one commit and is never pushed twice: FC pins the image a function was
# deployed with, and a tag moved to another image makes later calls of those functions fail.
# Log in first: docker login --username=<account> registry.<region>.aliyuncs.com (the ACR password).
set -euo pipefail
cd "$(dirname "$0")/.."
repository="${1:?usage: infra/push-image.sh REGISTRY/NAMESPACE/REPOSITORY}"
builder="${BUILDER:-docker}"  # or podman
if [ -n "$(git status --porcelain)" ]; then
  echo "push-image: the work tree has uncommitted changes; commit them first (the tag names a commit)" >&2
  exit 1
fi
image="$repository:git-$(git rev-parse --short=12 HEAD)"
if "$builder" manifest inspect "$image" >/dev/null 2>&1; then
  echo "push-image: $image is already in the registry; not pushing it again" >&2
else
  "$builder" build --platform linux/amd64 -f infra/Dockerfile -t "$image" .
  "$builder" push "$image"
fi
echo "export ENGRAM_IMAGE=$image"
