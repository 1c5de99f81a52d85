"""Synthetic but realistic memory text for benchmarks: short facts from a mixed vocabulary."""

from __future__ import annotations

import random

SUBJECTS = [
    "the client",
    "our team",
    "the staging server",
    "production",
    "the billing service",
    "Alice",
    "the mobile app",
    "the data pipeline",
    "the CI runner",
    "the support desk",
    "Bob",
    "the API gateway",
    "the nightly backup",
    "the search index",
    "the design system",
    "the onboarding flow",
]
VERBS = [
    "prefers",
    "requires",
    "runs",
    "uses",
    "deploys",
    "rejects",
    "schedules",
    "monitors",
    "stores",
    "migrates",
    "caches",
    "rotates",
    "validates",
    "exports",
    "archives",
    "reviews",
]
OBJECTS = [
    "email over phone calls",
    "PostgreSQL 16 with pgvector",
    "weekly releases on Tuesdays",
    "blue-green deployments",
    "invoices in euros",
    "OAuth tokens every 90 days",
    "a read replica in eu-west",
    "logs for 30 days",
    "feature flags per tenant",
    "TypeScript strict mode",
    "dark mode by default",
    "Kafka topics per customer",
    "ruff instead of black",
    "a 2 second timeout",
    "S3 lifecycle rules",
    "Grafana dashboards",
    "nightly snapshots at 02:00 UTC",
    "the Istanbul office",
    "CSV exports monthly",
]
EXTRAS = [
    "because of compliance",
    "after the March incident",
    "per the architecture review",
    "since version 3",
    "for cost reasons",
    "as agreed with legal",
    "until the migration ends",
    "on weekdays only",
    "",
]


def memory_text(rng: random.Random, n: int) -> str:
    return (
        f"{rng.choice(SUBJECTS).capitalize()} {rng.choice(VERBS)} {rng.choice(OBJECTS)} "
        f"{rng.choice(EXTRAS)} (note {n}, ref {rng.randrange(10**6):06d})"
    ).replace("  ", " ")


QUERIES = [
    "client email",
    "backup snapshots",
    "pgvector replica",
    "token rotation",
    "release Tuesday",
    "feature flags tenant",
    "istanbul office",
    "timeout",
    "grafana dashboards monitors",
    "invoices euros",
]
