"""One-off migration (issue 18): move two-language texts written in code into the engine catalogues.

Rewrites, in the files given:

* ``Message(EN, ZH)`` with literal or f-string texts   -> ``Message.t(KEY, **ARGS)``
* ``_v(RULE, EN, ZH, ...)`` (every game's violation helper) -> ``_v(RULE, Message.t(KEY, **ARGS), ...)``
* ``fix=(EN, ZH)`` inside such calls                      -> ``fix=Message.t(KEY.fix, **ARGS)``

and adds the texts to ``scorer/i18n/en.json`` and ``zh-Hans.json``. An f-string field becomes a named
``{field}``; a field that differs only by ``.en``/``.zh`` (or ``[0]``/``[1]``, ``_en``/``_zh``) between the
two texts becomes one argument shown in each language. What it cannot convert is listed for a person
(``--report``). Run with ``--dry-run`` first. Not part of the product; kept for the record of how the
catalogues were made.
"""

from __future__ import annotations

import argparse
import ast
import json
import keyword
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CAT = ROOT / "scorer" / "i18n"


def module_prefix(path: Path) -> str:
    rel = path.resolve().relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[:2] == ["scorer", "games"]:
        return ".".join(parts[2:])
    if parts[0] == "scorer":
        return ".".join(parts[1:])
    return ".".join(parts)


def slug(text: str, words: int = 5) -> str:
    plain = re.sub(r"{[^}]*}", " ", text)
    tokens = re.findall(r"[A-Za-z0-9]+", plain.lower())
    return "_".join(tokens[:words]) or "text"


def is_text(node: ast.AST) -> bool:
    return (isinstance(node, ast.Constant) and isinstance(node.value, str)) or isinstance(node, ast.JoinedStr)


_PAIR = [(re.compile(r"\.en$"), ".zh"), (re.compile(r"\[0\]$"), "[1]"), (re.compile(r"_en$"), "_zh")]
_LOCAL_PAIR = re.compile(r"^([a-z_]*)en$")  # locals named en/zh, pen/pzh, aen/azh: one text per language


def _counterpart(expr: str) -> tuple[str, str] | None:
    """``x.en`` -> (``x``, ``x.zh``) etc.: the base and the Chinese form of a per-language field."""
    for pat, zh_suffix in _PAIR:
        if pat.search(expr):
            base = pat.sub("", expr)
            return base, base + zh_suffix
    return None


class Unconvertible(Exception):
    pass


def _fields(node: ast.AST) -> list[ast.FormattedValue]:
    return [v for v in node.values if isinstance(v, ast.FormattedValue)] if isinstance(node, ast.JoinedStr) else []


def _template(node: ast.AST, names: dict[str, str], src: str) -> str:
    if isinstance(node, ast.Constant):
        return node.value.replace("{", "{{").replace("}", "}}")
    out = []
    for v in node.values:
        if isinstance(v, ast.Constant):
            out.append(str(v.value).replace("{", "{{").replace("}", "}}"))
            continue
        expr = ast.unparse(v.value)
        name = names[expr]
        conv = {-1: "", 115: "!s", 114: "!r", 97: "!a"}[v.conversion]
        spec = ""
        if v.format_spec is not None:
            if any(isinstance(x, ast.FormattedValue) for x in v.format_spec.values):
                raise Unconvertible("nested format spec")
            spec = ":" + "".join(str(x.value) for x in v.format_spec.values)
        out.append("{" + name + conv + spec + "}")
    return "".join(out)


def _arg_name(expr: str, taken: set[str]) -> str:
    m = re.findall(r"[A-Za-z_][A-Za-z0-9_]*", expr)
    base = m[-1] if m else "value"
    if base in ("en", "zh", "join", "get", "upper", "lower", "value", "name"):
        base = (m[-2] if len(m) > 1 else base)
    base = re.sub(r"_(en|zh)$", "", base) or "value"
    if base in ("en", "zh"):
        base = "text"
    if keyword.iskeyword(base) or base in ("key", "args", "texts"):
        base += "_"
    name, i = base, 2
    while name in taken:
        name, i = f"{base}{i}", i + 1
    taken.add(name)
    return name


