"""Embedding providers behind one protocol (``base.Embedder``); ``factory.open_embedder`` picks one."""

from memwarden.embed.base import Embedder
from memwarden.embed.factory import open_embedder

__all__ = ["Embedder", "open_embedder"]
