"""The documents: one typed, numbers-only tree of frozen msgspec structs per command's ``--format json`` output,
defined once here and built from the analysis results by pure functions. ``msgspec.json.encode`` writes their text
(``render/*/json.py``), ``msgspec.json.schema`` their JSON Schemas (``documents.schemas``), and the MCP server
answers with their builtins (``msgspec.to_builtins``)."""
