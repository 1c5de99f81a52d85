"""Retrieval and ranking (see ``ranking.py``)."""
