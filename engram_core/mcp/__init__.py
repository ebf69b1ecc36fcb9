"""Engram as an MCP server: the same engine as the HTTP functions, exposed as ``engram_*`` tools.

``engram mcp`` serves it over stdio (one tenant, picked by ``--tenant``) or over
streamable HTTP (``--http HOST:PORT``), where each bearer token maps to a tenant.
"""
