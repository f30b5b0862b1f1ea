"""Fixed facts of Zhang Yi (rules/zhang-yi.md sections 3 and 10): the seven states and the 16 talents.

Only what the rules text itself fixes lives here (ids, kinds, names). Which state a talent
belongs to and a general's combat bonus are printed on the counters and not public: they come
from the map data file, where the user can correct them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator, Mapping

from scorer.core.types import Message

# Seven states, in a fixed order used for indices throughout the engine. Their names and the
# talents' are catalogue texts (scorer/i18n): zhang_yi.state.<id>, zhang_yi.talent.<id>.
STATES: tuple[str, ...] = ("qin", "chu", "qi", "yan", "zhao", "wei", "han")
STATE_INDEX = {s: i for i, s in enumerate(STATES)}

GENERAL, MINISTER, NOTABLE, ASSASSIN = "general", "minister", "notable", "assassin"

ARMY = "army"
TALENT_PREFIX = "talent-"
COUNTERS_PER_STATE = 8
POOL_SIZE = 14  # 16 talents minus 2 put aside unseen (5.1)
SET_ASIDE = 2


@dataclass(frozen=True, slots=True)
class TalentName:
    id: str
    kind: str
    default_state: str | None  # the rules notes' reading (13.1); the map file may override it

    @property
    def label(self) -> Message:
        return Message.t(f"zhang_yi.talent.{self.id}")

    @property
    def en(self) -> str:
        return self.label.en

    @property
    def zh(self) -> str:
        return self.label.zh


TALENT_NAMES: tuple[TalentName, ...] = (
    TalentName("yue_yi", GENERAL, "yan"),
    TalentName("sun_bin", GENERAL, "qi"),
    TalentName("bai_qi", GENERAL, "qin"),
    TalentName("wu_qi", GENERAL, "wei"),
    TalentName("lian_po", GENERAL, "zhao"),
    TalentName("pang_juan", GENERAL, "wei"),
    TalentName("tian_dan", GENERAL, "qi"),
    TalentName("xiang_yan", GENERAL, "chu"),
    TalentName("shang_yang", MINISTER, "qin"),
    TalentName("han_fei", MINISTER, "han"),
    TalentName("guo_wei", MINISTER, "yan"),
    TalentName("li_si", MINISTER, "qin"),
    TalentName("mengchang_jun", NOTABLE, "qi"),
    TalentName("lin_xiangru", NOTABLE, "zhao"),
    TalentName("chunshen_jun", NOTABLE, "chu"),
    TalentName("jing_ke", ASSASSIN, None),
)
TALENT_IDS: tuple[str, ...] = tuple(t.id for t in TALENT_NAMES)
TALENT_INDEX = {t: i for i, t in enumerate(TALENT_IDS)}
TALENT_KIND = {t.id: t.kind for t in TALENT_NAMES}
JING_KE = TALENT_INDEX["jing_ke"]


def state_label(state: str) -> Message:
    """A state's name; an id that is no state (a typing error in a record) as given."""
    if state in STATE_INDEX:
        return Message.t(f"zhang_yi.state.{state}")
    return Message.t("name.as_given", name=state)


def talent_label(talent: str) -> Message:
    """A talent's name; an id that is no talent as given."""
    if talent in TALENT_INDEX:
        return Message.t(f"zhang_yi.talent.{talent}")
    return Message.t("name.as_given", name=talent)


class _Names(Mapping[str, str]):
    """id -> a state's name in one language, read from the catalogue when asked. For code that writes
    the name into a data file (a map document's ``states.<id>.zh``), not for display: texts take
    ``state_label``."""

    def __init__(self, lang: str):
        self._lang = lang

    def __getitem__(self, state: str) -> str:
        if state not in STATE_INDEX:
            raise KeyError(state)
        return state_label(state).get(self._lang)

    def __iter__(self) -> Iterator[str]:
        return iter(STATES)

    def __len__(self) -> int:
        return len(STATES)


STATE_ZH: Mapping[str, str] = _Names("zh-Hans")


def talent_piece_kind(talent: str) -> str:
    return TALENT_PREFIX + talent
