"""Many tenants in one process: credentials, one store per tenant (local or snapshot storage), the due index."""
