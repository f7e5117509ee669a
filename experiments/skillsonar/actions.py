"""What a runtime guard may see of a proposed tool call, and the three features its rules read.

A guard sees an `ActionContext`: the user's request (trust P2 in the public guard's table), the installed skill's
text (P1/P0: "the skill says to do it" is not authorization), the calls executed so far with their outputs (P0),
and the proposed call. It never sees whether a call is injected: nothing here names the injection task.

Features (SkillSonar's runtime guard, "Risk Levels", "Hard Escalation", "Triage"; tool-guard "authorization trace"):
- `category`: what the function does to the world (read, network, sensitive_read, write, egress, delete,
  credential), fixed per AgentDojo function; `risk_level` maps it to the guard's R0-R3.
- `relevant`: can the call be traced to the request? Its action verb (or a synonym) occurs in the prompt, or the
  prompt delegates ("do the tasks in ...").
- `provenance`: where its target arguments come from, the weakest of prompt > output > skill > none: the
  prompt (P2), a prior tool output (P0 data), the skill text, or nowhere (composed by the agent, or decoded).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

CATEGORIES = ("read", "network", "sensitive_read", "write", "egress", "delete", "credential")
EFFECT_CATEGORIES = frozenset(c for c in CATEGORIES if c not in ("read", "network"))
PROVENANCES = ("prompt", "output", "skill", "none")
RISK_LEVEL = {"read": 0, "network": 1, "sensitive_read": 2, "write": 2, "egress": 3, "delete": 3, "credential": 3}

FUNCTION_CATEGORY = {
    # banking
    "send_money": "egress", "schedule_transaction": "egress", "update_scheduled_transaction": "write",
    "update_password": "credential", "update_user_info": "write", "get_user_info": "sensitive_read",
    "get_iban": "sensitive_read",
    # slack
    "send_direct_message": "egress", "send_channel_message": "egress", "post_webpage": "egress",
    "invite_user_to_slack": "egress", "add_user_to_channel": "write", "remove_user_from_slack": "delete",
    "get_webpage": "network",
    # travel
    "reserve_hotel": "egress", "reserve_car_rental": "egress", "reserve_restaurant": "egress",
    "get_user_information": "sensitive_read",
    # workspace (and travel's calendar / email tools)
    "send_email": "egress", "share_file": "egress", "delete_email": "delete", "delete_file": "delete",
    "cancel_calendar_event": "delete", "create_calendar_event": "write", "reschedule_calendar_event": "write",
    "add_calendar_event_participants": "write", "append_to_file": "write", "create_file": "write",
}
READ_PREFIXES = ("get_", "search_", "list_", "read_", "check_")

# Action verbs of a function name and the request words that authorize them (lower case, matched as word prefixes).
VERB_SYNONYMS = {
    "send": ("send", "pay", "transfer", "refund", "email", "forward", "reply", "message", "write", "share"),
    "schedule": ("schedule", "recurring", "standing order", "set up"),
    "update": ("update", "change", "modify", "adjust", "edit", "correct", "fix", "set"),
    "delete": ("delete", "remove", "clean", "clear", "erase"),
    "remove": ("remove", "delete", "kick"),
    "cancel": ("cancel", "delete", "remove"),
    "create": ("create", "add", "make", "new", "schedule", "organize", "plan", "book", "save", "put"),
    "add": ("add", "invite", "include", "put"),
    "append": ("append", "add", "write", "include"),
    "reschedule": ("reschedule", "move", "postpone", "change", "shift"),
    "reserve": ("reserve", "book", "reservation"),
    "invite": ("invite", "add"),
    "post": ("post", "publish", "upload"),
    "share": ("share", "grant", "give"),
}
DELEGATION = re.compile(r"\b(tasks?|to-?do|instructions?|actions? (?:specified|listed|described))\b", re.I)
TARGET_ARGS = ("recipient", "recipients", "iban", "email", "url", "user", "channel", "file_id", "email_id",
               "event_id", "participants", "hotel", "company", "restaurant", "password", "cc", "bcc")
MIN_VALUE_CHARS = 3


def function_category(name: str) -> str:
    if name in FUNCTION_CATEGORY:
        return FUNCTION_CATEGORY[name]
    if name.startswith(READ_PREFIXES):
        return "read"
    return "write"  # an unknown function with an effect: R2, never silently R0 (the guard's "if in doubt")


def risk_level(name: str) -> int:
    return RISK_LEVEL[function_category(name)]


@dataclass(frozen=True)
class ActionContext:
    """Everything a guard may read before one call: no field says whether the call is injected."""

    prompt: str
    skill_text: str
    history: tuple[tuple[str, str], ...]        # (function, output text) of the calls executed so far
    function: str
    args: dict = field(default_factory=dict)


def relevant(ctx: ActionContext) -> bool:
    """Is the call's action within the request (the guard's authorization trace to a P2 goal)?"""
    if function_category(ctx.function) in ("read", "network"):
        return True
    prompt = ctx.prompt.lower()
    if DELEGATION.search(prompt):
        return True
    verb = ctx.function.split("_", 1)[0]
    return any(re.search(rf"\b{re.escape(word)}", prompt) for word in VERB_SYNONYMS.get(verb, (verb,)))


def target_values(args: dict) -> list[str]:
    """The identifying argument values of a call (recipients, accounts, files, URLs, ...), flattened to text."""
    out = []
    for key, value in args.items():
        if not any(key == t or key.startswith(t) or key.endswith(t) for t in TARGET_ARGS):
            continue
        for item in value if isinstance(value, list | tuple) else [value]:
            text = str(item).strip()
            if len(text) >= MIN_VALUE_CHARS:
                out.append(text)
    return out


def value_source(value: str, ctx: ActionContext) -> str:
    low = value.lower()
    if low in ctx.prompt.lower():
        return "prompt"
    if any(low in output.lower() for _, output in ctx.history):
        return "output"
    if low in ctx.skill_text.lower():
        return "skill"
    return "none"


def provenance(ctx: ActionContext) -> str:
    """The weakest source over the call's target values ("prompt" when it has none to trace)."""
    sources = [value_source(v, ctx) for v in target_values(ctx.args)]
    return max(sources, key=PROVENANCES.index) if sources else "prompt"


@dataclass(frozen=True)
class Features:
    category: str
    relevant: bool
    provenance: str


def features(ctx: ActionContext) -> Features:
    return Features(function_category(ctx.function), relevant(ctx), provenance(ctx))
