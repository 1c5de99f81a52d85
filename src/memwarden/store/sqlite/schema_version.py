"""The schema version this code writes: the number of steps in ``migrations.MIGRATIONS``.

A file of its own so that opening an up-to-date database does not import the migrations
(tests/store/test_schema_version.py keeps the two equal).
"""

SCHEMA_VERSION = 14
