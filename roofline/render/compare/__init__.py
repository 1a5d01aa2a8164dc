"""Renderers of comparisons, diffs and summaries: terminal table, JSON, Markdown, HTML and plots."""
