"""Embedding providers behind one protocol (``base.Embedder``); ``open_embedder`` picks one."""

from memwarden.embed.base import Embedder, open_embedder

__all__ = ["Embedder", "open_embedder"]
