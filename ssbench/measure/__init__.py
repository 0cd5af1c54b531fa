"""The ground floor of measurement: what one result record is, how its
figures are ranked and counted, and what a consumer of results needs of
a message of them.

Every layer may import this package (tests/unit/test_layers.py), and it
imports nothing of ssbench but the ground floor (ssbench.compat,
ssbench.errors), so that the wire, the stats files, the reports, the live
view and the load model share one definition of each thing instead of
keeping copies.
"""
