"""Talking to Swift: the HTTP/1.1 connection, requests with retries, auth
and tokens, one-line hints for what went wrong, container cleanup.
"""
