"""``/v1/chat/completions`` and ``/v1/models`` driven by the real ``openai`` client against ``engram serve``.

Offline (no key: the offline reply) and with Qwen Cloud's path pointed at the local
OpenAI-compatible test server as the upstream model, which records what it was sent.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import openai
import pytest
from functions_support import TENANT_KEYS, Server, running_server
from openai_server import OpenAIServer, Recorded, Reply
from qwen_support import KEY as QWEN_KEY
from qwen_support import STORY_ASSESSMENTS, assessment, data_blocks

from engram_core.core.conversation import MEMORY_RULE
from engram_core.core import prompts
from engram_core.core.render import BLOCK_OPEN

ALLERGY = "I'm allergic to shellfish, so please keep that in mind."
DINNER = "Please book a team dinner for Friday. Anything I should avoid?"
WEATHER_TOOL = {"type": "function", "function": {
    "name": "get_weather", "description": "Weather for a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}}


def client_for(server: Server, tenant: str, **options: object) -> openai.OpenAI:
    """The only two things an agent changes: base_url and api_key."""
    return openai.OpenAI(base_url=server.url + "/v1", api_key=TENANT_KEYS[tenant], **options)


def agent_turn(client: openai.OpenAI, history: list[dict], text: str, **extra: object) -> str:
    """A plain agent written against the OpenAI API (a model name of another provider's, its own prompt)."""
    history.append({"role": "user", "content": text})
    answer = client.chat.completions.create(model="gpt-4o-mini", messages=history, **extra)
    content = answer.choices[0].message.content or ""
    history.append({"role": "assistant", "content": content})
    return content


def new_conversation() -> list[dict]:
    return [{"role": "system", "content": "You are a concise assistant for office logistics."}]


def exported(server: Server, tenant: str) -> list[dict]:
    return [json.loads(line) for line in server.call("GET", "/export", TENANT_KEYS[tenant]).text.splitlines()]


def stored_messages(server: Server, tenant: str) -> list[dict]:
    return [r for r in exported(server, tenant) if r.get("type") == "message"]


# -- offline: no model key, the offline reply ---------------------------------------------------

@pytest.fixture(scope="module")
def offline(tmp_path_factory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("v1-offline") / "tenants") as server:
        yield server


def test_an_openai_agent_gains_memory_by_changing_base_url_and_key_only(offline: Server) -> None:
    client = client_for(offline, "alice")
    agent_turn(client, new_conversation(), ALLERGY)
    later = agent_turn(client, new_conversation(), DINNER)  # a new conversation: nothing of the first in it
    assert "shellfish" in later.lower()


def test_other_tenants_never_see_the_memory(offline: Server) -> None:
    agent_turn(client_for(offline, "carol"), new_conversation(), "My locker code is 4512.")
    answer = agent_turn(client_for(offline, "dave"), new_conversation(), "What is my locker code?")
    assert "4512" not in answer
    # the words, not the digits: a random id or a timestamp's microseconds may hold "4512" by chance
    assert all("locker code is 4512" not in json.dumps(r) for r in exported(offline, "dave"))
    assert any("locker code is 4512" in json.dumps(r) for r in exported(offline, "carol"))


def test_streaming_relays_chunks_then_done_and_writes_the_turn(offline: Server) -> None:
    client = client_for(offline, "bob")
    agent_turn(client, new_conversation(), "My favourite tea is genmaicha.")
    stream = client.chat.completions.create(
        model="engram", stream=True, stream_options={"include_usage": True},
        messages=[{"role": "user", "content": "Which tea should I bring to the office?"}],
        extra_headers={"X-Engram-Session-Id": "tea", "X-Engram-Budget-Tokens": "300"})
    chunks = list(stream)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert len(chunks) > 3 and "genmaicha" in text
    assert chunks[0].model_extra["engram"]["session_id"] == "tea"
    assert chunks[0].model_extra["engram"]["budget_tokens"] == 300
    usage = chunks[-1].usage
    assert usage is not None and 0 < usage.model_extra["memory_tokens"] <= 300
    messages = [m for m in stored_messages(offline, "bob") if m["session_id"] == "tea"]
    assert [m["role"] for m in messages] == ["user", "assistant"]
    assert messages[1]["text"] == text.strip()


def test_raw_stream_is_server_sent_events_ending_with_done(offline: Server) -> None:
    response = offline.call("POST", "/v1/chat/completions", TENANT_KEYS["bob"], stream=True, json={
        "model": "engram", "stream": True, "messages": [{"role": "user", "content": "Hello there"}]})
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/event-stream")
    events = [line for line in response.iter_lines(decode_unicode=True) if line]
    assert all(line.startswith("data: ") for line in events)
    assert events[-1] == "data: [DONE]"
    assert json.loads(events[0][6:])["object"] == "chat.completion.chunk"


def test_usage_counts_memory_tokens_apart_and_never_above_the_budget(offline: Server) -> None:
    client = client_for(offline, "alice")
    answer = client.chat.completions.create(model="engram", messages=[{"role": "user", "content": DINNER}],
                                            metadata={"engram_budget_tokens": "40", "engram_session_id": "m"})
    memory = answer.usage.model_extra["memory_tokens"]
    assert 0 < memory <= 40 and answer.model_extra["engram"]["memory_tokens"] == memory
    assert answer.model_extra["engram"]["added_tokens"] > memory  # the rule around the block costs too
    assert answer.model_extra["engram"]["session_id"] == "m"


def test_models_lists_the_alias_and_the_offline_reply(offline: Server) -> None:
    client = client_for(offline, "alice")
    names = [m.id for m in client.models.list()]
    assert names == ["engram", "offline-heuristic-v1"]
    assert client.models.retrieve("engram").id == "engram"
    with pytest.raises(openai.NotFoundError):
        client.models.retrieve("no-such-model")


def test_a_wrong_key_is_refused_as_openai_clients_expect(offline: Server) -> None:
    client = openai.OpenAI(base_url=offline.url + "/v1", api_key="egk_not-a-key", max_retries=0)
    with pytest.raises(openai.AuthenticationError) as caught:
        client.chat.completions.create(model="engram", messages=[{"role": "user", "content": "hi"}])
    assert caught.value.code == "unauthorized"


@pytest.mark.parametrize(("body", "headers", "field"), [
    ({"model": "engram", "messages": []}, {}, "messages"),
    ({"model": "engram", "messages": [{"content": "no role"}]}, {}, "messages.0.role"),
    ({"messages": [{"role": "user", "content": "hi"}]}, {}, "model"),
    ({"model": "engram", "messages": [{"role": "user", "content": "hi"}]}, {"X-Engram-Budget-Tokens": "0"},
     "X-Engram-Budget-Tokens"),
    ({"model": "engram", "messages": [{"role": "user", "content": "hi"}],
      "metadata": {"engram_budget_tokens": "lots"}}, {}, "metadata.engram_budget_tokens"),
    ({"model": "engram", "messages": [{"role": "user", "content": "hi"}]}, {"X-Engram-Session-Id": "s" * 201},
     "X-Engram-Session-Id"),
    ({"model": "engram", "messages": [{"role": "user", "content": "hi"}],
      "metadata": {"engram_session_id": "   "}}, {}, "metadata.engram_session_id"),
])
def test_bad_requests_are_422_naming_the_field(offline: Server, body: dict, headers: dict, field: str) -> None:
    before = exported(offline, "dave")
    response = offline.call("POST", "/v1/chat/completions", TENANT_KEYS["dave"], json=body, headers=headers)
    assert response.status_code == 422, response.text
    assert response.json()["error"]["field"] == field
    assert exported(offline, "dave") == before


def test_a_tool_loop_continuation_does_not_store_the_user_message_twice(offline: Server) -> None:
    client = client_for(offline, "dave")
    first = [{"role": "user", "content": "What's the weather in Porto for our offsite?"}]
    client.chat.completions.create(model="engram", messages=first, extra_headers={"X-Engram-Session-Id": "loop"})
    continued = [*first, {"role": "assistant", "content": None, "tool_calls": [
        {"id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city":"Porto"}'}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": "sunny, 24 C"}]
    client.chat.completions.create(model="engram", messages=continued, tools=[WEATHER_TOOL],
                                   extra_headers={"X-Engram-Session-Id": "loop"})
    roles = [m["role"] for m in stored_messages(offline, "dave") if m["session_id"] == "loop"]
    assert roles == ["user", "assistant", "assistant"]


# -- routing: the deployed chat function serves /v1, the memories function does not ----------------

def test_the_chat_function_serves_v1_and_the_memories_function_does_not(tmp_path) -> None:
    with running_server(tmp_path / "tenants", ENGRAM_FUNCTION="chat") as chat:
        client = client_for(chat, "alice")
        assert agent_turn(client, new_conversation(), "Hello there")
        assert [m.id for m in client.models.list()][0] == "engram"
        assert chat.call("GET", "/memories", TENANT_KEYS["alice"]).status_code == 404
    with running_server(tmp_path / "memories-tenants", ENGRAM_FUNCTION="memories") as memories:
        with pytest.raises(openai.NotFoundError):
            client_for(memories, "alice", max_retries=0).chat.completions.create(
                model="engram", messages=[{"role": "user", "content": "hi"}])


def test_completions_are_rate_limited_like_every_model_calling_route(tmp_path) -> None:
    with running_server(tmp_path / "tenants", ENGRAM_RATE_BURST="2", ENGRAM_RATE_PER_MINUTE="1") as limited:
        client = client_for(limited, "alice", max_retries=0)
        for _ in range(2):
            agent_turn(client, new_conversation(), "Hello there")
        with pytest.raises(openai.RateLimitError) as caught:
            agent_turn(client, new_conversation(), "Hello again")
        assert int(caught.value.response.headers["Retry-After"]) >= 1
        assert caught.value.code == "rate_limited"
        assert client_for(limited, "bob", max_retries=0).models.list()  # another tenant, and a read: not limited


# -- Qwen's path: the conversation forwarded to an OpenAI-compatible upstream -----------------------

def upstream_model(request: Recorded) -> Reply | None:
    """Bookkeeping as a good model would do it; the reply uses the memory it was given."""
    if request.system == prompts.ASSESS_SYSTEM:
        return STORY_ASSESSMENTS.get(data_blocks(request.last_user)[0], assessment(0.3))
    if MEMORY_RULE in request.system:
        if request.body.get("tools") and request.messages[-1]["role"] == "user":
            return Reply(content=None, tool_calls=[{"id": "call_7", "type": "function", "function": {
                "name": "get_weather", "arguments": '{"city": "Ponta Delgada"}'}}])
        if "shellfish" in request.system:
            return Reply(content="Booked. I avoided shellfish places because of your allergy.")
        return Reply(content="Booked a table for Friday.")
    return None


@pytest.fixture(scope="module")
def upstream() -> Iterator[OpenAIServer]:
    with OpenAIServer(upstream_model) as server:
        yield server


@pytest.fixture(scope="module")
def qwen(upstream: OpenAIServer, tmp_path_factory) -> Iterator[Server]:
    with running_server(tmp_path_factory.mktemp("v1-qwen") / "tenants", ENGRAM_PROVIDER="auto",
                        QWEN_CLOUD_API_KEY=QWEN_KEY, ENGRAM_LLM_BASE_URL=upstream.url,
                        ENGRAM_LLM_BACKOFF_SECONDS="0.001", ENGRAM_LLM_MAX_RETRIES="1") as server:
        yield server


def replies_to(upstream: OpenAIServer) -> list[Recorded]:
    return [r for r in upstream.chat_requests() if MEMORY_RULE in r.system]


def test_qwen_path_forwards_the_conversation_with_the_memory_in_the_system_message(
        qwen: Server, upstream: OpenAIServer) -> None:
    client = client_for(qwen, "alice")
    agent_turn(client, new_conversation(), ALLERGY)
    later = agent_turn(client, new_conversation(), DINNER, temperature=0.3, seed=7)
    assert "avoided shellfish" in later
    sent = replies_to(upstream)[-1]
    assert sent.model == "qwen-plus"  # gpt-4o-mini is not served here: the configured reply model answers
    assert sent.body["temperature"] == 0.3 and sent.body["seed"] == 7  # other fields untouched
    system = sent.messages[0]
    assert system["role"] == "system" and [m["role"] for m in sent.messages].count("system") == 1
    assert system["content"].startswith("You are a concise assistant for office logistics.")
    assert BLOCK_OPEN in system["content"] and "allergic to shellfish" in system["content"]
    assert sent.messages[1:] == [{"role": "user", "content": DINNER}]
    assert sent.headers["authorization"] == f"Bearer {QWEN_KEY}"  # the provider key, never the tenant's


def test_qwen_path_passes_tools_through_and_tool_calls_back(qwen: Server, upstream: OpenAIServer) -> None:
    client = client_for(qwen, "bob")
    answer = client.chat.completions.create(model="engram", tools=[WEATHER_TOOL], tool_choice="auto",
                                            messages=[{"role": "user", "content": "Weather at home?"}])
    call = answer.choices[0].message.tool_calls[0]
    assert call.function.name == "get_weather" and json.loads(call.function.arguments) == {"city": "Ponta Delgada"}
    assert answer.choices[0].finish_reason == "tool_calls"
    sent = replies_to(upstream)[-1]
    assert sent.body["tools"] == [WEATHER_TOOL] and sent.body["tool_choice"] == "auto"


def test_qwen_path_streams_the_upstream_chunks(qwen: Server, upstream: OpenAIServer) -> None:
    client = client_for(qwen, "alice")
    stream = client.chat.completions.create(model="qwen-flash", stream=True, messages=[
        {"role": "user", "content": "Book a dinner for the team, please."}], metadata={"engram_session_id": "st",
                                                                                      "team": "ops"})
    text = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
    assert text == "Booked. I avoided shellfish places because of your allergy."
    sent = replies_to(upstream)[-1]
    assert sent.model == "qwen-flash" and sent.body["stream"] is True  # a served name is used as named
    assert sent.body["metadata"] == {"team": "ops"}  # Engram's own keys are read, not forwarded
    messages = [m for m in stored_messages(qwen, "alice") if m["session_id"] == "st"]
    assert [m["role"] for m in messages] == ["user", "assistant"] and messages[1]["text"] == text


def test_qwen_path_lists_the_served_models_and_meters_the_forwarded_calls(qwen: Server) -> None:
    client = client_for(qwen, "carol")
    assert [m.id for m in client.models.list()] == ["engram", "qwen-plus", "qwen-flash"]
    agent_turn(client, new_conversation(), "Book a table for two.")
    usage = qwen.call("GET", "/stats", TENANT_KEYS["carol"]).json()["stats"]["usage"]
    replies = [row for row in usage["by_purpose"] if row["purpose"] == "reply"]
    assert replies and replies[0]["calls"] == 1 and replies[0]["prompt_tokens"] > 0


def test_qwen_path_upstream_refusals_are_clear_errors_and_the_message_is_kept(
        qwen: Server, upstream: OpenAIServer) -> None:
    client = client_for(qwen, "dave", max_retries=0)
    upstream.script(assessment(0.8), Reply(status=400, error="tools.0.function.name is invalid"))
    with pytest.raises(openai.UnprocessableEntityError) as caught:
        agent_turn(client, new_conversation(), "Remember my desk is 4B.")
    assert "tools.0.function.name is invalid" in caught.value.message
    upstream.script(assessment(0.8), Reply(status=500), Reply(status=500))
    with pytest.raises(openai.InternalServerError) as failed:
        agent_turn(client, new_conversation(), "My parking spot is 12.")
    assert failed.value.status_code == 503 and failed.value.response.headers["Retry-After"]
    texts = [m["text"] for m in stored_messages(qwen, "dave")]
    assert "Remember my desk is 4B." in texts and "My parking spot is 12." in texts
    events = qwen.call("GET", "/events", TENANT_KEYS["dave"]).json()["items"]
    assert [e["kind"] for e in events].count("reply_failed") == 2
