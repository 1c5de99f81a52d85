"""The command-line adapter (``memwarden``). Nothing else imports this package."""
