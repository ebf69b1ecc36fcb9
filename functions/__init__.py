"""Function Compute handlers (chat, memories, consolidate) and the local server.

Handlers only parse input, authenticate, call ``engram_core`` and shape output;
no business rule lives here.
"""
