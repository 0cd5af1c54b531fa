"""The figures of a run: one scan of a stats file and the statistics
built from it (0.3.9 summary, percentiles, time buckets, causes, ...).
"""
