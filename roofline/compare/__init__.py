"""Reports side by side: kernels paired across reports (pairing), launch-time noise (noise), the diff gate
(regression) and the application summary (ranking)."""
