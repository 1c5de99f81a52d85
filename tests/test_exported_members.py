import memwarden


def test_public_surface_is_pinned() -> None:
    assert sorted(memwarden.__all__) == ["MemoryService", "Settings", "__version__", "build_service"]
    for name in memwarden.__all__:
        assert getattr(memwarden, name) is not None
