"""Both languages have every text; the language follows the browser and can be switched."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from web import i18n

WEB = Path(__file__).resolve().parents[2] / "web"
PREFIX_KEYS = ("awaiting.", "cards.", "category.", "colour.", "event.", "field.", "kind.", "live.", "state.", "variant.",
               "capture.hint_")


def test_catalogues_have_the_same_keys_and_placeholders():
    en, zh = i18n.catalogue("en"), i18n.catalogue("zh-Hans")
    assert set(en) == set(zh)
    for key in en:
        assert en[key].strip() and zh[key].strip(), key
        assert set(re.findall(r"\{(\w+)\}", en[key])) == set(re.findall(r"\{(\w+)\}", zh[key])), key
    assert any(re.search(r"[\u4e00-\u9fff]", v) for v in zh.values())


def test_every_key_the_pages_use_exists():
    en = i18n.catalogue("en")
    used = set()
    for path in (WEB / "templates").glob("*.html"):
        used |= set(re.findall(r"\bt\('([a-z_.]+)'", path.read_text()))
    for path in (WEB / "static" / "js").glob("*.js"):
        used |= set(re.findall(r"\bt\(\"([a-z_.]+)\"", path.read_text()))
    static_keys = {k for k in used if not k.endswith(".") and k not in PREFIX_KEYS}
    missing = sorted(k for k in static_keys if k not in en)
    assert not missing, missing
    for prefix in ("live.", "capture.hint_"):
        names = {"live.": ["connecting", "live", "reconnecting", "offline"],
                 "capture.hint_": ["site", "dragon", "road", "move", "delete"]}[prefix]
        assert all(prefix + n in en for n in names)


@pytest.mark.parametrize("cookie, accept, expected", [
    (None, [("zh-CN", 1.0)], "zh-Hans"),
    (None, [("zh-TW", 1.0), ("en", 0.5)], "zh-Hant"),
    (None, [("zh-HK", 1.0)], "zh-Hant"),
    (None, [("zh-MO", 1.0)], "zh-Hant"),
    (None, [("zh-Hant", 1.0)], "zh-Hant"),
    (None, [("zh-Hant-HK", 1.0)], "zh-Hant"),
    (None, [("zh-SG", 1.0)], "zh-Hans"),
    (None, [("zh-Hans-HK", 1.0)], "zh-Hans"),
    ("zh-Hant", [("zh-CN", 1.0)], "zh-Hant"),
    (None, [("fr", 1.0), ("en-US", 0.8)], "en"),
    (None, [("de", 1.0)], "en"),
    (None, [("en", 0.3), ("zh", 0.9)], "zh-Hans"),
    ("en", [("zh-CN", 1.0)], "en"),
    ("zh-Hans", [("en", 1.0)], "zh-Hans"),
    ("klingon", [("zh", 1.0)], "zh-Hans"),
])
def test_negotiate(cookie, accept, expected):
    assert i18n.negotiate(cookie, accept) == expected


def _boot(resp) -> dict:
    html = resp.get_data(as_text=True)
    return json.loads(html.split('<script id="boot" type="application/json">')[1].split("</script>")[0])


def test_pages_follow_the_browser_then_the_switch(api):
    r = api.get("/", headers={"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.8"})
    assert _boot(r)["lang"] == "zh-Hans" and '<html lang="zh-Hans">' in r.get_data(as_text=True)
    assert "记分板" in r.get_data(as_text=True)
    r = api.get("/lang/en?next=/board")
    assert r.status_code == 303 and "lang=en" in r.headers["Set-Cookie"]
    r = api.get("/", headers={"Accept-Language": "zh-CN"})
    assert _boot(r)["lang"] == "en" and "Scoreboard" in r.get_data(as_text=True)
    api.get("/lang/zh-Hans")
    assert _boot(api.get("/"))["lang"] == "zh-Hans"
    api.get("/lang/xx")  # unknown: ignored, the choice stays
    assert _boot(api.get("/"))["lang"] == "zh-Hans"


def test_table_default_language_setting(admin, app):
    from web_testkit import ApiClient

    admin.post("/api/settings", {"default_language": "zh-Hans"})
    fresh = ApiClient(app.test_client())
    assert _boot(fresh.get("/", headers={"Accept-Language": "en"}))["lang"] == "zh-Hans"
    fresh.get("/lang/en")
    assert _boot(fresh.get("/"))["lang"] == "en"


def test_catalogue_endpoint(api):
    assert api.get("/api/i18n/zh-Hans").get_json()["nav.board"] == "版图"
    assert api.get("/api/i18n/fr").status_code == 404
