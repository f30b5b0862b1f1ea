"""Fixed facts of Zhang Yi (rules/zhang-yi.md sections 3 and 10): the seven states and the 16 talents.

Only what the rules text itself fixes lives here (ids, kinds, names). Which state a talent
belongs to and a general's combat bonus are printed on the counters and not public: they come
from the map data file, where the user can correct them.
"""

from __future__ import annotations

from dataclasses import dataclass

from scorer.core.types import Message

# Seven states, in a fixed order used for indices throughout the engine.
STATES: tuple[str, ...] = ("qin", "chu", "qi", "yan", "zhao", "wei", "han")
STATE_ZH = {"qin": "秦", "chu": "楚", "qi": "齐", "yan": "燕", "zhao": "赵", "wei": "魏", "han": "韩"}
STATE_JA = {"qin": "秦", "chu": "楚", "qi": "斉", "yan": "燕", "zhao": "趙", "wei": "魏", "han": "韓"}
STATE_EN = {s: s.capitalize() for s in STATES}
STATE_INDEX = {s: i for i, s in enumerate(STATES)}

GENERAL, MINISTER, NOTABLE, ASSASSIN = "general", "minister", "notable", "assassin"
KIND_ZH = {GENERAL: "将军", MINISTER: "大臣", NOTABLE: "名士", ASSASSIN: "刺客"}

ARMY = "army"
TALENT_PREFIX = "talent-"
COUNTERS_PER_STATE = 8
POOL_SIZE = 14  # 16 talents minus 2 put aside unseen (5.1)
SET_ASIDE = 2


@dataclass(frozen=True, slots=True)
class TalentName:
    id: str
    kind: str
    zh: str
    ja: str
    en: str
    default_state: str | None  # the rules notes' reading (13.1); the map file may override it


TALENT_NAMES: tuple[TalentName, ...] = (
    TalentName("yue_yi", GENERAL, "乐毅", "楽毅", "Yue Yi", "yan"),
    TalentName("sun_bin", GENERAL, "孙膑", "孫臏", "Sun Bin", "qi"),
    TalentName("bai_qi", GENERAL, "白起", "白起", "Bai Qi", "qin"),
    TalentName("wu_qi", GENERAL, "吴起", "呉起", "Wu Qi", "wei"),
    TalentName("lian_po", GENERAL, "廉颇", "廉頗", "Lian Po", "zhao"),
    TalentName("pang_juan", GENERAL, "庞涓", "龐涓", "Pang Juan", "wei"),
    TalentName("tian_dan", GENERAL, "田单", "田単", "Tian Dan", "qi"),
    TalentName("xiang_yan", GENERAL, "项燕", "項燕", "Xiang Yan", "chu"),
    TalentName("shang_yang", MINISTER, "商鞅", "商鞅", "Shang Yang", "qin"),
    TalentName("han_fei", MINISTER, "韩非", "韓非", "Han Fei", "han"),
    TalentName("guo_wei", MINISTER, "郭隗", "郭隗", "Guo Wei", "yan"),
    TalentName("li_si", MINISTER, "李斯", "李斯", "Li Si", "qin"),
    TalentName("mengchang_jun", NOTABLE, "孟尝君", "孟嘗君", "Lord Mengchang", "qi"),
    TalentName("lin_xiangru", NOTABLE, "蔺相如", "藺相如", "Lin Xiangru", "zhao"),
    TalentName("chunshen_jun", NOTABLE, "春申君", "春申君", "Lord Chunshen", "chu"),
    TalentName("jing_ke", ASSASSIN, "荆轲", "荊軻", "Jing Ke", None),
)
TALENT_IDS: tuple[str, ...] = tuple(t.id for t in TALENT_NAMES)
TALENT_INDEX = {t: i for i, t in enumerate(TALENT_IDS)}
TALENT_KIND = {t.id: t.kind for t in TALENT_NAMES}
JING_KE = TALENT_INDEX["jing_ke"]


def state_label(state: str) -> Message:
    return Message(STATE_EN.get(state, state), STATE_ZH.get(state, state))


def talent_label(talent: str) -> Message:
    for t in TALENT_NAMES:
        if t.id == talent:
            return Message(t.en, t.zh)
    return Message(talent, talent)


def talent_piece_kind(talent: str) -> str:
    return TALENT_PREFIX + talent