def convert_pair(en: ast.AST, zh: ast.AST, src: str) -> tuple[str, str, list[tuple[str, str]]]:
    """(en template, zh template, [(arg name, python expression)])."""
    en_exprs = [ast.unparse(f.value) for f in _fields(en)]
    zh_exprs = [ast.unparse(f.value) for f in _fields(zh)]
    names: dict[str, str] = {}
    args: list[tuple[str, str]] = []
    taken: set[str] = set()
    for e in en_exprs:
        if e in names:
            continue
        if e in zh_exprs:
            n = _arg_name(e, taken)
            names[e] = n
            args.append((n, e))
            continue
        local = _LOCAL_PAIR.match(e)
        if local and f"{local.group(1)}zh" in zh_exprs:
            zh_e = f"{local.group(1)}zh"
            n = _arg_name(local.group(1) or "text", taken)
            names[e] = names[zh_e] = n
            args.append((n, f"Message({e}, {zh_e})"))
            continue
        pair = _counterpart(e)
        if pair and pair[1] in zh_exprs:
            base, zh_e = pair
            n = _arg_name(base, taken)
            names[e] = n
            names[zh_e] = n
            if e.endswith(".en"):
                args.append((n, base))
            elif e.endswith("[0]"):
                args.append((n, f"Message(*{base})" if not base.endswith(")") else f"Message(*({base}))"))
            else:
                args.append((n, f"Message({e}, {zh_e})"))
            continue
        raise Unconvertible(f"English field {{{e}}} has no counterpart in the Chinese text")
    for z in zh_exprs:
        if z not in names:
            raise Unconvertible(f"Chinese field {{{z}}} has no counterpart in the English text")
    return _template(en, names, src), _template(zh, names, src), args


def call_text(key: str, args: list[tuple[str, str]]) -> str:
    inner = "".join(f", {n}={e}" for n, e in args)
    return f"Message.t({key!r}{inner})"


class Catalogue:
    def __init__(self) -> None:
        self.en = json.loads((CAT / "en.json").read_text("utf-8"))
        self.zh = json.loads((CAT / "zh-Hans.json").read_text("utf-8"))

    def add(self, key: str, en: str, zh: str) -> str:
        """Add under ``key`` (or ``key.2`` ... if taken by another text); returns the key used."""
        base, i = key, 2
        while key in self.en and (self.en[key], self.zh.get(key)) != (en, zh):
            key, i = f"{base}.{i}", i + 1
        self.en[key], self.zh[key] = en, zh
        return key

    def save(self) -> None:
        for name, data in (("en.json", self.en), ("zh-Hans.json", self.zh)):
            meta = {k: v for k, v in data.items() if k.startswith("_")}
            body = dict(sorted((k, v) for k, v in data.items() if not k.startswith("_")))
            (CAT / name).write_text(json.dumps({**meta, **body}, ensure_ascii=False, indent=1) + "\n", "utf-8")


_V_DEF = re.compile(r"def _v\(rule: str, en: str, zh: str, spaces: ([^=]+) = \(\), fix: tuple\[str, str\] \| None = None\) -> Violation:\n"
                   r"    return Violation\(rule, Message\(en, zh\), tuple\(SpaceId\(s\) for s in spaces\), Message\(\*fix\) if fix else None\)\n")
_V_NEW = ("def _v(rule: str, message: Message | str, *rest: Any, fix: Message | tuple[str, str] | None = None) -> Violation:\n"
          "    \"\"\"``_v(rule, Message.t(key, ...), spaces, fix=Message.t(...))``; see scorer.core.types.violation.\"\"\"\n"
          "    return violation(rule, message, *rest, fix=fix)\n")


