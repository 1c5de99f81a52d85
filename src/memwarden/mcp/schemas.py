"""Structured outputs of the MCP tools (their JSON schemas are published to clients)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field


class MemoryOut(BaseModel):
    id: str
    project: str
    kind: str
    title: str
    tags: list[str]
    content: str
    pinned: bool
    created_at: str
    updated_at: str
    expires_at: str | None = None
    deleted_at: str | None = None
    version: int
    hit_count: int
    last_used_at: str | None = None
    redactions: list[str] = Field(default_factory=list)


class HitOut(MemoryOut):
    score: float
    why: dict[str, float] = Field(description="Each ranking component's contribution to the score")


class SimilarOut(BaseModel):
    id: str
    preview: str
    score: float


class AddOut(BaseModel):
    id: str
    duplicate: bool = Field(description="True when the same content was already stored; id is the existing one")
    version: int
    similar: list[SimilarOut] = Field(description="Memories in this project that say nearly the same thing")
    redacted: bool
    redactions: list[str]
    embedding_failed: bool
    memory: MemoryOut


class SearchOut(BaseModel):
    hits: list[HitOut]
    count: int
    degraded: bool = Field(description="True when results come from keyword search alone")
    degrade_reason: str | None = None


class UpdateOut(BaseModel):
    memory: MemoryOut


class DeleteOut(BaseModel):
    id: str
    deleted: bool
    already_deleted: bool


class GetOut(BaseModel):
    memories: list[MemoryOut]
    missing: list[str] = Field(description="Ids that are unknown or deleted")


class ListOut(BaseModel):
    memories: list[MemoryOut]
    count: int


class StatsOut(BaseModel):
    tenant: str
    memories: int
    expired: int
    deleted: int
    pinned: int
    content_bytes: int
    never_retrieved: int
    projects: dict[str, int]
    kinds: dict[str, int]
    backend: str
    database_bytes: int
    extra: dict[str, Any] = Field(default_factory=dict)


class EchoOut(BaseModel):
    message: str
