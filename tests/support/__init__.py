"""Shared test helpers: fakes that speak real protocols (no mocks)."""
