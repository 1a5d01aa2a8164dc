"""Nsight Compute: running ncu (driver), the .ncu-rep container, reading reports into the model (reader),
the metric names and formulas (metrics), and the checks of what is read (validation)."""
