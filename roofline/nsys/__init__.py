"""Nsight Systems: the timeline of a whole application, read from nsys's SQLite export (``timeline``), and
``nsys export`` run for .nsys-rep/.qdrep files (``export``)."""
