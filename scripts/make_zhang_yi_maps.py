"""Write the two shipped Zhang Yi map files (scorer/games/zhang_yi/maps/{sample,template}.json).

* ``sample.json`` is INVENTED. The printed map of Game Journal No. 18 (areas, borders, rivers and
  mountains, cities, the set-up table) and the generals' combat bonuses are not public
  (rules/zhang-yi.md section 1). Everything below that is not listed as known is made up, in
  this one visible place, so that tests and the demo can run. The file says ``"sample": true``
  and the engine refuses to start a game on it unless the setup says
  ``"sample_map_confirmed": true``.
* ``template.json`` holds only what is known (section 13.2) with ``"complete": false``: the file
  a user copies and fills in from their own copy (docs/zhang-yi.md, "Entering the printed map").

Known facts kept in the sample: 7 states with 8 army counters each; 16 talents with the kinds of
section 10 and the state affiliations of table 13.1; Qin in the western mountains, Chu south of
the Yangtze (play report); the area names 巴蜀 and 荊山 exist (play report; their position here
is a guess). Run: python scripts/make_zhang_yi_maps.py
"""

from __future__ import annotations

import json
from pathlib import Path

from scorer.games.zhang_yi.data import STATE_ZH, STATES, TALENT_NAMES, GENERAL

# The states' names as the Japanese original (Game Journal No. 18) prints them: data for the map
# files only, no language the referee speaks.
STATE_JA = {"qin": "秦", "chu": "楚", "qi": "斉", "yan": "燕", "zhao": "趙", "wei": "魏", "han": "韓"}

OUT = Path(__file__).resolve().parent.parent / "scorer" / "games" / "zhang_yi" / "maps"

# (id, 中文, English, city, set-up state, set-up strength) -- ALL INVENTED except the two names.
AREAS = [
    ("xianyang", "咸阳", "Xianyang", True, "qin", 5),
    ("longxi", "陇西", "Longxi", False, "qin", 2),
    ("hanzhong", "汉中", "Hanzhong", False, "qin", 2),
    ("shangjun", "上郡", "Shangjun", False, None, 0),
    ("bashu", "巴蜀", "Ba-Shu", False, None, 0),
    ("qianzhong", "黔中", "Qianzhong", False, None, 0),
    ("jingshan", "荊山", "Jingshan", False, None, 0),
    ("ying", "郢", "Ying", True, "chu", 5),
    ("chen", "陈", "Chen", False, "chu", 2),
    ("shouchun", "寿春", "Shouchun", False, "chu", 2),
    ("wuyue", "吴越", "Wu-Yue", False, None, 0),
    ("nanyang", "南阳", "Nanyang", False, None, 0),
    ("yiyang", "宜阳", "Yiyang", False, "han", 2),
    ("xinzheng", "新郑", "Xinzheng", True, "han", 4),
    ("luoyang", "洛阳", "Luoyang", True, None, 0),
    ("anyi", "安邑", "Anyi", False, "wei", 3),
    ("daliang", "大梁", "Daliang", True, "wei", 4),
    ("taoyi", "陶邑", "Taoyi", True, None, 0),
    ("jinyang", "晋阳", "Jinyang", False, "zhao", 2),
    ("handan", "邯郸", "Handan", True, "zhao", 4),
    ("dai", "代", "Dai", False, None, 0),
    ("zhongshan", "中山", "Zhongshan", False, None, 0),
    ("shanggu", "上谷", "Shanggu", False, "yan", 2),
    ("ji", "蓟", "Ji", True, "yan", 4),
    ("liaodong", "辽东", "Liaodong", False, None, 0),
    ("linzi", "临淄", "Linzi", True, "qi", 5),
    ("jimo", "即墨", "Jimo", False, "qi", 2),
    ("lu", "鲁", "Lu", False, None, 0),
]

