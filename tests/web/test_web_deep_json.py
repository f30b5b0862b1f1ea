"""API bodies go through the same nesting-limited loader as every JSON input: a body nested
100,000 levels deep is a 400 with a bilingual message, and the dashboard keeps answering."""

from __future__ import annotations

import json

import pytest

from web_testkit import ApiClient

DEEP = "[" * 100_000 + "]" * 100_000


@pytest.mark.parametrize("url", ["/api/login", "/api/declare", "/api/capture/check", "/api/game/new", "/api/settings"])
def test_a_deeply_nested_body_is_a_400(admin: ApiClient, url: str) -> None:
    body = '{"move": ' + DEEP + "}"
    resp = admin.c.post(url, data=body, content_type="application/json", headers={"X-CSRF-Token": admin.csrf})
    assert resp.status_code == 400
    err = resp.get_json()["error"]
    assert err["code"] == "bad_input"
    assert "nested more than 64 levels deep" in err["message"]["en"] and "JSON" in err["message"]["zh"]
    assert admin.get("/api/state").status_code == 200


def test_malformed_and_just_deep_enough_bodies(admin: ApiClient) -> None:
    bad = admin.c.post("/api/declare", data="{", content_type="application/json", headers={"X-CSRF-Token": admin.csrf})
    assert bad.status_code == 400 and "malformed JSON" in bad.get_json()["error"]["message"]["en"]
    ok_depth = {"move": json.loads("[" * 60 + "]" * 60)}
    resp = admin.post("/api/declare", ok_depth)
    assert resp.status_code == 400 and "nested" not in resp.get_json()["error"]["message"]["en"]  # the schema speaks
