"""Plain data and vocabulary every stage shares: the report model, units, labels, closed choices, thresholds,
time limits, kernel names and the --kernel language, work over many reports, and cohorts (formulas run once over
the launches that hold the same metrics). Imports nothing of roofline above it."""
