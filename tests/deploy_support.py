"""s.yaml as Serverless Devs renders it: the template merged into each resource, variables resolved.

The values of ``DEPLOY_ENV`` are what an operator exports before ``s deploy`` (``terraform output``
and the image tag ``infra/push-image.sh`` prints).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
FC3_SCHEMA = Path(__file__).parent / "fixtures" / "fc3-schema.json"
DEPLOY_ENV = {
    "ENGRAM_IMAGE": "registry.ap-southeast-1.aliyuncs.com/engram/engram:git-0123456789ab",
    "ENGRAM_FC_ROLE_ARN": "acs:ram::1234567890123456:role/engram-functions",
    "ENGRAM_BUCKET": "engram-tenants-example",
    "ENGRAM_OSS_ENDPOINT": "https://oss-ap-southeast-1-internal.aliyuncs.com",
    "ENGRAM_LOG_PROJECT": "engram-logs-1234567890123456",
    "ENGRAM_LOG_STORE": "functions",
    "ENGRAM_FAILURE_DESTINATION": "acs:mns:ap-southeast-1:1234567890123456:/queues/engram-failed-jobs/messages",
}
_ENV = re.compile(r"\$\{env\('([A-Z0-9_]+)'(?:,\s*'([^']*)')?\)\}")
_VAR = re.compile(r"\$\{vars\.([a-z_]+)\}")
_RESOURCE = re.compile(r"\$\{resources\.([a-z0-9-]+)\.props\.([A-Za-z]+)\}")


def _resolve_text(text: str, variables: dict[str, str], env: dict[str, str]) -> str:
    def from_env(match: re.Match) -> str:
        name, default = match.group(1), match.group(2)
        if name not in env and default is None:
            raise AssertionError(f"${{env('{name}')}} has no default and is not in the documented deploy env")
        return env.get(name, default)

    return _VAR.sub(lambda m: variables[m.group(1)], _ENV.sub(from_env, text))


def _resolve(value: object, variables: dict[str, str], env: dict[str, str]) -> object:
    if isinstance(value, str):
        return _resolve_text(value, variables, env)
    if isinstance(value, dict):
        return {k: _resolve(v, variables, env) for k, v in value.items()}
    if isinstance(value, list):
        return [_resolve(v, variables, env) for v in value]
    return value


def deep_merge(base: object, override: object) -> object:
    """Serverless Devs' `extend`: objects merge key by key, anything else (lists too) is replaced."""
    if isinstance(base, dict) and isinstance(override, dict):
        merged = dict(base)
        for key, value in override.items():
            merged[key] = deep_merge(base.get(key), value) if key in base else value
        return merged
    return override


def document() -> dict:
    return yaml.safe_load((ROOT / "s.yaml").read_text(encoding="utf-8"))


def resources(env: dict[str, str] | None = None) -> dict[str, dict]:
    """Every resource's props after `extend` and variables, with `${resources.x.props.y}` filled in."""
    env = DEPLOY_ENV if env is None else env
    doc = document()
    assert doc["edition"] == "3.0.0"
    variables = {k: _resolve_text(str(v), {}, env) for k, v in doc["vars"].items()}
    resolved: dict[str, dict] = {}
    for name, resource in doc["resources"].items():
        props = resource["props"]
        if "extend" in resource:
            props = deep_merge(doc["template"][resource["extend"]["name"]], props)
        resolved[name] = {"component": resource["component"], "props": _resolve(props, variables, env)}
    for entry in resolved.values():
        text = _RESOURCE.sub(lambda m: str(resolved[m.group(1)]["props"][m.group(2)]), json.dumps(entry["props"]))
        entry["props"] = json.loads(text)
        assert "${" not in text, f"unresolved variable in {text[:200]}"
    return resolved


def functions(env: dict[str, str] | None = None) -> dict[str, dict]:
    return {n: r["props"] for n, r in resources(env).items() if r["component"] == "fc3"}


def domain(env: dict[str, str] | None = None) -> dict:
    (props,) = [r["props"] for r in resources(env).values() if r["component"] == "fc3-domain"]
    return props


def route_for(routes: list[dict], path: str) -> dict | None:
    """FC's custom-domain matching: an exact path first, else the longest `prefix/*` that covers it."""
    exact = [r for r in routes if r["path"] == path]
    if exact:
        return exact[0]
    wild = [r for r in routes if r["path"].endswith("/*") and path.startswith(r["path"][:-1])]
    return max(wild, key=lambda r: len(r["path"]), default=None)
