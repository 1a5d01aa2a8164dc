"""Renderers: turn analysis results into tables, JSON, Markdown, HTML and plots."""
