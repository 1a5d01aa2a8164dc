"""Diagnostics computed from a launch: occupancy and Tensor Core use."""
