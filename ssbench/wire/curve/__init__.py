"""CURVE encryption of the wire: key files, the ZAP handler that admits
only known workers, and the handshake watch.
"""
