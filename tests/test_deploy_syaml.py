"""s.yaml: every function's props validate against the fc3 component's own JSON Schema (a copy in
tests/fixtures), one custom domain routes the whole API and the board to the functions that serve
them, no secret sits in a trigger or an environment variable, and the jobs function is reachable
only through Function Compute."""

from __future__ import annotations

import json
import re
import shlex

import jsonschema
import pytest
from deploy_support import DEPLOY_ENV, FC3_SCHEMA, ROOT, domain, functions, route_for
from fastapi import FastAPI
from starlette.routing import Match

from engram_core.snapshots.settings import region_of_endpoint
from functions.app import routers_for
from functions.settings import FunctionRole

ORIGIN = {"engram-chat", "engram-memories", "engram-consolidate"}
BOARD_JS = ["board.js", "beliefs.js"]


def _schema() -> dict:
    return json.loads(FC3_SCHEMA.read_text(encoding="utf-8"))


def test_every_props_block_validates_against_the_fc3_schema() -> None:
    validator = jsonschema.Draft7Validator(_schema())
    found = functions()
    assert set(found) == ORIGIN | {"engram-jobs"}
    for name, props in found.items():
        errors = sorted(validator.iter_errors(props), key=str)
        assert not errors, f"{name}: " + "; ".join(e.message for e in errors)


def test_a_broken_props_block_is_caught_by_the_schema() -> None:
    validator = jsonschema.Draft7Validator(_schema())
    for broken in ({"memorySize": 1000}, {"diskSize": 2048}, {"logConfig": {"project": "p"}},
                   {"asyncInvokeConfig": {"maxAsyncRetryAttempts": 9}}, {"concurrencyConfig": {}}):
        assert list(validator.iter_errors({**functions()["engram-jobs"], **broken})), broken


def test_the_functions_share_one_image_and_serve_their_own_routes() -> None:
    found = functions()
    assert {p["customContainerConfig"]["image"] for p in found.values()} == {DEPLOY_ENV["ENGRAM_IMAGE"]}
    for name, props in found.items():
        container, env = props["customContainerConfig"], props["environmentVariables"]
        assert props["runtime"] == "custom-container" and container["port"] == 9000
        assert container["entrypoint"] == ["python", "-m", "functions"]
        assert container["command"][:4] == ["--host", "0.0.0.0", "--port", "9000"]
        assert env["ENGRAM_FUNCTION"] == name.removeprefix("engram-") and env["ENGRAM_PLATFORM"] == "fc"
        assert env["ENGRAM_TENANT_STORE"] == "oss://engram-tenants-example/engram"
        assert props["role"] == DEPLOY_ENV["ENGRAM_FC_ROLE_ARN"]
        assert props["instanceLifecycleConfig"]["initializer"]["timeout"] >= 1
        assert props["logConfig"] == {"project": DEPLOY_ENV["ENGRAM_LOG_PROJECT"], "logstore": "functions",
                                      "enableRequestMetrics": True, "enableInstanceMetrics": True,
                                      "logBeginRule": "None"}
        assert int(env["ENGRAM_DISK_MB"]) == props["diskSize"]  # the cache bound is derived from this


def test_oss_requests_are_signed_for_the_buckets_region() -> None:
    for props in functions().values():
        env = props["environmentVariables"]
        assert env["ENGRAM_OSS_REGION"] == props["region"] == region_of_endpoint(env["ENGRAM_OSS_ENDPOINT"])


def test_the_jobs_function_has_the_timer_no_http_trigger_and_no_route() -> None:
    jobs = functions()["engram-jobs"]
    assert [t["triggerType"] for t in jobs["triggers"]] == ["timer"]
    timer = jobs["triggers"][0]["triggerConfig"]
    assert timer["enable"] is True and timer["cronExpression"] == "0 0 * * * *"
    assert json.loads(timer["payload"]) == {"job": "sleep-due"}  # nothing secret: FC read-only users see it
    env = jobs["environmentVariables"]
    assert env["ENGRAM_FANOUT_MODE"] == "fc" and env["ENGRAM_FC_SLEEP_FUNCTION"] == "engram-jobs"
    assert env["ENGRAM_ADMIN_KEY_FILE"] == "oss://engram-tenants-example/engram-config/admin-key"
    assert jobs["asyncInvokeConfig"]["asyncTask"] is True
    assert jobs["asyncInvokeConfig"]["destinationConfig"]["onFailure"]["destination"] == \
        DEPLOY_ENV["ENGRAM_FAILURE_DESTINATION"]
    assert jobs["concurrencyConfig"]["reservedConcurrency"] >= 1
    assert all(route["functionName"] != "engram-jobs" for route in domain()["routeConfig"]["routes"])
    for name in ORIGIN:
        triggers = functions()[name]["triggers"]
        assert [t["triggerType"] for t in triggers] == ["http"] and triggers[0]["triggerConfig"]["methods"]


def test_no_secret_is_written_into_s_yaml() -> None:
    rendered = json.dumps(functions({**DEPLOY_ENV, "QWEN_CLOUD_API_KEY": ""}))
    assert "ENGRAM_ADMIN_KEY\"" not in rendered and "admin_key" not in rendered
    assert "ENGRAM_ADMIN_KEY'" not in (ROOT / "s.yaml").read_text(encoding="utf-8")


