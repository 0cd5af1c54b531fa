"""A run longer than its token's life (issue 32): a proxy of our own on
the local Swift's rings and memcache, whose tempauth hands out tokens of
5 s.  The token is renewed as tempauth said it expires, so no request
meets a 401; a token that ends before that (dropped from memcache) is
renewed after the 401, and the reports count the retries that met it
apart from the cluster's errors."""
from __future__ import absolute_import, division, print_function

import hashlib
import json
import os
import re
import socket
import subprocess
import threading
import time

import pytest

from tests.e2e import support

pytestmark = pytest.mark.e2e

SAIO_DIR = os.environ.get('SAIO_DIR', '/var/tmp/ssbench-saio')
# Tokens of 5 s: tempauth says 4 (rounded down) and memcache may drop
# them 2 s before that (ssbench.swift.expiry.EARLY).
TOKEN_LIFE = 5
# A user only this proxy knows: tempauth hands out the token a user
# already holds in memcache, and one from the shared proxies lives a day.
# Its account is this process's: the memcache is the shared Swift's, and
# another suite's copy of these tests (the other interpreter's, run at
# once) would be handed the token one of them drops from it.
ACCOUNT = 'tokens%d' % os.getpid()
USER, KEY = ACCOUNT + ':tester', 'testing'


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
                        'token_life = %d\nuser_%s_tester = %s .admin\n'
                        % (TOKEN_LIFE, ACCOUNT, KEY))
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


@pytest.fixture(scope='module', name='proxy')
def proxy_fixture(tmpdir_factory):
    """The auth URL of a proxy of our own, started once for this file."""
    support.require_swift()
    directory = tmpdir_factory.mktemp('proxy')
    port = support.free_port()
    auth_url = 'http://127.0.0.1:%d/auth/v1.0' % port
    conf = proxy_conf(directory, port)
    output = os.path.join(str(directory), 'proxy.out')
    with open(output, 'wb') as out:
        proxy = subprocess.Popen(
            [os.path.join(SAIO_DIR, 'venv', 'bin', 'swift-proxy-server'),
             conf], stdout=out, stderr=subprocess.STDOUT,
            env=dict(os.environ, PYTHONPATH=os.path.join(SAIO_DIR, 'lib')),
            preexec_fn=support.die_with_parent)
    try:
        support.wait_for(lambda: proxy.poll() is not None or
                         auth_answers(auth_url), 30, 'our proxy')
        assert proxy.poll() is None, support.read_text(output)
        yield auth_url, os.path.join(str(directory), 'proxy.access')
    finally:
        support.stop_process(proxy)


def run(tmpdir, auth_url, seconds, during=None):
    """(the run's output, its JSON report, the run's container base) of a
    run of `seconds` against `auth_url`; `during(base)` runs in a thread
    meanwhile."""
    path, data = support.write_scenario(tmpdir, name='token expiry')
    base = data['container_base']
    stats = os.path.join(str(tmpdir), 'tokens.stat')
    report = os.path.join(str(tmpdir), 'tokens.json')
    thread = None
    if during is not None:
        thread = threading.Thread(target=during, args=(base,))
        thread.daemon = True
        thread.start()
    try:
        ran = support.master(
            'run-scenario', '-f', path, '-s', stats, '--workers', '2',
            '-r', str(seconds), '--json', report, '--errors',
            '-A', auth_url, '-U', USER, '-K', KEY,
            *support.zmq_args(), timeout=120)
        assert ran.status == 0, ran
        with open(report) as fp:
            return ran, json.load(fp), base
    finally:
        if thread is not None:
            thread.join(30)
        if auth_answers(auth_url):
            delete_containers(auth_url, base + '_')


def statuses(access_log, base, method=''):
    """The statuses our proxy answered ssbench's requests of the run
    `base` (those of `method`) with: not our cleanup's."""
    if not os.path.exists(access_log):
        return []
    with open(access_log) as fp:
        return [int(m.group(1)) for m in (re.search(
            r' HTTP/1\.[01] (\d{3}) ', line) for line in fp
            if method + ' /v1/' in line and base in line and
            ' ssbench/' in line) if m]


def total_of(doc):
    return [op for op in doc['operations'] if op['operation'] == 'total'][0]