# Borders, INVENTED: open, river (Yellow River, Han, Huai, Yangtze) or mountain (Qinling, Taihang ...).
BORDERS = [
    ("xianyang", "longxi", "open"), ("xianyang", "shangjun", "open"), ("xianyang", "hanzhong", "mountain"),
    ("xianyang", "yiyang", "mountain"), ("xianyang", "anyi", "river"), ("longxi", "hanzhong", "mountain"),
    ("longxi", "shangjun", "open"), ("hanzhong", "bashu", "mountain"), ("hanzhong", "nanyang", "mountain"),
    ("hanzhong", "jingshan", "open"), ("bashu", "qianzhong", "open"), ("bashu", "jingshan", "mountain"),
    ("qianzhong", "jingshan", "open"), ("qianzhong", "ying", "river"), ("jingshan", "ying", "open"),
    ("jingshan", "nanyang", "open"), ("nanyang", "ying", "open"), ("nanyang", "yiyang", "open"),
    ("nanyang", "xinzheng", "open"), ("nanyang", "chen", "open"), ("yiyang", "luoyang", "open"),
    ("yiyang", "anyi", "river"), ("luoyang", "xinzheng", "open"), ("luoyang", "anyi", "river"),
    ("luoyang", "daliang", "open"), ("xinzheng", "daliang", "open"), ("xinzheng", "chen", "open"),
    ("shangjun", "anyi", "river"), ("shangjun", "jinyang", "river"), ("anyi", "jinyang", "mountain"),
    ("jinyang", "handan", "mountain"), ("jinyang", "dai", "mountain"), ("jinyang", "zhongshan", "mountain"),
    ("handan", "zhongshan", "open"), ("handan", "daliang", "river"), ("handan", "taoyi", "river"),
    ("zhongshan", "dai", "open"), ("zhongshan", "shanggu", "open"), ("zhongshan", "ji", "open"),
    ("dai", "shanggu", "mountain"), ("shanggu", "ji", "open"), ("ji", "liaodong", "open"),
    ("ji", "linzi", "river"), ("handan", "linzi", "river"), ("daliang", "taoyi", "open"),
    ("daliang", "chen", "open"), ("taoyi", "lu", "open"), ("taoyi", "linzi", "open"),
    ("taoyi", "chen", "open"), ("chen", "shouchun", "open"), ("ying", "shouchun", "river"),
    ("shouchun", "lu", "river"), ("shouchun", "wuyue", "river"), ("lu", "linzi", "mountain"),
    ("lu", "jimo", "open"), ("linzi", "jimo", "open"),
]

# Generals' combat bonuses, INVENTED (the printed values are unknown).
SAMPLE_BONUS = {"bai_qi": 3, "wu_qi": 2, "yue_yi": 2, "sun_bin": 2, "lian_po": 2, "pang_juan": 1, "tian_dan": 1, "xiang_yan": 1}
# Counter mix, INVENTED (8 per state is known; the 1/2 vs 3/4 split is not).
SAMPLE_MIX = (5, 3)


def talents(with_bonus: bool) -> list[dict]:
    out = []
    for t in TALENT_NAMES:
        row: dict = {"id": t.id, "kind": t.kind, "state": t.default_state}
        if t.kind == GENERAL:
            row["bonus"] = SAMPLE_BONUS[t.id] if with_bonus else None
        if t.id == "han_fei":
            row["state_unconfirmed"] = True
        out.append(row)
    return out


def states(mix: tuple[int, int] | None) -> dict:
    return {
        s: {"zh": STATE_ZH[s], "ja": STATE_JA[s], "army_counters": 8,
            "counters_1_2": mix[0] if mix else None, "counters_3_4": mix[1] if mix else None}
        for s in STATES
    }


def sample() -> dict:
    return {
        "format": "zhang-yi-map/1",
        "game": "zhang_yi",
        "id": "sample",
        "name": {"en": "SAMPLE map (invented, not the printed board)", "zh": "示例地图（虚构，不是印刷地图）"},
        "data_version": 1,
        "complete": True,
        "sample": True,
        "provisional": True,
        "source": "INVENTED by scripts/make_zhang_yi_maps.py for tests and the demo. NOT the printed map of Game Journal No. 18.",
        "notes": [
            "Areas, borders, river/mountain borders, cities, set-up strengths, generals' bonuses and the 5/3 counter mix are all invented.",
            "Known and kept: 7 states x 8 counters; the 16 talents, their kinds and the states of rules/zhang-yi.md table 13.1.",
            "Enter the real map from your copy: see docs/zhang-yi.md, 'Entering the printed map'.",
        ],
        "states": states(SAMPLE_MIX),
        "areas": [
            {"id": i, "name_zh": zh, "name_en": en, "city": city, "setup_state": st, "setup_strength": n}
            for i, zh, en, city, st, n in AREAS
        ],
        "borders": [{"a": a, "b": b, "type": t} for a, b, t in BORDERS],
        "talents": talents(with_bonus=True),
    }


def template() -> dict:
    return {
        "format": "zhang-yi-map/1",
        "game": "zhang_yi",
        "id": "printed",
        "name": {"en": "Zhang Yi (Game Journal No. 18), printed map", "zh": "张仪（游戏杂志第 18 期）印刷地图"},
        "data_version": 0,
        "complete": False,
        "sample": False,
        "provisional": False,
        "source": "unknown map; fill from the printed board of Game Journal No. 18 (張儀)",
        "notes": ["Copy this file, enter every area and border from your board, every general's bonus from the counters, then set complete: true."],
        "states": states(None),
        "areas": [],
        "borders": [],
        "hints_not_data": {
            "area_names_seen_in_play_reports": ["巴蜀", "荊山"],
            "qin_region": "western mountains",
            "chu_region": "south of the Yangtze",
            "note": "hints only; an engine must refuse to start while complete=false",
        },
        "talents": talents(with_bonus=False),
    }


def write(name: str, doc: dict) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / f"{name}.json").write_text(json.dumps(doc, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {OUT / name}.json")


def main() -> None:
    write("sample", sample())
    write("template", template())


if __name__ == "__main__":
    main()