def migrate(path: Path, cat: Catalogue, report: list[str]) -> int:
    src = path.read_text("utf-8")
    if _V_DEF.search(src):
        src = _V_DEF.sub(_V_NEW, src)
        src = re.sub(r"^(from scorer\.core\.types import .*)$", lambda m: m.group(1) + ", violation", src, count=1, flags=re.M)
        if re.search(r"^from typing import ", src, flags=re.M) and not re.search(r"^from typing import .*\bAny\b", src, flags=re.M):
            src = re.sub(r"^(from typing import )", r"\1Any, ", src, count=1, flags=re.M)
        elif not re.search(r"^from typing import .*\bAny\b", src, flags=re.M):
            src = re.sub(r"^from __future__ import annotations\n", "from __future__ import annotations\n\nfrom typing import Any\n", src, count=1, flags=re.M)
        path.write_text(src, "utf-8")
    tree = ast.parse(src)
    prefix = module_prefix(path)
    # ast offsets are UTF-8 byte offsets within a line; work in bytes to be exact.
    data = src.encode("utf-8")
    boffsets = [0]
    for line in src.encode("utf-8").splitlines(keepends=True):
        boffsets.append(boffsets[-1] + len(line))

    def bspan(node: ast.AST) -> tuple[int, int]:
        return boffsets[node.lineno - 1] + node.col_offset, boffsets[node.end_lineno - 1] + node.end_col_offset

    edits: list[tuple[int, int, str]] = []
    game = prefix.split(".")[0]

    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        fname = ast.unparse(node.func)
        try:
            if fname == "Message" and len(node.args) == 2 and not node.keywords and all(is_text(a) for a in node.args):
                en_t, zh_t, args = convert_pair(node.args[0], node.args[1], src)
                key = cat.add(f"{prefix}.{slug(en_t)}", en_t, zh_t)
                edits.append((*bspan(node), call_text(key, args)))
            elif fname == "_v" and len(node.args) >= 3 and isinstance(node.args[0], ast.Constant) and all(is_text(a) for a in node.args[1:3]):
                rule = node.args[0].value
                en_t, zh_t, args = convert_pair(node.args[1], node.args[2], src)
                key = cat.add(f"{game}.{rule}", en_t, zh_t)
                start = bspan(node.args[1])[0]
                end = bspan(node.args[2])[1]
                edits.append((start, end, call_text(key, args)))
                for kw in node.keywords:
                    if kw.arg == "fix" and isinstance(kw.value, ast.Tuple) and len(kw.value.elts) == 2 and all(is_text(e) for e in kw.value.elts):
                        fen, fzh, fargs = convert_pair(kw.value.elts[0], kw.value.elts[1], src)
                        fkey = cat.add(f"{key}.fix", fen, fzh)
                        edits.append((*bspan(kw.value), call_text(fkey, fargs)))
                    elif kw.arg == "fix" and not (isinstance(kw.value, ast.Constant) and kw.value.value is None):
                        report.append(f"{path}:{kw.value.lineno}: fix= not a pair of texts: {ast.unparse(kw.value)[:80]}")
                if len(node.args) > 4:
                    fixarg = node.args[4]
                    if isinstance(fixarg, ast.Tuple) and len(fixarg.elts) == 2 and all(is_text(e) for e in fixarg.elts):
                        fen, fzh, fargs = convert_pair(fixarg.elts[0], fixarg.elts[1], src)
                        fkey = cat.add(f"{key}.fix", fen, fzh)
                        edits.append((*bspan(fixarg), call_text(fkey, fargs)))
                    elif not (isinstance(fixarg, ast.Constant) and fixarg.value is None):
                        report.append(f"{path}:{fixarg.lineno}: positional fix not a pair of texts: {ast.unparse(fixarg)[:80]}")
            elif fname in ("Message", "_v") and len(node.args) >= 2:
                shown = ", ".join(ast.unparse(a)[:60] for a in node.args[:3])
                if any(is_text(a) for a in node.args[:3]) or fname == "Message":
                    report.append(f"{path}:{node.lineno}: not converted: {fname}({shown})")
        except Unconvertible as exc:
            report.append(f"{path}:{node.lineno}: {exc}: {ast.unparse(node)[:140]}")

    # drop edits nested inside other edits (keep the outer one only when it is a whole Message call)
    edits.sort()
    kept: list[tuple[int, int, str]] = []
    for e in edits:
        if kept and e[0] < kept[-1][1]:
            report.append(f"{path}: overlapping edit skipped at byte {e[0]}")
            continue
        kept.append(e)
    out = data
    for start, end, text in reversed(kept):
        out = out[:start] + text.encode("utf-8") + out[end:]
    if kept:
        new = out.decode("utf-8")
        try:
            ast.parse(new)
        except SyntaxError as exc:
            report.append(f"{path}: rewrite not valid Python ({exc}); file left unchanged")
            return 0
        path.write_text(new, "utf-8")
    return len(kept)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("files", nargs="+", type=Path)
    ap.add_argument("--dry-run", action="store_true")
    ap.add_argument("--report", type=Path)
    args = ap.parse_args()
    cat = Catalogue()
    report: list[str] = []
    total = 0
    for f in args.files:
        if args.dry_run:
            text = f.read_text("utf-8")
            n = migrate(f, cat, report)
            f.write_text(text, "utf-8")
        else:
            n = migrate(f, cat, report)
        total += n
        print(f"{f}: {n} texts moved", file=sys.stderr)
    if not args.dry_run:
        cat.save()
    print(f"{total} texts moved; {len(report)} left for a person", file=sys.stderr)
    if args.report:
        args.report.write_text("\n".join(report) + "\n", "utf-8")
    else:
        print("\n".join(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
