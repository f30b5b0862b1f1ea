"""The tag registry: uid -> piece or card, persisted atomically, with an enrolment mode."""

from __future__ import annotations

import json
import os
import threading

import pytest

from hardware.tag_registry import Card, RegistryError, TagRegistry, describe, normalise_uid
from scorer.core import Piece

HOUSE = Piece("red", "house")


def test_uids_are_normalised():
    assert normalise_uid("04:a1:b2:c3") == "04A1B2C3"
    assert normalise_uid(b"\x04\xa1\xb2\xc3\xd4\xe5\x80") == "04A1B2C3D4E580"
    assert normalise_uid("1a003b5c7e") == "1A003B5C7E"
    for bad in ("04A1", "04A1B2C", "ZZ112233", "00" * 11):
        with pytest.raises(RegistryError):
            normalise_uid(bad)


def test_save_and_load_round_trip(tmp_path):
    path = tmp_path / "tags.json"
    reg = TagRegistry.load(path)
    assert len(reg) == 0 and not path.exists()
    reg.assign("04a1b2c3d4e580", HOUSE)
    reg.assign("1A003B5C7E", Card("red"))
    data = json.loads(path.read_text())
    assert data == {"version": 1, "tags": {"04A1B2C3D4E580": {"owner": "red", "kind": "house"},
                                           "1A003B5C7E": {"card": "red"}}}
    again = TagRegistry.load(path)
    assert again.piece("04A1B2C3D4E580") == HOUSE
    assert again.card("1a003b5c7e") == Card("red")
    assert again.lookup("04000000000000") is None
    assert [p.name for p in tmp_path.iterdir()] == ["tags.json"]   # no temporary files left


def test_atomic_write_keeps_the_old_file_when_writing_fails(tmp_path, monkeypatch):
    path = tmp_path / "tags.json"
    reg = TagRegistry(path)
    reg.assign("04A1B2C3D4E580", HOUSE)
    before = path.read_text()

    def broken_fsync(fd):
        raise OSError("disk full")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    with pytest.raises(OSError):
        reg.assign("04A1B2C3D4E581", Piece("blue", "house"))
    monkeypatch.undo()
    assert path.read_text() == before
    assert reg.lookup("04A1B2C3D4E581") is None            # memory matches the file
    assert [p.name for p in tmp_path.iterdir()] == ["tags.json"]


@pytest.mark.parametrize(
    "content",
    ['{"version": 1, "tags": {"04A1": {"owner": "red", "kind": "house"}}}',
     '{"version": 2, "tags": {}}',
     '{"version": 1, "tags": {"04A1B2C3": {"owner": "red"}}}',
     "not json"],
)
def test_invalid_files_are_refused_with_a_clear_error(tmp_path, content):
    path = tmp_path / "tags.json"
    path.write_text(content)
    with pytest.raises(RegistryError, match="tags.json"):
        TagRegistry.load(path)


def test_reassigning_a_known_tag_needs_replace():
    reg = TagRegistry()
    reg.assign("04A1B2C3", HOUSE)
    with pytest.raises(RegistryError, match="already"):
        reg.assign("04A1B2C3", Piece("blue", "house"))
    reg.assign("04A1B2C3", Piece("blue", "house"), replace=True)
    assert reg.piece("04A1B2C3") == Piece("blue", "house")
    assert reg.remove("04A1B2C3") == Piece("blue", "house")
    with pytest.raises(RegistryError):
        reg.remove("04A1B2C3")


def test_enrolment_assigns_unknown_tags_only_and_ends_after_count(tmp_path):
    reg = TagRegistry(tmp_path / "tags.json", {"04A1B2C3": HOUSE})
    changes = []
    reg.subscribe(lambda uid, item: changes.append((uid, item)))
    assert not reg.offer("04000001").enrolled                    # not armed: just unknown
    reg.begin_enrolment(Piece("red", "emissary"), count=2)
    known = reg.offer("04A1B2C3")
    assert not known.enrolled and known.item == HOUSE             # a known tag is never relabelled
    first = reg.offer("04000001")
    assert first.enrolled and first.message.zh == "标签 04000001 已登记为红使臣"
    assert reg.enrolment.remaining == 1 and reg.enrolment.enrolled == ("04000001",)
    assert reg.offer("04000002").enrolled
    assert reg.enrolment is None
    assert not reg.offer("04000003").enrolled
    assert changes == [("04000001", Piece("red", "emissary")), ("04000002", Piece("red", "emissary"))]
    assert TagRegistry.load(tmp_path / "tags.json").uids_of(Piece("red", "emissary")) == ("04000001", "04000002")


def test_listeners_may_call_back_into_the_registry_from_another_thread():
    reg = TagRegistry()
    seen = []
    reg.subscribe(lambda uid, item: seen.append(reg.lookup(uid)))
    reg.begin_enrolment(HOUSE, count=50)
    threads = [threading.Thread(target=reg.offer, args=(f"0400{n:04X}",)) for n in range(50)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(5)
    assert len(reg) == 50 and seen == [HOUSE] * 50


def test_descriptions_are_bilingual():
    assert describe(Piece("neutral", "fortress")).zh == "中立堡垒"
    assert describe(Card("yellow")).en == "card yellow"
