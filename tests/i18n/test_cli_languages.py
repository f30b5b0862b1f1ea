"""The command line speaks the three languages: --lang, the usual environment variables, else both."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tableref.lang import BOTH, cli_languages

ROOT = Path(__file__).resolve().parents[2]
ILLEGAL = ROOT / "examples" / "china-3p-illegal.json"


def _check(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k not in ("LANG", "LANGUAGE", "LC_ALL", "LC_MESSAGES", "TABLEREF_LANG")}
    return subprocess.run([sys.executable, "-m", "tableref", "check", str(ILLEGAL), *args], capture_output=True, text=True,
                          env={**base, "LANG": "C.UTF-8", **env}, timeout=120)


@pytest.mark.parametrize("option, env, expected", [
    (None, {}, BOTH),
    (None, {"LANG": "C.UTF-8"}, BOTH),
    (None, {"LANG": "zh_TW.UTF-8"}, ("zh-Hant",)),
    (None, {"LANG": "zh_HK.UTF-8"}, ("zh-Hant",)),
    (None, {"LANG": "zh_CN.UTF-8"}, ("zh-Hans",)),
    (None, {"LANG": "en_US.UTF-8", "LC_ALL": "zh_TW.UTF-8"}, ("zh-Hant",)),
    (None, {"LANGUAGE": "fr:zh_TW", "LANG": "en_GB.UTF-8"}, ("zh-Hant",)),
    (None, {"TABLEREF_LANG": "en", "LANG": "zh_CN.UTF-8"}, ("en",)),
    ("zh-MO", {"LANG": "en_US.UTF-8"}, ("zh-Hant",)),
    ("both", {"LANG": "zh_TW.UTF-8"}, BOTH),
    ("all", {}, ("en", "zh-Hans", "zh-Hant")),
])
def test_language_choice(option, env, expected):
    assert cli_languages(option, env) == expected


def test_unknown_language_is_refused():
    with pytest.raises(ValueError, match="unknown language 'klingon'"):
        cli_languages("klingon", {})


def test_check_in_traditional_chinese():
    proc = _check("--lang", "zh-TW")
    assert proc.returncode == 1, proc.stderr
    assert "第 3 步行動不合法" in proc.stderr
    assert "規則 place.empty_province_one_piece：" in proc.stderr and "改正：" in proc.stderr
    assert "rule " not in proc.stderr and "规则" not in proc.stderr


def test_check_follows_the_environment():
    proc = _check(LANG="zh_HK.UTF-8")
    assert "規則" in proc.stderr and "rule " not in proc.stderr
    proc = _check(LANG="en_US.UTF-8")
    assert "rule place.empty_province_one_piece:" in proc.stderr and "规则" not in proc.stderr


def test_check_defaults_to_english_and_simplified():
    proc = _check()
    assert "rule place.empty_province_one_piece:" in proc.stderr and "规则 place.empty_province_one_piece：" in proc.stderr


def test_bad_lang_option_is_a_clear_error():
    proc = _check("--lang", "klingon")
    assert proc.returncode == 2 and "unknown language 'klingon'" in proc.stderr and "Traceback" not in proc.stderr
