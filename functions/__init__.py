"""Engram over HTTP: the Function Compute handlers (chat, memories, consolidate) and the local server.

One FastAPI application serves every route; a deployed function mounts only
its own routes (``ENGRAM_FUNCTION``), ``engram serve`` mounts them all. The
handlers parse, authenticate, run one engine operation on the caller's tenant
and shape the response; the rules live in ``engram_core``.
"""