def test_the_domain_declares_what_fc3_domain_requires() -> None:
    props = domain()
    assert {"region", "domainName", "protocol", "routeConfig"} <= set(props)
    assert props["domainName"] == "auto" and props["protocol"] in ("HTTP", "HTTPS", "HTTP,HTTPS")
    for route in props["routeConfig"]["routes"]:
        assert route["functionName"] in ORIGIN and route["path"].startswith("/")
        assert set(route["methods"]) <= {"DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT"}


def _app_for(name: str) -> FastAPI:
    app = FastAPI()
    for router in routers_for(FunctionRole(name.removeprefix("engram-"))):
        app.include_router(router)
    return app


def _served(app: FastAPI, method: str, path: str) -> bool:
    scope = {"type": "http", "method": method, "path": path, "root_path": ""}
    return any(route.matches(scope)[0] is Match.FULL for route in app.routes)


def _reaches(method: str, path: str) -> str:
    """Which function the domain sends a request to; fails unless that function serves it."""
    route = route_for(domain()["routeConfig"]["routes"], path)
    assert route is not None, f"no route for {path}"
    assert method in route["methods"], f"{method} {path}: the route allows {route['methods']}"
    assert _served(_app_for(route["functionName"]), method, path), f"{route['functionName']} has no {method} {path}"
    return route["functionName"]


def test_every_operation_of_the_openapi_document_is_routed_to_a_function_that_serves_it() -> None:
    document = json.loads((ROOT / "docs" / "openapi.json").read_text(encoding="utf-8"))
    lifecycle = {"/healthz", "/initialize", "/pre-stop"}  # every function has these; FC calls its own
    reached = set()
    for path, operations in document["paths"].items():
        if path in lifecycle:
            continue
        for method in operations:
            reached.add(_reaches(method.upper(), re.sub(r"\{[^}]+\}", "m-1", path)))
    assert reached == ORIGIN


def test_the_openapi_document_is_the_one_the_code_generates() -> None:
    from functions.app import origin_document

    committed = json.loads((ROOT / "docs" / "openapi.json").read_text(encoding="utf-8"))
    assert committed == origin_document(), "regenerate: python -m functions --openapi > docs/openapi.json"


def _board_calls() -> set[tuple[str, str]]:
    calls = set()
    for name in BOARD_JS:
        text = (ROOT / "functions" / "web" / name).read_text(encoding="utf-8")
        for verb, path in re.findall(r"api\.(get|post|del)\((?:query\()?[\"`]([^\"`?]+)", text):
            calls.add(({"get": "GET", "post": "POST", "del": "DELETE"}[verb], re.sub(r"\$\{[^}]+\}", "m-1", path)))
    return calls


def test_every_call_the_board_makes_is_served_on_the_same_origin() -> None:
    calls = _board_calls()
    assert {("POST", "/chat"), ("POST", "/sleep"), ("POST", "/dream"), ("GET", "/clock")} <= calls
    for method, path in calls | {("GET", "/"), ("GET", "/board/board.js"), ("GET", "/openapi.json")}:
        _reaches(method, path)


def test_the_container_command_is_one_the_server_accepts() -> None:
    from click.testing import CliRunner

    from functions.serve import serve

    command = functions()["engram-chat"]["customContainerConfig"]["command"]
    dockerfile_cmd = next(line for line in (ROOT / "infra" / "Dockerfile").read_text().splitlines()
                          if line.startswith("CMD "))
    assert json.loads(dockerfile_cmd[4:]) == command
    result = CliRunner().invoke(serve, [*command, "--env-table"])  # parses every option, starts nothing
    assert result.exit_code == 0, result.output
    assert "ENGRAM_TENANT_STORE" in result.output
    assert shlex.join(command) == "--host 0.0.0.0 --port 9000"


def test_every_engram_variable_in_s_yaml_is_one_the_code_reads() -> None:
    from engram_core.providers.settings import ProviderSettings
    from engram_core.snapshots.settings import OssSettings, SnapshotSettings
    from functions.settings import ServiceSettings, env_name

    known = {env_name(name) for name in ServiceSettings.model_fields}
    known |= {"ENGRAM_" + name.upper() for name in ProviderSettings.model_fields}
    known |= {"ENGRAM_SNAPSHOT_" + name.upper() for name, f in SnapshotSettings.model_fields.items()
              if f.validation_alias is None}
    known |= {choice for f in SnapshotSettings.model_fields.values() if f.validation_alias is not None
              for choice in f.validation_alias.choices}
    known |= {choice for f in OssSettings.model_fields.values() for choice in f.validation_alias.choices}
    for name, props in functions().items():
        for variable in props["environmentVariables"]:
            if variable.startswith("ENGRAM_"):
                assert variable in known, f"{name}: {variable} is read by nothing"


@pytest.mark.parametrize("doc", ["docs/deploy.md", "infra/README.md"])
def test_the_documented_image_tag_is_the_commit_not_a_movable_version(doc: str) -> None:
    text = (ROOT / doc).read_text(encoding="utf-8")
    assert not re.search(r"ENGRAM_IMAGE=\S*:(latest|\d+\.\d+\.\d+)", text)
    assert "push-image.sh" in text and "--skip-push" in text
