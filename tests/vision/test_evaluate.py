"""``vision.evaluate`` (scoring a reader on a frame set) and the ``vision eval`` / ``vision
render-set`` commands."""

import json
from collections import Counter
from dataclasses import dataclass

import pytest

from scorer.core.types import Piece
from tableref.cli import main
from vision.errors import FrameSetError
from vision.evaluate import NONE, FrameResult, fixed_spaces_of, hidden_under_of, load_set, parse_truth, score_frame, summarise
from vision.layout import load_layout

RED_HOUSE, RED_EM, BLUE_EM = Piece("red", "house"), Piece("red", "emissary"), Piece("blue", "emissary")
SPACES = ("a", "b", "c", "d", "e", "f", "g", "h")


def truth(**kw):
    from vision.evaluate import FrameTruth

    pieces = kw.pop("pieces", {})
    return FrameTruth({s: Counter(v) for s, v in pieces.items()}, frozenset(kw.pop("occluded", ())),
                      frozenset(kw.pop("partly", ())), **kw)


@dataclass(frozen=True)
class SpaceResult:  # what score_frame needs of the reader's SpaceResult
    space: str
    pieces: tuple = ()
    confidence: float = 1.0
    occluded: bool = False


def res(space, *pieces, occluded=False):
    return SpaceResult(space, tuple(sorted(Counter(pieces).items())), 0.9, occluded)


def test_score_one_frame_every_case():
    t = truth(pieces={"a": [RED_HOUSE], "b": [RED_EM, RED_EM], "c": [RED_EM], "d": [BLUE_EM], "e": [RED_HOUSE],
                      "f": [RED_HOUSE]},
              occluded={"f"}, partly={"g", "h"})
    got = [
        res("a", RED_HOUSE),  # right
        res("b", RED_EM),  # wrong count
        res("c", BLUE_EM),  # wrong colour
        res("d"),  # missed piece
        res("e", occluded=True),  # false flag
        res("f", RED_HOUSE),  # read through an occlusion (right or not, it is a reading)
        res("g", occluded=True),  # partly occluded, flagged: left out
        res("h"),  # partly occluded, read (right: empty)
    ]
    s = score_frame(t, got, SPACES)
    assert s.registered and s.hand
    assert (s.right, s.scored) == (2, 6)  # a, h right; b, c, d, e wrong; g left out; f not visible
    assert {w.space for w in s.wrong} == {"b", "c", "d", "e"}
    assert s.false_flags == ("e",) and s.clear == 5  # a-e visible and not partly occluded
    assert s.read_through == ("f",) and s.occluded == 1
    assert s.partly_flagged == ("g",) and s.partly_read == ("h",)
    assert s.confusions == Counter({("red:emissary", NONE): 1, ("red:emissary", "blue:emissary"): 1,
                                    ("blue:emissary", NONE): 1})
    assert not s.board_right


def test_a_right_frame_and_an_empty_reading_through_a_hand():
    t = truth(pieces={"a": [RED_HOUSE]}, occluded={"b"})
    right = score_frame(t, [res("a", RED_HOUSE)] + [res(x, occluded=x == "b") for x in SPACES[1:]], SPACES)
    assert right.board_right and right.read_through == () and (right.right, right.scored) == (7, 7)
    through = score_frame(t, [res("a", RED_HOUSE)] + [res(x) for x in SPACES[1:]], SPACES)
    assert through.read_through == ("b",) and through.board_right  # visible spaces right; reading through counted apart
    assert through.failed


def test_unregistered_frame_counts_every_visible_space_wrong():
    t = truth(pieces={"a": [RED_HOUSE]}, occluded={"b"})
    s = score_frame(t, [res(x, occluded=True) for x in SPACES], SPACES, registered=False)
    assert not s.registered and (s.right, s.scored) == (0, 7) and s.false_flags == () and s.clear == 0
    m = summarise([FrameResult("x", None, s, 10.0)])
    assert m["not_registered"]["count"] == 1 and m["per_space"]["count"] == 0


def test_kind_confusion_pairs_same_owner():
    t = truth(pieces={"a": [RED_HOUSE]})
    s = score_frame(t, [res("a", RED_EM)], ("a",))
    assert s.confusions == Counter({("red:house", "red:emissary"): 1})
    m = summarise([FrameResult("x", None, s, 1.0), FrameResult("y", None, s, 3.0)])
    assert m["confusion"] == [{"truth": "red:house", "read": "red:emissary", "count": 2}]
    assert m["read_ms"]["median"] == 2.0


