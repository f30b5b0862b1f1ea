"""A hand whose evidence is broken into pieces is still a hand (vision/occlusion.py, ``_joined_regions``).

Over a print the hand's evidence breaks up: patches of skin read as piece colours, gaps where the
skin looks like the board, the print lost in 8 px blocks. Each patch alone is smaller than the hand
tests' sizes, and on three fresh sets of the project's renderer (``tableref vision render-set --board
china-a --seed 7301..7303 --frames 100 --tables 4 --hands 0.4 --positions game``) 34 of 1438
occluded spaces were read through such hands (a pale palm read as yellow houses). Patches near one
another with colour or difference of their own (not print lost alone: a far noisy frame loses its thin
print in patches all over) are joined: together they are a hand.
"""

from __future__ import annotations

import numpy as np

from hand_frames_testkit import board_of, read_through
from vision.colour_classes import UNKNOWN
from vision.foreground import ForegroundMaps
from vision.occlusion import OcclusionFinder
from vision.render import Conditions, Hand

W, H = 320, 240  # mm = px
PIECE_MM2 = 900.0  # China's biggest piece (a house on a fortress) is ~910 mm² here


def _finder() -> OcclusionFinder:
    space = np.ones((40, 40), np.uint8)
    return OcclusionFinder([((140, 40, 180, 80), space), ((140, 150, 180, 190), space)], (W, H), 1.0, PIECE_MM2)


def _maps() -> ForegroundMaps:
    none = np.zeros((H, W), bool)
    lab = np.zeros((H, W, 3), np.float32)
    return ForegroundMaps(lab, np.zeros((H, W), np.float32), none, none, none, none, none, none, 2.0)


# a hand over space 0 in four patches 6 mm apart (wider than the gaps a region closes): a palm of
# 35 x 35 mm (1225 mm², more than a piece) and three of 25 x 25 mm, the nearest 25 mm from the board's edge
# (its arm over the margin not seen); space 1 lies 150 mm in
PATCHES = [(slice(25, 60), slice(125, 160)), (slice(66, 91), slice(130, 155)), (slice(30, 55), slice(166, 191)),
           (slice(66, 91), slice(161, 186))]


def test_a_hand_in_four_patches_of_unknown_colour_is_a_hand() -> None:
    """Each patch is less than the hand tests' sizes (three pieces): alone none is a hand; together they are."""
    labels = np.full((H, W), -2, np.int16)
    for p in PATCHES:
        labels[p] = UNKNOWN
    assert _finder().find(_maps(), labels).spaces == frozenset({0})


def test_the_same_patches_in_the_middle_of_the_board_are_no_hand() -> None:
    """Far from the board's edge: glare or a shadow's patches (photoreal China, fresh3 t01-005), not a hand whose
    arm would be seen crossing the edge."""
    labels = np.full((H, W), -2, np.int16)
    for ys, xs in PATCHES:
        labels[ys.start + 80:ys.stop + 80, xs] = UNKNOWN
    assert _finder().find(_maps(), labels).spaces == frozenset()


def test_one_such_patch_alone_is_no_hand() -> None:
    labels = np.full((H, W), -2, np.int16)
    labels[PATCHES[0]] = UNKNOWN
    assert _finder().find(_maps(), labels).spaces == frozenset()


def test_the_same_patches_of_print_lost_alone_are_no_hand() -> None:
    """Print lost in patches, no colour: a far, noisy frame's thin print (photoreal China tune: joined,
    such patches made hands in four frames without one)."""
    labels = np.full((H, W), -2, np.int16)
    lost = np.zeros((H, W), bool)
    for p in PATCHES:
        lost[p] = True
    assert _finder().find(_maps(), labels, lost).spaces == frozenset()


def test_piece_sized_blobs_of_unknown_colour_side_by_side_are_no_hand() -> None:
    """Six houses whose colour was not learned, round a region (each 600 mm², 8 mm apart): pieces, not a
    hand, as long as none is bigger than a piece (a palm is)."""
    labels = np.full((H, W), -2, np.int16)
    for y in (30, 68):
        for x in (100, 138, 176):
            labels[y:y + 30, x:x + 20] = UNKNOWN
    assert _finder().find(_maps(), labels).spaces == frozenset()


def test_patches_too_far_apart_are_not_joined() -> None:
    labels = np.full((H, W), -2, np.int16)
    for y, x in ((20, 20), (20, 270), (190, 20), (190, 270)):
        labels[y:y + 25, x:x + 25] = UNKNOWN
    assert _finder().find(_maps(), labels).spaces == frozenset()


