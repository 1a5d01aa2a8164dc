"""`roofline grade`: the table, JSON and Markdown of each kernel's grade (``documents.grade``)."""
