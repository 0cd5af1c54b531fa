"""The master: one scenario run phase by phase, its run loop (dispatch),
the pipeline of its results (pipeline), the registry of workers and their
liveness (workerregistry), and local workers.
"""
