"""Device ceilings: the cited YAML specs and how a report's GPU is matched to one (catalog), YAML read with a
budget (safe_yaml), calibrated roofs (calibration) and the microbenchmarks behind them (microbench)."""
