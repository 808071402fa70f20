"""Continuity: later sentences checked against the story's states in chapter order (issue 32).

core.kg.states reads the states from the graph build's parse; this room locates them in the chapter's text
(locate), checks them (checks: dead characters who act, ties, attributes, names, homes) and describes what is
established as of a chapter (summary). Pure code: the service (core.services.continuity_service) stores and loads.
"""