def test_a_value_left_out_is_not_right_but_no_confusion_and_right_with_the_state_values():
    n = lambda v: Piece("neutral", f"token-{v}")  # noqa: E731
    wall = Piece("blue", "wall")
    t = truth(pieces={"a": [n(5), n(2), wall], "b": [n(7), n(3)], "c": [n(4), n(1)]})
    s = score_frame(t, [res("a", n("?"), n("?"), wall), res("b", n("?"), n("?"), Piece("grey", "dragon")),
                        res("c", n(4), n(1))], ("a", "b", "c"))
    assert (s.right, s.scored) == (1, 3) and s.from_state == ("a",) and not s.board_right and s.board_right_with_state is False
    assert s.confusions == Counter({(NONE, "grey:dragon"): 1})  # b: the dragon is wrong, its tokens are not
    m = summarise([FrameResult("x", None, s, 1.0)])
    assert m["per_space"]["count"] == 1 and m["errors_total"] == 1
    assert m["with_state"]["spaces"] == 1 and m["with_state"]["per_space"]["count"] == 2
    whole = score_frame(t, [res("a", n("?"), n(2), wall), res("b", n(7), n("?")), res("c", n(4), n(1))], ("a", "b", "c"))
    assert whole.board_right_with_state and not whole.board_right
    assert summarise([FrameResult("y", None, whole, 1.0)])["with_state"]["whole_board_without_hand"]["count"] == 1


def test_a_fortress_hidden_under_a_house_is_right_with_the_state_only_where_the_game_says_it_hides():
    fort, house = Piece("neutral", "fortress"), Piece("red", "house")
    t = truth(pieces={"a": [fort, house], "b": [fort]})
    got = [res("a", house), res("b")]  # a: the fortress under the house not seen; b: a bare fortress missed
    hides = {fort: frozenset({"house"})}
    s = score_frame(t, got, ("a", "b"), hidden_under=hides)
    assert s.right == 0 and s.from_state == ("a",) and s.confusions == Counter({("neutral:fortress", NONE): 1})
    assert score_frame(t, got, ("a", "b")).from_state == ()  # a game that names no hidden piece: both missed
    assert hidden_under_of(load_layout("china-a")) == hides and hidden_under_of(load_layout("great-wall")) == {}


def test_a_fortress_read_under_a_house_where_the_state_has_none_is_right_with_the_state_only():
    fort, house, blue = Piece("neutral", "fortress"), Piece("red", "house"), Piece("blue", "house")
    t = truth(pieces={"a": [house], "b": [house], "c": [], "d": [blue]})
    # a: a fortress read under the house (a live reader that saw the site empty drops it); b: read right;
    # c: a bare fortress read on an empty site (no cover: an error); d: another colour too (still an error)
    got = [res("a", fort, house), res("b", house), res("c", fort), res("d", fort, house)]
    s = score_frame(t, got, ("a", "b", "c", "d"), hidden_under={fort: frozenset({"house"})})
    assert s.right == 1 and s.from_state == ("a",)
    assert s.confusions == Counter({(NONE, "neutral:fortress"): 1, ("blue:house", "red:house"): 1})
    assert score_frame(t, got, ("a", "b", "c", "d")).from_state == ()  # a game that names no hidden piece


def test_a_marker_the_rules_never_move_is_right_with_the_state_whatever_is_read_there():
    """Cheops' dot scarabs (``Game.fixed_spaces``): missed, misread or flagged there, the referee keeps the
    state's marker; elsewhere the same misreading stays an error."""
    red, white = Piece("neutral", "treasure-red"), Piece("neutral", "treasure-white")
    t = truth(pieces={"dot-red": [red], "dot-white": [white], "r1c1": [red], "dot-blue": []})
    got = [res("dot-red"), res("dot-white", occluded=True), res("r1c1"), res("dot-blue")]
    fixed = frozenset({"dot-red", "dot-white", "dot-blue"})
    s = score_frame(t, got, ("dot-red", "dot-white", "r1c1", "dot-blue"), fixed=fixed)
    assert s.right == 1 and sorted(s.from_state) == ["dot-red", "dot-white"]
    assert s.confusions == Counter({("neutral:treasure-red", NONE): 1})  # r1c1's only: the state supplies the dot
    assert score_frame(t, got, ("dot-red", "dot-white", "r1c1", "dot-blue")).from_state == ()
    assert fixed_spaces_of(load_layout("cheops")) == frozenset(
        f"dot-{c}" for c in ("red", "blue", "green", "yellow", "white", "black"))
    assert fixed_spaces_of(load_layout("china-a")) == frozenset()


