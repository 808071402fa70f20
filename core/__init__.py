"""Fabula's domain: pure Python, no UI and no SQL (see docs/ARCHITECTURE.md)."""
