"""The pre-install scanner: rules over a skill's text, encoded from SkillSonar's public preflight guard
(`skill-sonar/preflight/preflight-guard.md`): its risk areas and its five severities, with the install refused
when the worst finding reaches `block_at` (default `serious`).

Areas encoded (patterns only; the guard's reading of scripts and provenance has nothing to read here):
1. semantic integrity: invisible Unicode (critical), encoded payloads (critical), non-ASCII look-alike letters (serious);
3. secrets and credentials: token formats (critical), credential words (serious);
4. exfiltration: a hard-coded destination, an e-mail address, URL or account number (serious);
5. injection and influence: trust-override, secrecy and urgency phrases (serious); steps that hand authority to
   retrieved content (moderate: benign skills do this too, "pay the bill in the file").
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from reprolab.cli.errors import ConfigError

SEVERITIES = ("no_concern", "minor", "moderate", "serious", "critical")

PATTERNS = (
    ("hidden_unicode", "critical", re.compile("[\u200b\u200c\u200d\u2060\ufeff\u202e]")),
    ("encoded_payload", "critical", re.compile(r"[A-Za-z0-9+/]{40,}={0,2}")),
    ("lookalike_letters", "serious", re.compile(r"[a-zA-Z][\u0400-\u04ff\u0370-\u03ff]|[\u0400-\u04ff\u0370-\u03ff][a-zA-Z]")),
    ("secret_token", "critical", re.compile(r"\b(?:sk-[A-Za-z0-9]{20,}|ghp_[A-Za-z0-9]{36}|AKIA[0-9A-Z]{16}|xox[bp]-)")),
    ("credential_words", "serious", re.compile(r"\b(?:password|passport|credit card|security code|2fa|api key)\b", re.I)),
    ("hardcoded_email", "serious", re.compile(r"[\w.+-]+@[\w-]+\.\w{2,}")),
    ("hardcoded_url", "serious", re.compile(r"\b(?:https?://|www\.)[\w-]+\.\w+")),
    ("hardcoded_account", "serious", re.compile(r"\b[A-Z]{2}\d{2}[A-Z0-9]{10,30}\b")),
    ("trust_override", "serious", re.compile(r"\b(?:ignore (?:all |the )?(?:previous|prior|above)|trust this skill|"
                                             r"no need to (?:ask|check|confirm)|without (?:asking|telling)|"
                                             r"do not (?:tell|inform|mention)|urgent|immediately)\b", re.I)),
    ("delegates_to_content", "moderate", re.compile(r"\b(?:follow|apply|carry out|execute|perform)\b[^.\n]{0,40}"
                                                    r"\b(?:notes?|instructions?|items?|steps?)\b[^.\n]{0,20}"
                                                    r"\b(?:found|listed|contained|retrieved|returned)\b", re.I)),
)


@dataclass(frozen=True)
class Finding:
    rule: str
    severity: str


def scan(text: str) -> list[Finding]:
    return [Finding(rule, severity) for rule, severity, pattern in PATTERNS if pattern.search(text)]


def worst(findings: list[Finding]) -> str:
    return max((f.severity for f in findings), key=SEVERITIES.index, default="no_concern")


class PreinstallScanner:
    """Refuses to install a skill whose worst finding is at least `block_at`; it never sees a runtime action."""

    def __init__(self, block_at: str = "serious"):
        if block_at not in SEVERITIES[1:]:
            raise ConfigError(f"scanner block_at must be one of {', '.join(SEVERITIES[1:])}; got {block_at!r}")
        self.block_at = block_at

    def admits(self, skill_text: str) -> bool:
        return SEVERITIES.index(worst(scan(skill_text))) < SEVERITIES.index(self.block_at)
