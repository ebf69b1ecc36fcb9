"""The use cases: the Engine and what it orchestrates (write path, recall, maintenance, purge, exchange).

They depend on the pure core and its ports; adapters are passed in by a composition root.
"""
