"""The learned per-space classifier (inference only, on the committed model): it loads, reads
rendered spaces whose truth is known, refuses a missing or damaged model by name, and never
reads through a hand (the occlusion step stays in front of it)."""

from __future__ import annotations

import dataclasses
import json
import shutil

import numpy as np
import pytest

from scorer.core.types import Piece
from tableref.cli import main
from vision.render import Conditions, Hand, random_board, render, without_piece
from vision.space_classifier import DEFAULT_MODEL, ClassifierError, SpaceClassifier, heads_for
from vision.space_crops import crops_by_kind, evidence_map
from vision.table_reader import TableReader

CAMERA = Conditions(size=(1280, 720), fov_deg=62.0, fill=0.86, tilt_deg=14.0, tilt_azimuth_deg=30.0,
                    roll_deg=2.0, brightness=0.95, white_balance=(1.05, 1.0, 0.93), gradient=0.15,
                    blur_sigma=0.6, noise_sigma=1.5, jpeg_quality=90, seed=11)


@pytest.fixture(scope="module")
def classifier(china_layout):
    return SpaceClassifier.load(DEFAULT_MODEL, china_layout)


@pytest.fixture(scope="module")
def table(china_layout, tmp_path_factory, enrolled_table):
    return enrolled_table(china_layout, CAMERA, tmp_path_factory.mktemp("table"))



def _pieces(det) -> dict[str, dict[Piece, int]]:
    return {s.space: dict(s.pieces) for s in det.spaces if s.pieces}


def test_the_committed_model_is_small_and_says_how_it_was_trained(china_layout, classifier):
    size = sum(p.stat().st_size for p in DEFAULT_MODEL.iterdir())
    assert size < 5_000_000
    meta = json.loads((DEFAULT_MODEL / "model.json").read_text("utf-8"))
    assert "tools.train_space_classifier" in meta["training"]["command"]
    assert "held-out split was not used" in meta["training"]["selection"]
    assert set(classifier.heads) == {"site", "dragon"}
    assert classifier.heads == heads_for(china_layout)


def test_training_takes_several_photoreal_sets_and_never_a_held_out_one(china_layout, tmp_path):
    """``--photoreal a,b`` trains on several tuning splits (``--val-photoreal`` holds back ``t01``
    of the first or ``SET#tNN`` of any); a held-out split is refused by its set.json or its path."""
    from tools.space_classifier_data import load_frame_set
    from tools.train_space_classifier import is_val_table, photoreal_sets

    sets = photoreal_sets("evalsets/photoreal-china-a/tune, data/vision/photoreal-train/tune")
    assert sets == ["evalsets/photoreal-china-a/tune", "data/vision/photoreal-train/tune"]
    val = {"t01", "data/vision/photoreal-train/tune#t04"}
    assert is_val_table(0, sets[0], "t01", val) and not is_val_table(0, sets[0], "t00", val)
    assert is_val_table(1, sets[1], "t04", val) and not is_val_table(1, sets[1], "t01", val)
    marked = tmp_path / "extra"
    marked.mkdir()
    (marked / "set.json").write_text(json.dumps({"board": "china-a", "split": "heldout"}), "utf-8")
    for root in (marked, tmp_path / "heldout"):
        with pytest.raises(SystemExit, match="held-out"):
            next(load_frame_set(root, china_layout))
    with pytest.raises(SystemExit, match="held-out"):
        from tools.train_space_classifier import main as train
        train(["--photoreal", "evalsets/photoreal-china-a/tune,evalsets/photoreal-china-a/heldout", "--data-only"])


def test_crops_run_one_at_a_time_give_what_the_whole_batch_gives(classifier):
    """``forward`` feeds the network one crop at a time (its buffers then stay one crop big):
    the outputs are those of the whole batch at once, bit for bit."""
    rng = np.random.default_rng(4)
    for kind, spec in classifier.crops.items():
        blob = rng.random((7, 13, spec.px, spec.px), np.float32)
        one_by_one = classifier.forward(kind, blob)
        net = classifier.nets[kind]
        net.setInput(blob)
        assert np.array_equal(one_by_one, np.asarray(net.forward(), np.float32).reshape(7, -1))
        assert classifier.forward(kind, blob[:0]).shape == (0, classifier.heads[kind].outputs)


