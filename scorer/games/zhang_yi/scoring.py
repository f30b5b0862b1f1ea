"""Who wins a finished game of Zhang Yi, as pure functions over plain values (rules 11.1, 11.3).

Kept free of engine types so the tests' independent reference implementation can be compared
against exactly these functions.
"""

from __future__ import annotations

from typing import Mapping

from scorer.core.types import Message
from scorer.games.zhang_yi.data import state_label


def hegemony_result(hegemon: str, backed: Mapping[str, str]) -> tuple[tuple[str, ...], str, Message]:
    """The player backing the hegemon wins; if nobody backs it, every player loses (11.1)."""
    sl = state_label(hegemon)
    backers = tuple(p for p, s in backed.items() if s == hegemon)
    if backers:
        return backers, "win", Message.t('zhang_yi.scoring.hegemony_of_backed_it_and', sl=sl, who=backers)
    return (), "all_lose", Message.t('zhang_yi.scoring.hegemony_of_which_nobody_backed', sl=sl)


def winning_states(powers: Mapping[str, int]) -> tuple[str, ...]:
    """Live states with the highest national power (ties: all of them, 7-1)."""
    if not powers:
        return ()
    top = max(powers.values())
    return tuple(s for s, p in powers.items() if p == top)


def time_result(powers: Mapping[str, int], backed: Mapping[str, str], shared_on_tie: bool = False) -> tuple[tuple[str, ...], str, Message]:
    """End by time (11.3): a player whose backed state is a winning state wins; any other case is a
    draw -- including two players whose states tie at the top (A11), unless ``shared_on_tie``."""
    top = winning_states(powers)
    names = tuple(state_label(s) for s in top)
    best = max(powers.values()) if powers else 0
    on_top = tuple(p for p, s in backed.items() if s in top)
    if len(on_top) == 1:
        who = on_top[0]
        mine = state_label(backed[who])
        return on_top, "win", Message.t('zhang_yi.scoring.end_of_the_game_strongest.2', names_=names, best=best, who=who, mine=mine)
    if len(on_top) > 1 and shared_on_tie:
        return on_top, "win", Message.t('zhang_yi.scoring.end_of_the_game_tied', names_=names, best=best, who=on_top)
    if len(on_top) > 1:
        return (), "draw", Message.t('zhang_yi.scoring.end_of_the_game_tied.2', names_=names, best=best)
    return (), "draw", Message.t('zhang_yi.scoring.end_of_the_game_strongest', names_=names, best=best)
