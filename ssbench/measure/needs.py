"""What a sink of the master's results needs of each message, its
`needs` (docs/internals.rst, "Results: one pipeline"): the master's
pipeline (ssbench.master.pipeline) decodes no more than its sinks need,
and the sinks of ssbench.live, which may not import the master, name
theirs from here, the floor below both."""

# A message checked on its bytes will do; the bytes to store; every
# record decoded and checked.
SCANNED, BYTES, RECORDS = 'scanned', 'bytes', 'records'
# The phases of a run, in order; a sink's `phases` names those it takes.
PHASES = ('population', 'benchmark', 'cleanup')