def test_a_run_longer_than_the_token_renews_it_ahead_without_a_401(
        tmpdir, proxy):
    """tempauth says when its token expires (X-Auth-Token-Expires), and
    hands out the same token until then: the token is renewed as it
    expires, with no request sent with a dead one while the new token
    reaches the workers in time."""
    auth_url, access_log = proxy
    ran, doc, base = run(tmpdir, auth_url, 7)
    # The tokens expired under the run, every few seconds...
    renewals = [e['text'] for e in doc['events']
                if e['kind'] == 'token_renewed']
    ahead = [text for text in renewals if 'near its expiry' in text]
    assert len(ahead) >= 2, (renewals, ran.err[-3000:])
    # ... ahead of their expiry, not after a 401: one is possible only
    # when a CONFIGURE reached a worker later than HANDED_GUARD (on a
    # host loaded far beyond this one's CI), and then it is retried,
    # counted apart, never an error.
    assert len(ahead) > len(renewals) - len(ahead), renewals
    assert doc['errors']['total'] == 0, doc['errors']
    total = total_of(doc)
    assert 'No errors.' in ran.out
    answered = statuses(access_log, base)
    assert answered
    assert answered.count(401) <= total['auth_retries'], (
        answered.count(401), total['retries_by_cause'])


def delete_token_once(access_log, deleted):
    """`during` for run(): once the run's requests reach the proxy, drop
    the token tempauth handed out from memcache (tempauth's keys, as
    Swift's memcache client hashes them) while it is fresh, before any
    renewal is due: the token ends early without the proxy having said
    so.  The token is read from memcache, not asked of tempauth: asking
    made this test's request the one that created the next token
    whenever it came before the master's (on a loaded host), and the
    token dropped was then one the run never used."""
    def during(base):
        # Its reads: the workers' benchmark, not the master's own first
        # requests (which renew without a run event).
        support.wait_for(lambda: statuses(access_log, base + '_', 'GET'),
                         60, 'the run\'s reads at our proxy')
        deadline = time.time() + 60
        while not deleted and time.time() < deadline:
            token = memcache_get('AUTH_/user/' + USER)
            held = token and memcache_get('AUTH_/token/' + token)
            if held and held[0] - time.time() >= TOKEN_LIFE - 1:
                for key in ('AUTH_/token/' + token, 'AUTH_/user/' + USER):
                    memcache_delete(key)
                deleted.append(token)
            else:
                time.sleep(0.05)
    return during


def _memcache(command):
    """One command to the memcache our proxy shares with the local
    Swift's; its whole answer."""
    with open(os.path.join(SAIO_DIR, 'etc', 'proxy-8080.conf')) as fp:
        server = re.search(r'(?m)^memcache_servers = ([^,\s]+)',
                           fp.read()).group(1)
    host, port = server.rsplit(':', 1)
    sock = socket.create_connection((host, int(port)), 5)
    try:
        sock.sendall(command.encode('ascii') + b'\r\n')
        answer = b''
        while True:
            chunk = sock.recv(65536)
            answer += chunk
            if not chunk or answer.endswith(b'END\r\n') or (
                    not answer.startswith(b'VALUE') and
                    answer.endswith(b'\r\n')):
                return answer
    finally:
        sock.close()


def _hashed(key):
    return hashlib.md5(key.encode('utf-8')).hexdigest()


def memcache_get(key):
    """tempauth's JSON value of `key`, or None."""
    m = re.match(br'VALUE \S+ \d+ \d+\r\n(.*)\r\nEND\r\n$',
                 _memcache('get ' + _hashed(key)), re.S)
    return json.loads(m.group(1).decode('utf-8')) if m else None


def memcache_delete(key):
    """Delete tempauth's `key` from memcache."""
    assert _memcache('delete ' + _hashed(key)).rstrip() in (
        b'DELETED', b'NOT_FOUND')


def test_a_token_that_ends_early_unsaid_is_renewed_after_a_401(
        tmpdir, proxy):
    """A token gone before the time the proxy said (dropped from
    memcache): the requests that meet the 401 are sent again with a new
    token, and that is no error of the cluster's."""
    auth_url, access_log = proxy
    deleted = []
    ran, doc, base = run(tmpdir, auth_url, 6,
                         delete_token_once(access_log, deleted))
    assert deleted
    renewals = [e['text'] for e in doc['events']
                if e['kind'] == 'token_renewed']
    assert [t for t in renewals if '401' in t], renewals
    assert doc['errors']['total'] == 0, doc['errors']
    total = total_of(doc)
    assert total['auth_retries'] >= 1, total['retries_by_cause']
    assert doc['retries']['auth'] == total['auth_retries']
    assert total['retries_by_cause']['HTTP 401'] == total['auth_retries']
    assert ('%d retries met an expired token (not the cluster\'s '
            'errors)' % total['auth_retries']) in ran.out
    assert 'No errors.' in ran.out
    assert 401 in statuses(access_log, base)
