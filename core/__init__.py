"""Fabula's domain: pure Python, no UI and no SQL (see ARCHITECTURE.md)."""
