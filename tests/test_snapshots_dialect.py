"""OSS and S3 differ in how a create-only write is asked for and refused, in metadata headers and in
listing XML. Both sides are tested at the HTTP level: OSS against a loopback server that answers like
OSS, S3 against moto's server."""

from __future__ import annotations

import oss2
import pytest
from snapshot_support import KEY_ID, KEY_SECRET, moto_endpoint, new_bucket, oss_like, oss_store  # noqa: F401

from engram_bench.oss_front import LOOPBACK_REGION
from engram_core.core.errors import ConfigurationError, GenerationExistsError, ValidationError
from engram_core.snapshots.dialect import OSS, S3, dialect_named, parse_s3_listing
from engram_core.snapshots.oss import make_auth, read_small_object
from engram_core.snapshots.settings import load_oss_settings, parse_oss_url


def raw_bucket(endpoint: str, name: str) -> oss2.Bucket:
    return oss2.Bucket(oss2.AuthV4(KEY_ID, KEY_SECRET), endpoint, name, region=LOOPBACK_REGION)


def test_oss_answers_a_taken_key_with_409_file_already_exists(oss_like) -> None:
    bucket = raw_bucket(oss_like.endpoint, new_bucket(oss_like.endpoint, "oss"))
    bucket.put_object("k", b"first", headers=OSS.create_only_headers())
    with pytest.raises(oss2.exceptions.ServerError) as refused:
        bucket.put_object("k", b"second", headers=OSS.create_only_headers())
    assert (refused.value.status, refused.value.code) == (409, "FileAlreadyExists")
    assert OSS.is_conflict(refused.value.status, refused.value.code)
    assert not S3.is_conflict(refused.value.status, refused.value.code)
    assert bucket.get_object("k").read() == b"first"


def test_s3_answers_a_taken_key_with_412_precondition_failed(moto_endpoint: str) -> None:
    bucket = raw_bucket(moto_endpoint, new_bucket(moto_endpoint))
    bucket.put_object("k", b"first", headers=S3.create_only_headers())
    with pytest.raises(oss2.exceptions.ServerError) as refused:
        bucket.put_object("k", b"second", headers=S3.create_only_headers())
    assert (refused.value.status, refused.value.code) == (412, "PreconditionFailed")
    assert S3.is_conflict(refused.value.status, refused.value.code)
    assert not OSS.is_conflict(refused.value.status, refused.value.code)
    assert bucket.get_object("k").read() == b"first"


def test_the_oss_store_maps_409_to_a_lost_race_and_reads_oss_metadata(oss_like) -> None:
    store = oss_store(oss_like.endpoint, "oss")
    store.put_new("t/snap/000000000001.sqlite.zst", b"one", {"sha256": "ab"})
    with pytest.raises(GenerationExistsError):
        store.put_new("t/snap/000000000001.sqlite.zst", b"two", {"sha256": "cd"})
    stored = [v for (b, k), v in oss_like.objects.items() if k.endswith("000000000001.sqlite.zst")]
    assert stored[0][1] == {"x-oss-meta-sha256": "ab"}


def test_metadata_headers_follow_the_dialect() -> None:
    assert OSS.metadata_headers({"sha256": "ab"}) == {"x-oss-meta-sha256": "ab"}
    assert S3.metadata_headers({"sha256": "ab"}) == {"x-amz-meta-sha256": "ab"}
    assert S3.metadata_from({"X-Amz-Meta-Sha256": "ab", "x-oss-meta-sha256": "no"}) == {"sha256": "ab"}
    assert OSS.create_only_headers() == {"x-oss-forbid-overwrite": "true"}
    assert S3.create_only_headers() == {"If-None-Match": "*"}


def test_s3_listings_are_read_with_their_namespace_and_continuation() -> None:
    body = (b'<?xml version="1.0" encoding="UTF-8"?><ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">'
            b"<IsTruncated>true</IsTruncated><NextContinuationToken>tok==</NextContinuationToken>"
            b"<Contents><Key>t/snap/000000000001.sqlite.zst</Key><LastModified>2026-01-05T09:00:00.000Z"
            b"</LastModified><Size>42</Size></Contents></ListBucketResult>")
    entries, token = parse_s3_listing(body)
    assert token == "tok==" and entries[0][0] == "t/snap/000000000001.sqlite.zst" and entries[0][1] == 42
    assert entries[0][2].isoformat() == "2026-01-05T09:00:00+00:00"
    last, token = parse_s3_listing(body.replace(b"<IsTruncated>true", b"<IsTruncated>false"))
    assert token == "" and len(last) == 1


