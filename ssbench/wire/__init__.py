"""Master and workers talking: the message format and its checks, the
ZeroMQ transport and its poller, counting dropped input; CURVE beneath.
"""
