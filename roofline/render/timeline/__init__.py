"""Renderers of `roofline timeline`: table, Markdown and CSV (``text``), JSON, HTML and the plot."""
