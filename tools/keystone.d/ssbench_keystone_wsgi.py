"""WSGI entry point for Keystone under gunicorn (used by tools/keystone).

Keystone 30 ships no keystone-wsgi-public script, and its configuration
step parses sys.argv with oslo.config: under gunicorn that would be
gunicorn's own command line ("--bind ...") and Keystone would refuse it.
So hide argv while the application is built. The config file comes from
OS_KEYSTONE_CONFIG_DIR (keystone.conf inside it), set by tools/keystone.
"""
from __future__ import absolute_import, division, print_function

import sys

_argv = sys.argv
sys.argv = _argv[:1]
try:
    from keystone.server import wsgi as _keystone_wsgi
    application = _keystone_wsgi.initialize_public_application()
finally:
    sys.argv = _argv
