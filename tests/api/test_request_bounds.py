"""Request bodies are bounded: too large answers 413, too many keys or NUL text 400, and nothing the
client sent comes back in bulk."""

import json
import time

import pytest
from django.test import override_settings

from annotator.models import Annotation

pytestmark = pytest.mark.django_db


def draft_url(world) -> str:
    return f"/api/v1/annotations/{world.a.annotation.pk}/draft/"


def unknown_keys(n: int) -> bytes:
    values = {f"no_such_dimension_{i}": [1] for i in range(n)}
    return json.dumps({"version": 1, "values": values}).encode()


def put_raw(client, url: str, body: bytes, content_type: str = "application/json"):
    return client.generic("PUT", url, body, content_type=content_type)


def snapshot(world) -> tuple:
    annotation = Annotation.objects.get(pk=world.a.annotation.pk)
    return annotation.version, annotation.note, annotation.updated_at


def test_a_six_megabyte_draft_is_refused_quickly_with_413(world, api_as):
    body = unknown_keys(400_000)
    assert len(body) > 6_000_000
    before = snapshot(world)
    client = api_as("rater_a")
    client.get(draft_url(world))  # the first request of a process loads the URLs and views: not timed
    started = time.perf_counter()
    response = put_raw(client, draft_url(world), body)
    elapsed = time.perf_counter() - started
    assert response.status_code == 413
    assert response.json()["error"]["code"] == "request_too_large"
    assert len(response.content) < 1000 and elapsed < 1.0
    assert snapshot(world) == before


def test_a_body_without_a_content_length_is_still_cut_at_the_limit(world, api_as):
    with override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1000):
        client = api_as("rater_a")
        response = client.generic("PUT", draft_url(world), unknown_keys(200), content_type="application/json")
    assert response.status_code == 413


def test_too_many_keys_within_the_size_limit_are_refused_without_echo(world, api_as):
    body = unknown_keys(50_000)
    assert len(body) < 2_500_000
    response = put_raw(api_as("rater_a"), draft_url(world), body)
    assert response.status_code == 400
    assert "more than 10,000 keys" in response.json()["error"]["message"]
    assert len(response.content) < 1000


def test_unknown_keys_under_the_key_limit_are_not_echoed_in_bulk(world, api_as):
    response = put_raw(api_as("rater_a"), draft_url(world), unknown_keys(5_000))
    assert response.status_code == 400
    assert len(response.content) < 5000, f"the error repeats the request: {len(response.content)} bytes"


@pytest.mark.parametrize("body", ['{"version": 1, "note": "a\\u0000b"}', '{"version": 1, "\\u0000": 1}'])
def test_nul_characters_in_json_text_are_refused_with_400(world, api_as, body):
    before = snapshot(world)
    response = put_raw(api_as("rater_a"), draft_url(world), body.encode())
    assert response.status_code == 400
    assert "NUL" in response.json()["error"]["message"]
    assert snapshot(world) == before


@pytest.mark.parametrize("suffix", ["draft/", "submit/"])
def test_a_body_nested_deeper_than_the_parser_follows_answers_400(world, api_as, suffix):
    before = snapshot(world)
    client = api_as("rater_a")
    response = client.generic(
        "PUT" if suffix == "draft/" else "POST",
        f"/api/v1/annotations/{world.a.annotation.pk}/{suffix}",
        b"[" * 100_000,
        content_type="application/json",
    )
    assert response.status_code == 400
    assert response.json()["error"] == {"code": "parse_error", "message": "The JSON body is nested too deeply."}
    assert snapshot(world) == before


@pytest.mark.parametrize(
    "body",
    [
        '{"version": 1, "note": "a\\ud800b"}',
        '{"version": 1, "values": {"symptom\\ud800": [1]}}',
        '{"version": 1, "proposals": {"root_cause\\udfff": "x"}}',
    ],
)
def test_unpaired_surrogates_in_json_text_or_keys_are_refused_with_400(world, api_as, body):
    before = snapshot(world)
    response = put_raw(api_as("rater_a"), draft_url(world), body.encode())
    assert response.status_code == 400
    assert response.json()["error"]["message"] == "Text may not contain unpaired surrogate code points."
    assert snapshot(world) == before


def test_a_surrogate_pair_is_one_character_and_is_kept(world, api_as):
    response = put_raw(api_as("rater_a"), draft_url(world), b'{"version": 1, "note": "ok \\ud83d\\ude00"}')
    assert response.status_code == 200
    assert Annotation.objects.get(pk=world.a.annotation.pk).note == "ok \U0001f600"


@pytest.mark.parametrize("content_type", ["application/x-www-form-urlencoded", "multipart/form-data; boundary=x"])
def test_a_form_body_is_refused_with_415_before_it_is_read(world, api_as, content_type):
    before = snapshot(world)
    body = ("&".join(f"k{i}=v" for i in range(300_000))).encode()
    response = put_raw(api_as("rater_a"), draft_url(world), body, content_type)
    assert response.status_code == 415
    assert response.json()["error"]["code"] == "unsupported_media_type"
    assert snapshot(world) == before


def test_an_ordinary_draft_still_saves(world, api_as):
    response = put_raw(api_as("rater_a"), draft_url(world), json.dumps({"version": 1, "note": "fine"}).encode())
    assert response.status_code == 200, response.content