def test_classifies_rendered_crops_with_known_truth(china_layout, table, classifier):
    """Crops cut the way the reader cuts them, straight through the networks: each space's
    pieces (owner, kind and count) as the renderer placed them."""
    right = total = 0
    for seed in (1, 2):
        board = random_board(china_layout, np.random.default_rng(seed))
        frame = render(china_layout, board, dataclasses.replace(CAMERA, seed=100 + seed, noise_sigma=3.0)).image
        reader = TableReader(china_layout, table)
        reg, corrected, maps = reader.board_view(frame)
        assert reg.usable
        crops = crops_by_kind(china_layout.spaces, range(len(china_layout.spaces)), classifier.crops, corrected,
                              table.reference, maps.lab, evidence_map(maps), reader.colours, reader.s)
        assert set(crops) == {"site", "dragon"}
        for kind, (idx, blob) in crops.items():
            assert blob.shape[1:] == (13, classifier.crops[kind].px, classifier.crops[kind].px)
            for i, row in zip(idx, classifier.forward(kind, blob)):
                got, conf = classifier.heads[kind].decode(row)
                want = dict(board.pieces(china_layout.spaces[i].id))
                right += dict(got) == want
                total += 1
                assert 0.0 <= conf <= 1.0
    assert total == 2 * len(china_layout.spaces)
    assert right >= total - 3, f"{right}/{total}"


def test_the_reader_with_the_model_reads_a_full_board(china_layout, table, classifier):
    board = random_board(china_layout, np.random.default_rng(3))
    frame = render(china_layout, board, dataclasses.replace(CAMERA, seed=103, noise_sigma=3.0)).image
    det = TableReader(china_layout, table, classifier=classifier).read(frame)
    assert det.registration.usable and det.occluded == ()
    truth = {s: dict(board.pieces(s)) for s in board.as_dict() if board.pieces(s)}
    got = _pieces(det)
    wrong = {s for s in set(truth) | set(got) if truth.get(s) != got.get(s)}
    assert len(wrong) <= 1, {s: (truth.get(s), got.get(s)) for s in wrong}


def test_never_reads_through_a_hand_with_the_model(china_layout, table, classifier):
    board = random_board(china_layout, np.random.default_rng(9), occupancy=0.8)
    target = china_layout.space("qi-dragon").centre
    for i, (skin, from_deg) in enumerate([((232, 190, 160), 90.0), ((245, 205, 180), 200.0), ((120, 80, 55), 300.0)]):
        r = render(china_layout, board, dataclasses.replace(CAMERA, seed=40 + i, hand=Hand(target, from_deg, 70.0, 1.0, skin)))
        det = TableReader(china_layout, table, classifier=classifier).read(r.image)
        assert det.registration.usable and r.truth.occluded
        read_through = [s.space for s in det.spaces if s.space in r.truth.occluded and not s.occluded]
        assert read_through == [], skin


def test_one_piece_moved_is_read_in_part_with_the_model(china_layout, table, classifier):
    board = random_board(china_layout, np.random.default_rng(21))
    first = render(china_layout, board, dataclasses.replace(CAMERA, noise_sigma=0.0, jpeg_quality=None, seed=71))
    gone = first.truth.placements[7]
    after = without_piece(china_layout, first, gone)
    reader = TableReader(china_layout, table, classifier=classifier)
    reader.read(first.image)
    det = reader.read(after)
    assert det.partial is not None and det.partial < 20
    assert _pieces(det) == _pieces(TableReader(china_layout, table, classifier=classifier).read(after))


def test_a_missing_model_is_refused_by_name(china_layout, tmp_path):
    with pytest.raises(ClassifierError, match="no space classifier model at"):
        SpaceClassifier.load(tmp_path / "nothing", china_layout)
    copy = tmp_path / "model"
    shutil.copytree(DEFAULT_MODEL, copy)
    (copy / "dragon.onnx").unlink()
    with pytest.raises(ClassifierError, match="model file missing: .*dragon.onnx"):
        SpaceClassifier.load(copy, china_layout)


