"""Terms given to the wrong owner: "vLLM 的核心是 RadixAttention", "AReaL comes from Zhipu". A fluent
wrong answer keeps every term of the right one and swaps who owns what, so the judge by meaning
reads it as the right claim; the facts (`knowledge/facts.yaml`) say whose each term is.

A term is bound to the rival named nearest to it in the same stretch of the sentence, and only
through a word that relates them (a design through "'s", "uses", "is built on", 的, 核心是; an
origin through "from", "by", 来自, 提出). Precision comes first: a stretch that negates, compares
or shares ("not", "like", "both", "respectively", 也, 分别) binds nothing, and neither does a
question."""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from knowledge.facts import Attribute, Group, Outsider, confusion, load_facts, misattribution_id

CLAIM = re.compile(r"[^;；。!?！？\n]+[;；。!?！？\n]?")
QUESTION = re.compile(r"[?？]$|吗")
CONTRAST = re.compile(
    r"\b(?:while|whereas|but|however|unlike|compared (?:to|with)|in contrast|rather than|instead of)\b|, (?:and|so) |"
    r"而|但|不过|相比|不同于|不像|与之相对"
)
"""Where one claim ends and the next begins: a term is never bound across a contrast."""
SHARED = re.compile(
    r"\b(?:like|similar|similarly|equivalent|comparable|akin|both|respectively|either|vs|versus|or)\b|"
    r"\beach\b(?!\s+(?:token|solution|response|sample|answer|sequence|prompt|step|rank|gpu|expert|layer|request|query|batch|example|problem|question)s?\b)|"
    r"类似|相当于|一样|都(?:是|用|有|能|会|可以|支持|采用|基于|在)|两者|分别|或"
)
"""Comparison or sharing: a stretch that says one of these binds nothing. 都 only as "both do"
("vLLM 和 SGLang 都用 ..."), not as "each time" ("每生成一个 token 都要做完整的矩阵乘"); "each" only as
"each of them", not as "for each solution" (a trial's "R1-Zero was trained with PPO against a
learned reward model that scored whether each solution was correct" bound nothing)."""
DESCRIBED = (
    r"answers?|responses?|samples?|groups?|tokens?|ones?|completions?|rollouts?|outputs?|solutions?|"
    r"positives?|negatives?|predictions?|labels?|steps?|rewards?|trajector(?:y|ies)"
)
DENIED = re.compile(
    rf"(?<!-)\b(?:wrong|myth|false|incorrect|untrue|mistaken)\b(?!-|\s+(?:{DESCRIBED})\b)|误解|"
    r"错误(?!的?(?:答案|回答|样本|回复|输出|组|轨迹))|说法不对|并不是"
)
"""A stretch that calls something wrong ("it's wrong to say SFT is mode-seeking") asserts nothing; a
thing described as wrong ("filter all-correct and all-wrong groups", 错误答案) is not a denial (blind
trial 37's "DeepSeek's DAPO paper ... filter all-correct and all-wrong groups" was read as one)."""
NEGATED = re.compile(
    r"\b(?:not|no|never|rarely|seldom|hardly|without|neither|nor|loses?|lost|lacks?|drops?)\b|n't|没|不|无|非|丢|失去|很少|极少|鲜少"
)
"""Negation between a name and a term: "vLLM does not use RadixAttention" is right, and so is "TP
很少跨节点" (blind trial 38's correct answer to "为什么张量并行很少跨节点", challenged as the swap)."""
RELATION = {
    "design": re.compile(
        r"'s\b|\b(?:uses?|used|using|introduced?|is|are|was|core|centre|center|built|based|relies|rely|"
        r"calls?|named|with|has|have|keeps?|computes?|applies|apply|minimi[sz]es?|its|which|that|gives?)\b|[(（]|的|是|用|采用|"
        r"基于|核心|提出|引入|叫"
    ),
    "origin": re.compile(
        r"'s\b|\b(?:from|by|at|developed|proposed|introduced|released|created|open-sourced|built|team|lab)\b|"
        r"[(（]|来自|出自|提出|推出|发布|开源|开发|出品|团队|做的"
    ),
}
"""The words through which a term is bound to its owner, per kind of fact (`Group.binds_by`)."""
USED_OR_BUILT_ON = re.compile(
    r"\b(?:uses?|used|using|adopt(?:s|ed)?|employ(?:s|ed)?|deploy(?:s|ed)?|runs?|ran|trains?|trained|keeps?|kept|"
    r"borrow(?:s|ed)?|inherit(?:s|ed)?|takes|took|"
    r"supports?|serves?|(?:built|based|running|sits?)\s+(?:on|upon|atop)|on top of)\b|"
    r"被|在用|基于|跑在|依赖|支持"
)
"""Between a name and a lab: the lab uses it or it stands on the lab's work ("verl is used by the Qwen
team", "slime is built on NVIDIA's Megatron", "Dr. GRPO kept β = 0.04 from DeepSeekMath"), which says
nothing about who made it."""
LISTED = re.compile(r"\s*(?:and|&|和|与|及|以及|跟|、)\s*(?:(?:the|that|this|its|their)\s+)?")
"""Two names joined as a list ("Dr.GRPO 和 DAPO 的机制", "the gap between the behaviour policy and that
proximal policy") are not bound to each other."""
PAREN = re.compile(r"[(（]")
OWNED_BY_NEXT = re.compile(
    r"\s*(?:'s|’s|的|开源的|推出的|提出的|做的|出品的|家的|团队的|[(（]|(?:is|are|was|belongs to|comes from|是|属于|来自)\s*)\s*$"
)
"""What joins a term to the name right after it that owns it ("ByteDance's verl", "X (vLLM)",
"序列级 ratio 是 GSPO 的做法")."""
PROPOSED_NEXT = re.compile(
    r"\s*(?:(?:also|first|originally)\s+)?(?:proposed|introduced|invented|came up with)\s+(?:the\s+)?$|"
    r"\s*(?:还|也|最早|首先|率先)?(?:提出了?|发明了?|引入了?)\s*$"
)
"""An origin named before the technique it made, in the active voice ("DAPO introduced Clip-Higher",
"Dr.GRPO 还提出了 clip-higher")."""
POSSESSOR = re.compile(r"[a-z0-9]'s\s*$|\S\s*的\s*$")
AFTER_TERM = re.compile(
    r"'s\b|\s+(?:built|developed|created|released|open-sourced|proposed|introduced)\b|"
    r"\s*(?:在[^，,。；;]{1,16}?[里中上]\s*)?(?:的|开源|提出|推出|发布|开发|出品|做)"
)
"""An origin word right after a term, relating it to the name before ("slime 是蚂蚁开源的", "Mooncake,
which ByteDance built", "GSPO 是 DeepSeek 在 V3.2 里提出的")."""
MAX_GAP = 40
"""Characters between a name and a term, beyond which they are not read as bound."""


