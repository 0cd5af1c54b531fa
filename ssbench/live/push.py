"""`--push URL`: the run's figures PUT to a Prometheus Pushgateway, at the
end (and every --push-interval seconds while it runs), so that a run
shorter than a scrape interval is on the dashboard too
(docs/live-view.rst, "Push at the end").

The body is the families --metrics serves (ssbench.live.metrics), in
the Prometheus text format, under the grouping key job/<job>/run/<run>.
A PUT replaces the whole group: the final push, which marks no phase as
running and has no worker nor open-loop gauges (a finished run has no
workers, and a 0 would read as lost ones), leaves nothing for the
alerting rules to fire on.  A gateway that cannot be reached or refuses
is one warning line for the whole run, never a failed run.
"""
from __future__ import absolute_import, division, print_function

import base64
import copy
import logging

try:
    from http.client import HTTPConnection, HTTPException
except ImportError:  # Python 2
    from httplib import HTTPConnection, HTTPException

from ssbench.compat import monotonic
from ssbench.live.exposition import render
from ssbench.live.metrics import families

log = logging.getLogger(__name__)

TIMEOUT = 5.0           # seconds for each step of one push
DEFAULT_JOB = 'ssbench'
CONTENT_TYPE = 'text/plain; version=0.0.4; charset=utf-8'
# Families that say how the run goes now, which alerting rules read
# (deploy/prometheus/ssbench-rules.yml): none is in the final push, which
# the gateway serves for as long as it keeps the group.
LIVE_ONLY = ('ssbench_phase', 'ssbench_phase_fraction_done',
             'ssbench_workers_connected', 'ssbench_workers_saturated',
             'ssbench_open_loop_intended_rate',
             'ssbench_open_loop_achieved_rate')


def run_id(name, started):
    """The run label of a run named `name` (its scenario's or suite's)
    begun at `started` (epoch seconds): the name and the UTC start, to the
    second, as the default stats file name has them."""
    import time
    return '%s-%s' % (name, time.strftime('%Y-%m-%d.%H%M%S',
                                          time.gmtime(started)))


def _segment(name, value):
    """One label of the grouping key as a path: base64url (the gateway's
    "@base64" form) when the value has a "/" or is empty, else
    percent-encoded."""
    try:
        from urllib.parse import quote
    except ImportError:  # Python 2
        from urllib import quote
    value = u'%s' % (value,)
    data = value.encode('utf-8')
    if '/' in value or not value:
        return '%s@base64/%s' % (name, base64.urlsafe_b64encode(
            data).decode('ascii') or '=')
    return '%s/%s' % (name, quote(data, safe=''))


def group_path(job, run):
    """The path of the run's group: /metrics/job/<job>/run/<run>."""
    return '/metrics/%s/%s' % (_segment('job', job), _segment('run', run))


def parse_url(text):
    """(host, port, path prefix) of an http:// gateway URL.  Raises
    ValueError."""
    try:
        from urllib.parse import urlsplit
    except ImportError:  # Python 2
        from urlparse import urlsplit
    parts = urlsplit(text.strip())
    if parts.scheme != 'http' or not parts.hostname:
        raise ValueError('%r is not an http://HOST[:PORT] URL' % (text,))
    if parts.query or parts.fragment:
        raise ValueError('%r: a gateway URL has no query' % (text,))
    try:
        port = parts.port or 80
    except ValueError:
        raise ValueError('%r: the port is not a number' % (text,))
    return parts.hostname, port, parts.path.rstrip('/')


def final(snapshot):
    """The Snapshot a run ends with: no phase running, nothing done of
    one."""
    last = copy.copy(snapshot)
    last.phase = None
    last.fraction_done = None
    return last


def body(snapshot, last=False):
    """The bytes pushed of `snapshot`: its families in the text format,
    those without a sample left out (the gateway takes none), and with
    `last` those of LIVE_ONLY too."""
    return render([family for family in families(snapshot)
                   if family.samples and
                   not (last and family.name in LIVE_ONLY)])


class Pusher(object):
    """Takes the live view's Snapshots as a MetricsServer does
    (publish(), stop()) and PUTs them to the gateway at `url`: the last
    one at stop(), and with `interval` seconds also while the run goes,
    from a thread of its own so that a slow gateway never holds the run
    loop."""

    def __init__(self, url, run, job=DEFAULT_JOB, interval=None,
                 timeout=TIMEOUT, monotonic=monotonic):
        host, port, prefix = parse_url(url)
        self.address = (host, port)
        self.path = prefix + group_path(job, run)
        self.url = url
        self.interval = interval
        self.timeout = timeout
        self.monotonic = monotonic
        self.snapshot = None
        self.pushed = 0
        self.warned = False
        self._stopping = False
        self._running = False

    def start(self):
        if self.interval:
            from gevent import monkey
            self._sleep = monkey.get_original('time', 'sleep')
            self._running = True
            monkey.get_original('thread' if str is bytes else '_thread',
                                'start_new_thread')(self._loop, ())

    def publish(self, snapshot):
        """Push `snapshot` (from the run loop) at the next interval."""
        self.snapshot = snapshot

    def stop(self, linger=True):
        """Push the final figures, after any push under way."""
        self._stopping = True
        deadline = self.monotonic() + 2 * self.timeout + 1
        while self._running and self.monotonic() < deadline:
            self._sleep(0.02)
        if self.snapshot is not None:
            self.push(body(final(self.snapshot), last=True))

    def _loop(self):
        try:
            due = self.monotonic() + self.interval
            while not self._stopping:
                self._sleep(0.1)
                if self.monotonic() >= due and self.snapshot is not None:
                    due = self.monotonic() + self.interval
                    self.push(body(self.snapshot))
        finally:
            self._running = False

    def push(self, data):
        """PUT `data` to the group; a failure is one warning for the
        whole run.  True once the gateway took it."""
        try:
            status = _put(self.address, self.path, data, self.timeout)
        except (IOError, OSError, ValueError, HTTPException) as exc:
            problem = '%s' % (exc,) or exc.__class__.__name__
        else:
            if 200 <= status < 300:
                self.pushed += 1
                return True
            problem = 'HTTP status %d' % status
        if not self.warned:
            self.warned = True
            log.warning('--push %s: the Pushgateway did not take the '
                        'figures (%s)', self.url, problem)
        return False


def _put(address, path, data, timeout):
    """The status of one PUT over a plain (never green) socket: the push
    thread is a real one, and a green socket would wait on the run
    loop's hub."""
    import socket
    from gevent import monkey

    class Connection(HTTPConnection):
        def connect(self):
            plain = monkey.get_original('socket', 'socket')
            lookup = monkey.get_original('socket', 'getaddrinfo')
            family, kind, proto, _, where = lookup(
                self.host, self.port, 0, socket.SOCK_STREAM)[0]
            sock = plain(family, kind, proto)
            sock.settimeout(self.timeout)
            try:
                sock.connect(where)
            except Exception:
                sock.close()
                raise
            self.sock = sock

    connection = Connection(address[0], address[1], timeout=timeout)
    try:
        connection.request('PUT', path, data,
                           {'Content-Type': CONTENT_TYPE})
        response = connection.getresponse()
        response.read()
        return response.status
    finally:
        connection.close()
