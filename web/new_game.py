"""The New game form's side of the API: what each game offers the form (``game_info``, read from the
game's own setup schema and ``Game`` hooks, so a new game needs no change here) and a form's body
checked into a game's ``setup`` (``checked_setup``), shared by the New game page and the first-run
wizard (``web.setup_views``)."""

from __future__ import annotations

from typing import Any

from scorer.core import SetupOptions, get_game
from scorer.core.registry import board_kit
from scorer.core.schema import validate as validate_schema
from scorer.core.types import InvalidRecord, Message
from web.app import ctx
from web.errors import BadInput

FALLBACK_COLOURS = ["blue", "green", "violet", "red", "yellow", "grey", "black"]


def game_info(game: Any) -> dict[str, Any]:
    """What the new-game form offers, read from the game's own setup schema."""
    schema = game.setup_schema().get("properties", {})
    colours = schema.get("players", {}).get("items", {}).get("enum")
    free = colours is None  # games whose players are free names: offer colours as names
    items = schema.get("variants", {}).get("items", {})
    # a game may still accept retired variants in records (marked deprecated): the form does not offer them
    variants = items.get("enum") or next((b.get("enum", []) for b in items.get("anyOf", []) if not b.get("deprecated")), [])
    cards = schema.get("cards", {}).get("enum", [])
    # a 2-player table's spare colour standing for the neutral pieces (Ming's neutral_colour), if the game has one
    spare = schema.get("neutral_colour", {}).get("enum")
    return {"id": game.id, "name": game.name.to_json(), "min_players": game.min_players, "max_players": game.max_players,
            "colours": FALLBACK_COLOURS if free else colours, "free_names": free, "variants": variants, "cards": cards,
            "boards": bool(getattr(board_kit(game.id), "setup_key", None)),
            "capture": board_kit(game.id) is not None,
            "confirmations": [{"key": k, "text": m.to_json()} for k, m in game.setup_confirmations()],
            "neutral_colours": spare or [], "deals": game.setup_deals()}


def checked_setup(body: dict[str, Any]) -> tuple[Any, dict[str, Any]]:
    """A new-game body (``validation.NEW_GAME``) as ``(game, setup)``, checked against the game's
    setup schema and dry-run through ``setup()``; ``BadInput`` with the reason otherwise. Shared by
    the New game form and the first-run wizard (which checks the choices when they are made)."""
    try:
        game = get_game(body["game"])
    except KeyError:
        raise BadInput(Message.t('web.api.unknown_game', game=body['game']), field="game") from None
    info = game_info(game)
    players = body["players"]
    if not game.min_players <= len(players) <= game.max_players:
        raise BadInput(Message.t('web.api.is_for_to_players_not', game=game.name, min_players=game.min_players, max_players=game.max_players, players=len(players)),
                       field="players")
    if len(set(players)) != len(players):
        raise BadInput(Message.t('web.api.each_player_needs_a_different'), field="players")
    bad = [p for p in players if not info["free_names"] and p not in info["colours"]]
    if bad:
        raise BadInput(Message.t("web.api.not_a_colour", colours=tuple(bad)), field="players")
    unknown = [v for v in body.get("variants", []) if v not in info["variants"]]
    if unknown:
        raise BadInput(Message.t("web.api.unknown_variant", variants=tuple(unknown)), field="variants")
    setup: dict[str, Any] = {"players": list(players)}
    if body.get("board"):
        kit = board_kit(game.id)
        if kit is None or not kit.setup_key:
            raise BadInput(Message.t('web.api.this_game_has_no_board'), field="board")
        try:
            setup[kit.setup_key] = ctx().boards.setup_ref(body["board"], game.id)
        except InvalidRecord as exc:
            raise BadInput(Message.t('web.api.that_board_is_not_valid', exc=exc), field="board") from None
    if body.get("variants"):
        setup["variants"] = sorted(set(body["variants"]))
    offered = {c["key"] for c in info["confirmations"]}
    for key in body.get("confirm", []):
        if key not in offered:
            raise BadInput(Message.t('web.api.nothing_to_confirm_called_in', key_=key), field="confirm")
        setup[key] = True
    if body.get("neutral_colour"):
        if body["neutral_colour"] not in info["neutral_colours"]:
            raise BadInput(Message.t("web.api.no_neutral_colour", colour=body["neutral_colour"]), field="neutral_colour")
        setup["neutral_colour"] = body["neutral_colour"]
    if "cards" in body:
        if body["cards"] not in info["cards"]:
            raise BadInput(Message.t("web.api.unknown_cards", cards=body["cards"], choices=tuple(info["cards"])), field="cards")
        setup["cards"] = body["cards"]
    if "seed" in body:
        setup["seed"] = body["seed"]
    try:
        validate_schema(setup, game.setup_schema(), "setup")
        game.setup(SetupOptions.from_json(setup))  # dry run: refuse here, with the reason, not at the table
    except InvalidRecord as exc:
        raise BadInput(Message.t('web.api.cannot_set_up_this_game', exc=exc)) from None
    return game, setup


__all__ = ["FALLBACK_COLOURS", "checked_setup", "game_info"]
