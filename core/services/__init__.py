"""Use cases: orchestrate core pipelines and persist through a Store handed in by the entry points."""
