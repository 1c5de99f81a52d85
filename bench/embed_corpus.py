"""Synthetic but varied memory texts for the embedding benchmarks (deterministic for a seed)."""

from __future__ import annotations

import random

SUBJECTS = [
    "The client",
    "Alice",
    "Bob",
    "The billing service",
    "Our CI pipeline",
    "The staging database",
    "The mobile app",
    "Carol",
    "The marketing site",
    "The design team",
    "Support",
    "The VPN",
    "The data warehouse",
    "Dmitri",
    "The nightly backup",
    "The API gateway",
    "Priya",
    "The search index",
    "The payments team",
    "The on-call engineer",
    "The release train",
    "Our Kubernetes cluster",
]
VERBS = [
    "prefers",
    "needs",
    "runs",
    "moved",
    "depends on",
    "was migrated to",
    "reports",
    "blocks on",
    "must use",
    "stopped using",
    "asked for",
    "owns",
    "rotates",
    "caches",
    "fails without",
]
OBJECTS = [
    "email over phone calls",
    "PostgreSQL 16 on port 5433",
    "a weekly status report",
    "British spelling",
    "Rust code examples",
    "the Q3 redesign file in Figma",
    "a 4 hour response target",
    "age-encrypted backups kept 30 days",
    "the new invoice template",
    "pip wheels keyed on the lockfile",
    "Tuesday deploys after standup",
    "concise answers without bullet points",
    "the legacy LDAP server",
    "Terraform 1.9",
    "a read replica in Frankfurt",
    "feature flags from LaunchDarkly",
    "Grafana alerts",
    "the refund policy for enterprise orders",
    "two reviewers on every pull request",
    "Python 3.12",
]
CONTEXTS = [
    "since March",
    "for the Falcon project",
    "because of the audit",
    "until the rewrite lands",
    "on weekdays only",
    "after the outage in May",
    "for customers in Turkey",
    "during the freeze",
    "per the security review",
    "as agreed with legal",
    "",
    "",
    "",
]


def memory_texts(count: int, seed: int = 1) -> list[str]:
    """``count`` distinct texts. The sentence parts make only ~86k combinations, so every text
    carries its number too (a ticket or note reference, as real notes often do): without it a
    size of 100k stored ~75k memories after exact dedup and 1M stored ~406k (issue 21)."""
    rng = random.Random(seed)
    out = []
    for i in range(count):
        text = (
            f"{rng.choice(SUBJECTS)} {rng.choice(VERBS)} {rng.choice(OBJECTS)} {rng.choice(CONTEXTS)}".strip()
        )
        out.append(f"{text} (note {i})" if i % 3 == 0 else f"{text}, ticket {i}.")
    return out


QUERIES = [
    "how does the customer want to be contacted",
    "which database version does staging use",
    "what language should code samples be in",
    "how long are backups kept",
    "when do we deploy",
    "who needs a weekly report",
    "what is the support response time",
    "which spelling do we use",
    "where are the design mockups",
    "what answer style is preferred",
    "which terraform version",
    "where is the read replica",
    "how many reviewers per pull request",
    "what python version",
    "which alerts are configured",
    "what did the security review require",
    "refund rules for enterprise",
    "what happened after the outage",
    "what changed for Turkish customers",
    "what is cached in CI",
]
