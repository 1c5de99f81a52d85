"""The MCP adapter: tools over the official SDK's MCPServer (the only module importing mcp)."""
