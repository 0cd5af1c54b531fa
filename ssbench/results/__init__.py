"""Stats files: writing and reading them, the views reports take of
their records, sorted runs of latencies, safe output files, and what
the master's sinks need of a message of results (needs).
"""