@dataclass(frozen=True)
class Misattribution:
    misconception: str
    """The misconception's id (`knowledge.facts.misattribution_id`)."""
    term: str
    given_to: str
    """The rival the sentence gave the term to."""
    same_as: tuple[str, ...] = ()
    """Bank misconceptions that state this swap (`knowledge.facts.Attribute.same_as`)."""


@dataclass(frozen=True)
class _Name:
    start: int
    end: int
    owner: int
    """Index of the owner in the group; for a term, of the one who owns it (`NOBODY` for an outsider)."""
    attribute: Attribute | Outsider | None = None


NOBODY = -1


def _pattern(name: str) -> re.Pattern[str]:
    # A name that ends in a number ends where its digits do: "λ=0" is not in "λ=0.95".
    number_end = r"(?![0-9]|[.,][0-9])" if name[-1:].isdigit() else ""
    if name.isascii():
        # "Qwen" in "R1-Zero-Qwen-32B" names a model, not the team.
        return re.compile(rf"(?<![a-z0-9-]){re.escape(name)}(?![a-z0-9-]){number_end}")
    return re.compile(re.escape(name) + number_end)


@cache
def _patterns(
    group_id: str,
) -> tuple[list[tuple[int, re.Pattern[str]]], list[tuple[int, Attribute | Outsider, re.Pattern[str]]]]:
    group = next(g for g in load_facts().groups if g.id == group_id)
    owners = [(i, _pattern(n.lower())) for i, owner in enumerate(group.owners) for n in owner.names]
    owned: list[tuple[int, Attribute | Outsider]] = [(i, a) for i, owner in enumerate(group.owners) for a in owner.owns]
    owned += [(NOBODY, outsider) for outsider in group.outsiders]
    return owners, [(i, a, _pattern(n.lower())) for i, a in owned for n in a.names]


