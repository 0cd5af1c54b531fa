"""The Swift store: its client, auth and tokens, SLOs and DLOs, one-line
hints for what went wrong, container cleanup (docs/internals.rst)."""
