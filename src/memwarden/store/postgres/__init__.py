"""The scale-out backend: PostgreSQL with pgvector, shared by several memwarden replicas.

Needs the ``memwarden[postgres]`` extra (psycopg 3 with its pool). Nothing here is imported
unless ``MEMWARDEN_DB`` names a ``postgresql://`` database.
"""

from memwarden.store.postgres.store import PostgresStore

__all__ = ["PostgresStore"]
