"""The names every game shares (colours, a player's label, "or" lists) come from the catalogues, and
every catalogue key the code builds from an id (a colour, a Zhang Yi state or talent, a Ming phase
or kind of move) has its text in every language."""

from __future__ import annotations

import pytest

from scorer.core import i18n
from scorer.core.types import Colour, Message, or_list, player_label
from scorer.games.china import rules as china_rules
from scorer.games.china.board import CARD_COLOURS
from scorer.games.china.moves import EMISSARY, FORTRESS, HOUSE
from scorer.games.great_wall.data import KINDS, kind_label
from scorer.games.ming import rules as ming_rules
from scorer.games.ming.moves import FAMILY, PRINCE, TYPE_NAMES
from scorer.games.zhang_yi.data import STATE_ZH, STATES, TALENT_IDS, TALENT_NAMES, state_label, talent_label


@pytest.fixture(autouse=True)
def _fresh_caches():
    i18n.reset_caches()
    yield
    i18n.reset_caches()


def test_colour_names_and_player_labels():
    assert Colour.RED.label.en == "red" and Colour.RED.zh == "红"
    assert Colour.NEUTRAL.zh == "中立"
    assert player_label("blue").en == "blue" and player_label("blue").zh == "蓝方"
    assert player_label("blue").get("zh-Hant") == "藍方"
    assert player_label("neutral").zh == "中立方"
    # a seat that is no colour is shown as typed, in every language (not converted to Traditional)
    seat = player_label("张三")
    assert seat.en == seat.zh == seat.get("zh-Hant") == "张三"


def test_a_player_label_is_a_field_shown_in_the_readers_language():
    msg = Message.t("ming.turn.passed", text=player_label("green"))
    assert msg.en.startswith("green ") and msg.zh.startswith("绿方") and msg.get("zh-Hant").startswith("綠方")


def test_or_lists():
    moves = [Message.t("ming.rules.move.move_prince"), Message.t("ming.rules.move.stay"), Message.t("ming.rules.move.pass")]
    either = or_list(moves)
    assert either.en == "moving a prince or keeping the prince in place or passing"
    assert either.zh == "移动太子或太子留在原地或放弃行动"
    assert or_list(["3"]).zh == "3" and or_list(["3", "5"]).en == "3 or 5"
    with pytest.raises(ValueError):
        or_list([])


def test_every_key_built_from_an_id_exists_in_every_language():
    keys = [f"colour.{c.value}" for c in Colour]
    keys += [f"zhang_yi.state.{s}" for s in STATES] + [f"zhang_yi.talent.{t}" for t in TALENT_IDS]
    keys += [f"ming.rules.move.{name}" for name in TYPE_NAMES.values()]
    keys += [f"ming.phase.wrong_move.{name}" for name in TYPE_NAMES.values()]
    keys += [f"ming.piece.{kind}" for kind in (FAMILY, PRINCE)]
    keys += [m.key for m in ming_rules.PHASE_LABEL.values()] + [m.key for m in ming_rules.MOVE_LABEL.values()]
    keys += [f"colour.{c}" for c in CARD_COLOURS] + [china_rules.kind_label(k).key for k in (HOUSE, EMISSARY, FORTRESS)]
    keys += [kind_label(k).key for k in KINDS]
    for tag in i18n.language_tags():
        texts = i18n.catalogue("scorer", tag)
        missing = [k for k in keys if k not in texts]
        assert not missing, f"{tag}: no text for {missing}"


def test_zhang_yi_names_come_from_the_catalogue():
    assert state_label("qi").en == "Qi" and state_label("qi").zh == "齐" and state_label("qi").get("zh-Hant") == "齊"
    assert talent_label("jing_ke").zh == "荆轲" and talent_label("mengchang_jun").en == "Lord Mengchang"
    assert state_label("rome").en == state_label("rome").zh == "rome"  # an unknown id as given
    assert dict(STATE_ZH) == {"qin": "秦", "chu": "楚", "qi": "齐", "yan": "燕", "zhao": "赵", "wei": "魏", "han": "韩"}
    assert {t.id: (t.en, t.zh) for t in TALENT_NAMES}["bai_qi"] == ("Bai Qi", "白起")
