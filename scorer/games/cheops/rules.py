"""Legality and resolution of a Cheops turn, step by step, on a mutable working copy.

``violations`` and ``apply_unchecked`` share one code path (``resolve``): each step is checked
against the position left by the steps before it (cash after buying a neighbour, a law just
taken ...), then applied. Checks run in a fixed order: game over, whose turn, the shape of the
turn, then every step in order (stopping at the first step that breaks a rule, since later steps
would be judged on a position that never existed), then the draws. Rule ids are stable: the
dashboard and docs/cheops.md refer to them.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Iterable

from scorer.core.results import Termination
from scorer.core.types import Colour, Message, SpaceId, Violation
from scorer.games.cheops.data import ADJACENT, BELOW, FACE_ZH, FACES, ROW_OF, SPACE_INDEX, SPACES
from scorer.games.cheops.moves import (
    KEPT_PREFIX,
    BuyNeighbour,
    Draw,
    Pass,
    PlaceTile,
    Step,
    Take,
    Turn,
    UseLaw10,
    UseLaw11,
    UseLaw12,
)
from scorer.games.cheops.state import (
    EMPTY,
    HAND_SIZE,
    LAW9_PRICE,
    LAW_BASE,
    LAW_HIDDEN,
    MARKET_PRICE,
    NEIGHBOUR_PRICE,
    NEIGHBOUR_TILE,
    NO_TILE,
    CheopsState,
    Effect,
    is_law,
    is_treasure,
    law_code,
)

LAW_NAME_ZH = "律法"


def _v(rule: str, en: str, zh: str, spaces: Iterable[str] = (), fix: tuple[str, str] | None = None) -> Violation:
    return Violation(rule, Message(en, zh), tuple(SpaceId(s) for s in spaces), Message(*fix) if fix else None)


def player_label(player: str) -> tuple[str, str]:
    try:
        c = Colour(player)
        return c.value, c.zh + "方"
    except ValueError:
        return player, player


def face_label(face: str) -> tuple[str, str]:
    return f"family tile {face}", f"家族成员{FACE_ZH.get(face, face)}（{face}）"


def law_text(n: int) -> tuple[str, str]:
    return f"law {n}", f"{n} 号律法"


class TurnError(Exception):
    """Raised inside ``resolve`` when checking: carries the violations of the failing step."""

    def __init__(self, violations: list[Violation]):
        self.violations = violations


class Work:
    """A mutable copy of the state while one turn is resolved."""

    def __init__(self, s: CheopsState):
        self.s = s
        self.p = s.active
        self.content = list(s.content)
        self.tile = list(s.tile)
        self.placer = list(s.placer)
        self.covered = list(s.covered)
        self.sold_for_nothing = list(s.sold_for_nothing)
        self.table_law = list(s.table_law)
        self.market_laws = list(s.market_laws)
        self.law3 = s.law3
        self.revealed = list(s.revealed)
        self.out_of_play = list(s.out_of_play)
        self.cash = list(s.cash)
        self.kept = [list(k) for k in s.kept]
        self.held = [list(h) for h in s.held]
        self.saved = list(s.saved_neighbours)
        self.hands = [list(h) if h is not None else None for h in s.hands]
        self.hand_size = list(s.hand_size)
        self.stacks = [list(x) for x in s.stacks] if s.stacks is not None else None
        self.stack_size = list(s.stack_size)
        self.stack_faces = list(s.stack_faces) if s.stack_faces is not None else None
        self.neighbours_left = s.neighbours_left
        self.unchecked_passes = s.unchecked_passes
        self.unchecked_faces = s.unchecked_faces
        self.laws_declared = s.laws_declared
        self.effects: list[Effect] = []
        self.acquired: set[int] = set()
        self.ended: Termination | None = None
        self.passed = False

    # -- views -------------------------------------------------------------------------------
    def table_full(self, c: int) -> bool:
        return self.covered[c] >= self.s.tables[c].capacity

    def market_price(self) -> int:
        return MARKET_PRICE[self.market_laws[-1] if self.market_laws else 0]

    def supported(self, i: int) -> bool:
        below = BELOW[i]
        return below is None or (self.tile[below[0]] != NO_TILE and self.tile[below[1]] != NO_TILE)

    def same_face_neighbours(self, i: int, face: int) -> list[int]:
        return [j for j in ADJACENT[i] if self.tile[j] == face]

    def laws_in_play(self) -> dict[int, str]:
        """Face-up laws a law 8 can remove, with where they are (for messages)."""
        out: dict[int, str] = {}
        for n in self.market_laws:
            out[n] = "market"
        if self.law3:
            out[3] = "rules"
        for c, n in enumerate(self.table_law):
            if n:
                out[n] = f"table:{self.s.colours[c]}"
        for pi, h in enumerate(self.held):
            for n in h:
                out[n] = f"player:{self.s.players[pi]}"
        return out

    def freeze(self, **changes) -> CheopsState:
        s = self.s
        return replace(
            s,
            content=tuple(self.content),
            tile=tuple(self.tile),
            placer=tuple(self.placer),
            covered=tuple(self.covered),
            sold_for_nothing=tuple(self.sold_for_nothing),
            table_law=tuple(self.table_law),
            market_laws=tuple(self.market_laws),
            law3=self.law3,
            revealed=tuple(self.revealed),
            out_of_play=tuple(self.out_of_play),
            cash=tuple(self.cash),
            kept=tuple(tuple(k) for k in self.kept),
            held=tuple(tuple(sorted(h)) for h in self.held),
            saved_neighbours=tuple(self.saved),
            hands=tuple(tuple(h) if h is not None else None for h in self.hands),
            hand_size=tuple(self.hand_size),
            stacks=tuple(tuple(x) for x in self.stacks) if self.stacks is not None else None,
            stack_size=tuple(self.stack_size),  # type: ignore[arg-type]
            stack_faces=tuple(self.stack_faces) if self.stack_faces is not None else None,
            neighbours_left=self.neighbours_left,
            unchecked_passes=self.unchecked_passes,
            unchecked_faces=self.unchecked_faces,
            laws_declared=self.laws_declared,
            effects=tuple(self.effects),
            **changes,
        )


# -- placement helpers shared with the engine, explain and simulate ------------------------------

def placeable_spaces(tile: list[int] | tuple[int, ...], face: int, *, support: bool = True) -> list[int]:
    """Free spaces where a tile of ``face`` may go (support rule optional, same-face rule always)."""
    out = []
    for i in range(len(SPACES)):
        if tile[i] != NO_TILE:
            continue
        if support:
            below = BELOW[i]
            if below is not None and (tile[below[0]] == NO_TILE or tile[below[1]] == NO_TILE):
                continue
        if any(tile[j] == face for j in ADJACENT[i]):
            continue
        out.append(i)
    return out


def fits_somewhere(tile: list[int] | tuple[int, ...], face: int, *, support: bool = True) -> bool:
    """Like ``placeable_spaces`` but stops at the first space found."""
    for i in range(len(SPACES)):
        if tile[i] != NO_TILE:
            continue
        if support:
            below = BELOW[i]
            if below is not None and (tile[below[0]] == NO_TILE or tile[below[1]] == NO_TILE):
                continue
        for j in ADJACENT[i]:
            if tile[j] == face:
                break
        else:
            return True
    return False


def neighbour_spaces(tile: list[int] | tuple[int, ...], may_touch: bool) -> list[int]:
    out = []
    for i in range(len(SPACES)):
        if tile[i] != NO_TILE:
            continue
        below = BELOW[i]
        if below is not None and (tile[below[0]] == NO_TILE or tile[below[1]] == NO_TILE):
            continue
        if not may_touch and any(tile[j] == NEIGHBOUR_TILE for j in ADJACENT[i]):
            continue
        out.append(i)
    return out


def hand_faces(hand: list[int] | tuple[int, ...] | None) -> list[int]:
    return [f for f in range(len(FACES)) if hand is not None and hand[f] > 0]


def can_place_normally(tile, hand) -> bool:
    return any(fits_somewhere(tile, f) for f in hand_faces(hand))


# -- the turn ---------------------------------------------------------------------------------------

def violations(state: CheopsState, move: Turn) -> tuple[Violation, ...]:
    if not isinstance(move, Turn):
        return (_v("move.unknown", f"Unknown move {move!r}.", f"未知的行动 {move!r}。"),)
    try:
        resolve(state, move, check=True)
    except TurnError as err:
        return tuple(err.violations)
    return ()


def resolve(state: CheopsState, move: Turn, *, check: bool, partial: bool = False) -> Work:
    """Play ``move`` on a working copy; with ``check`` raise ``TurnError`` at the first broken rule.

    ``partial`` checks the steps of an unfinished turn (no shape or draw checks): used to
    enumerate moves and to read a turn that is still being played on the table.
    """
    if check and not partial:
        _fail(_turn_checks(state, move))
    elif check and state.finished is not None:
        _fail([_v("game.over", "The game is over.", "游戏已经结束。")])
    w = Work(state)
    for k, step in enumerate(move.steps):
        if w.ended is not None and not state.rules.end_after_turn:
            if check:
                _fail([_game_ended(w, move.steps[k:])])
            break
        if check:
            _fail(_check_step(w, step))
        _apply_step(w, step)
        if w.ended is None:
            w.ended = immediate_end(w)
            if w.ended is not None:
                w.effects.append(Effect("end_condition", _end_message(w.ended)))
    if w.ended is None or state.rules.end_after_turn:
        if check and not partial:
            if move.step_b is None:
                _fail([_no_step_b()])
            _fail(_check_draws(w, move))
        _apply_draws(w, move.draws)
    elif check and not partial:
        _fail(_check_draws(w, move))  # E9: draws in the turn that ended the game are checked, then ignored
    return w


def _fail(found: list[Violation]) -> None:
    if found:
        raise TurnError(found)


def _turn_checks(state: CheopsState, move: Turn) -> list[Violation]:
    if state.finished is not None:
        return [_v("game.over", "The game is over.", "游戏已经结束。")]
    p = state.player_index(move.player)
    en, zh = player_label(move.player)
    if p < 0:
        return [_v("turn.unknown_player", f"{en} is not playing at this table.", f"{zh}不在本局游戏中。")]
    if p != state.active:
        aen, azh = player_label(state.players[state.active])
        return [_v("turn.not_your_turn", f"It is {aen}'s turn, not {en}'s.", f"现在轮到{azh}，不是{zh}。",
                   fix=(f"{en}: take back what you placed and wait for your turn.", f"{zh}：请收回刚放的板块，等待你的回合。"))]
    steps = move.steps
    places = sum(isinstance(s, PlaceTile) for s in steps)
    law11s = sum(isinstance(s, UseLaw11) for s in steps)
    passes = sum(isinstance(s, Pass) for s in steps)
    neighbours = [i for i, s in enumerate(steps) if isinstance(s, BuyNeighbour)]
    if passes and (places or law11s):
        return [_v("turn.pass_with_placement", "A player who passes places no family tile.", "选择放弃的玩家不能放置家族成员。",
                   fix=("Either pass or place a tile, not both.", "要么放弃，要么放置板块，不能两者兼有。"))]
    if passes > 1:
        return [_v("turn.two_step_b", "A turn has one pass at most.", "一个回合最多只能放弃一次。")]
    if state.rules.law11_extra:
        too_many = places > 1 or law11s > 1
    else:
        too_many = places + law11s > 1
    if too_many:
        return [_v("turn.two_step_b",
                   "One family tile per turn (step B); a neighbour is the only extra placement." if not state.rules.law11_extra
                   else "One tile from the hand and at most one law-11 placement per turn.",
                   "每回合只能放置一个家族成员（步骤 B）；只有邻居可以额外放置。" if not state.rules.law11_extra
                   else "每回合只能从手中放置一个板块，外加最多一次 11 号律法放置。",
                   fix=("Take the extra tile back.", "收回多放的板块。"))]
    if len(neighbours) > 1:
        return [_v("turn.neighbour_twice", "At most one neighbour per turn.", "每回合最多购买一个邻居。",
                   fix=("Take the second neighbour back.", "收回第二个邻居。"))]
    if neighbours and neighbours[0] != 0:
        return [_v("turn.neighbour_first", "A neighbour is bought only at the start of the turn, before anything else.",
                   "邻居只能在回合开始时、在其他行动之前购买。")]
    if neighbours and passes and not (state.rules.save_neighbour and steps[0].save):  # type: ignore[union-attr]
        return [_v("turn.neighbour_needs_step_b",
                   "A neighbour may only be bought if the player can then place a family tile (step B) as well.",
                   "只有在随后还能放置家族成员（步骤 B）时才能购买邻居。",
                   fix=("Take the neighbour back.", "收回邻居。"))]
    return []


def _no_step_b() -> Violation:
    return _v("turn.no_step_b", "Every turn has a step B: place a family tile (or use law 11), or pass when no tile fits.",
              "每个回合都必须执行步骤 B：放置一个家族成员（或使用 11 号律法），无处可放时放弃。",
              fix=("Place a family tile from your hand.", "从手中放置一个家族成员。"))


def _game_ended(w: Work, rest) -> Violation:
    text = _end_message(w.ended)  # type: ignore[arg-type]
    return _v("game.ended_mid_turn",
              f"The game ended during this turn ({text.en}); nothing more happens.",
              f"游戏在本回合中已经结束（{text.zh}）；之后的行动无效。",
              fix=("Undo the actions after the end.", "撤销游戏结束之后的行动。"))


def _end_message(why: Termination) -> Message:
    return {
        Termination.PYRAMID_COMPLETE: Message("the pyramid is empty", "金字塔已被拿空"),
        Termination.PRICE_TABLES_FULL: Message("enough price tables are full", "已满的价格表数量达到结束条件"),
        Termination.BLOCKED: Message("no family tile can be placed any more", "再也无法放置家族成员"),
        Termination.NO_LEGAL_PLACEMENT: Message("a player could not place a family tile", "有玩家无法放置家族成员"),
        Termination.DECK_EXHAUSTED: Message("the family tiles are used up", "家族成员板块已经用完"),
    }[why]


def immediate_end(w: Work) -> Termination | None:
    """End conditions 1 and 2 (rules/cheops.md 7), checked after every step (C2)."""
    if all(c == EMPTY for c in w.content):
        return Termination.PYRAMID_COMPLETE
    full = sum(1 for c in range(len(w.covered)) if w.table_full(c))
    if full >= (3 if w.law3 else 2):
        return Termination.PRICE_TABLES_FULL
    return None


# -- steps ------------------------------------------------------------------------------------------

def _check_step(w: Work, step: Step) -> list[Violation]:
    if isinstance(step, PlaceTile):
        return _check_family(w, step.tile, step.space, step.take, law11=False)
    if isinstance(step, UseLaw11):
        return _check_family(w, step.tile, step.space, step.take, law11=True)
    if isinstance(step, BuyNeighbour):
        return _check_neighbour(w, step)
    if isinstance(step, Pass):
        return _check_pass(w)
    if isinstance(step, UseLaw10):
        return _check_law10(w, step)
    if isinstance(step, UseLaw12):
        return _check_law12(w, step)
    return [_v("move.unknown", f"Unknown step {step!r}.", f"未知的步骤 {step!r}。")]


def _apply_step(w: Work, step: Step) -> None:
    if isinstance(step, (PlaceTile, UseLaw11)):
        face = FACES.index(step.tile)
        i = SPACE_INDEX[step.space]
        hand = w.hands[w.p]
        if hand is not None:
            hand[face] -= 1
        else:
            w.unchecked_faces += 1
        w.hand_size[w.p] -= 1
        _cover(w, i, face)
        if isinstance(step, UseLaw11):
            _use_up(w, 11)
        _take(w, i, step.take)
    elif isinstance(step, BuyNeighbour):
        if step.save:
            w.cash[w.p] -= NEIGHBOUR_PRICE
            w.neighbours_left -= 1
            w.saved[w.p] += 1
            return
        if step.saved:
            w.saved[w.p] -= 1
        else:
            w.cash[w.p] -= NEIGHBOUR_PRICE
            w.neighbours_left -= 1
        i = SPACE_INDEX[step.space]  # type: ignore[index]
        _cover(w, i, NEIGHBOUR_TILE)
        _take(w, i, step.take)
    elif isinstance(step, Pass):
        w.passed = True
        if w.hands[w.p] is None and w.hand_size[w.p] > 0:
            w.unchecked_passes += 1
    elif isinstance(step, UseLaw10):
        c = w.s.board.colour_index[step.colour]
        w.kept[w.p][c] -= 1
        _sell(w, c)
        _use_up(w, 10)
    elif isinstance(step, UseLaw12):
        _swap(w, step.first, step.second)
        _use_up(w, 12)


def _cover(w: Work, i: int, tile: int) -> None:
    w.tile[i] = tile
    w.placer[i] = w.p


def _use_up(w: Work, n: int) -> None:
    w.held[w.p].remove(n)
    w.out_of_play.append(n)


def _space_checks(w: Work, space: str) -> tuple[int | None, list[Violation]]:
    i = SPACE_INDEX.get(space)
    if i is None:
        return None, [_v("space.unknown", f"{space} is not a pyramid space (r1c1 at the apex to r11c11).",
                         f"{space} 不是金字塔上的格子（从塔顶 r1c1 到 r11c11）。")]
    if w.tile[i] != NO_TILE:
        return i, [_v("space.covered", f"{space} is already covered by a tile.", f"{space} 已经被板块覆盖了。", (space,),
                      (f"Put the new tile on a free space, not {space}.", f"把新板块放到空格上，而不是 {space}。"))]
    return i, []


def _support_violation(i: int, what: tuple[str, str]) -> Violation:
    a, b = BELOW[i]  # type: ignore[misc]
    s = SPACES[i]
    return _v("place.support",
              f"{s} is in row {ROW_OF[i]}: a {what[0]} goes there only when both spaces below it ({SPACES[a]} and {SPACES[b]}) are covered.",
              f"{s} 位于第 {ROW_OF[i]} 行：只有下方的两个格子（{SPACES[a]} 和 {SPACES[b]}）都被覆盖后，才能在这里放置{what[1]}。",
              (s,),
              (f"Take the {what[0]} off {s}; build from the bottom row up.", f"从 {s} 拿走{what[1]}；金字塔要从最底层往上建。"))


def _check_family(w: Work, face_id: str, space: str, take: Take, *, law11: bool) -> list[Violation]:
    s = w.s
    if face_id not in FACES:
        return [_v("place.unknown_tile", f"Unknown family tile {face_id!r} (A, B, C or D).", f"未知的家族成员 {face_id!r}（A、B、C 或 D）。")]
    fen, fzh = face_label(face_id)
    face = FACES.index(face_id)
    if law11:
        if 11 not in w.held[w.p]:
            return [_v("law11.not_held", "Law 11 is not in this player's hand.", "该玩家手中没有 11 号律法。", (space,),
                       ("Place the tile by the normal rules instead.", "请按普通规则放置板块。"))]
        if 11 in w.acquired:
            return [_v("law.same_turn", "A law kept this turn can be used only on a later turn.", "本回合得到的律法只能在以后的回合使用。", (space,))]
    if w.hand_size[w.p] <= 0:
        return [_v("place.hand_empty", "This player has no family tile in hand.", "该玩家手中没有家族成员板块。", (space,),
                   ("Take the tile back; a player with no tile passes.", "收回板块；手中没有板块的玩家只能放弃。"))]
    hand = w.hands[w.p]
    if hand is not None and hand[face] <= 0:
        have = ", ".join(FACES[f] for f in range(len(FACES)) for _ in range(hand[f])) or "none"
        return [_v("place.tile_not_in_hand", f"{fen} is not in this player's hand (hand: {have}).",
                   f"该玩家手中没有{fzh}（手牌：{have}）。", (space,),
                   ("Take it back and place a tile from your own hand.", "收回它，放置你自己手中的板块。"))]
    i, out = _space_checks(w, space)
    if out:
        return out
    assert i is not None
    if (not law11 or s.rules.law11_support) and not w.supported(i):
        return [_support_violation(i, (fen, fzh))]
    clash = w.same_face_neighbours(i, face)
    if clash:
        names = ", ".join(SPACES[j] for j in clash)
        return [_v("place.same_face",
                   f"{fen} on {space} would touch the identical tile on {names}; identical family members are never adjacent.",
                   f"{space} 上的{fzh}会与 {names} 上相同的家族成员相邻；相同的家族成员不能相邻。",
                   (space, *(SPACES[j] for j in clash)),
                   (f"Take {fen} off {space} and place it where no identical tile touches it, or place another face.",
                    f"从 {space} 拿走{fzh}，放到不与相同板块相邻的位置，或者换一个家族成员。"))]
    # a law-11 placement uses law 11 up before the tile's take resolves: law 8 cannot remove it then
    return _check_take(w, i, take, used=11 if law11 else None)


def _check_neighbour(w: Work, step: BuyNeighbour) -> list[Violation]:
    rules = w.s.rules
    if (step.save or step.saved) and not rules.save_neighbour:
        return [_v("neighbour.no_saving", "A bought neighbour must be used at once (variant save_neighbour is off).",
                   "购买的邻居必须立即使用（未启用保留邻居的变体规则）。")]
    if step.save and step.saved:
        return [_v("neighbour.shape", "A neighbour step either saves a new neighbour or places a saved one.", "邻居步骤要么保留新买的邻居，要么放置已保留的邻居。")]
    if step.saved:
        if w.saved[w.p] <= 0:
            return [_v("neighbour.none_saved", "This player has no saved neighbour.", "该玩家没有保留的邻居。")]
    else:
        if w.neighbours_left <= 0:
            return [_v("neighbour.none_left", "No neighbour tile is left to buy.", "已经没有邻居可以购买了。",
                       fix=("Take the neighbour back.", "收回邻居。"))]
        if w.cash[w.p] < NEIGHBOUR_PRICE:
            return [_v("neighbour.cash", f"A neighbour costs {NEIGHBOUR_PRICE} piasters; this player has {w.cash[w.p]}.",
                       f"邻居价格为 {NEIGHBOUR_PRICE} 皮阿斯特；该玩家只有 {w.cash[w.p]}。",
                       fix=("Take the neighbour back.", "收回邻居。"))]
    if step.save:
        if step.space is not None or step.take != Take():
            return [_v("neighbour.shape", "A saved neighbour is not placed this turn: give no space.", "保留的邻居本回合不放置：不要指定格子。")]
        return []
    if step.space is None:
        return [_v("neighbour.space_missing", "Say where the neighbour was placed.", "请说明邻居放在哪里。")]
    i, out = _space_checks(w, step.space)
    if out:
        return out
    assert i is not None
    if not w.supported(i):
        return [_support_violation(i, ("neighbour", "邻居"))]
    if not rules.neighbours_may_touch:
        touching = [j for j in ADJACENT[i] if w.tile[j] == NEIGHBOUR_TILE]
        if touching:
            names = ", ".join(SPACES[j] for j in touching)
            return [_v("neighbour.adjacent", f"A neighbour on {step.space} would touch the neighbour on {names}; two neighbours are never adjacent.",
                       f"{step.space} 上的邻居会与 {names} 上的邻居相邻；两个邻居不能相邻。",
                       (step.space, *(SPACES[j] for j in touching)),
                       (f"Move the neighbour off {step.space} to a space that touches no other neighbour.",
                        f"把邻居从 {step.space} 移到不与其他邻居相邻的格子。"))]
    # The neighbour is paid when it is bought, before what lies under it is taken: a law 9 found
    # there is paid from what is left (reading E16).
    return _check_take(w, i, step.take, spent=0 if step.saved else NEIGHBOUR_PRICE)


def _check_pass(w: Work) -> list[Violation]:
    hand = w.hands[w.p]
    if hand is None:
        return []
    for f in hand_faces(hand):
        spaces = placeable_spaces(w.tile, f)
        if spaces:
            fen, fzh = face_label(FACES[f])
            return [_v("pass.could_place",
                       f"A player passes only when no tile in hand fits; {fen} can go on {SPACES[spaces[0]]}.",
                       f"只有手中没有任何板块可放时才能放弃；{fzh}可以放在 {SPACES[spaces[0]]}。",
                       (SPACES[spaces[0]],),
                       ("Place a family tile instead of passing.", "请放置一个家族成员，而不是放弃。"))]
    return []


def _check_take(w: Work, i: int, take: Take, spent: int = 0, used: int | None = None) -> list[Violation]:
    """A step is checked before it is applied, so ``w`` does not yet show what the same step does
    before its take resolves: ``spent`` is the money it pays (a neighbour's price), ``used`` the
    kept law it uses up (law 11)."""
    s = w.s
    space = SPACES[i]
    code = w.content[i]
    law_fields = take.law is not None or take.discard or take.table is not None or take.remove is not None or take.remove_space is not None
    if code == EMPTY:
        if law_fields or take.sell is not None:
            return [_v("take.nothing_there", f"Nothing lies on {space} any more, so there is nothing to sell, keep or use.",
                       f"{space} 上已经没有东西了，无从出售、保留或使用。", (space,))]
        return []
    if is_treasure(code):
        colour = s.colours[code]
        cen, czh = colour, s.board.colour_zh.get(colour, colour)
        if law_fields:
            return [_v("take.treasure_not_law", f"{space} held a {cen} treasure, not a law.", f"{space} 上是{czh}色宝藏，不是律法。", (space,))]
        if take.sell is None:
            return [_v("treasure.decision_missing", f"Say whether the {cen} treasure from {space} is sold or kept.",
                       f"请说明 {space} 的{czh}色宝藏是出售还是保留。", (space,))]
        law = w.table_law[code]
        full = w.table_full(code)
        if law == 5 and take.sell:
            return [_v("treasure.must_keep", f"Law 5 lies under the {cen} price table: {cen} treasures must be kept.",
                       f"{czh}色价格表下有 5 号律法：{czh}色宝藏必须保留。", (space, f"price-{colour}"),
                       (f"Take the treasure back from the {cen} table and keep it.", f"把宝藏从{czh}色价格表上拿回来并保留。"))]
        if law == 4 and not (full and s.rules.law4_full_keep):
            if not take.sell:
                return [_v("treasure.must_sell", f"Law 4 lies under the {cen} price table: {cen} treasures must be sold.",
                           f"{czh}色价格表下有 4 号律法：{czh}色宝藏必须出售。", (space, f"price-{colour}"),
                           (f"Sell the {cen} treasure.", f"出售这个{czh}色宝藏。"))]
            return []
        if full and take.sell:
            return [_v("treasure.table_full", f"The {cen} price table is full (only its bottom number is open): {cen} treasures can no longer be sold.",
                       f"{czh}色价格表已满（只剩最下面的数字）：{czh}色宝藏不能再出售。", (space, f"price-{colour}"),
                       (f"Keep the {cen} treasure instead.", f"请保留这个{czh}色宝藏。"))]
        return []
    # a law
    if take.sell is not None:
        return [_v("take.law_not_treasure", f"{space} held a law, not a treasure: there is nothing to sell or keep.",
                   f"{space} 上是律法，不是宝藏：无从出售或保留。", (space,))]
    if code == LAW_HIDDEN:
        if take.law is None:
            return [_v("law.undeclared", f"Say which law was under the tile on {space} (its number, 1-12).",
                       f"请说明 {space} 上翻开的是几号律法（1-12）。", (space,))]
        if take.law in w.revealed or take.law in w.out_of_play or any(c == law_code(take.law) for c in w.content):
            return [_v("law.already_revealed", f"Law {take.law} was already taken earlier; each law tile exists once.",
                       f"{take.law} 号律法之前已经被拿走了；每个律法只有一块。", (space,))]
        n = take.law
    else:
        n = code - LAW_BASE
        if take.law is not None and take.law != n:
            return [_v("law.mismatch", f"The law on {space} is law {n}, not law {take.law}.", f"{space} 上的是 {n} 号律法，不是 {take.law} 号。", (space,))]
    return _check_law_use(w, n, take, space, spent, used)


def _check_law_use(w: Work, n: int, take: Take, space: str, spent: int = 0, used: int | None = None) -> list[Violation]:
    s = w.s
    len_, lzh = law_text(n)
    extra = [f for f, v in (("table", take.table), ("remove", take.remove), ("remove_space", take.remove_space)) if v is not None]
    allowed = {4: ["table"], 5: ["table"], 6: ["table"], 7: ["table"], 8: ["remove", "remove_space"]}.get(n, [])
    if take.discard:
        allowed = []
    wrong = [f for f in extra if f not in allowed]
    if wrong:
        names = " / ".join(wrong)
        if take.discard:
            return [_v("law.resolution_invalid", f"{len_.capitalize()} is discarded, so give no {names}.",
                       f"{lzh}被弃掉了，不需要指定 {names}。", (space,))]
        return [_v("law.resolution_invalid", f"{len_.capitalize()} takes no {names} choice.",
                   f"{lzh}不需要指定 {names}。", (space,))]
    if take.discard:
        return []
    if n in (4, 5, 6, 7):
        if take.table is None:
            return [_v("law.table_missing", f"Say under which price table {len_} is attached (or discard it).",
                       f"请说明{lzh}放在哪个价格表下（或弃掉它）。", (space,))]
        c = s.board.colour_index.get(take.table)
        if c is None:
            return [_v("law.table_unknown", f"There is no {take.table} price table.", f"没有 {take.table} 价格表。", (space,))]
        if w.table_law[c]:
            cen, czh = take.table, s.board.colour_zh.get(take.table, take.table)
            return [_v("law.table_taken", f"The {cen} price table already carries law {w.table_law[c]}; a table carries only one law.",
                       f"{czh}色价格表下已经有 {w.table_law[c]} 号律法；每个价格表只能放一个律法。",
                       (space, f"price-{take.table}-law"),
                       ("Attach it to a table without a law, or discard it.", "把它放到没有律法的价格表下，或者弃掉。"))]
    elif n == 8:
        if (take.remove is None) == (take.remove_space is None):
            return [_v("law.remove_missing", "Law 8 removes one law: name it (or discard law 8).", "8 号律法移除一个律法：请指明是哪一个（或弃掉 8 号律法）。", (space,))]
        if take.remove is not None:
            if take.remove == used:
                ren, rzh = law_text(used)
                return [_v("law.remove_not_in_play",
                           f"{ren.capitalize()} was used up by this very placement and is already out of play; law 8 cannot remove it.",
                           f"{rzh}在这次放置中已经用掉、不在场上了；8 号律法不能移除它。", (space,),
                           ("Let law 8 remove another law in play, or discard law 8.", "让 8 号律法移除场上的其他律法，或弃掉 8 号律法。"))]
            if take.remove not in w.laws_in_play():
                return [_v("law.remove_not_in_play", f"Law {take.remove} is not in play (not in force, under a table or in a hand).",
                           f"{take.remove} 号律法不在场上（未生效、不在价格表下、也不在玩家手中）。", (space,))]
        else:
            if s.rules.law8_face_up_only:
                return [_v("law.remove_space_variant",
                           "With variant law8_face_up_only, law 8 removes only a face-up law (in force, under a table or in a hand), "
                           "not a face-down law on the pyramid.",
                           "启用 law8_face_up_only 变体规则时，8 号律法只能移除正面朝上的律法（已生效、在价格表下或在玩家手中），"
                           "不能移除金字塔上背面朝上的律法。", (space,),
                           ("Name a face-up law, or discard law 8.", "请指明一个正面朝上的律法，或弃掉 8 号律法。"))]
            if take.remove_space == space:  # not covered yet while checked, but that is law 8 itself
                return [_v("law.remove_not_in_play",
                           f"Law 8 itself lay on {space}; it removes another face-down law on the pyramid.",
                           f"8 号律法本身就在 {space} 上；它只能移除金字塔上另一个背面朝上的律法。", (space,),
                           ("Name another face-down law on the pyramid, or discard law 8.", "请指明金字塔上另一个背面朝上的律法，或弃掉 8 号律法。"))]
            j = SPACE_INDEX.get(take.remove_space)  # type: ignore[arg-type]
            if j is None or w.tile[j] != NO_TILE or not is_law(w.content[j]):
                return [_v("law.remove_not_in_play", f"No face-down law lies on {take.remove_space}.", f"{take.remove_space} 上没有背面朝上的律法。", (space,))]
    elif n == 9:
        cash = w.cash[w.p] - spent
        if cash < LAW9_PRICE:
            if spent:
                return [_v("law.cannot_pay",
                           f"Law 9 costs {LAW9_PRICE} piasters; after paying {spent} for the neighbour this player has {cash} left "
                           f"(of {w.cash[w.p]}): it must be discarded.",
                           f"9 号律法需要支付 {LAW9_PRICE} 皮阿斯特；该玩家支付邻居的 {spent} 之后只剩 {cash}（原有 {w.cash[w.p]}）：只能弃掉。",
                           (space,),
                           ("Discard law 9 (or take the neighbour back).", "弃掉 9 号律法（或收回邻居）。"))]
            return [_v("law.cannot_pay", f"Law 9 costs {LAW9_PRICE} piasters; this player has {w.cash[w.p]}: it must be discarded.",
                       f"9 号律法需要支付 {LAW9_PRICE} 皮阿斯特；该玩家只有 {w.cash[w.p]}：只能弃掉。", (space,),
                       ("Discard law 9.", "弃掉 9 号律法。"))]
    return []


def _take(w: Work, i: int, take: Take) -> None:
    code = w.content[i]
    if code == EMPTY:
        return
    w.content[i] = EMPTY
    if is_treasure(code):
        if take.sell:
            _sell(w, code)
        else:
            w.kept[w.p][code] += 1
        return
    if code == LAW_HIDDEN:
        n = take.law
        w.laws_declared += 1
    else:
        n = code - LAW_BASE
    assert n is not None
    w.revealed.append(n)
    if take.discard:
        w.out_of_play.append(n)
        return
    s = w.s
    if n in (1, 2):
        if w.market_laws and not s.rules.market_laws_stack:
            w.out_of_play.extend(w.market_laws)
            w.market_laws.clear()
        w.market_laws.append(n)
        w.effects.append(Effect("market_price", Message(f"Law {n}: the market price is now {w.market_price()}.",
                                                        f"{n} 号律法：市场价格现在是 {w.market_price()}。")))
    elif n == 3:
        w.law3 = True
        w.effects.append(Effect("law3", Message("Law 3: the game ends only when 3 price tables are full.", "3 号律法：三个价格表满了游戏才结束。")))
    elif n in (4, 5, 6, 7):
        w.table_law[s.board.colour_index[take.table]] = n  # type: ignore[index]
    elif n == 8:
        if take.remove is not None:
            _remove_law(w, take.remove)
        else:
            j = SPACE_INDEX[take.remove_space]  # type: ignore[index]
            code_j = w.content[j]
            w.content[j] = EMPTY
            if code_j != LAW_HIDDEN:
                w.out_of_play.append(code_j - LAW_BASE)
        w.out_of_play.append(8)
    elif n == 9:
        w.cash[w.p] -= LAW9_PRICE
        w.held[w.p].append(9)
    else:
        w.held[w.p].append(n)
        w.acquired.add(n)


def _remove_law(w: Work, n: int) -> None:
    if n in w.market_laws:
        w.market_laws.remove(n)
    if n == 3 and w.law3:
        w.law3 = False
    for c, law in enumerate(w.table_law):
        if law == n:
            w.table_law[c] = 0
    for h in w.held:
        if n in h:
            h.remove(n)
    w.out_of_play.append(n)


def _sell(w: Work, c: int) -> None:
    s = w.s
    if w.table_full(c):  # law 4 on a full table (C13): sold for nothing, the scarab leaves the game
        w.sold_for_nothing[c] += 1
        return
    w.cash[w.p] += w.market_price()
    w.covered[c] += 1
    if w.table_full(c):
        colour = s.colours[c]
        w.effects.append(Effect("table_full", Message(f"The {colour} price table is full.", f"{s.board.colour_zh.get(colour, colour)}色价格表已满。")))


def _check_law10(w: Work, step: UseLaw10) -> list[Violation]:
    s = w.s
    if 10 not in w.held[w.p]:
        return [_v("law10.not_held", "Law 10 is not in this player's hand.", "该玩家手中没有 10 号律法。")]
    if 10 in w.acquired:
        return [_v("law.same_turn", "A law kept this turn can be used only on a later turn.", "本回合得到的律法只能在以后的回合使用。")]
    c = s.board.colour_index.get(step.colour)
    if c is None:
        return [_v("law10.colour_unknown", f"There are no {step.colour} treasures.", f"没有 {step.colour} 宝藏。")]
    czh = s.board.colour_zh.get(step.colour, step.colour)
    if w.kept[w.p][c] <= 0:
        return [_v("law10.no_kept", f"This player keeps no {step.colour} treasure to sell.", f"该玩家没有保留的{czh}色宝藏可以出售。")]
    if w.table_full(c):
        return [_v("law10.table_full", f"The {step.colour} price table is full: {step.colour} cannot be sold.", f"{czh}色价格表已满：不能出售。",
                   (f"price-{step.colour}",))]
    if w.table_law[c] == 5:
        return [_v("law10.forbidden", f"Law 5 under the {step.colour} table forbids selling {step.colour} treasures.",
                   f"{czh}色价格表下的 5 号律法禁止出售{czh}色宝藏。", (f"price-{step.colour}",))]
    return []


def _swap_ref(w: Work, ref: str) -> tuple[str, int] | Violation:
    s = w.s
    if ref.startswith(KEPT_PREFIX):
        colour = ref[len(KEPT_PREFIX):]
        c = s.board.colour_index.get(colour)
        if c is None or w.kept[w.p][c] <= 0:
            return _v("law12.no_kept", f"This player keeps no {colour} treasure to swap.", f"该玩家没有保留的 {colour} 宝藏可以交换。")
        return "kept", c
    i = SPACE_INDEX.get(ref)
    if i is None:
        return _v("space.unknown", f"{ref} is not a pyramid space.", f"{ref} 不是金字塔上的格子。")
    code = w.content[i]
    if w.tile[i] != NO_TILE or code == EMPTY:
        return _v("law12.not_treasure", f"No treasure lies open on {ref}.", f"{ref} 上没有露出的宝藏。", (ref,))
    if is_law(code) and not s.rules.law12_laws:
        return _v("law12.not_treasure", f"{ref} holds a law; law 12 swaps treasures only.", f"{ref} 上是律法；12 号律法只能交换宝藏。", (ref,))
    return "space", i


def _check_law12(w: Work, step: UseLaw12) -> list[Violation]:
    if 12 not in w.held[w.p]:
        return [_v("law12.not_held", "Law 12 is not in this player's hand.", "该玩家手中没有 12 号律法。")]
    if 12 in w.acquired:
        return [_v("law.same_turn", "A law kept this turn can be used only on a later turn.", "本回合得到的律法只能在以后的回合使用。")]
    if step.first == step.second:
        return [_v("law12.same", "Law 12 swaps two different treasures.", "12 号律法交换两个不同的宝藏。")]
    refs = []
    for ref in (step.first, step.second):
        r = _swap_ref(w, ref)
        if isinstance(r, Violation):
            return [r]
        refs.append(r)
    if refs[0][0] == "kept" and refs[1][0] == "kept":
        return [_v("law12.two_kept", "At least one of the swapped treasures must lie on the pyramid.", "交换的宝藏中至少有一个必须在金字塔上。")]
    kinds = [r for r in refs if r[0] == "space"]
    if len(kinds) == 1 and is_law(w.content[kinds[0][1]]):
        return [_v("law12.not_treasure", "A law on the pyramid can only be swapped with another pyramid space.",
                   "金字塔上的律法只能与金字塔上的另一个格子交换。", (SPACES[kinds[0][1]],))]
    return []


def _swap(w: Work, a: str, b: str) -> None:
    refs = [_swap_ref(w, a), _swap_ref(w, b)]
    (ka, xa), (kb, xb) = refs  # type: ignore[misc]
    if ka == "space" and kb == "space":
        w.content[xa], w.content[xb] = w.content[xb], w.content[xa]
        return
    if ka == "kept":
        (ka, xa), (kb, xb) = (kb, xb), (ka, xa)
    # xa: pyramid space, xb: kept colour
    got = w.content[xa]
    w.content[xa] = xb
    w.kept[w.p][xb] -= 1
    w.kept[w.p][got] += 1


# -- draws --------------------------------------------------------------------------------------------

def _check_draws(w: Work, move: Turn) -> list[Violation]:
    if not move.draws:
        return []
    placed_from_hand = any(isinstance(s, (PlaceTile, UseLaw11)) for s in move.steps)
    if not placed_from_hand:
        return [_v("draw.after_pass", "A player who passed does not draw.", "放弃的玩家不能补板块。",
                   fix=("Put the drawn tile back on its stack.", "把补的板块放回原来的牌堆。"))]
    room = HAND_SIZE - w.hand_size[w.p]
    if len(move.draws) > room:
        return [_v("draw.too_many", f"The hand is refilled to {HAND_SIZE}: {room} tile(s) may be drawn, not {len(move.draws)}.",
                   f"手牌补到 {HAND_SIZE} 张：只能补 {room} 块，而不是 {len(move.draws)} 块。",
                   fix=("Put the extra tile back on its stack.", "把多补的板块放回牌堆。"))]
    sizes = list(w.stack_size)
    stacks = [list(x) for x in w.stacks] if w.stacks is not None else None
    faces = list(w.stack_faces) if w.stack_faces is not None else None
    for k, d in enumerate(move.draws):
        if d.stack not in (0, 1, 2):
            return [_v("draw.stack_unknown", f"There are 3 stacks (0, 1, 2), not {d.stack}.", f"只有 3 个牌堆（0、1、2），没有 {d.stack}。")]
        if sizes[d.stack] <= 0:
            return [_v("draw.stack_empty", f"Stack {d.stack} is empty.", f"第 {d.stack} 堆已经空了。",
                       fix=("Draw from another stack.", "从其他牌堆补。"))]
        if d.tile is not None and d.tile not in FACES:
            return [_v("place.unknown_tile", f"Unknown family tile {d.tile!r}.", f"未知的家族成员 {d.tile!r}。")]
        if stacks is not None:
            top = FACES[stacks[d.stack][-1]]
            if d.tile is not None and d.tile != top:
                return [_v("draw.tile_mismatch", f"The top tile of stack {d.stack} is {top}, not {d.tile}.",
                           f"第 {d.stack} 堆最上面的是 {top}，不是 {d.tile}。")]
            stacks[d.stack].pop()
        elif faces is not None and d.tile is not None:
            f = FACES.index(d.tile)
            if faces[f] <= 0:
                return [_v("draw.tile_exhausted", f"No {d.tile} tile is left in the stacks.", f"牌堆里已经没有 {d.tile} 了。")]
            faces[f] -= 1
        sizes[d.stack] -= 1
    return []


def _apply_draws(w: Work, draws: tuple[Draw, ...]) -> None:
    p = w.p
    for d in draws:
        w.stack_size[d.stack] -= 1
        w.hand_size[p] += 1
        face: int | None
        if w.stacks is not None:
            face = w.stacks[d.stack].pop()
        else:
            face = FACES.index(d.tile) if d.tile is not None else None
        if face is None:
            w.hands[p] = None
            w.stack_faces = None
        else:
            if w.hands[p] is not None:
                w.hands[p][face] += 1  # type: ignore[index]
            if w.stack_faces is not None:
                w.stack_faces[face] -= 1