# rendered frames: china-a, render-set --seed 7301 or 7302 --frames 100 --tables 4 --hands 0.4 --positions game
# the set's table t1: its empty board and enrolment photo (one piece of each type), as render-set took them
TABLE_7302 = Conditions(size=(1280, 720), fov_deg=64.06767414176065, fill=0.8387209873528276, tilt_deg=18.628299475750232,
                        tilt_azimuth_deg=89.33521259557779, roll_deg=177.67107172262752,
                        offset=(-0.0256994972724515, -0.020417232889603815), brightness=0.9899308431525872,
                        white_balance=(0.8675233769262786, 1.145281505301662, 1.1055132606780962),
                        gradient=0.09217093992363024, gradient_deg=100.63691216775415, vignette=0.09848273268018488,
                        blur_sigma=0.4830474700819572, noise_sigma=2.503155986752938, light_deg=32.54069876113846,
                        seed=1699012912)
ENROLLED_7302 = (("han-4", "blue:house"), ("han-5", "red:house"), ("han-dragon", "green:emissary"),
                 ("lu-dragon", "yellow:emissary"), ("qi-5", "violet:house"), ("qi-dragon", "red:emissary"),
                 ("wei-5", "neutral:fortress"), ("wei-dragon", "blue:emissary"), ("yan-5", "yellow:house"),
                 ("zhao-3", "green:house"), ("zhao-dragon", "violet:emissary"))


# t1-0004: a large pale hand over a pink board; its palm, read as yellow houses and print lost, in patches
PALE_FRAME = Conditions(size=(1280, 720), fov_deg=64.06767414176065, fill=0.8210508227544275, tilt_deg=18.379766742481014,
                        tilt_azimuth_deg=90.23834240159228, roll_deg=-181.5049526738038,
                        offset=(-0.025302660710464563, -0.01814855873594598), brightness=1.1128848778096172,
                        white_balance=(1.0423468046118085, 0.8540338569029587, 1.0049427026680853),
                        gradient=0.11070816138267114, gradient_deg=29.557062288891153, vignette=0.03901276327858323,
                        hand=Hand((376.82443810975485, 100.0611400691983), 202.50245278638127, 77.98138056967923,
                                  1.134089207115283, (245, 205, 180), 0.7461006779949215),
                        blur_sigma=1.3109601788557528, noise_sigma=6.991316788652397, light_deg=323.0481178483273,
                        seed=1787537974)
PALE_CELLS = {
    "chu-5": {"violet:house": 1}, "chu-6": {"green:house": 1}, "han-1": {"green:house": 1},
    "han-2": {"green:house": 1}, "han-4": {"green:house": 1}, "han-5": {"blue:house": 1},
    "han-dragon": {"green:emissary": 1}, "lu-1": {"violet:house": 1}, "lu-2": {"green:house": 1},
    "lu-3": {"blue:house": 1}, "lu-4": {"blue:house": 1}, "lu-dragon": {"violet:emissary": 1, "green:emissary": 1},
    "qi-5": {"blue:house": 1}, "qin-1": {"violet:house": 1}, "qin-dragon": {"blue:emissary": 1},
    "shu-1": {"violet:house": 1}, "wei-1": {"green:house": 1}, "wei-3": {"violet:house": 1},
    "wei-4": {"blue:house": 1}, "wei-6": {"violet:house": 1}, "yan-1": {"green:house": 1}, "yan-5": {"blue:house": 1},
    "yan-dragon": {"violet:emissary": 1}, "zhao-1": {"violet:house": 1}, "zhao-2": {"blue:house": 1},
    "zhao-3": {"green:house": 1}, "zhao-4": {"green:house": 1}, "zhao-dragon": {"blue:emissary": 1},
}

# t1-0064: a tan hand over a beige board, its arm over the margin unseen; nothing at all was flagged
TAN_FRAME = Conditions(size=(1280, 720), fov_deg=64.06767414176065, fill=0.8381227835946917, tilt_deg=19.213736592825402,
                       tilt_azimuth_deg=88.938668676455, roll_deg=177.24411383978767,
                       offset=(-0.030229612576054634, -0.020371382332286143), brightness=0.8982390829114586,
                       white_balance=(1.094064709075471, 1.0698582354795179, 1.076930768083047),
                       gradient=0.117889615742024, gradient_deg=176.80773357647487, vignette=0.28704808782251917,
                       hand=Hand((51.67676147401412, 134.54774412615382), 303.5146240864224, 40.50302342078224,
                                 1.066909260823688, (232, 190, 160), 0.7945654051843312),
                       blur_sigma=0.49893427108720023, noise_sigma=10.158406650804029, light_deg=170.04931155032367,
                       seed=613276766)
