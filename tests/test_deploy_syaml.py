"""s.yaml: every function's props, after the template is merged in and variables resolved, validate
against the fc3 component's own JSON Schema (``../shared/schemas/fc3-schema.json``)."""

from __future__ import annotations

import json
import re
import shlex
from pathlib import Path

import jsonschema
import pytest
import yaml

ROOT = Path(__file__).resolve().parents[1]
SCHEMA = ROOT.parent / "shared" / "schemas" / "fc3-schema.json"
DEPLOY_ENV = {  # what an operator exports before `s deploy` (values of `terraform output`)
    "ENGRAM_IMAGE": "registry.ap-southeast-1.aliyuncs.com/engram/engram:0.1.0",
    "ENGRAM_FC_ROLE_ARN": "acs:ram::1234567890123456:role/engram-functions",
    "ENGRAM_BUCKET": "engram-tenants-example",
    "ENGRAM_OSS_ENDPOINT": "https://oss-ap-southeast-1-internal.aliyuncs.com",
    "ENGRAM_ADMIN_KEY": "egk_admin-example",
    "QWEN_CLOUD_API_KEY": "sk-example",
}
_ENV = re.compile(r"\$\{env\('([A-Z0-9_]+)'(?:,\s*'([^']*)')?\)\}")
_VAR = re.compile(r"\$\{vars\.([a-z_]+)\}")


def _schema() -> dict:
    if not SCHEMA.exists():  # never skipped: CI has shared/ beside the clone
        pytest.fail(f"the fc3 schema is missing: {SCHEMA}")
    return json.loads(SCHEMA.read_text(encoding="utf-8"))


def _resolve_text(text: str, variables: dict[str, str]) -> str:
    def env(match: re.Match) -> str:
        name, default = match.group(1), match.group(2)
        if name not in DEPLOY_ENV and default is None:
            raise AssertionError(f"${{env('{name}')}} has no default and is not in the documented deploy env")
        return DEPLOY_ENV.get(name, default)

    return _VAR.sub(lambda m: variables[m.group(1)], _ENV.sub(env, text))


def _resolve(value: object, variables: dict[str, str]) -> object:
    if isinstance(value, str):
        return _resolve_text(value, variables)
    if isinstance(value, dict):
        return {k: _resolve(v, variables) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolve(v, variables) for v in value]
    return value


def _deep_merge(base: object, override: object) -> object:
    """Serverless Devs' `extend`: objects merge key by key, anything else (lists too) is replaced."""
    if isinstance(base, dict) and isinstance(override, dict):
        merged = dict(base)
        for key, value in override.items():
            merged[key] = _deep_merge(base.get(key), value) if key in base else value
        return merged
    return override


def _functions() -> dict[str, dict]:
    document = yaml.safe_load((ROOT / "s.yaml").read_text(encoding="utf-8"))
    assert document["edition"] == "3.0.0"
    variables = {k: _resolve_text(str(v), {}) for k, v in document["vars"].items()}
    resolved = {}
    for name, resource in document["resources"].items():
        assert resource["component"] == "fc3"
        template = document["template"][resource["extend"]["name"]]
        props = _resolve(_deep_merge(template, resource["props"]), variables)
        assert "${" not in json.dumps(props), f"{name}: unresolved variable"
        resolved[name] = props
    return resolved


def test_every_props_block_validates_against_the_fc3_schema() -> None:
    schema = _schema()
    functions = _functions()
    assert set(functions) == {"engram-chat", "engram-memories", "engram-consolidate"}
    for name, props in functions.items():
        errors = sorted(jsonschema.Draft7Validator(schema).iter_errors(props), key=str)
        assert not errors, f"{name}: " + "; ".join(e.message for e in errors)


def test_a_broken_props_block_is_caught_by_the_schema() -> None:
    props = dict(_functions()["engram-chat"])
    props["memorySize"] = 1000  # not a multiple of 64
    assert list(jsonschema.Draft7Validator(_schema()).iter_errors(props))


def test_the_three_functions_share_one_image_and_serve_their_own_routes() -> None:
    functions = _functions()
    images = {p["customContainerConfig"]["image"] for p in functions.values()}
    assert images == {DEPLOY_ENV["ENGRAM_IMAGE"]}
    for name, props in functions.items():
        container = props["customContainerConfig"]
        assert props["runtime"] == "custom-container" and container["port"] == 9000
        assert container["entrypoint"] == ["python", "-m", "functions"]
        assert container["command"][:4] == ["--host", "0.0.0.0", "--port", "9000"]
        assert props["environmentVariables"]["ENGRAM_FUNCTION"] == name.removeprefix("engram-")
        assert props["environmentVariables"]["ENGRAM_TENANT_STORE"] == "oss://engram-tenants-example/engram"
        assert props["role"] == DEPLOY_ENV["ENGRAM_FC_ROLE_ARN"]
        assert props["instanceLifecycleConfig"]["initializer"]["timeout"] >= 1
        http = [t for t in props["triggers"] if t["triggerType"] == "http"]
        assert len(http) == 1 and http[0]["triggerConfig"]["methods"]


def test_consolidate_has_a_timer_whose_payload_is_the_sleep_due_event() -> None:
    props = _functions()["engram-consolidate"]
    timers = [t for t in props["triggers"] if t["triggerType"] == "timer"]
    assert len(timers) == 1 and timers[0]["triggerConfig"]["enable"] is True
    payload = json.loads(timers[0]["triggerConfig"]["payload"])
    assert payload == {"job": "sleep-due", "admin_key": DEPLOY_ENV["ENGRAM_ADMIN_KEY"]}
    assert props["environmentVariables"]["ENGRAM_FANOUT_MODE"] == "fc"
    assert props["environmentVariables"]["ENGRAM_FC_SLEEP_FUNCTION"] == "engram-consolidate"
    assert props["asyncInvokeConfig"]["asyncTask"] is True


def test_every_engram_variable_in_s_yaml_is_one_the_code_reads() -> None:
    from engram_core.providers.settings import ProviderSettings
    from engram_core.snapshots.settings import OssSettings, SnapshotSettings
    from functions.settings import ServiceSettings, env_name

    known = {env_name(name) for name in ServiceSettings.model_fields}
    known |= {"ENGRAM_" + name.upper() for name in ProviderSettings.model_fields}
    known |= {"ENGRAM_SNAPSHOT_" + name.upper() for name in SnapshotSettings.model_fields}
    known |= {choice for f in OssSettings.model_fields.values() for choice in f.validation_alias.choices}
    for name, props in _functions().items():
        for variable in props["environmentVariables"]:
            if variable.startswith("ENGRAM_"):
                assert variable in known, f"{name}: {variable} is read by nothing"


def test_the_container_command_is_one_the_server_accepts() -> None:
    from click.testing import CliRunner

    from engram_core.cli.serve import serve

    command = _functions()["engram-chat"]["customContainerConfig"]["command"]
    dockerfile_cmd = next(line for line in (ROOT / "infra" / "Dockerfile").read_text().splitlines()
                          if line.startswith("CMD "))
    assert json.loads(dockerfile_cmd[4:]) == command
    result = CliRunner().invoke(serve, [*command, "--env-table"])  # parses every option, starts nothing
    assert result.exit_code == 0, result.output
    assert "ENGRAM_TENANT_STORE" in result.output
    assert shlex.join(command) == "--host 0.0.0.0 --port 9000"
