"""Text analysis shared by indexing and queries (see ``analyzer.py``)."""

from memwarden.text.analyzer import Analyzer

__all__ = ["Analyzer"]
