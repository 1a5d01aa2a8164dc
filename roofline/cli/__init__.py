"""The command line: the typer application (app), one module per command (commands) with its facts (facts), the
shared options (options), errors and warnings (failures), the facade's use and progress (workflow, terminal), the
one output writer (output, writing, plots), the ncu options of analyze and wrap (ncu_options), MPI ranks (ranks),
the read started before the command loads (fast_start) and the MCP server (mcp_server, mcp_adapter)."""
