"""Operations: verified backups and restore, health and self-repair, review, export/import,
maintenance. The service delegates to these modules; adapters reach them through the service
(or, for backups taken before the database is opened, through ``app.build_backups``)."""
