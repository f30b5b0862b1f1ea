"""Languages as data (issue 18): the catalogues are complete and consistent, Traditional Chinese is
derived from Simplified with the games' glossary winning, and a new language is just a new file."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from scorer.core import i18n
from scorer.core.types import Message
from web import i18n as web_i18n

ROOT = Path(__file__).resolve().parents[2]
HAN = re.compile(r"[\u4e00-\u9fff]")


@pytest.fixture(autouse=True)
def _fresh_caches():
    i18n.reset_caches()
    yield
    i18n._EXTRA_FOLDERS.clear()
    i18n.reset_caches()


def test_three_languages_english_first():
    assert i18n.language_tags()[:1] == ("en",)
    assert {"en", "zh-Hans", "zh-Hant"} <= set(i18n.language_tags())
    assert i18n.language("zh-Hant").name == "繁體中文"


@pytest.mark.parametrize("package", ["scorer", "web"])
def test_every_text_exists_in_every_language_with_the_same_fields(package):
    en = i18n.catalogue(package, "en")
    assert en, f"{package}/i18n/en.json is empty"
    for tag in i18n.language_tags():
        if tag == "en":
            continue
        texts = i18n.catalogue(package, tag)
        missing = sorted(set(en) - set(texts))
        assert not missing, f"{package} {tag}: no text for {missing[:10]}"
        extra = sorted(set(texts) - set(en))
        assert not extra, f"{package} {tag}: keys English does not have (stale?): {extra[:10]}"
        wrong = [k for k in en if i18n.fields(en[k]) != i18n.fields(texts[k])]
        assert not wrong, f"{package} {tag}: fields differ from English in {wrong[:10]}"


@pytest.mark.parametrize("package", ["scorer", "web"])
def test_chinese_texts_are_chinese(package):
    for tag in ("zh-Hans", "zh-Hant"):
        texts = i18n.catalogue(package, tag)
        en = i18n.catalogue(package, "en")
        untranslated = [k for k, v in texts.items() if not HAN.search(v) and v == en[k] and HAN.search(v) is None
                        and re.search(r"[A-Za-z]{4,}", re.sub(r"{[^}]*}", "", v))]
        assert not untranslated, f"{package} {tag}: still English: {untranslated[:10]}"


def test_traditional_is_derived_from_simplified():
    hans, hant = i18n.catalogue("scorer", "zh-Hans"), i18n.catalogue("scorer", "zh-Hant")
    assert i18n.derive("游戏已经结束。", "zh-Hant") == "遊戲已經結束。"
    assert i18n.derive("价格表", "zh-Hant") == "價格表"
    for key, text in hans.items():
        if "这" in text or "个" in text or "游戏" in text:
            assert "這" in hant[key] or "個" in hant[key] or "遊戲" in hant[key], (key, hant[key])


def test_glossary_terms_win_over_the_converter():
    lang = i18n.language("zh-Hant")
    assert lang.glossary, "the zh-Hant glossary is empty"
    import opencc

    converter = opencc.OpenCC(lang.converter.split(":")[1])
    differs = 0
    for source, target in lang.glossary:
        assert i18n.derive(f"请看{source}。", "zh-Hant") == f"請看{target}。"
        differs += converter.convert(source) != target
    assert differs, "no glossary entry changes what the converter gives on its own"
    # a glossary entry in a real catalogue text
    glossary = dict(lang.glossary)
    used = [(k, v) for k, v in i18n.catalogue("scorer", "zh-Hans").items() if any(term in v for term in glossary)]
    for key, text in used:
        hant = i18n.catalogue("scorer", "zh-Hant")[key]
        for term, target in glossary.items():
            if term in text:
                assert target in hant, (key, hant)


def test_an_explicit_traditional_entry_wins(tmp_path):
    (tmp_path / "zh-Hant.json").write_text(json.dumps({"cli.game_over": "對局結束"}), "utf-8")
    i18n.add_catalogue_folder("scorer", tmp_path)
    assert Message.t("cli.game_over").get("zh-Hant") == "對局結束"
    assert Message.t("cli.in_progress").get("zh-Hant") == "遊戲進行中"  # the rest still derived


def test_a_fourth_language_is_one_new_catalogue_file(tmp_path):
    """A tiny fake language: one file for the engines (and one for the dashboard) is all it takes."""
    engine, web = tmp_path / "scorer", tmp_path / "web"
    engine.mkdir(), web.mkdir()
    (engine / "x-pirate.json").write_text(json.dumps({
        "_language": {"name": "Pirate", "babel": "en"},
        "cli.game_over": "the game be over, matey",
        "cli.check_ok": "aye: all {count} moves be fair ({status})",
    }), "utf-8")
    (web / "x-pirate.json").write_text(json.dumps({"nav.scoreboard": "Plunder"}), "utf-8")
    i18n.add_catalogue_folder("scorer", engine)
    i18n.add_catalogue_folder("web", web)
    assert "x-pirate" in i18n.language_tags() and "x-pirate" in web_i18n.LANGUAGES
    assert web_i18n.LANGUAGE_NAMES["x-pirate"] == "Pirate"
    msg = Message.t("cli.check_ok", count=3, status=Message.t("cli.game_over"))
    assert msg.get("x-pirate") == "aye: all 3 moves be fair (the game be over, matey)"
    assert msg.to_json()["x-pirate"] == msg.get("x-pirate")
    assert Message.t("cli.in_progress").get("x-pirate") == "game in progress"  # missing: English
    assert web_i18n.translate("x-pirate", "nav.scoreboard") == "Plunder"
    assert web_i18n.translate("x-pirate", "nav.board") == web_i18n.translate("en", "nav.board")
    assert web_i18n.negotiate(None, [("x-pirate", 1.0), ("en", 0.5)]) == "x-pirate"


def test_a_broken_catalogue_is_a_clear_error(tmp_path):
    (tmp_path / "fr.json").write_text("{not json", "utf-8")
    i18n.add_catalogue_folder("scorer", tmp_path)
    with pytest.raises(i18n.CatalogueError, match="fr.json is not valid JSON"):
        i18n.language_tags()


def test_message_arguments_are_shown_in_the_same_language():
    inner = Message.t("cli.game_over")
    msg = Message.t("cli.check_ok", count=1234, status=inner)
    assert msg.get("en") == "ok: all 1234 moves are legal (game over)"
    assert msg.get("zh-Hans") == "正确：全部 1234 步行动都合法（游戏结束）"
    assert msg.get("zh-Hant") == "正確：全部 1234 步行動都合法（遊戲結束）"
    assert msg.get("zh-TW") == msg.get("zh-Hant") and msg.get("zh-CN") == msg.get("zh-Hans")
    assert set(msg.to_json()) >= {"en", "zh-Hans", "zh-Hant", "zh"}
    data_name = Message.of({"en": "Wei", "zh": "魏国"})
    assert data_name.get("zh-Hant") == "魏國" and data_name.get("en") == "Wei"


def test_lists_numbers_and_dates_follow_the_language():
    from datetime import datetime

    assert i18n.format_list(["a", "b", "c"], "en") == "a, b, and c"
    assert i18n.format_list(["甲", "乙", "丙"], "zh-Hans") == "甲、乙和丙"
    assert i18n.format_number(12345.5, "en") == "12,345.5"
    when = datetime(2026, 11, 25, 15, 4, 5)
    assert "2026" in i18n.format_datetime(when, "zh-Hant") and "年" in i18n.format_datetime(when, "zh-Hant")
    assert i18n.format_time(when, "en").startswith("3:04:05")
    texts = i18n.at_texts(when.timestamp())
    assert set(texts) == set(i18n.language_tags())
    assert i18n.at_texts("not a time") is None


def test_the_converter_is_dropped_after_a_burst_and_comes_back(monkeypatch):
    """OpenCC's dictionaries (about 40 MB) stay only while texts are being converted; each text is
    remembered, so a dropped converter is loaded again only for a new text."""
    import time

    converters = i18n._Converters(idle=0.05)
    monkeypatch.setattr(i18n, "_converters", converters)
    assert i18n.derive("软件", "zh-Hant") == "軟體"
    assert converters._loaded
    deadline = time.monotonic() + 5
    while converters._loaded and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not converters._loaded
    assert i18n.derive("软件", "zh-Hant") == "軟體" and not converters._loaded  # remembered
    assert i18n.derive("信息", "zh-Hant") == "資訊"  # a new text: loaded again
