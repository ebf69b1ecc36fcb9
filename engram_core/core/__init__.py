"""The pure core: domain values, rules and ports. No I/O, no clock reads; imports nothing outside ``core``."""
