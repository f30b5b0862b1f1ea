"""Games are plugins found through the entry-point group ``tableref.games``: the five shipped games
are declared that way, a broken plugin is named (package, version, entry point) without taking the
others down, and ``examples/plugin`` installs into a fresh virtualenv and scores its own record."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from scorer.core import registry
from scorer.core.registry import GamePluginError, UnknownGame, get_game
from tableref.cli import main

ROOT = Path(__file__).resolve().parents[2]
PLUGIN = ROOT / "examples" / "plugin"
SHIPPED = {"china", "cheops", "great_wall", "ming", "zhang_yi"}


def fake_distribution(where: Path, name: str, version: str, entry_points: dict[str, str], modules: dict[str, str]) -> None:
    """An installed distribution as importlib.metadata sees one: a dist-info folder on sys.path."""
    info = where / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n")
    (info / "entry_points.txt").write_text("[tableref.games]\n" + "".join(f"{k} = {v}\n" for k, v in entry_points.items()))
    for module, source in modules.items():
        (where / f"{module}.py").write_text(source)


@pytest.fixture
def plugins_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    where = tmp_path / "site"
    where.mkdir()
    monkeypatch.syspath_prepend(str(where))
    registry.refresh()
    yield where
    for mod in [m for m in sys.modules if m.startswith("tr_plugin_")]:
        del sys.modules[mod]
    registry.refresh()


def test_the_five_shipped_games_are_entry_points_of_the_tableref_package() -> None:
    rows = {r["id"]: r for r in registry.describe()}
    assert SHIPPED <= set(rows)
    for gid in SHIPPED:
        (src,) = rows[gid]["sources"]
        assert src["package"] == "tableref" and src["entry_point"] == f"scorer.games.{gid}:GAME", src
        assert rows[gid]["ok"] and get_game(gid).id == gid


def test_games_list_shows_package_version_and_entry_point(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["games", "list"]) == 0
    out = capsys.readouterr().out
    for gid in SHIPPED:
        line = next(x for x in out.splitlines() if x.startswith(gid + " "))
        assert "tableref" in line and "0.1.0" in line and f"scorer.games.{gid}:GAME" in line
    assert main(["games", "list", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    china = next(g for g in doc["games"] if g["id"] == "china")
    assert china["name"]["zh"] and china["min_players"] == 3 and china["sources"][0]["version"] == "0.1.0"


@pytest.mark.allow_error_logs
def test_a_broken_plugin_is_named_and_the_other_games_still_work(plugins_dir: Path, capsys: pytest.CaptureFixture[str]) -> None:
    fake_distribution(plugins_dir, "tr-broken-game", "2.3", {
        "exploding": "tr_plugin_boom:GAME",     # raises on import
        "wrong_id": "tr_plugin_other:GAME",     # a game, but under another id
        "not_a_game": "tr_plugin_other:THING",  # not a Game at all
    }, {
        "tr_plugin_boom": "raise ImportError('numpy 3 is required')\n",
        "tr_plugin_other": "from scorer.games.china import GAME\nTHING = object()\n",
    })
    registry.refresh()
    with pytest.raises(GamePluginError) as err:
        get_game("exploding")
    text = str(err.value)
    assert "'exploding'" in text and "tr-broken-game 2.3" in text and "tr_plugin_boom:GAME" in text
    assert "ImportError: numpy 3 is required" in text
    assert isinstance(err.value, UnknownGame) and isinstance(err.value, KeyError)  # callers treat it as unavailable
    with pytest.raises(GamePluginError, match="id is 'china', not 'wrong_id'"):
        get_game("wrong_id")
    with pytest.raises(GamePluginError, match="does not point to a scorer.core.game.Game"):
        get_game("not_a_game")
    assert SHIPPED <= {g.id for g in registry.all_games()}
    assert main(["games", "list"]) == 1
    cap = capsys.readouterr()
    assert "exploding" in cap.out and "(does not load)" in cap.out
    assert "tableref: game plugin 'exploding' (exploding = tr_plugin_boom:GAME from tr-broken-game 2.3)" in cap.err


def test_one_id_from_two_packages_is_refused_naming_both(plugins_dir: Path) -> None:
    source = "GAME = None  # never imported: the conflict is found first\n"
    for name in ("tr-twin-a", "tr-twin-b"):
        fake_distribution(plugins_dir / name, name, "1.0", {"twin": f"tr_plugin_{name[-1]}:GAME"},
                          {f"tr_plugin_{name[-1]}": source})
        sys.path.insert(0, str(plugins_dir / name))
    try:
        registry.refresh()
        with pytest.raises(GamePluginError, match="more than one installed package") as err:
            get_game("twin")
        assert "tr-twin-a 1.0" in str(err.value) and "tr-twin-b 1.0" in str(err.value)
    finally:
        for name in ("tr-twin-a", "tr-twin-b"):
            sys.path.remove(str(plugins_dir / name))


def test_unknown_game_lists_the_installed_ones() -> None:
    with pytest.raises(UnknownGame) as err:
        get_game("backgammon")
    assert "unknown game 'backgammon'" in str(err.value) and "china" in str(err.value)


@pytest.mark.slow
def test_the_example_plugin_installs_into_a_fresh_virtualenv_and_scores_its_records(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=60)
    py = venv / "bin" / "python"
    site = Path(subprocess.run([str(py), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                               check=True, capture_output=True, text=True).stdout.strip())
    # the new environment sees tableref and its dependencies as installed here (like
    # --system-site-packages would see the system's), but the plugin goes into it alone
    # (addsitedir also runs that folder's .pth files: the editable install's finder is one)
    (site / "tableref-parent.pth").write_text(f"import site; site.addsitedir({sysconfig.get_paths()['purelib']!r})\n")
    src = tmp_path / "plugin"
    shutil.copytree(PLUGIN, src)  # building writes build/ and *.egg-info next to the sources
    pip = subprocess.run([sys.executable, "-m", "pip", "--python", str(py), "install", "--no-index", "--no-deps",
                          "--no-build-isolation", "--disable-pip-version-check", "-q", str(src)],
                         capture_output=True, text=True, timeout=180)
    assert pip.returncode == 0, pip.stdout + pip.stderr

    def tableref(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([str(py), "-m", "tableref", *args], capture_output=True, text=True, timeout=120, cwd=tmp_path)

    listed = tableref("games", "list")
    assert listed.returncode == 0, listed.stderr
    line = next(x for x in listed.stdout.splitlines() if x.startswith("lines "))
    assert "Lines / 连线" in line and "tableref-lines" in line and "0.1.0" in line and "tableref_lines:GAME" in line
    assert "china" in listed.stdout  # the shipped games are still there

    scored = tableref("score", str(PLUGIN / "records" / "lines-complete.json"))
    assert scored.returncode == 0, scored.stderr
    doc = json.loads(scored.stdout)
    totals = {p["player"]: p["total"] for p in doc["scoreboard"]["players"]}
    assert doc["game"] == "lines" and doc["moves_applied"] == 9 and totals == {"red": 1, "blue": 0}
    assert doc["outcome"]["winners"] == ["red"] and doc["outcome"]["reason"]["zh"] == "版图已满：连成线最多的玩家获胜。"

    illegal = tableref("score", str(PLUGIN / "records" / "lines-illegal.json"))
    assert illegal.returncode == 1
    assert "place.occupied" in illegal.stderr and "b2 上已经有棋子" in illegal.stderr

    # the core environment itself never saw the plugin
    assert "lines" not in registry.available_ids()
