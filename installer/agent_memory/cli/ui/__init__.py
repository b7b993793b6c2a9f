"""``agent-memory ui``: the memory in a browser, a front end beside click and the MCP server on
the same declared lines (DESIGN §28)."""
