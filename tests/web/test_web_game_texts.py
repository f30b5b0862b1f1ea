"""Every game's variants, score categories, card modes and awaited inputs have a text in both languages.

The dashboard looks a variant up as ``variant.<game>.<id>`` first, then ``variant.<id>`` (same for
``.help`` and for ``category.``; see ``TR.gameKey`` in web/static/js/app.js); card modes as
``cards.<id>``; the turn's awaited input (the badge next to the player to play) as
``awaiting.<id>``. These tests resolve the keys the same way for every registered game, so a new
game, variant or category without texts fails here instead of showing a raw id at the table.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from functools import lru_cache
from pathlib import Path

import pytest

from scorer.core.game import SetupOptions
from scorer.core.registry import all_games
from web import i18n
from web.new_game import game_info as _game_info

LANGS = i18n.LANGUAGES
GAMES = {g.id: g for g in all_games()}


def game_key(lang: str, prefix: str, game: str, id_: str, suffix: str = "") -> str | None:
    """The key the dashboard shows for ``id_`` of ``game`` (mirrors TR.gameKey), or None."""
    cat = i18n.catalogue(lang)
    for key in (f"{prefix}.{game}.{id_}{suffix}", f"{prefix}.{id_}{suffix}"):
        if key in cat:
            return key
    return None


@lru_cache(maxsize=None)
def fresh_state(game_id: str):
    """A freshly set-up game (minimum players, seeded, confirmations given)."""
    game = GAMES[game_id]
    schema = game.setup_schema().get("properties", {})
    colours = schema.get("players", {}).get("items", {}).get("enum") or [f"p{i}" for i in range(1, 9)]
    setup = {"players": list(colours[: game.min_players]), "seed": 1}
    setup.update({key: True for key, _ in game.setup_confirmations()})
    return game.setup(SetupOptions.from_json(setup))


@lru_cache(maxsize=None)
def categories(game_id: str) -> tuple[str, ...]:
    """The score categories of a freshly set-up game."""
    board = GAMES[game_id].score(fresh_state(game_id))
    assert board.categories, f"{game_id}: the scoreboard names no categories"
    return tuple(board.categories)


def variants(game_id: str) -> list[str]:
    return list(_game_info(GAMES[game_id])["variants"])


def test_every_game_is_covered():
    # the registry really holds the games this dashboard is meant to label
    assert {"china", "great_wall", "cheops", "ming", "zhang_yi"} <= set(GAMES)
    assert all(variants(g) for g in GAMES), "a game without variants: the variant test would prove nothing for it"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_variant_has_a_label_and_a_help_line(game_id, lang):
    missing = [v + suffix for v in variants(game_id) for suffix in ("", ".help")
               if game_key(lang, "variant", game_id, v, suffix) is None]
    assert not missing, f"{game_id} ({lang}): no text for variant(s) {missing}"


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_score_category_has_a_label(game_id, lang):
    missing = [c for c in categories(game_id) if game_key(lang, "category", game_id, c) is None]
    assert not missing, f"{game_id} ({lang}): no text for score category(ies) {missing}"


@pytest.mark.parametrize("lang", LANGS)
def test_every_card_mode_has_a_label(lang):
    cat = i18n.catalogue(lang)
    missing = [(g, c) for g in GAMES for c in _game_info(GAMES[g])["cards"] if f"cards.{c}" not in cat]
    assert not missing, missing


@pytest.mark.parametrize("prefix", ["variant", "category"])
def test_an_id_shared_by_two_games_is_named_per_game(prefix):
    """A shared key (``variant.<id>``) would give two games the same text for what may be two
    different rules: an id that more than one game uses needs a per-game key in each of them."""
    users = defaultdict(list)
    for g in GAMES:
        for id_ in (variants(g) if prefix == "variant" else categories(g)):
            users[id_].append(g)
    en = i18n.catalogue("en")
    generic = [(id_, g) for id_, games in users.items() if len(games) > 1 for g in games
               if f"{prefix}.{g}.{id_}" not in en]
    assert not generic, generic


def test_no_stale_game_texts():
    """Per-game keys name a registered game and one of its ids; shared keys an id some game has."""
    known = {"variant": {g: set(variants(g)) for g in GAMES}, "category": {g: set(categories(g)) for g in GAMES}}
    stale = []
    for key in i18n.catalogue("en"):
        prefix, _, rest = key.partition(".")
        if prefix not in known:
            continue
        rest = rest.removesuffix(".help") if prefix == "variant" else rest
        game, _, id_ = rest.partition(".")
        if id_ and game in known[prefix]:
            ok = id_ in known[prefix][game]
        else:
            ok = any(rest in ids for ids in known[prefix].values())
        if not ok:
            stale.append(key)
    assert not stale, stale


def test_labels_differ_between_languages_and_within_a_game():
    """A Chinese text that is still English, or two variants of a game with one label, is a slip."""
    en, zh = i18n.catalogue("en"), i18n.catalogue("zh-Hans")
    for g in GAMES:
        for prefix, ids in (("variant", variants(g)), ("category", categories(g))):
            keys = [game_key("en", prefix, g, i) for i in ids]
            for lang_cat in (en, zh):
                labels = [lang_cat[k] for k in keys]
                assert len(set(labels)) == len(labels), (g, prefix, labels)
            for k in keys:
                assert en[k] != zh[k] and any("\u4e00" <= ch <= "\u9fff" for ch in zh[k]), k


SILENT_AWAITING = {"move", "none"}  # the scoreboard shows no badge for these


def awaiting_values(game_id: str) -> set[str]:
    """Every value a game's ``TurnInfo.awaiting`` can take, read from its source: the string
    constants given as ``awaiting=...`` or assigned to ``awaiting`` / ``A_*`` names."""
    module = type(GAMES[game_id]).__module__
    package = Path(__import__(module, fromlist=["_"]).__file__).parent
    found: set[str] = set()
    for path in package.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            values = []
            if isinstance(node, ast.keyword) and node.arg == "awaiting":
                values.append(node.value)
            elif isinstance(node, ast.Assign) and any(
                    isinstance(t, ast.Name) and (t.id == "awaiting" or t.id.startswith("A_")) for t in node.targets):
                values.append(node.value)
            found |= {c.value for v in values for c in ast.walk(v) if isinstance(c, ast.Constant) and isinstance(c.value, str)}
    return found


@pytest.mark.parametrize("game_id", sorted(GAMES))
def test_every_awaited_input_has_a_label(game_id):
    values = awaiting_values(game_id)
    # the scan sees what the engine really reports (else it would check nothing)
    assert GAMES[game_id].turn(fresh_state(game_id)).awaiting in values, values
    for lang in LANGS:
        cat = i18n.catalogue(lang)
        missing = sorted(a for a in values - SILENT_AWAITING if f"awaiting.{a}" not in cat)
        assert not missing, f"{game_id} ({lang}): no text for awaited input(s) {missing}"
