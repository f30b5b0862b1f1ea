"""What a Cheops placement takes, and the laws a player uses: the treasure sold or kept, a law taken,
kept, paid for or attached under a price table, a treasure sold (``_sell``), laws 10 and 12 (sell a
kept treasure, swap two) -- checked against the working copy, then applied to it."""

from __future__ import annotations

from scorer.core.types import Message, Violation
from scorer.games.cheops.data import SPACE_INDEX, SPACES
from scorer.games.cheops.moves import KEPT_PREFIX, Take, UseLaw10, UseLaw12
from scorer.games.cheops.state import (
    EMPTY,
    LAW9_PRICE,
    LAW_BASE,
    LAW_HIDDEN,
    NO_TILE,
    Effect,
    is_law,
    is_treasure,
    law_code,
)
from scorer.games.cheops.work import Work, _v


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
            return [_v("take.nothing_there", Message.t('cheops.take.nothing_there', space=space), (space,))]
        return []
    if is_treasure(code):
        colour = s.colours[code]
        name = s.board.colour_name(colour)
        if law_fields:
            return [_v("take.treasure_not_law", Message.t('cheops.take.treasure_not_law', space=space, c=name), (space,))]
        if take.sell is None:
            return [_v("treasure.decision_missing", Message.t('cheops.treasure.decision_missing', c=name, space=space), (space,))]
        law = w.table_law[code]
        full = w.table_full(code)
        if law == 5 and take.sell:
            return [_v("treasure.must_keep", Message.t('cheops.treasure.must_keep', c=name), (space, f"price-{colour}"),
                       Message.t('cheops.treasure.must_keep.fix', c=name))]
        if law == 4 and not (full and s.rules.law4_full_keep):
            if not take.sell:
                return [_v("treasure.must_sell", Message.t('cheops.treasure.must_sell', c=name), (space, f"price-{colour}"),
                           Message.t('cheops.treasure.must_sell.fix', c=name))]
            return []
        if full and take.sell:
            return [_v("treasure.table_full", Message.t('cheops.treasure.table_full', c=name), (space, f"price-{colour}"),
                       Message.t('cheops.treasure.table_full.fix', c=name))]
        return []
    # a law
    if take.sell is not None:
        return [_v("take.law_not_treasure", Message.t('cheops.take.law_not_treasure', space=space), (space,))]
    if code == LAW_HIDDEN:
        if take.law is None:
            return [_v("law.undeclared", Message.t('cheops.law.undeclared', space=space), (space,))]
        if take.law in w.revealed or take.law in w.out_of_play or any(c == law_code(take.law) for c in w.content):
            return [_v("law.already_revealed", Message.t('cheops.law.already_revealed', law=take.law), (space,))]
        n = take.law
    else:
        n = code - LAW_BASE
        if take.law is not None and take.law != n:
            return [_v("law.mismatch", Message.t('cheops.law.mismatch', space=space, n=n, law=take.law), (space,))]
    return _check_law_use(w, n, take, space, spent, used)


def _check_law_use(w: Work, n: int, take: Take, space: str, spent: int = 0, used: int | None = None) -> list[Violation]:
    s = w.s
    extra = [f for f, v in (("table", take.table), ("remove", take.remove), ("remove_space", take.remove_space)) if v is not None]
    allowed = {4: ["table"], 5: ["table"], 6: ["table"], 7: ["table"], 8: ["remove", "remove_space"]}.get(n, [])
    if take.discard:
        allowed = []
    wrong = [f for f in extra if f not in allowed]
    if wrong:
        names = " / ".join(wrong)
        if take.discard:
            return [_v("law.resolution_invalid", Message.t('cheops.law.resolution_invalid.discarded', n=n, names=names), (space,))]
        return [_v("law.resolution_invalid", Message.t('cheops.law.resolution_invalid', n=n, names=names), (space,))]
    if take.discard:
        return []
    if n in (4, 5, 6, 7):
        if take.table is None:
            return [_v("law.table_missing", Message.t('cheops.law.table_missing', n=n), (space,))]
        c = s.board.colour_index.get(take.table)
        if c is None:
            return [_v("law.table_unknown", Message.t('cheops.law.table_unknown', table=take.table), (space,))]
        if w.table_law[c]:
            return [_v("law.table_taken", Message.t('cheops.law.table_taken', c=s.board.colour_name(take.table), c2=w.table_law[c]),
                       (space, f"price-{take.table}-law"),
                       Message.t('cheops.law.table_taken.fix'))]
    elif n == 8:
        if (take.remove is None) == (take.remove_space is None):
            return [_v("law.remove_missing", Message.t('cheops.law.remove_missing'), (space,))]
        if take.remove is not None:
            if take.remove == used:
                return [_v("law.remove_not_in_play", Message.t('cheops.law.remove_not_in_play.used', n=used), (space,),
                           Message.t('cheops.law.remove_not_in_play.used.fix'))]
            if take.remove not in w.laws_in_play():
                return [_v("law.remove_not_in_play", Message.t('cheops.law.remove_not_in_play', remove=take.remove), (space,))]
        else:
            if s.rules.law8_face_up_only:
                return [_v("law.remove_space_variant",
                           Message.t('cheops.law.remove_space_variant'), (space,),
                           Message.t('cheops.law.remove_space_variant.fix'))]
            if take.remove_space == space:  # not covered yet while checked, but that is law 8 itself
                return [_v("law.remove_not_in_play",
                           Message.t('cheops.law.remove_not_in_play.2', space=space), (space,),
                           Message.t('cheops.law.remove_not_in_play.2.fix'))]
            j = SPACE_INDEX.get(take.remove_space)  # type: ignore[arg-type]
            if j is None or w.tile[j] != NO_TILE or not is_law(w.content[j]):
                return [_v("law.remove_not_in_play", Message.t('cheops.law.remove_not_in_play.3', remove_space=take.remove_space), (space,))]
    elif n == 9:
        cash = w.cash[w.p] - spent
        if cash < LAW9_PRICE:
            if spent:
                return [_v("law.cannot_pay",
                           Message.t('cheops.law.cannot_pay.2', LAW9_PRICE=LAW9_PRICE, spent=spent, cash=cash, p=w.cash[w.p]),
                           (space,),
                           Message.t('cheops.law.cannot_pay.2.fix'))]
            return [_v("law.cannot_pay", Message.t('cheops.law.cannot_pay', LAW9_PRICE=LAW9_PRICE, p=w.cash[w.p]), (space,),
                       Message.t('cheops.law.cannot_pay.fix'))]
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
        w.effects.append(Effect("market_price", Message.t('cheops.rules.law_the_market_price_is', n=n, market_price=w.market_price())))
    elif n == 3:
        w.law3 = True
        w.effects.append(Effect("law3", Message.t('cheops.rules.law_3_the_game_ends')))
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
        w.effects.append(Effect("table_full", Message.t('cheops.effect.table_full', colour=s.board.colour_label(colour))))