def test_a_damaged_model_is_refused_by_name(china_layout, tmp_path):
    copy = tmp_path / "model"
    shutil.copytree(DEFAULT_MODEL, copy)
    data = (copy / "site.onnx").read_bytes()
    (copy / "site.onnx").write_bytes(data[: len(data) // 3])
    with pytest.raises(ClassifierError, match="site.onnx"):
        SpaceClassifier.load(copy, china_layout)
    (copy / "model.json").write_text("{not json", "utf-8")
    with pytest.raises(ClassifierError, match="cannot read space classifier model"):
        SpaceClassifier.load(copy, china_layout)


def test_a_model_for_other_pieces_is_refused(china_layout, classifier):
    other = dataclasses.replace(china_layout, players={k: v for k, v in list(china_layout.players.items())[:4]})
    with pytest.raises(ClassifierError, match="retrain"):
        classifier.check(other)


def test_eval_refuses_the_learned_reader_without_its_model(china_layout, tmp_path, capsys, monkeypatch):
    """``tableref vision eval --reader learned`` with the model gone: one line naming it, exit 2
    (never a silent classical read)."""
    import vision.space_classifier as sc

    monkeypatch.setattr(sc, "DEFAULT_MODEL", tmp_path / "gone")
    set_dir = tmp_path / "set"
    assert main(["vision", "render-set", "--board", "china-a", "--out", str(set_dir), "--frames", "1",
                 "--seed", "3"]) == 0
    capsys.readouterr()
    assert main(["vision", "eval", "--board", "china-a", "--set", str(set_dir), "--reader", "learned"]) == 2
    err = capsys.readouterr().err
    assert "no space classifier model at" in err and "gone" in err and "Traceback" not in err


def test_the_reader_uses_the_committed_model_unless_told_to_count(china_layout, table):
    assert isinstance(TableReader(china_layout, table).classifier, SpaceClassifier)
    counting = TableReader(china_layout, table, classifier=None)
    assert counting.classifier is None
    board = random_board(china_layout, np.random.default_rng(3))
    frame = render(china_layout, board, dataclasses.replace(CAMERA, seed=103, noise_sigma=3.0)).image
    truth = {s: dict(board.pieces(s)) for s in board.as_dict() if board.pieces(s)}
    got = _pieces(counting.read(frame))  # the classical counting step still reads
    assert sum(truth.get(s) != got.get(s) for s in set(truth) | set(got)) <= 1
    with pytest.raises(ValueError, match="classifier must be"):
        TableReader(china_layout, table, classifier="newest")


def test_without_its_model_the_reader_counts_and_says_so(china_layout, table, tmp_path, monkeypatch, caplog):
    import vision.space_classifier as sc

    monkeypatch.setattr(sc, "DEFAULT_MODEL", tmp_path / "gone")
    monkeypatch.setattr(sc, "_committed", {})
    with caplog.at_level("WARNING", logger="vision.space_classifier"):
        reader = TableReader(china_layout, table)
    assert reader.classifier is None
    assert "reading by colour counting" in caplog.text and "no space classifier model at" in caplog.text


def test_a_same_named_layout_with_other_pieces_is_counted_not_refused(china_layout, table, caplog):
    """A user's own copy can keep the board's id with pieces of other sizes (two houses then fit a
    site): the committed model does not fit it, so the reader counts, with a warning, instead of failing."""
    pieces = dict(china_layout.pieces)
    pieces["house"] = dataclasses.replace(pieces["house"], size=tuple(v * 0.6 for v in pieces["house"].size))
    other = dataclasses.replace(china_layout, pieces=pieces)
    with pytest.raises(ClassifierError):
        heads_for(other)
    with caplog.at_level("WARNING", logger="vision.table_reader"):
        reader = TableReader(other, table)
    assert reader.classifier is None
    assert "reading by colour counting" in caplog.text


def test_each_layout_finds_its_own_committed_model_else_the_default(china_layout, tmp_path, monkeypatch):
    """``vision/models/space_classifier-<layout id>/`` is a game's own model (its pieces and space
    kinds); a layout without one gets ``DEFAULT_MODEL`` (China's), which refuses other pieces."""
    import vision.space_classifier as sc
    from vision.layout import load_layout

    ming = load_layout("ming-provisional")
    monkeypatch.setattr(sc, "MODELS", tmp_path)
    assert sc.model_dir_for(ming) == sc.DEFAULT_MODEL and sc.model_dir_for(china_layout) == sc.DEFAULT_MODEL
    own = tmp_path / "space_classifier-ming-provisional"
    own.mkdir()
    assert sc.model_dir_for(ming) == sc.DEFAULT_MODEL  # a folder without model.json is no model
    (own / "model.json").write_text("{}", "utf-8")
    assert sc.model_dir_for(ming) == own
    with pytest.raises(ClassifierError, match="is not a space classifier model"):
        SpaceClassifier.load(layout=ming)


def test_a_piece_kinds_per_space_sets_how_far_its_heads_count(china_layout):
    """How many of one owner a counts head says on a space comes from the layout (piece ``per_space``,
    Ming's family members heaped on a province space), else ``MAX_COUNT``: China's heads are unchanged."""
    from vision.layout import load_layout
    from vision.space_classifier import MAX_COUNT

    assert heads_for(china_layout)["dragon"].max_count == MAX_COUNT
    ming = load_layout("ming-provisional")
    assert ming.pieces["family"].per_space == 12 and ming.pieces["prince"].per_space is None
    heads = heads_for(ming)
    assert {k: h.max_count for k, h in heads.items()} == dict.fromkeys(heads, 12)
    fewer = dataclasses.replace(ming, pieces={**ming.pieces, "family": dataclasses.replace(ming.pieces["family"], per_space=None)})
    assert {h.max_count for h in heads_for(fewer).values()} == {MAX_COUNT}
    heap = [Piece("red", "family")] * 9
    assert heads["province-space"].target(heap) is not None and heads_for(fewer)["province-space"].target(heap) is None
