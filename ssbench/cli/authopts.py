"""Swift auth options shared by ssbench-master and ssbench-worker.

Options are named as the `swift` client names them.  Their environment
defaults (ST_*, OS_*) are applied by auth_from_args(), not by argparse, so
that --help never prints a key or password taken from the environment.
"""
from __future__ import absolute_import, division, print_function

import argparse
import importlib
import os

from ssbench.errors import AuthConfigError
from ssbench.swift.auth import V2_VERSIONS, V3_VERSIONS, AuthOptions

# The module ssbench.swiftauth imports for each Keystone auth version.
_KEYSTONE_MODULES = dict([(v, 'keystoneauth1.identity.v2')
                          for v in V2_VERSIONS] +
                         [(v, 'keystoneauth1.identity.v3')
                          for v in V3_VERSIONS])

# (flags, dest, environment variables in order of preference, help)
_OPTIONS = (
    (('-V', '--auth-version'), 'auth_version',
     ('ST_AUTH_VERSION', 'OS_AUTH_VERSION', 'OS_IDENTITY_API_VERSION'),
     'Swift auth version: 1.0, 2.0 or 3 (default 1.0)'),
    (('-A', '--auth-url'), 'auth_url', ('ST_AUTH',), 'v1.0 auth URL'),
    (('-U', '--user'), 'user', ('ST_USER',), 'v1.0 user (account:user)'),
    (('-K', '--key'), 'key', ('ST_KEY',), 'v1.0 key'),
    (('--os-username',), 'os_username', ('OS_USERNAME',), None),
    (('--os-password',), 'os_password', ('OS_PASSWORD',), None),
    (('--os-tenant-id',), 'os_tenant_id', ('OS_TENANT_ID',), None),
    (('--os-tenant-name',), 'os_tenant_name', ('OS_TENANT_NAME',), None),
    (('--os-project-name',), 'os_project_name', ('OS_PROJECT_NAME',), None),
    (('--os-project-id',), 'os_project_id', ('OS_PROJECT_ID',), None),
    (('--os-user-domain-name',), 'os_user_domain_name',
     ('OS_USER_DOMAIN_NAME',), None),
    (('--os-user-domain-id',), 'os_user_domain_id',
     ('OS_USER_DOMAIN_ID',), None),
    (('--os-project-domain-name',), 'os_project_domain_name',
     ('OS_PROJECT_DOMAIN_NAME',), None),
    (('--os-project-domain-id',), 'os_project_domain_id',
     ('OS_PROJECT_DOMAIN_ID',), None),
    (('--os-auth-url',), 'os_auth_url', ('OS_AUTH_URL',), None),
    (('--os-auth-token',), 'os_auth_token', ('OS_AUTH_TOKEN',), None),
    (('--os-storage-url',), 'os_storage_url', ('OS_STORAGE_URL',), None),
    (('--os-region-name',), 'os_region_name', ('OS_REGION_NAME',), None),
    (('--os-service-type',), 'os_service_type', ('OS_SERVICE_TYPE',), None),
    (('--os-endpoint-type',), 'os_endpoint_type', ('OS_ENDPOINT_TYPE',),
     None),
    (('--os-cacert',), 'os_cacert', ('OS_CACERT',), None),
)

_TRUE = ('1', 'true', 'yes', 'on')
_INSECURE = 'SWIFTCLIENT_INSECURE'
# Every environment variable auth_from_args() reads: a local worker of
# run-scenario --workers gets none of them (the master hands it a token).
ENV_NAMES = tuple(name for entry in _OPTIONS for name in entry[2]) + (
    _INSECURE,)


def add_auth_options(parser):
    """Add the swift client's auth options to `parser` (or a subparser)."""
    group = parser.add_argument_group(
        'Swift authentication',
        'each option defaults to the environment variable in brackets')
    for flags, dest, env_names, text in _OPTIONS:
        if text is None:
            text = 'Keystone option'
        group.add_argument(*flags, dest=dest, default=argparse.SUPPRESS,
                           metavar=dest.upper(),
                           help='%s [%s]' % (text, ', '.join(env_names)))
    group.add_argument('--insecure', dest='insecure', action='store_true',
                       default=argparse.SUPPRESS,
                       help='do not verify the server\'s TLS certificate '
                            '[SWIFTCLIENT_INSECURE]')
    group.add_argument('--os-all-endpoints', dest='os_all_endpoints',
                       action='store_true', default=argparse.SUPPRESS,
                       help='Keystone: spread requests over every endpoint '
                            'of the catalog that --os-endpoint-type and '
                            '--os-region-name match, not just the first')
    group.add_argument('-S', '--storage-url', dest='storage_urls',
                       action='append', default=argparse.SUPPRESS,
                       metavar='STORAGE_URL',
                       help='storage URL overriding the one auth returns; '
                            'repeat it to spread requests over several '
                            'URLs in turn')
    group.add_argument('-T', '--token', dest='token',
                       default=argparse.SUPPRESS,
                       help='auth token; with -S, skips authentication')
    return group


def auth_from_args(args, env=None):
    """AuthOptions from parsed arguments, falling back to the environment.

    Never validates nor exits: call .check() on the result (raises
    AuthConfigError) where credentials are required.
    """
    if env is None:
        env = os.environ
    values = {}
    for _flags, dest, env_names, _text in _OPTIONS:
        value = getattr(args, dest, None)
        if value is None:
            for name in env_names:
                if env.get(name):
                    value = env[name]
                    break
        values[dest] = value
    insecure = getattr(args, 'insecure', None)
    if insecure is None:
        insecure = env.get(_INSECURE, '').lower() in _TRUE
    values['insecure'] = insecure
    values['os_all_endpoints'] = bool(getattr(args, 'os_all_endpoints',
                                              False))
    values['storage_urls'] = list(getattr(args, 'storage_urls', None) or [])
    values['token'] = getattr(args, 'token', None)
    return AuthOptions(**values)


def require_keystone(auth):
    """Return `auth`; raise AuthConfigError naming the `keystone` extra
    when its credentials need Keystone (v2.0 or v3) and the libraries for
    it are not installed (the swift client would only say that auth
    failed)."""
    if auth.preset() is not None:
        return auth
    credentials = auth.credentials()
    module = credentials and _KEYSTONE_MODULES.get(credentials[0])
    if module is None:
        return auth
    try:
        importlib.import_module(module)
    except ImportError as exc:
        raise AuthConfigError(
            "auth version %s needs Keystone support, which is not "
            "installed (%s): pip install 'ssbench[keystone]'"
            % (credentials[0], exc))
    return auth
