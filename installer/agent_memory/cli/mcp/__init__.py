"""The MCP server: the memory as tools over stdio, built from the declarations."""