def _find(stretch: str, group: Group) -> tuple[list[_Name], list[_Name]]:
    owner_patterns, term_patterns = _patterns(group.id)
    owners = [_Name(m.start(), m.end(), i) for i, p in owner_patterns for m in p.finditer(stretch)]
    terms = [_Name(m.start(), m.end(), i, a) for i, a, p in term_patterns for m in p.finditer(stretch)]
    # A name inside a longer one ("字节" in "字节跳动", "glm" in a term's own words) is part of it.
    terms = [t for t in terms if not any(_inside(t, u) for u in terms)]
    owners = [o for o in owners if not any(_inside(o, t) or (o.start, o.end) == (t.start, t.end) for t in terms)]
    if group.binds_by == "role":
        owners = [o for o in owners if not any(_inside(o, u) for u in owners) and not _in_a_ratio(stretch, o, owners)]
    return owners, terms


def _inside(name: _Name, other: _Name) -> bool:
    return other.start <= name.start and name.end <= other.end and other.end - other.start > name.end - name.start


def _bound_to(
    stretch: str, term: _Name, owners: list[_Name], terms: list[_Name], relation: re.Pattern[str]
) -> _Name | None:
    """The owner the stretch binds the term to: the nearest name before it that a relating word joins
    to it ("vLLM's core is X", "X 来自 Y" or "Y 是 X 开源的": the word may follow the term), or a name
    right after it that owns it ("X's Y", "X 的 Y", "Y (X)")."""
    best: tuple[int, _Name] | None = None
    for owner in owners:
        if owner.end <= term.start:
            gap = stretch[owner.end : term.start]
            # a relating word after the term binds it to a name before it in the same clause only
            # ("Dr. GRPO 去掉了长度偏差，DAPO 提出了 clip-higher": DAPO made clip-higher, not that)
            after = AFTER_TERM.match(stretch, term.end) and not CLAUSE_BREAK_ZH.search(gap)
            # A name right before its predicate ("ZeRO-3 only shards ...", "decode compute-bound") is its subject;
            # a bracket relates only right after the name ("verl (ByteDance)", not "(Dr. GRPO), ... (DAPO").
            said = relation.search(PAREN.sub(" ", gap)) or gap.strip() in ("(", "（")
            related = bool(said or after or not gap.strip()) and not _possessed(stretch, owner)
            related = related and not LISTED.fullmatch(gap)
        elif owner.start >= term.end:
            gap = stretch[term.end : owner.start]
            related = bool(OWNED_BY_NEXT.match(gap) or (relation is RELATION["origin"] and PROPOSED_NEXT.match(gap)))
        else:
            continue
        # a rival named between them is nearer the term ("decoupled PPO 的 proximal policy，以及 GSPO 那种序列级
        # ratio": the ratio is not PPO's, a hint of ours)
        rivals = [o for o in owners if o.owner != owner.owner]
        if relation is RELATION["origin"] and USED_OR_BUILT_ON.search(gap):
            continue
        if len(gap) > MAX_GAP or not related or NEGATED.search(gap) or _term_between(owner, term, [*terms, *rivals]):
            continue
        if best is None or len(gap) < best[0]:
            best = (len(gap), owner)
    return best[1] if best else None


