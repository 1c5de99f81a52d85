"""The HTTP adapter: Streamable HTTP MCP at /mcp, /healthz, bearer-token authentication."""