TAN_CELLS = {
    "chu-3": {"yellow:house": 1}, "chu-4": {"green:house": 1}, "chu-dragon": {"yellow:emissary": 1},
    "han-1": {"green:house": 1}, "han-2": {"red:house": 1}, "han-3": {"yellow:house": 1}, "han-4": {"red:house": 1},
    "han-5": {"red:house": 1}, "lu-1": {"violet:house": 1}, "lu-2": {"yellow:house": 1}, "lu-3": {"red:house": 1},
    "lu-4": {"green:house": 1}, "lu-dragon": {"violet:emissary": 1}, "qi-1": {"blue:house": 1},
    "qi-2": {"green:house": 1}, "qi-3": {"red:house": 1}, "qi-4": {"yellow:house": 1}, "qi-5": {"yellow:house": 1},
    "qi-6": {"violet:house": 1}, "qi-dragon": {"violet:emissary": 1, "green:emissary": 1}, "qin-1": {"red:house": 1},
    "qin-2": {"green:house": 1}, "qin-3": {"blue:house": 1}, "qin-4": {"violet:house": 1}, "qin-5": {"blue:house": 1},
    "qin-6": {"yellow:house": 1}, "qin-7": {"red:house": 1}, "qin-dragon": {"violet:emissary": 1, "blue:emissary": 1},
    "shu-1": {"violet:house": 1}, "shu-4": {"blue:house": 1}, "shu-5": {"blue:house": 1}, "wei-4": {"blue:house": 1},
    "wei-5": {"violet:house": 1}, "wei-6": {"violet:house": 1}, "yan-3": {"blue:house": 1}, "yan-4": {"red:house": 1},
    "yan-dragon": {"blue:emissary": 1}, "zhao-1": {"red:house": 1}, "zhao-2": {"violet:house": 1},
    "zhao-3": {"yellow:house": 1}, "zhao-4": {"green:house": 1}, "zhao-5": {"red:house": 1},
    "zhao-6": {"green:house": 1}, "zhao-dragon": {"yellow:emissary": 1, "green:emissary": 1},
}


def test_a_pale_palm_in_patches_over_a_pink_board_is_not_read_through() -> None:
    assert read_through("china-a", TABLE_7302, PALE_FRAME, board_of(PALE_CELLS), 77, ENROLLED_7302) == []


def test_a_tan_hand_whose_arm_is_unseen_is_not_read_through() -> None:
    assert read_through("china-a", TABLE_7302, TAN_FRAME, board_of(TAN_CELLS), 95, ENROLLED_7302) == []


# seed 7301, table t2, frame t2-0057: a dark hand whose palm reads as piece colours in fragments, each
# smaller than the pieces it could be; its arm is found and grows, but not over them: the blue house at
# shu-3 under the fingers was read as an empty site. The evidence region the arm's growth reaches, bigger
# than any piece (``GROW_INTO_REGION``), is part of it.
TABLE_7301 = Conditions(size=(1280, 720), fov_deg=71.68137432309928, fill=0.7289496002900153, tilt_deg=16.103544155033312,
                        tilt_azimuth_deg=286.1077177738304, roll_deg=16.287346416206383,
                        offset=(0.021369880226185425, -0.008952659074785489), brightness=0.9943136474566239,
                        white_balance=(0.9028776414524914, 1.145582675587917, 0.9817473332961768),
                        gradient=0.019103703080845025, gradient_deg=83.28278599141004, vignette=0.19339351568401209,
                        blur_sigma=0.019309279607299168, noise_sigma=2.8546744951770884, light_deg=246.84149603968072,
                        seed=631639255)
ENROLLED_7301 = (("han-dragon", "yellow:emissary"), ("lu-3", "red:house"), ("qi-1", "blue:house"), ("qi-6", "violet:house"),
                 ("qi-dragon", "blue:emissary"), ("shu-2", "neutral:fortress"), ("shu-dragon", "green:emissary"),
                 ("wei-2", "yellow:house"), ("wei-dragon", "violet:emissary"), ("yan-3", "green:house"),
                 ("yan-dragon", "red:emissary"))
DARK_FRAME = Conditions(size=(1280, 720), fov_deg=71.68137432309928, fill=0.7457175342417428, tilt_deg=15.583229577823241,
                        tilt_azimuth_deg=286.1509889495288, roll_deg=16.261989286094895,
                        offset=(0.023968468394783032, -0.007781414014947621), brightness=1.2583036126622642,
                        white_balance=(0.9685447934786955, 1.0887733086716302, 1.0476961501730429),
                        gradient=0.267988350754301, gradient_deg=18.94332787657197, vignette=0.24113170310753793,
                        hand=Hand((301.9322744754482, 448.1920830857588), 124.96023389853744, 64.17869902733548,
                                  0.8917978468941757, (170, 120, 90), 0.5571600196839557),
                        blur_sigma=0.6017946653911941, noise_sigma=9.522613129254085, light_deg=242.23347295771757,
                        seed=260572645)
DARK_CELLS = {
    "chu-1": {"violet:house": 1}, "lu-2": {"red:house": 1}, "lu-3": {"green:house": 1}, "qin-7": {"green:house": 1},
    "shu-3": {"blue:house": 1}, "zhao-6": {"blue:house": 1},
}


def test_a_dark_palm_read_as_piece_colours_in_fragments_is_not_read_through() -> None:
    assert read_through("china-a", TABLE_7301, DARK_FRAME, board_of(DARK_CELLS), 93, ENROLLED_7301) == []