def _check_law10(w: Work, step: UseLaw10) -> list[Violation]:
    s = w.s
    if 10 not in w.held[w.p]:
        return [_v("law10.not_held", Message.t('cheops.law10.not_held'))]
    if 10 in w.acquired:
        return [_v("law.same_turn", Message.t('cheops.law.same_turn'))]
    c = s.board.colour_index.get(step.colour)
    if c is None:
        return [_v("law10.colour_unknown", Message.t('cheops.law10.colour_unknown', colour=step.colour))]
    colour = s.board.colour_label(step.colour)
    if w.kept[w.p][c] <= 0:
        return [_v("law10.no_kept", Message.t('cheops.law10.no_kept', colour=colour))]
    if w.table_full(c):
        return [_v("law10.table_full", Message.t('cheops.law10.table_full', colour=colour), (f"price-{step.colour}",))]
    if w.table_law[c] == 5:
        return [_v("law10.forbidden", Message.t('cheops.law10.forbidden', colour=colour), (f"price-{step.colour}",))]
    return []


def _swap_ref(w: Work, ref: str) -> tuple[str, int] | Violation:
    s = w.s
    if ref.startswith(KEPT_PREFIX):
        colour = ref[len(KEPT_PREFIX):]
        c = s.board.colour_index.get(colour)
        if c is None or w.kept[w.p][c] <= 0:
            return _v("law12.no_kept", Message.t('cheops.law12.no_kept', colour=colour))
        return "kept", c
    i = SPACE_INDEX.get(ref)
    if i is None:
        return _v("space.unknown", Message.t('cheops.space.unknown', ref=ref))
    code = w.content[i]
    if w.tile[i] != NO_TILE or code == EMPTY:
        return _v("law12.not_treasure", Message.t('cheops.law12.not_treasure', ref=ref), (ref,))
    if is_law(code) and not s.rules.law12_laws:
        return _v("law12.not_treasure", Message.t('cheops.law12.not_treasure.2', ref=ref), (ref,))
    return "space", i


def _check_law12(w: Work, step: UseLaw12) -> list[Violation]:
    if 12 not in w.held[w.p]:
        return [_v("law12.not_held", Message.t('cheops.law12.not_held'))]
    if 12 in w.acquired:
        return [_v("law.same_turn", Message.t('cheops.law.same_turn'))]
    if step.first == step.second:
        return [_v("law12.same", Message.t('cheops.law12.same'))]
    refs = []
    for ref in (step.first, step.second):
        r = _swap_ref(w, ref)
        if isinstance(r, Violation):
            return [r]
        refs.append(r)
    if refs[0][0] == "kept" and refs[1][0] == "kept":
        return [_v("law12.two_kept", Message.t('cheops.law12.two_kept'))]
    kinds = [r for r in refs if r[0] == "space"]
    if len(kinds) == 1 and is_law(w.content[kinds[0][1]]):
        return [_v("law12.not_treasure", Message.t('cheops.law12.not_treasure.3'), (SPACES[kinds[0][1]],))]
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
