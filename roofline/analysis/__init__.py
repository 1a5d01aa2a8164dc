"""The analysis, pure functions over the model: roofline maths (roofline), result types (results), the
bottleneck verdict (verdict), work per launch (work), diagnostics, advice and the library a kernel comes from."""