# --------------------------------------------------------------------------------------------
# loading

def write_set(root, truths, frames=None):
    (root / "frames").mkdir(parents=True)
    (root / "truth").mkdir()
    for stem, t in truths.items():
        (root / "truth" / f"{stem}.json").write_text(t if isinstance(t, str) else json.dumps(t))
    for stem in frames if frames is not None else truths:
        (root / "frames" / f"{stem}.jpg").write_bytes(b"not decoded when loading")
    return root


def test_parse_truth(china_layout):
    t = parse_truth({"chu-1": ["red:house", "neutral:fortress"], "chu-dragon": ["blue:emissary"] * 3,
                     "occluded": ["qi-1"], "partly_occluded": ["qi-2"], "table": "t1", "markers_covered": [2]},
                    china_layout)
    assert t.content("chu-dragon") == Counter({BLUE_EM: 3}) and t.table == "t1" and t.hand
    assert t.occluded == {"qi-1"} and t.partly_occluded == {"qi-2"}


@pytest.mark.parametrize("content, message", [
    ("{not json", "malformed JSON"),
    ({"nowhere-9": ["red:house"]}, "unknown space id 'nowhere-9'"),
    ({"chu-1": ["red-house"]}, "bad piece 'red-house'"),
    ({"chu-1": ["pink:house"]}, "unknown owner 'pink'"),
    ({"chu-1": ["red:castle"]}, "unknown kind 'castle'"),
    ({"occluded": ["chu-99"]}, "unknown space id(s) in \"occluded\": 'chu-99'"),
])
def test_loading_errors_name_the_file(tmp_path, china_layout, content, message):
    root = write_set(tmp_path / "set", {"f1": content})
    with pytest.raises(FrameSetError) as e:
        load_set(root, china_layout)
    assert message in str(e.value) and "f1.json" in str(e.value)


def test_orphans_are_skipped_and_counted(tmp_path, china_layout):
    root = write_set(tmp_path / "set", {"f1": {}, "f2": {}}, frames=["f1", "f3"])
    fs = load_set(root, china_layout)
    assert [f.stem for f in fs.frames] == ["f1"] and len(fs.orphans) == 2
    assert any("f3.jpg" in o for o in fs.orphans) and any("f2.json" in o for o in fs.orphans)


def test_missing_folders(tmp_path, china_layout):
    (tmp_path / "s" / "frames").mkdir(parents=True)
    with pytest.raises(FrameSetError, match="no truth/ folder"):
        load_set(tmp_path / "s", china_layout)
    root = write_set(tmp_path / "t", {}, frames=["f1"])
    with pytest.raises(FrameSetError, match="no frame with truth"):
        load_set(root, china_layout)


# --------------------------------------------------------------------------------------------
# the commands, end to end

