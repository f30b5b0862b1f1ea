"""Cheops names and move descriptions come from the catalogues, in every language."""

from __future__ import annotations

from scorer.core import i18n
from scorer.games.cheops.data import FACES, _shipped_board, face_label, face_name
from scorer.games.cheops.game import GAME
from scorer.games.cheops.moves import Draw, Pass, PlaceTile, Take, Turn


def test_every_face_has_a_name_and_a_label_in_every_language():
    for face in FACES:
        for tag in i18n.language_tags():
            assert face_name(face).get(tag) and face in face_label(face).get(tag)
    assert face_label("B").en == "family tile B" and face_label("B").zh == "家族成员乙（B）"
    assert face_label("B").get("zh-Hant") == "家族成員乙（B）"


def test_treasure_colours_are_named_from_the_board_file():
    board = _shipped_board()
    colour = board.colours[0]
    assert board.colour_name(colour).en == colour and board.colour_name(colour).zh == board.colour_zh[colour]
    assert board.colour_label(colour).zh == board.colour_zh[colour] + "色"


def test_a_move_is_described_per_language_with_the_shared_player_label():
    move = Turn("blue", (PlaceTile("A", "r11c1", Take(law=4, table="red")), Pass()), (Draw(0), Draw(2)))
    text = GAME.describe_move(move)
    assert text.en == "blue: A on r11c1, takes law 4 under the red table; passes; draws from stack 0 and 2"
    assert text.zh == "蓝方：把 A 放在 r11c1，拿到 4 号律法放在 red 价格表下；放弃；从第 0和2 堆补板块"
    assert text.get("zh-Hant").startswith("藍方：")
