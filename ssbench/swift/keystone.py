"""Getting a token from Keystone identity v2.0 or v3, through
keystoneauth1, whose answer also says how long the token lives.  The
exchange has tempauth's bounds (ssbench.swift.authrules): no password
after a redirect elsewhere, MAX_KEYSTONE_ANSWER bytes at most, and a
deadline kept by a gevent timeout, which needs the gevent-patched
sockets both commands run with."""
from __future__ import absolute_import, division, print_function

import re

import gevent

from ssbench.compat import urlsplit
from ssbench.errors import SwiftAuthError
from ssbench.swift.authrules import (DEFAULT_TIMEOUT, REDIRECTS, V3_VERSIONS,
                                     redirect_target)


# The last path segment of an auth URL that names its identity version.
_VERSIONED = re.compile(r'v[23](\.0)?$')


def keystone_url(auth_url, version):
    """The identity endpoint: a versionless auth URL gets /v3 or /v2.0."""
    last = urlsplit(auth_url).path.rstrip('/').rsplit('/', 1)[-1]
    if _VERSIONED.match(last):
        return auth_url
    suffix = '/v3' if version in V3_VERSIONS else '/v2.0'
    return auth_url.rstrip('/') + suffix


def _scope(user, os_options):
    """(user, project name, project id): 'tenant:user' as the user names
    the tenant when no option does, as with the swift client."""
    name = os_options.get('project_name') or os_options.get('tenant_name')
    ident = os_options.get('project_id') or os_options.get('tenant_id')
    if not (name or ident) and ':' in user:
        name, user = user.split(':', 1)
    return user, name, ident


# Bytes of one Keystone answer read at most: a token with the service
# catalog of a large cloud is some hundreds of kB.
MAX_KEYSTONE_ANSWER = 16 << 20


class _CappedBody(object):
    """A urllib3 response (requests' Response.raw) whose body stream
    stops after `limit` bytes, as decoded, with SwiftAuthError."""

    def __init__(self, raw, limit):
        self._raw = raw
        self._limit = limit

    def stream(self, amt=65536, decode_content=None):
        got = 0
        for chunk in self._raw.stream(amt, decode_content=decode_content):
            got += len(chunk)
            if got > self._limit:
                raise SwiftAuthError('answer over %d bytes' % self._limit)
            yield chunk

    def __getattr__(self, name):
        return getattr(self._raw, name)


def _guard_keystone_answer(resp, **kwargs):
    """requests response hook, run before the body is read: no redirect
    to another scheme, host or port (keystoneauth1 would send the
    password again there), and a capped body."""
    location = resp.headers.get('location')
    if resp.status_code in REDIRECTS and location:
        redirect_target(resp.status_code, resp.url, location, 'password',
                        '--os-auth-url', 'identity service')
    resp.raw = _CappedBody(resp.raw, MAX_KEYSTONE_ANSWER)
    return resp


def keystone_token(version, auth_url, user, key, os_options, auth, timeout):
    """(storage_url, token, lifetime) from Keystone identity v2.0 or v3,
    within `timeout` seconds in all; with auth.os_all_endpoints,
    storage_url is the sorted list of every matching endpoint's URL."""
    timeout = timeout or DEFAULT_TIMEOUT
    deadline = gevent.Timeout(timeout, SwiftAuthError(
        'no complete answer within %g s' % timeout))
    with deadline:
        return _keystone_answer(version, auth_url, user, key, os_options,
                                auth, timeout)


def _keystone_answer(version, auth_url, user, key, os_options, auth,
                     timeout):
    import requests
    from keystoneauth1 import session as ks_session
    from keystoneauth1.identity import v2, v3
    user, project_name, project_id = _scope(user, os_options)
    url = keystone_url(auth_url, version)
    # reauthenticate=False: the plugin would otherwise ask again for every
    # use of a token close to its expiry; renewing is Credentials' job.
    if version in V3_VERSIONS:
        plugin = v3.Password(
            url, username=user, password=key,
            user_domain_name=os_options.get('user_domain_name'),
            user_domain_id=os_options.get('user_domain_id'),
            project_name=project_name, project_id=project_id,
            project_domain_name=os_options.get('project_domain_name'),
            project_domain_id=os_options.get('project_domain_id'),
            reauthenticate=False)
    else:
        plugin = v2.Password(url, username=user, password=key,
                             tenant_name=project_name, tenant_id=project_id,
                             reauthenticate=False)
    verify = False if auth.insecure else (auth.os_cacert or True)
    guarded = requests.Session()
    guarded.hooks['response'].append(_guard_keystone_answer)
    session = ks_session.Session(auth=plugin, session=guarded,
                                 verify=verify, timeout=timeout)
    access = plugin.get_access(session)
    service_type = os_options.get('service_type') or 'object-store'
    storage_url = storage_endpoints(
        access.service_catalog, service_type,
        os_options.get('endpoint_type') or 'public',
        os_options.get('region_name'), auth.os_all_endpoints)
    return storage_url, access.auth_token, _lifetime(access)


def storage_endpoints(catalog, service_type, interface, region, every):
    """The storage URL of a keystoneauth1 service catalog: the first
    endpoint of `service_type` for `interface` (and `region`, when not
    None); with `every`, the sorted list of all of them, so that
    endpoint[N] names the same URL from one run to the next."""
    from keystoneauth1.exceptions import EndpointNotFound
    try:
        if every:
            found = sorted(set(url for url in catalog.get_urls(
                service_type=service_type, interface=interface,
                region_name=region) if url))
        else:
            found = catalog.url_for(service_type=service_type,
                                    interface=interface, region_name=region)
    except EndpointNotFound:
        found = None
    if not found:
        raise SwiftAuthError(
            'no %s endpoint in the service catalog (check the project or '
            'tenant, --os-region-name and --os-endpoint-type)'
            % service_type)
    return found


def _lifetime(access):
    """Seconds from the token's issue to its expiry, both as Keystone
    says, so that this host's clock does not matter; None if unknown."""
    try:
        seconds = (access.expires - access.issued).total_seconds()
    except (KeyError, TypeError, ValueError, AttributeError):
        return None
    return seconds if seconds > 0 else None
