"""The Markdown side of checked claims (docs/claims.md): the `:c[id]` and
`:c[id|hypothesis]` token, the core rule that wraps the sentence a reference ends, and
the render rules, which look the claim up through the page context (cit/markdown.py
hooks these in; the claims themselves are cit/claims.py).
"""

from __future__ import annotations

import re

from .claims import HYPOTHESIS, mark_html, open_html, parse_reference

# a sentence ends at . ! or ? (closing quotes or brackets may follow) before a space
SENTENCE_END_RE = re.compile(r"(?<!\be\.g)(?<!\bi\.e)(?<!\bvs)[.!?][\"'”’)\]]*\s+")
CLOSING_PUNCT_RE = re.compile(r"^[.!?;,:]+")


def claim_token(state, silent: bool) -> bool:
    """Inline rule for `:c[id]` / `:c[id|hypothesis]`; anything else that starts `:c[`
    becomes an error token naming its line."""
    src, pos = state.src, state.pos
    end = src.find("]", pos + 3)
    inner = src[pos + 3:end] if end >= 0 else ""
    parsed = parse_reference(inner) if end >= 0 and "\n" not in inner else None
    if parsed is None:
        if silent:
            return False
        tok = state.push("cit_bad", "", 0)
        tok.meta = {"pos": pos, "msg": f"malformed claim reference starting "
                                       f"{src[pos:pos + 40]!r} (expected :c[id] or "
                                       f":c[id|{HYPOTHESIS}])"}
        state.pos = pos + 3
        return True
    if not silent:
        tok = state.push("cit_claim", "", 0)
        tok.meta = {"id": parsed[0], "marked": parsed[1], "pos": pos}
    state.pos = end + 1
    return True


def _sentence_start(children: list, k: int):
    """Where the sentence that ends at child k starts: (child index, offset in that
    child's text), staying inside the element that holds the reference."""
    depth = 0
    for i in range(k - 1, -1, -1):
        t = children[i]
        if t.type == "cit_claim":           # the previous claim's sentence ends here
            return i + 1, 0
        if t.nesting == -1:
            depth += 1
        elif t.nesting == 1:
            if depth == 0:
                return i + 1, 0
            depth -= 1
        elif depth == 0 and t.type == "text":
            ends = list(SENTENCE_END_RE.finditer(t.content))
            if ends:
                return i, ends[-1].end()
    return 0, 0


def _wrap_sentence(children: list, k: int) -> list:
    """Children with an opening token at the start of the sentence that child k (a
    claim reference) ends; the sentence's closing punctuation moves inside it."""
    from markdown_it.token import Token

    ref = children[k]
    i, off = _sentence_start(children, k)
    opener = Token("cit_claim_open", "", 0)
    opener.meta = dict(ref.meta)
    before, after = children[:i], children[i:k]
    if off:
        t = children[i]
        head, tail = Token("text", "", 0), Token("text", "", 0)
        head.content, tail.content = t.content[:off], t.content[off:]
        before, after = children[:i] + [head], [tail] + children[i + 1:k]
    if after and after[0].type == "text" and after[0].content[:1].isspace():
        space = Token("text", "", 0)
        space.content = after[0].content[:len(after[0].content) - len(after[0].content.lstrip())]
        after[0].content = after[0].content.lstrip()
        before = before + [space]
    if after and after[-1].type == "text":
        after[-1].content = after[-1].content.rstrip()
    rest = children[k + 1:]
    if rest and rest[0].type == "text":
        m = CLOSING_PUNCT_RE.match(rest[0].content)
        if m:
            punct = Token("text", "", 0)
            punct.content = m.group(0)
            after = after + [punct]
            rest[0].content = rest[0].content[m.end():]
    return before + [opener] + after + [ref] + rest


def core_claims(state) -> None:
    """Core rule: each claim reference wraps the sentence it ends."""
    for tok in state.tokens:
        if tok.type != "inline" or not tok.children:
            continue
        k = 0
        while k < len(tok.children):
            c = tok.children[k]
            if c.type == "cit_claim" and not c.meta.get("wrapped"):
                c.meta["wrapped"] = True
                tok.children = _wrap_sentence(tok.children, k)
                k = 0
                continue
            k += 1


def render_claim_open(self, tokens, idx, options, env) -> str:
    tok = tokens[idx]
    c = env["ctx"].claim(tok.meta["id"], tok.meta["marked"], where=where_of(env, tok))
    return open_html(c)


def render_claim_mark(self, tokens, idx, options, env) -> str:
    tok = tokens[idx]
    c = env["ctx"].claim(tok.meta["id"], tok.meta["marked"], where=where_of(env, tok))
    return mark_html(c)


def where_of(env, tok) -> str:
    """`file:line` of an extension token of the Markdown layer (cit/markdown.py renders
    its numbers and terms with it too)."""
    return f"{env['path']}:{tok.meta.get('line', env['line0'] + 1)}"
