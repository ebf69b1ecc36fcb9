"""Benchmark suites for ``engram bench``; each module exposes a click ``command``."""
