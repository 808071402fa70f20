"""The knowledge graph: extraction, alias resolution, graph views and exports (pure Python; no UI, no SQL).

Pipeline, per chapter:  extractor -> ChapterExtraction (names, triples, alias evidence) -> KgStore
Then, for the work:     resolve (names graph + merge guards + user decisions) -> entities -> KgStore
Views:                  graph_as_of(GraphData, chapter) -> networkx MultiDiGraph -> filters / export / viz

Modules
- types        value types (ChapterExtraction, Triple, KgEntity, StoredTriple, ...)
- store        KgStore, the persistence protocol (storage.kg_repository implements it)
- offline      spaCy extractor (default): mentions, Open IE triples (openie) filtered by the Andrus rules (filters)
- llm_extract  KGScore Appendix E extractor; grapher: Remember Me grapher with canonical reconciliation
- names, given_names, evidence, resolve   alias resolution
- graph        the graph as of a chapter, pruning, neighbourhoods, top-N; export: JSON/GraphML/GEXF/CSV/lorebook

Use cases live in core.services.kg_service (build, update a chapter, merge/split/rename), kg_views (the Graph page)
and kg_query (what other features read: facts for retrieval, entities of a chapter, alias lookup, graph as of).
"""