def test_oss_listing_pages_through_the_sdk(oss_like) -> None:
    store = oss_store(oss_like.endpoint, "oss")
    for number in range(1, 1004):
        oss_like.objects[(store._bucket.bucket_name, f"tenants/t/snap/{number:012d}.sqlite.zst")] = (b"x", {}, 0.0)
    listed = store.list("t/snap/")
    assert len(listed) == 1003 and listed[-1].key == "t/snap/000000001003.sqlite.zst"
    assert len(store.list("t/snap/", start_after="t/snap/000000001000.sqlite.zst")) == 3


def test_settings_come_from_the_environment_and_never_show_secrets(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENGRAM_OSS_ENDPOINT", "https://oss-cn-hangzhou.aliyuncs.com")
    monkeypatch.setenv("ALIBABA_CLOUD_ACCESS_KEY_ID", "LTAI-from-fc")
    monkeypatch.setenv("ALIBABA_CLOUD_ACCESS_KEY_SECRET", "super-secret-value")
    monkeypatch.setenv("ALIBABA_CLOUD_SECURITY_TOKEN", "sts-token-value")
    settings = load_oss_settings()
    assert settings.endpoint == "https://oss-cn-hangzhou.aliyuncs.com" and settings.dialect == "oss"
    shown = repr(settings) + str(settings) + settings.model_dump_json()
    assert "super-secret-value" not in shown and "sts-token-value" not in shown
    assert isinstance(make_auth(settings), oss2.StsAuth)


def test_function_compute_request_headers_carry_fresh_sts_credentials(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ENGRAM_OSS_ACCESS_KEY_ID", "ALIBABA_CLOUD_ACCESS_KEY_ID", "ENGRAM_OSS_SECURITY_TOKEN",
                 "ALIBABA_CLOUD_SECURITY_TOKEN", "OSS_SESSION_TOKEN"):
        monkeypatch.delenv(name, raising=False)
    base = load_oss_settings(endpoint="https://oss-cn-hangzhou.aliyuncs.com")
    with pytest.raises(ConfigurationError, match="no object store credentials"):
        make_auth(base)
    fresh = base.with_fc_credentials({"X-Fc-Access-Key-Id": "STS.id", "X-Fc-Access-Key-Secret": "s3cr3t",
                                      "X-Fc-Security-Token": "tok"})
    assert fresh.security_token.get_secret_value() == "tok" and isinstance(make_auth(fresh), oss2.StsAuth)
    assert base.with_fc_credentials({}) is base


def test_bad_settings_name_their_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ENGRAM_OSS_DIALECT", "gcs")
    with pytest.raises(ConfigurationError) as caught:
        load_oss_settings()
    assert caught.value.field == "ENGRAM_OSS_DIALECT"
    monkeypatch.delenv("ENGRAM_OSS_DIALECT")
    monkeypatch.delenv("ENGRAM_OSS_ENDPOINT", raising=False)
    monkeypatch.delenv("OSS_ENDPOINT", raising=False)
    with pytest.raises(ConfigurationError, match="ENGRAM_OSS_ENDPOINT"):
        load_oss_settings(access_key_id="a", access_key_secret="b").require_endpoint()
    with pytest.raises(ConfigurationError):
        dialect_named("gcs")


@pytest.mark.parametrize("url, expected", [
    ("oss://my-bucket", ("my-bucket", "")),
    ("oss://my-bucket/engram/prod/", ("my-bucket", "engram/prod")),
])
def test_oss_urls_parse(url: str, expected: tuple[str, str]) -> None:
    assert parse_oss_url(url) == expected


@pytest.mark.parametrize("url", ["oss://", "oss://Bad_Bucket/x", "oss://ab", "oss://bucket/a//b", "s3://bucket"])
def test_bad_oss_urls_are_refused(url: str) -> None:
    with pytest.raises(ValidationError) as caught:
        parse_oss_url(url)
    assert caught.value.field == "store"


def test_a_small_object_can_be_read_by_url(moto_endpoint: str) -> None:
    bucket = new_bucket(moto_endpoint)
    raw_bucket(moto_endpoint, bucket).put_object("keys.json", b'[{"tenant": "a"}]')
    settings = load_oss_settings(endpoint=moto_endpoint, access_key_id=KEY_ID, access_key_secret=KEY_SECRET,
                                 dialect="s3", region=LOOPBACK_REGION)
    assert read_small_object(f"oss://{bucket}/keys.json", 1024, settings) == b'[{"tenant": "a"}]'
    with pytest.raises(ValidationError, match="larger than 4 bytes"):
        read_small_object(f"oss://{bucket}/keys.json", 4, settings)
