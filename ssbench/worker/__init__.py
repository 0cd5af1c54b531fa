"""The worker: its reader loop (mainloop), its outbox of results and
heartbeats (outbox), the execution of jobs against Swift, its own health
figures and gevent patching, and the supervisor of `--processes`
(supervisor).
"""
