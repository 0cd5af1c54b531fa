"""--os-all-endpoints against tools/keystone's Keystone: two object-store
endpoints registered in a region of the test's own (the keystoneauth
proxy on 8081, and the same proxy through a relay), and a run with
--os-region-name that region spreads its requests over both, each with
its own figures in the JSON."""
from __future__ import absolute_import, division, print_function

import io
import json
import os
import uuid

import pytest

from tests.e2e import support
from tests.relay import Relay

pytestmark = pytest.mark.e2e

# tools/keystone's bootstrap administrator.
ADMIN = ('admin', 'admin-pass', 'admin')
IDENTITY = support.KEYSTONE_AUTH_URL
ENDPOINT = 'http://127.0.0.1:%d/v1/AUTH_$(project_id)s'


class Admin(object):
    """Keystone's v3 admin API with an admin token, through requests."""

    def __init__(self):
        import requests
        self.http = requests.Session()
        user, password, project = ADMIN
        domain = {'name': 'Default'}
        answer = self.http.post(IDENTITY + '/auth/tokens', timeout=30, json={
            'auth': {'identity': {'methods': ['password'], 'password': {
                'user': {'name': user, 'password': password,
                         'domain': domain}}},
                     'scope': {'project': {'name': project,
                                           'domain': domain}}}})
        answer.raise_for_status()
        self.http.headers['X-Auth-Token'] = answer.headers['X-Subject-Token']

    def call(self, method, path, **kwargs):
        answer = self.http.request(method, IDENTITY + path, timeout=30,
                                   **kwargs)
        answer.raise_for_status()
        return answer.json() if answer.content else None


@pytest.fixture
def region():
    """A region of our own holding two public object-store endpoints: the
    keystoneauth proxy, and the same behind a relay; yields (region,
    relay) and deletes both endpoints, then the region."""
    support.require_keystone()
    admin = Admin()
    name = 'RegionE2E-%s' % uuid.uuid4().hex[:8]
    relay = Relay(('127.0.0.1', 8081), record=True).start()
    made = []
    try:
        admin.call('POST', '/regions', json={'region': {
            'id': name, 'description': 'ssbench e2e, deleted after use'}})
        made.append('/regions/' + name)
        service = admin.call('GET', '/services',
                             params={'type': 'object-store'})['services']
        for port in (8081, relay.port):
            endpoint = admin.call('POST', '/endpoints', json={'endpoint': {
                'service_id': service[0]['id'], 'interface': 'public',
                'region_id': name, 'url': ENDPOINT % port}})['endpoint']
            made.insert(0, '/endpoints/' + endpoint['id'])
        yield name, relay
    finally:
        # Endpoints first: a region that holds any cannot be deleted.
        try:
            for path in made:
                admin.call('DELETE', path)
        finally:
            relay.stop()


def test_requests_spread_over_every_endpoint_of_the_region(tmpdir, region):
    name, relay = region
    swift = support.KeystoneSwiftView()
    path, data = support.write_scenario(
        tmpdir, operation_count=24, user_count=2,
        initial_files={'tiny': 4, 'small': 2}, container_count=2,
        container_concurrency=2)
    stats = os.path.join(str(tmpdir), 'run.stat')
    report = os.path.join(str(tmpdir), 'run.json')
    try:
        ran = support.master(
            'run-scenario', '-f', path, '-s', stats, '--workers', '1',
            '--json', report, '--os-region-name', name,
            '--os-all-endpoints',
            *(support.zmq_args() + support.keystone_v3_args()),
            env=support.no_auth_env(), timeout=180)
    finally:
        swift.delete_everything(data['container_base'] + '_')
    assert ran.status == 0, ran
    account = swift.url.rsplit('/', 1)[1]
    urls = sorted('http://127.0.0.1:%d/v1/%s' % (port, account)
                  for port in (8081, relay.port))
    with io.open(report, encoding='utf-8') as fp:
        endpoints = json.load(fp)['endpoints']['endpoints']
    assert [e['url'] for e in endpoints] == urls
    assert all(e['count'] > 0 and e['errors'] == 0 for e in endpoints), (
        endpoints)
    assert sum(e['count'] for e in endpoints) == 24
    # The relayed endpoint's requests did go through the relay.
    assert data['container_base'].encode('ascii') in relay.bytes_seen()