def test_detail_stills_are_rendered_and_read_watched_small(tmp_path, capsys, monkeypatch):
    """``render-set --size``: the same scenes as larger stills; ``eval --detail``: each still is read
    scaled down to 1280 px wide, with the still itself as the reader's detail frame."""
    import cv2

    from vision import table_reader

    out = tmp_path / "stills"
    assert main(["vision", "render-set", "--board", "china-a", "--out", str(out), "--frames", "2", "--seed", "3",
                 "--tables", "1", "--size", "1920x1080"]) == 0
    assert cv2.imread(str(next((out / "frames").iterdir()))).shape == (1080, 1920, 3)
    assert json.loads((out / "set.json").read_text())["size"] == [1920, 1080]
    seen = []
    real = table_reader.TableReader.read

    def spy(self, frame, at=None, detail=None):
        seen.append((frame.shape, None if detail is None else detail.shape))
        return real(self, frame, at, detail)

    monkeypatch.setattr(table_reader.TableReader, "read", spy)
    capsys.readouterr()
    assert main(["vision", "eval", "--board", "china-a", "--set", str(out), "--reader", "table", "--detail"]) == 0
    assert "per-space accuracy: " in capsys.readouterr().out
    assert seen == [((720, 1280, 3), (1080, 1920, 3))] * 2
    # --dump outlines a wrong frame's spaces where the reader saw them: on the still watched at 1280
    truth = sorted((out / "truth").iterdir())[0]
    t = json.loads(truth.read_text())
    space = next(sp for sp in load_layout("china-a").space_ids if sp not in t and sp not in t["occluded"])
    truth.write_text(json.dumps({**t, space: ["red:house"]}))
    dump = tmp_path / "dump"
    assert main(["vision", "eval", "--board", "china-a", "--set", str(out), "--reader", "table", "--detail",
                 "--dump", str(dump), "--limit", "1"]) == 0
    assert cv2.imread(str(dump / f"{truth.stem}.jpg")).shape == (720, 1280, 3)
    with pytest.raises(SystemExit, match="WIDTHxHEIGHT"):
        main(["vision", "render-set", "--board", "china-a", "--out", str(tmp_path / "bad"), "--frames", "1", "--size", "big"])


def test_render_set_then_eval(tmp_path, capsys):
    out = tmp_path / "own"
    assert main(["vision", "render-set", "--board", "china-a", "--out", str(out), "--frames", "3", "--seed", "3",
                 "--tables", "1", "--hands", "0.5"]) == 0
    assert sorted(p.name for p in (out / "tables" / "t1").iterdir()) == ["empty.jpg", "enrol.jpg", "enrol.json"]
    enrol = json.loads((out / "tables" / "t1" / "enrol.json").read_text())
    tokens = sorted(t for k, v in enrol.items() if k != "occluded" for t in v)
    assert len(tokens) == 11 and len(set(tokens)) == 11  # 5 houses, 5 emissaries, the fortress, one a space
    assert all(len(v) == 1 for k, v in enrol.items() if k != "occluded")
    t = json.loads(next((out / "truth").iterdir()).read_text())
    assert t["table"] == "t1" and isinstance(t["occluded"], list)
    assert json.loads((out / "set.json").read_text())["board"] == "china-a"
    capsys.readouterr()

    dump = tmp_path / "dump"
    assert main(["vision", "eval", "--board", "china-a", "--set", str(out), "--dump", str(dump)]) == 0
    cap = capsys.readouterr()
    for line in ("per-space accuracy: ", "whole-board accuracy: frames without a hand", "readings through an occlusion: ",
                 "false occlusion flags: ", "frames not registered: ", "reader time per frame: median", "read with OpenCV "):
        assert line in cap.out
    assert "frame 3/3" in cap.err
    assert "warning" not in cap.err  # every frame has its table's photos

    assert main(["vision", "eval", "--board", "china-a", "--set", str(out), "--json", "--limit", "2"]) == 0
    cap = capsys.readouterr()
    m = json.loads(cap.out)
    assert cap.err == ""
    for key in ("per_space", "whole_board", "read_through_occlusion", "false_occlusion_flags", "not_registered",
                "confusion", "read_ms", "per_frame", "frames"):
        assert key in m
    assert m["frames"] == 2 and m["per_space"]["of"] > 0 and set(m["whole_board"]) == {"without_hand", "with_hand"}
    assert m["read_ms"]["median"] > 0
    import cv2

    assert m["environment"]["opencv"] == cv2.__version__ and m["environment"]["cpu"]  # what the figures were read with

    import shutil

    shutil.rmtree(out / "tables")  # no table photos, no --calibration: the default one, with a warning
    assert main(["vision", "eval", "--board", "china-a", "--set", str(out), "--limit", "2"]) == 0
    err = capsys.readouterr().err
    assert err.count("no table model given") == 1 and "no empty.jpg for table 't1'" in err


def test_malformed_set_exits_2_with_one_line(tmp_path, capsys):
    root = write_set(tmp_path / "bad", {"f1": {"chu-1": ["red:house"], "atlantis": []}})
    assert main(["vision", "eval", "--board", "china-a", "--set", str(root)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "atlantis" in err and "f1.json" in err
    assert main(["vision", "eval", "--board", "china-a", "--set", str(tmp_path / "missing")]) == 2
    assert capsys.readouterr().err.count("\n") == 1