COMMA = re.compile(r"[,，、]")
CLAUSE_BREAK_ZH = re.compile(r"[，；;]")
"""In Chinese a comma starts a new clause ("…长度偏差，DAPO 提出了…"); in English a comma may open a
relative clause about the name before it ("Mooncake, which ByteDance built")."""


def _clause_around(stretch: str, owner: _Name, term: _Name) -> str:
    """The comma-delimited stretch from the name to the term: where sharing or comparing would
    unbind them ("vLLM, like SGLang, uses ..."). A simile elsewhere in the sentence does not: the
    trial's "PagedAttention 是 vLLM 的，核心是把 KV cache 切成 block，像操作系统分页一样 ..." gives
    PagedAttention back to vLLM."""
    low, high = min(owner.start, term.start), max(owner.end, term.end)
    before = [m.end() for m in COMMA.finditer(stretch, 0, low)]
    after = COMMA.search(stretch, high)
    return stretch[before[-1] if before else 0 : after.start() if after else len(stretch)]


ROLE_STOP_BEFORE = re.compile(r"\b(?:and|then|so)\b|然后|并(?![不非没])|接着")
"""Between a name and a term: a second predicate begins ("... in the inference engine and replays
them in the trainer": the replaying is not the engine's; "the pipeline stages on the fast links
inside a machine and spread the tensor-parallel shards": the machine is not TP's)."""
ROLE_STOP_AFTER = re.compile(rf"{ROLE_STOP_BEFORE.pattern}|\b(?:what|which|whose|that|who)\b")
"""... and between a term and a later name, a relative clause ("replays what vLLM chose")."""
WEIGHED = re.compile(
    r"\b(?:slow|slower|too|avoid|avoids|bad|worse|expensive|costly|kills?|hurts?|would|could|if|"
    r"people (?:often )?think|some think|assume)\b|"
    r"慢|避免|别|不要|不能|不该|不应|代价|瓶颈|太|如果|假如|要是|以为|有人"
)
"""A clause that weighs, supposes or reports a placement rather than states it ("TP across nodes
would be too slow", "如果 behavior policy 同时当 clip 中心", "people think you can extend TP over IB");
one that negates anything ("I wouldn't stretch TP across nodes") is passed over as well."""
PLACE = re.compile(r"\b(?:in|on|at|during|inside|within|into|onto|over|across|to)\b|在|于|到")
"""A name after a role term is where the role is played only through a word of place ("recorded in
the trainer"), not as its object ("replays old rollouts") or the owner of its object."""
OBJECT_NEXT = re.compile(r"\s*(?:the\s+|only\s+|just\s+)*")
"""A name right after a role word it is the object of ("raises ε_high", "raise the upper bound")."""
OWNER_OF_NEXT = re.compile(r"\s*(?:'s|’s|时的|的)")
ADJECTIVE = re.compile(r"\b(?:the|those|these|its|their)\s*$")
"""A role word after a determiner names a thing ("those recorded values"), it does not state a role."""
OBJECT_OF_BA = re.compile(r"把[^，,。；;]*$")
RATIO = re.compile(r"\s*(?:/|over|除以)\s*$")


