"""What this camera, at this distance, cannot read of a table's print, said at enrolment.

The enrolment photo is taken from the camera's own pose, so the faces cut from it show the print at
the scale and blur the frames will. Where they do not tell printed values apart (The Great Wall's
token digits at ~0.5 px/mm: ``vision.card_tokens.values_legible``), the players should hear it when
they enrol, not discover it in play: the referee then takes a token's value from the game state
(``scorer.core.unvalued``) and every reveal is declared, unless the camera gives detail stills.
"""

from __future__ import annotations

from typing import Any

from scorer.core.types import Message
from vision.layout import Layout


def cannot_read(layout: Layout, model: Any) -> list[Message]:
    """Messages for the enrolment's result: what the watched frames will not read at this distance."""
    from vision.card_rows import is_card_layout

    out: list[Message] = []
    if not is_card_layout(layout) or not getattr(model, "faces", None):
        return out
    from vision.card_detail import detail_faces
    from vision.card_tokens import token_faces, values_legible

    tokens = token_faces(layout, model.faces)
    if len(tokens) >= 2 and not detail_faces(model.faces) and not values_legible(tokens):
        out.append(Message.t("vision.readability.token_values"))
    return out


__all__ = ["cannot_read"]
