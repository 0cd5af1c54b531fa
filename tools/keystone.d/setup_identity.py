"""Create the identities ssbench's tests use, through Keystone's v3 API.

Run by tools/keystone after `keystone-manage bootstrap` (admin user, roles
admin/member/reader/service, domain Default). Idempotent: whatever already
exists is kept. Standard library only.

usage: setup_identity.py KEYSTONE_URL ADMIN_PASSWORD SWIFT_ENDPOINT_URL \
                         SERVICE_PASSWORD USER PASSWORD PROJECT
"""
from __future__ import absolute_import, division, print_function

import json
import sys

try:
    from urllib.request import Request, urlopen
    from urllib.error import HTTPError
except ImportError:  # Python 2
    from urllib2 import Request, urlopen, HTTPError

TIMEOUT = 30


class Keystone(object):
    def __init__(self, url, token=None):
        self.url = url.rstrip('/')
        self.token = token

    def call(self, method, path, body=None, expect=(200, 201, 204)):
        data = json.dumps(body).encode('utf-8') if body is not None else None
        req = Request(self.url + path, data=data)
        req.get_method = lambda: method
        req.add_header('Content-Type', 'application/json')
        req.add_header('Accept', 'application/json')
        if self.token:
            req.add_header('X-Auth-Token', self.token)
        try:
            resp = urlopen(req, timeout=TIMEOUT)
        except HTTPError as err:
            if err.code in expect:
                return err.code, {}, err.headers
            raise SystemExit('%s %s -> %d: %s' % (
                method, path, err.code, err.read()[:500]))
        raw = resp.read()
        return resp.getcode(), (json.loads(raw.decode('utf-8')) if raw
                                else {}), resp.headers

    def login(self, user, password, project):
        body = {'auth': {
            'identity': {'methods': ['password'], 'password': {'user': {
                'name': user, 'password': password,
                'domain': {'id': 'default'}}}},
            'scope': {'project': {'name': project,
                                  'domain': {'id': 'default'}}}}}
        _, data, headers = self.call('POST', '/v3/auth/tokens', body)
        self.token = headers['X-Subject-Token']
        return data['token']

    def find(self, collection, **filters):
        query = '&'.join('%s=%s' % item for item in sorted(filters.items()))
        _, data, _ = self.call('GET', '/v3/%s?%s' % (collection, query))
        items = data.get(collection, [])
        return items[0] if items else None

    def ensure(self, collection, singular, body, **filters):
        found = self.find(collection, **filters)
        if found:
            return found
        _, data, _ = self.call('POST', '/v3/' + collection, {singular: body})
        print('setup_identity: created %s %s' % (
            singular, body.get('name', body.get('url'))))
        return data[singular]

    def grant(self, project_id, user_id, role_name):
        role = self.find('roles', name=role_name)
        if role is None:
            role = self.ensure('roles', 'role', {'name': role_name},
                               name=role_name)
        self.call('PUT', '/v3/projects/%s/users/%s/roles/%s' % (
            project_id, user_id, role['id']))


def main(argv):
    (url, admin_password, endpoint_url, service_password,
     user_name, user_password, project_name) = argv[1:8]
    ks = Keystone(url)
    ks.login('admin', admin_password, 'admin')

    project = ks.ensure('projects', 'project', {
        'name': project_name, 'domain_id': 'default',
        'description': 'ssbench test project'}, name=project_name)
    user = ks.ensure('users', 'user', {
        'name': user_name, 'password': user_password,
        'domain_id': 'default', 'default_project_id': project['id']},
        name=user_name)
    ks.grant(project['id'], user['id'], 'member')

    # The identity keystonemiddleware's auth_token uses to check tokens.
    service_project = ks.ensure('projects', 'project', {
        'name': 'service', 'domain_id': 'default'}, name='service')
    swift_user = ks.ensure('users', 'user', {
        'name': 'swift', 'password': service_password,
        'domain_id': 'default'}, name='swift')
    ks.grant(service_project['id'], swift_user['id'], 'admin')
    ks.grant(service_project['id'], swift_user['id'], 'service')

    service = ks.ensure('services', 'service', {
        'name': 'swift', 'type': 'object-store',
        'description': 'ssbench local Swift (keystoneauth proxy)'},
        type='object-store')
    for interface in ('public', 'internal', 'admin'):
        found = ks.find('endpoints', service_id=service['id'],
                        interface=interface)
        if found and found['url'] != endpoint_url:
            ks.call('PATCH', '/v3/endpoints/' + found['id'],
                    {'endpoint': {'url': endpoint_url}})
        elif not found:
            ks.ensure('endpoints', 'endpoint', {
                'service_id': service['id'], 'interface': interface,
                'url': endpoint_url, 'region_id': 'RegionOne'},
                service_id=service['id'], interface=interface)
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