def _role_of(text: str, term: _Name, owners: list[_Name], terms: list[_Name], *, acted_on: bool) -> _Name | None:
    """The rival a role term is given to: the nearest name on either side in the term's clause, with
    no other term of the group, negation or new predicate between, in a clause that states the role
    rather than weighing it."""
    if text[term.start : term.end].endswith("ed") and ADJECTIVE.search(text[: term.start]):
        return None
    words = _terms_blanked(text, terms)
    best: tuple[int, _Name] | None = None
    for owner in owners:
        if _listed(text, owner, owners):
            continue
        if owner.end <= term.start:
            gap = words[owner.end : term.start]
            # 把 puts the name in the object ("把推理时选中的专家回放"), not where the verb happens
            in_the_object = not acted_on and OBJECT_OF_BA.search(text[: owner.start])
            placed = not ROLE_STOP_BEFORE.search(gap) and not in_the_object
        elif owner.start >= term.end:
            gap = words[term.end : owner.start]
            placed = (
                bool(PLACE.search(gap + text[term.start : term.end]) or (acted_on and OBJECT_NEXT.fullmatch(gap)))
                and not ROLE_STOP_AFTER.search(gap)
                and not OWNER_OF_NEXT.match(text, owner.end)
            )
        else:
            continue
        rivals_between = [o for o in owners if o.owner != owner.owner]
        if (
            not placed
            or len(gap) > MAX_GAP
            or COMMA.search(gap)
            or NEGATED.search(gap)
            or _term_between(owner, term, terms)
            or _term_between(owner, term, rivals_between)
        ):
            continue
        if best is None or len(gap) < best[0]:
            best = (len(gap), owner)
    clause = _clause_around(words, best[1], term) if best else ""
    if best is None or WEIGHED.search(clause) or NEGATED.search(clause):
        return None
    return best[1]


TERM_ALTERNATIVES = re.compile(r"#+\s*(?:或者?|or|/)\s*#+")


def _terms_blanked(text: str, terms: list[_Name]) -> str:
    """The text, same length, with the group's terms blanked and a choice between two of them joined:
    a word inside a term ("too easy", 太难, 不变) is no hedge or negation, and "过难或过易" ("too hard
    or too easy") is one term, not a claim shared between two owners (blind trial 38's swap of
    Dr. GRPO's two biases went unread for both)."""
    chars = list(text)
    for term in terms:
        chars[term.start : term.end] = "#" * (term.end - term.start)
    return TERM_ALTERNATIVES.sub(lambda m: "#" * len(m.group(0)), "".join(chars))


def _listed(text: str, name: _Name, owners: list[_Name]) -> bool:
    """Is the name listed with a rival ("all-to-all dispatch and combine to send tokens to ..."): the
    role is then the pair's, not the nearer one's."""
    return any(
        (o.end <= name.start and LISTED.fullmatch(text[o.end : name.start]))
        or (name.end <= o.start and LISTED.fullmatch(text[name.end : o.start]))
        for o in owners
        if o.owner != name.owner
    )


def _in_a_ratio(text: str, name: _Name, owners: list[_Name]) -> bool:
    """Is the name one side of a ratio of two of the group's names ("π_prox / π_behav")? It then
    names the weight, not a role."""
    return any(
        (o.end <= name.start and RATIO.match(text[o.end : name.start]))
        or (name.end <= o.start and RATIO.match(text[name.end : o.start]))
        for o in owners
        if o.owner != name.owner
    )


def _without_names(stretch: str, names: list[str]) -> str:
    """The stretch with these names blanked (same length, so positions hold)."""
    for name in names:
        stretch = _pattern(name.lower()).sub(lambda m: " " * len(m.group(0)), stretch)
    return stretch


def _term_between(owner: _Name, term: _Name, terms: list[_Name]) -> bool:
    """Is another term of the group nearer the name? The name is bound to that one ("GRPO's token-level
    ratio with a sequence-level one": the sequence-level ratio is not GRPO's)."""
    low, high = min(owner.end, term.end), max(owner.start, term.start)
    return any(low <= t.start and t.end <= high for t in terms if t is not term)


def _possessed(stretch: str, owner: _Name) -> bool:
    """Is this name the object of a possessive ("DeepSeek's GRPO", "字节的 verl")? It then names a
    thing, and the claim around it is about another subject."""
    return bool(POSSESSOR.search(stretch[: owner.start]))


COMPARED = re.compile(r"unlike|compared|in contrast|不同于|不像|相比")
"""A contrast that names the other side first ("SGLang, unlike vLLM, uses RadixAttention")."""
ASIDE = re.compile(r"^[^,，]*[,，]")


