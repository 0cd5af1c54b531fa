"""The worker: its main loop, the execution of jobs against Swift, its
own health figures and gevent patching.
"""
