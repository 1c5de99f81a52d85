import memwarden


def test_public_surface_is_pinned() -> None:
    assert set(memwarden.__all__) == {"__version__", *memwarden._PUBLIC}
    for name in ("open", "Memory", "MemoryRecord", "AddResult", "SearchResult", "Hit", "InvalidInput"):
        assert name in memwarden.__all__
    for name in memwarden.__all__:
        assert getattr(memwarden, name) is not None
