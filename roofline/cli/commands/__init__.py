"""One module per CLI command (a leaf: no command imports another), plus ``common`` (shared options, errors
and the one output writer) and ``ncu_options`` (the ncu options of analyze and wrap). Heavy imports stay
inside the command functions."""