def _stretches(claim: str) -> list[str]:
    """The claim cut at its contrasts. After "unlike X," the name up to the comma is the one the
    claim is compared with, not its subject: it is left out of the stretch that follows."""
    out, start, compared = [], 0, False
    for match in CONTRAST.finditer(claim):
        out.append(_without_aside(claim[start : match.start()], compared))
        start, compared = match.end(), bool(COMPARED.search(match.group(0)))
    out.append(_without_aside(claim[start:], compared))
    return out


def _without_aside(stretch: str, compared: bool) -> str:
    return ASIDE.sub("", stretch, count=1) if compared else stretch


def misattributions_in(sentence: str) -> list[Misattribution]:
    """The terms this sentence gives to a rival of their owner, one per term."""
    found: dict[str, Misattribution] = {}
    for binding in _bindings(sentence):
        if not binding.right:
            found.setdefault(binding.swap.misconception, binding.swap)
    return list(found.values())


def rightly_owned_in(sentence: str) -> set[str]:
    """The swaps this sentence puts right: the misattribution ids of the terms it binds to their
    own owner ("不好意思我说反了。PagedAttention 是 vLLM 提出的")."""
    return {b.swap.misconception for b in _bindings(sentence) if b.right}


def puts_right(misconception: str, wrong: str, sentence: str) -> bool:
    """Does the sentence put right the swap the wrong sentence made: give the term back to its owner,
    or give the owner the wrong sentence misplaced its own term of the group ("ProRL 其实是 NVIDIA 的",
    after "ProRL ... from Google DeepMind")?"""
    if misconception in rightly_owned_in(sentence):
        return True
    misplaced = {b.swap.given_to for b in _bindings(wrong) if b.swap.misconception == misconception and not b.right}
    group = confusion(misconception)
    return any(
        b.right and b.swap.given_to in misplaced and confusion(b.swap.misconception) == group
        for b in _bindings(sentence)
    )


@dataclass(frozen=True)
class _Binding:
    swap: Misattribution
    """The swap of the term bound (the term and the name it is bound to here)."""
    right: bool
    """Bound to its own owner."""


COLON = re.compile(r"[:：]")


def _past_a_denial(stretch: str) -> str:
    """A stretch that calls something wrong asserts nothing, up to a colon after the denial: "You're
    right, that was wrong: slime is from THUDM" (blind trial 36's correction) asserts what follows."""
    denied = DENIED.search(stretch)
    if denied is None:
        return stretch
    colon = COLON.search(stretch, denied.end())
    return stretch[colon.end() :] if colon else ""


def _bindings(sentence: str) -> list[_Binding]:
    out = []
    claims = [c.group(0) for c in CLAIM.finditer(sentence.lower())]
    stretches = [s for c in claims if not QUESTION.search(c.strip()) for s in _stretches(c)]
    for stretch in stretches:
        stretch = _past_a_denial(stretch)
        if not stretch.strip():
            continue
        for group in load_facts().groups:
            if group.context and not any(word in stretch for word in group.context):
                continue
            text = _without_names(stretch, group.ignore)
            owners, terms = _find(text, group)
            for term in terms:
                if group.binds_by == "role":
                    owner = _role_of(text, term, owners, terms, acted_on=group.acted_on)
                else:
                    owner = _bound_to(text, term, owners, terms, RELATION[group.binds_by])
                attribute = term.attribute
                if attribute is None or owner is None:
                    continue
                clause = _clause_around(text, owner, term)
                shared = SHARED.search(_clause_around(_terms_blanked(text, terms), owner, term))
                if shared or (group.context_in_clause and not any(w in clause for w in group.context)):
                    continue
                swap = Misattribution(
                    misattribution_id(attribute),
                    text[term.start : term.end],
                    group.owners[owner.owner].name,
                    tuple(attribute.same_as),
                )
                out.append(_Binding(swap, owner.owner == term.owner))
    return out
