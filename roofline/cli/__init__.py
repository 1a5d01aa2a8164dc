"""The command line: the typer application (app), shared options and errors (common), the one output writer
(output), the ncu options of analyze and wrap (ncu_options), MPI ranks (ranks), one module per command
(commands)."""
