"""The tamper-evident audit log: every read and write, hash-chained, append-only.

This package is the log's protocol (``base.AuditLog``), its hash chain and verification
(``chain``), keys, guards and the ``Auditor`` the service records events with. It knows no
storage backend: ``memwarden.store.audit_logs`` opens the log of a database by its URL
(``open_audit_log``) and checks a database's whole chain (``verify_database``).
"""
