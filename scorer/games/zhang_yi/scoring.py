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
        who = ", ".join(backers)
        return backers, "win", Message(f"Hegemony of {sl.en}: {who} backed it and wins.", f"{sl.zh}制霸：支持它的 {who} 获胜。")
    return (), "all_lose", Message(f"Hegemony of {sl.en}, which nobody backed: every player loses.", f"{sl.zh}制霸，但无人支持它：所有玩家都失败。")


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
    names_en = ", ".join(state_label(s).en for s in top)
    names_zh = "、".join(state_label(s).zh for s in top)
    best = max(powers.values()) if powers else 0
    on_top = tuple(p for p, s in backed.items() if s in top)
    if len(on_top) == 1:
        who = on_top[0]
        mine = state_label(backed[who])
        return on_top, "win", Message(f"End of the game: {names_en} strongest (power {best}); {who} backed {mine.en} and wins.",
                                      f"游戏结束：{names_zh}国力最高（{best}）；支持{mine.zh}的 {who} 获胜。")
    if len(on_top) > 1 and shared_on_tie:
        who = ", ".join(on_top)
        return on_top, "win", Message(f"End of the game: {names_en} tied at the top (power {best}); shared victory for {who}.",
                                      f"游戏结束：{names_zh}并列国力最高（{best}）；{who} 共同获胜。")
    if len(on_top) > 1:
        return (), "draw", Message(f"End of the game: {names_en} tied at the top (power {best}) and each player backs one of them: a draw.",
                                   f"游戏结束：{names_zh}并列国力最高（{best}），各玩家各支持其中之一：平局。")
    return (), "draw", Message(f"End of the game: {names_en} strongest (power {best}), backed by no player: a draw.",
                               f"游戏结束：{names_zh}国力最高（{best}），无人支持：平局。")
