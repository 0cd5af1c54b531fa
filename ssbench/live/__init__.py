"""What a run shows while it runs: the status line, the progress
characters and the Prometheus endpoint, fed as sinks of the master's
results (docs/internals.rst, "Results: one pipeline")."""
