"""The offline bookkeeper: deterministic heuristics behind the ``LLM`` port (``llm.OfflineLLM``).

One adapter among the others: the core and the use cases never import it; only composition roots do.
"""
