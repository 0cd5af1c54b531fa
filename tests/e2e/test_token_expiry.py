"""A run longer than its token's life (issue 32): a proxy of our own on
the local Swift's rings and memcache, whose tempauth hands out tokens of
3 s, renews without an error charged to the cluster, and the reports
count the retries that met the expiry apart."""
from __future__ import absolute_import, division, print_function

import json
import os
import re
import subprocess

import pytest

from tests.e2e import support

pytestmark = pytest.mark.e2e

SAIO_DIR = os.environ.get('SAIO_DIR', '/var/tmp/ssbench-saio')
TOKEN_LIFE = 3
# A user only this proxy knows: tempauth hands out the token a user
# already holds in memcache, and one from the shared proxies lives a day.
USER, KEY = 'tokens:tester', 'testing'


def proxy_conf(directory, port):
    """The local Swift's proxy config, on `port` and logging to
    `directory`, its tempauth with TOKEN_LIFE and USER."""
    with open(os.path.join(SAIO_DIR, 'etc', 'proxy-8080.conf')) as fp:
        text = fp.read()
    log = os.path.join(str(directory), 'proxy')
    for key, value in (('bind_port', port), ('workers', 0),
                       ('log_name', 'proxy-tokens'),
                       ('saio_log_file', log + '.log'),
                       ('access_log_file', log + '.access'),
                       ('access_log_name', 'proxy-tokens')):
        text, count = re.subn(r'(?m)^%s = .*$' % key,
                              '%s = %s' % (key, value), text)
        assert count == 1, key
    text = text.replace('[filter:tempauth]\n', '[filter:tempauth]\n'
                        'token_life = %d\nuser_tokens_tester = %s .admin\n'
                        % (TOKEN_LIFE, KEY))
    path = os.path.join(str(directory), 'proxy-tokens.conf')
    with open(path, 'w') as fp:
        fp.write(text)
    return path


def auth_answers(auth_url):
    from swiftclient import client
    try:
        client.get_auth(auth_url, USER, KEY, timeout=2)
    except Exception:
        return False
    return True


def delete_containers(auth_url, prefix):
    """Everything of the run, through a connection that authenticates
    again when a token expires."""
    from swiftclient import client
    conn = client.Connection(auth_url, USER, KEY, retries=5, timeout=10)
    for container in conn.get_account(prefix=prefix, full_listing=True)[1]:
        name = container['name']
        for obj in conn.get_container(name, full_listing=True)[1]:
            conn.delete_object(name, obj['name'])
        conn.delete_container(name)


def test_a_run_longer_than_the_token_renews_it_without_cluster_errors(
        tmpdir):
    support.require_swift()
    port = support.free_port()
    auth_url = 'http://127.0.0.1:%d/auth/v1.0' % port
    conf = proxy_conf(tmpdir, port)
    with open(os.path.join(str(tmpdir), 'proxy.out'), 'wb') as out:
        proxy = subprocess.Popen(
            [os.path.join(SAIO_DIR, 'venv', 'bin', 'swift-proxy-server'),
             conf], stdout=out, stderr=subprocess.STDOUT,
            env=dict(os.environ, PYTHONPATH=os.path.join(SAIO_DIR, 'lib')),
            preexec_fn=support.die_with_parent)
    path, data = support.write_scenario(
        tmpdir, name='token expiry')
    stats = os.path.join(str(tmpdir), 'tokens.stat')
    report = os.path.join(str(tmpdir), 'tokens.json')
    try:
        support.wait_for(lambda: proxy.poll() is not None or
                         auth_answers(auth_url), 30, 'our proxy')
        assert proxy.poll() is None, support.read_text(
            os.path.join(str(tmpdir), 'proxy.out'))
        ran = support.master(
            'run-scenario', '-f', path, '-s', stats, '--workers', '2',
            '-r', '8', '--json', report, '--errors',
            '-A', auth_url, '-U', USER, '-K', KEY,
            *support.zmq_args(), timeout=120)
        assert ran.status == 0, ran
        with open(report) as fp:
            doc = json.load(fp)
        # The tokens expired under the run, every 3 s...
        renewals = [e for e in doc['events'] if e['kind'] == 'token_renewed']
        assert renewals, doc['events']
        assert all('401' in e['text'] for e in renewals), renewals
        # ... and that is no error of the cluster's: the requests that met
        # an expiry were sent again with the renewed token.
        assert doc['errors']['total'] == 0, doc['errors']
        total = [op for op in doc['operations']
                 if op['operation'] == 'total'][0]
        assert total['auth_retries'] >= 1, total['retries_by_cause']
        assert doc['retries']['auth'] == total['auth_retries']
        assert total['retries_by_cause']['HTTP 401'] == total['auth_retries']
        assert ('%d retries met an expired token (not the cluster\'s '
                'errors)' % total['auth_retries']) in ran.out
        assert 'No errors.' in ran.out
    finally:
        try:
            if auth_answers(auth_url):
                delete_containers(auth_url, data['container_base'] + '_')
        finally:
            support.stop_process(proxy)
