"""Stats files: writing and reading them, the views reports take of
their records, sorted runs of latencies, and safe output files.
"""
