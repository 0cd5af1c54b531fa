"""The master: one scenario run phase by phase, its run loop (dispatch),
the registry of workers and their liveness (workerregistry), local workers
and the progress characters.
"""
