"""Renderers of one or more report analyses: terminal table, JSON, CSV and DataFrame (flat), Markdown, HTML and
plots."""
