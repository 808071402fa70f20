"""Measures over texts and their analyses (retention of characters and relationships, statistics, ...)."""
