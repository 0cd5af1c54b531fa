#!/usr/bin/env python
"""CPU per GET of ssbench's own HTTP connection against other clients.

    python bench/http_client.py [--requests 20000] [--runs 3]

Starts bench/cannedswift.py (Debian's nginx, one worker process, on a free
loopback port, in a temporary directory) and stops it at the end.  Each
client does --requests GETs of the same 4 KiB object over one keep-alive
connection, reading the whole body, in this process; the clients take
turns, run by run, and the median of the user + sys CPU per GET (this
process only, not nginx's) is printed with its ratio to
ssbench.store.httpconn's:

    httpconn: 21.0 us CPU/GET (3 runs of 20000)
    http.client: 52.3 us CPU/GET; 2.49x httpconn

`urllib3` and `geventhttpclient` are optional (`pip install urllib3
geventhttpclient` into the venv for the bench); a missing one is skipped
with a printed line.  Why ssbench has its own client: this ratio.
"""
from __future__ import absolute_import, division, print_function

import argparse
import os
import shutil
import sys
import tempfile

import cannedswift
from benchlib import cpu_seconds, median

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from ssbench.swift import httpconn  # noqa: E402  (after the path)

PATH = '/v1/AUTH_canned/bench/object'


def ours(port):
    conn = httpconn.HTTPConnection('127.0.0.1', port)

    def get():
        conn.send('GET', PATH)
        resp = conn.read_response()
        body = conn.read_body()
        assert resp.status == 200 and len(body) == cannedswift.OBJECT_SIZE
    return get, conn.close


def stdlib(port):
    try:
        from http.client import HTTPConnection
    except ImportError:       # Python 2
        from httplib import HTTPConnection
    conn = HTTPConnection('127.0.0.1', port)

    def get():
        conn.request('GET', PATH)
        resp = conn.getresponse()
        body = resp.read()
        assert resp.status == 200 and len(body) == cannedswift.OBJECT_SIZE
    return get, conn.close


def urllib3_client(port):
    import urllib3
    pool = urllib3.HTTPConnectionPool('127.0.0.1', port, maxsize=1)

    def get():
        resp = pool.request('GET', PATH, retries=False)
        assert resp.status == 200 and \
            len(resp.data) == cannedswift.OBJECT_SIZE
    return get, pool.close


def gevent_client(port):
    from geventhttpclient import HTTPClient
    client = HTTPClient('127.0.0.1', port, concurrency=1)

    def get():
        resp = client.get(PATH)
        body = resp.read()
        assert resp.status_code == 200 and \
            len(body) == cannedswift.OBJECT_SIZE
    return get, client.close


CLIENTS = [('httpconn', ours), ('http.client', stdlib),
           ('urllib3', urllib3_client),
           ('geventhttpclient', gevent_client)]
OPTIONAL = ('urllib3', 'geventhttpclient')


def per_get(make, port, requests):
    """Microseconds of this process's CPU per GET (after 200 to warm)."""
    get, close = make(port)
    try:
        for _ in range(200):
            get()
        began = cpu_seconds()
        for _ in range(requests):
            get()
        return (cpu_seconds() - began) / requests * 1e6
    finally:
        close()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--requests', type=int, default=20000)
    parser.add_argument('--runs', type=int, default=3)
    args = parser.parse_args(argv)
    clients = []
    for name, make in CLIENTS:
        if name in OPTIONAL:
            try:
                __import__(name)
            except ImportError:
                print('%s: not installed, skipped' % name)
                continue
        clients.append((name, make))
    tmp = tempfile.mkdtemp(prefix='ssbench-http-bench-')
    try:
        port = cannedswift.start(tmp)
        figures = dict((name, []) for name, _ in clients)
        for _ in range(args.runs):
            for name, make in clients:
                figures[name].append(per_get(make, port, args.requests))
    finally:
        cannedswift.stop(tmp)
        shutil.rmtree(tmp, ignore_errors=True)
    base = median(figures['httpconn'])
    for name, _ in clients:
        value = median(figures[name])
        line = '%s: %.1f us CPU/GET' % (name, value)
        if name == 'httpconn':
            line += ' (%d runs of %d)' % (args.runs, args.requests)
        else:
            line += '; %.2fx httpconn' % (value / base)
        print(line)
    return 0


if __name__ == '__main__':
    sys.exit(main())
