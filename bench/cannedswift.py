#!/usr/bin/env python
"""A canned Swift: one nginx worker process answering as Swift would.

    python bench/cannedswift.py start|stop|status|env [--dir DIR]
                                [--port N] [--timeout S]

It measures the client, not the cluster: every answer is made up, so a
benchmark against it shows what the client costs per request.  Only on
127.0.0.1; nginx comes from Debian (`apt-get install nginx-light`, as root,
when no nginx is on the PATH) and runs with a configuration and prefix of
its own under DIR (default /tmp/ssbench-canned-swift), never the system
one.  Answers:

- GET /auth/v1.0: 200 with X-Storage-Url (http://127.0.0.1:PORT/v1/AUTH_
  canned), X-Auth-Token and X-Storage-Token, whatever the credentials;
- objects (/v1/ACCOUNT/CONTAINER/NAME): PUT 201 (the body is read and
  dropped, any size), DELETE 204, GET and HEAD a 4 KiB body, or 1 GiB for
  names that start with LARGE_PREFIX (a sparse file: nothing on disk);
- containers: PUT 201, HEAD, GET (an empty listing) and DELETE 204;
  the account: HEAD and GET 204;

each with an X-Trans-Id; and as an S3 store with path-style addressing
(requests are not checked, so any keys do): objects (/BUCKET/KEY) PUT 200,
DELETE 204, GET and HEAD the 4 KiB body; buckets 200; GET / an empty
ListBuckets answer; each with an x-amz-request-id.

`start` prints the auth URL; it is a no-op when the server in DIR already
runs.  `stop` stops exactly the nginx whose pid file DIR holds (and its
worker), `status` exits 0 when it answers, `env` prints ST_AUTH/ST_USER/
ST_KEY exports.
"""
from __future__ import absolute_import, division, print_function

import argparse
import errno
import os
import signal
import socket
import subprocess
import sys
import time

DEFAULT_DIR = '/tmp/ssbench-canned-swift'
OBJECT_SIZE = 4096
LARGE_SIZE = 1 << 30
LARGE_PREFIX = 'large_'
ACCOUNT = 'AUTH_canned'
TOKEN = 'AUTH_tkcanned'
USER, KEY = 'canned:canned', 'canned'
# What GET / answers over S3: no bucket (a run's buckets are made anew).
LIST_BUCKETS = ('<?xml version="1.0" encoding="UTF-8"?><ListAllMyBucketsResult'
                ' xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Owner><ID>'
                'canned</ID></Owner><Buckets></Buckets>'
                '</ListAllMyBucketsResult>')
S3_ACCESS, S3_SECRET = 'canned', 'canned-secret'

CONFIG = """\
%(user)sworker_processes 1;
daemon on;
pid %(dir)s/nginx.pid;
error_log %(dir)s/error.log warn;
worker_rlimit_nofile 8192;
events { worker_connections 4096; }
http {
    access_log off;
    server_tokens off;
    client_body_temp_path %(dir)s/tmp/body;
    proxy_temp_path %(dir)s/tmp/proxy;
    fastcgi_temp_path %(dir)s/tmp/fastcgi;
    uwsgi_temp_path %(dir)s/tmp/uwsgi;
    scgi_temp_path %(dir)s/tmp/scgi;
    client_max_body_size 0;
    keepalive_requests 1000000000;
    keepalive_timeout 300s;
    default_type application/octet-stream;
    sendfile on;
    etag off;
    server {
        listen 127.0.0.1:%(port)d;
        root %(dir)s/www;
        location = /auth/v1.0 {
            add_header X-Trans-Id tx$request_id always;
            add_header X-Storage-Url %(storage_url)s always;
            add_header X-Auth-Token %(token)s always;
            add_header X-Storage-Token %(token)s always;
            return 200 "";
        }
        location ~ ^/v1/[^/]+/[^/]+/%(large)s {
            add_header X-Trans-Id tx$request_id always;
            if ($request_method = PUT) { return 201 ""; }
            if ($request_method = DELETE) { return 204; }
            rewrite ^ /large break;
        }
        location ~ ^/v1/[^/]+/[^/]+/. {
            add_header X-Trans-Id tx$request_id always;
            if ($request_method = PUT) { return 201 ""; }
            if ($request_method = DELETE) { return 204; }
            rewrite ^ /object break;
        }
        location ~ ^/v1/[^/]+/[^/]+/?$ {
            add_header X-Trans-Id tx$request_id always;
            if ($request_method = PUT) { return 201 ""; }
            return 204;
        }
        location = / {
            add_header x-amz-request-id tx$request_id always;
            default_type application/xml;
            return 200 '%(list_buckets)s';
        }
        location ~ ^/(?!v1/)[^/]+/. {
            add_header x-amz-request-id tx$request_id always;
            if ($request_method = PUT) { return 200 ""; }
            if ($request_method = DELETE) { return 204; }
            rewrite ^ /object break;
        }
        location ~ ^/(?!v1/)[^/]+/?$ {
            add_header x-amz-request-id tx$request_id always;
            return 200 "";
        }
        location / {
            add_header X-Trans-Id tx$request_id always;
            return 204;
        }
    }
}
"""


class CannedError(Exception):
    """The canned server could not be installed, started or stopped."""


def nginx_binary():
    """The nginx to run; installs Debian's nginx-light when none is found
    and this process may (root with apt-get)."""
    for path in ('/usr/sbin/nginx', '/usr/bin/nginx'):
        if os.access(path, os.X_OK):
            return path
    if os.geteuid() != 0 or not os.path.exists('/usr/bin/apt-get'):
        raise CannedError('no nginx: install it (apt-get install '
                          'nginx-light) or run this as root')
    env = dict(os.environ, DEBIAN_FRONTEND='noninteractive')
    with open(os.devnull, 'wb') as quiet:
        for argv in (['apt-get', 'update', '-qq'],
                     ['apt-get', 'install', '-y', '-qq', 'nginx-light']):
            if subprocess.call(argv, env=env, stdout=quiet) != 0:
                raise CannedError('%s failed' % ' '.join(argv))
    if not os.access('/usr/sbin/nginx', os.X_OK):
        raise CannedError('apt-get installed no /usr/sbin/nginx')
    return '/usr/sbin/nginx'


def free_port():
    sock = socket.socket()
    try:
        sock.bind(('127.0.0.1', 0))
        return sock.getsockname()[1]
    finally:
        sock.close()


def auth_url(port):
    return 'http://127.0.0.1:%d/auth/v1.0' % port


def s3_endpoint(port):
    return 'http://127.0.0.1:%d' % port


def _paths(directory):
    return {'conf': os.path.join(directory, 'nginx.conf'),
            'pid': os.path.join(directory, 'nginx.pid'),
            'port': os.path.join(directory, 'port')}


def _write_files(directory, port):
    for sub in ('tmp', 'www'):
        if not os.path.isdir(os.path.join(directory, sub)):
            os.makedirs(os.path.join(directory, sub))
    www = os.path.join(directory, 'www')
    with open(os.path.join(www, 'object'), 'wb') as handle:
        handle.write(b'C' * OBJECT_SIZE)
    with open(os.path.join(www, 'large'), 'wb') as handle:
        handle.truncate(LARGE_SIZE)      # sparse: reads as zeros
    paths = _paths(directory)
    with open(paths['conf'], 'w') as handle:
        handle.write(CONFIG % {
            # nginx started by root would run its worker as nobody, who
            # may not read DIR (a private temporary directory, say).
            'user': 'user root;\n' if os.geteuid() == 0 else '',
            'dir': directory, 'port': port, 'token': TOKEN,
            'large': LARGE_PREFIX,
            'storage_url': 'http://127.0.0.1:%d/v1/%s' % (port, ACCOUNT),
            'list_buckets': LIST_BUCKETS})
    with open(paths['port'], 'w') as handle:
        handle.write('%d\n' % port)


def read_pid(directory):
    """The pid of the nginx master that `directory` runs, or None."""
    paths = _paths(directory)
    try:
        with open(paths['pid']) as handle:
            pid = int(handle.read().strip())
        with open('/proc/%d/cmdline' % pid, 'rb') as handle:
            cmdline = handle.read()
    except (IOError, OSError, ValueError):
        return None
    # A recycled pid is someone else's process: leave it alone.
    if paths['conf'].encode('utf-8') not in cmdline:
        return None
    return pid


def read_port(directory):
    try:
        with open(_paths(directory)['port']) as handle:
            return int(handle.read().strip())
    except (IOError, OSError, ValueError):
        return None


def children(pid):
    """Pids whose parent is `pid` (its nginx worker)."""
    found = []
    for name in os.listdir('/proc'):
        if not name.isdigit():
            continue
        try:
            with open('/proc/%s/stat' % name) as handle:
                fields = handle.read().rsplit(')', 1)[1].split()
        except (IOError, OSError, IndexError):
            continue
        if int(fields[1]) == pid:
            found.append(int(name))
    return found


def answers(port, timeout=2.0):
    """True when the server on `port` gives a token."""
    sock = None
    try:
        sock = socket.create_connection(('127.0.0.1', port), timeout)
        sock.sendall(b'GET /auth/v1.0 HTTP/1.1\r\nHost: x\r\n'
                     b'Connection: close\r\n\r\n')
        data = b''
        while b'\r\n\r\n' not in data:
            got = sock.recv(4096)
            if not got:
                break
            data += got
        return data.startswith(b'HTTP/1.1 200') and TOKEN.encode() in data
    except (socket.error, OSError):
        return False
    finally:
        if sock is not None:
            sock.close()


def start(directory=DEFAULT_DIR, port=0, timeout=10.0):
    """Start the server (unless it runs already); returns its port."""
    directory = os.path.abspath(directory)
    if read_pid(directory) is not None:
        port = read_port(directory)
        if port and answers(port):
            return port
        stop(directory, timeout)
    nginx = nginx_binary()
    tries = 1 if port else 3
    for attempt in range(tries):
        chosen = port or free_port()
        _write_files(directory, chosen)
        conf = _paths(directory)['conf']
        proc = subprocess.Popen(
            [nginx, '-p', directory, '-c', conf, '-e',
             os.path.join(directory, 'error.log')],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        out = proc.communicate()[0].decode('utf-8', 'replace')
        if proc.returncode == 0:
            deadline = time.time() + timeout
            while time.time() < deadline:
                if read_pid(directory) and answers(chosen):
                    return chosen
                time.sleep(0.05)
            stop(directory, timeout)
            raise CannedError('nginx did not answer on port %d within '
                              '%.0f s' % (chosen, timeout))
        # Someone took the free port meanwhile: choose another.
        if 'Address already in use' not in out or attempt == tries - 1:
            raise CannedError('nginx failed: %s' % out.strip()[-500:])
    raise CannedError('no port')


def _alive(pid):
    try:
        os.kill(pid, 0)
    except OSError as exc:
        return exc.errno != errno.ESRCH
    try:
        with open('/proc/%d/stat' % pid) as handle:
            state = handle.read().rsplit(')', 1)[1].split()[0]
    except (IOError, OSError, IndexError):
        return False
    return state != 'Z'


def stop(directory=DEFAULT_DIR, timeout=10.0):
    """Stop the nginx of `directory` and its worker; returns the pids
    stopped ([] when none ran).  Raises CannedError if one outlives
    `timeout` even after SIGKILL."""
    directory = os.path.abspath(directory)
    pid = read_pid(directory)
    if pid is None:
        return []
    pids = [pid] + children(pid)
    os.kill(pid, signal.SIGTERM)       # nginx: fast shutdown
    deadline = time.time() + timeout
    while any(_alive(p) for p in pids) and time.time() < deadline:
        time.sleep(0.02)
    for other in pids:
        if _alive(other):
            try:
                os.kill(other, signal.SIGKILL)
            except OSError:
                pass
    time.sleep(0.05)
    left = [p for p in pids if _alive(p)]
    if left:
        raise CannedError('nginx pids %s still run' % left)
    try:
        os.remove(_paths(directory)['pid'])
    except OSError:
        pass
    return pids


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('action', choices=('start', 'stop', 'status', 'env'))
    parser.add_argument('--dir', default=DEFAULT_DIR)
    parser.add_argument('--port', type=int, default=0,
                        help='default: a free port')
    parser.add_argument('--timeout', type=float, default=10.0)
    args = parser.parse_args(argv)
    try:
        if args.action == 'start':
            print(auth_url(start(args.dir, args.port, args.timeout)))
        elif args.action == 'stop':
            pids = stop(args.dir, args.timeout)
            print('stopped %s' % (pids,) if pids else 'not running')
        else:
            port = read_port(args.dir)
            up = read_pid(args.dir) is not None and port and answers(port)
            if args.action == 'env':
                if not up:
                    raise CannedError('not running: start it first')
                print('export ST_AUTH=%s ST_USER=%s ST_KEY=%s' % (
                    auth_url(port), USER, KEY))
            else:
                print('running on %s (pid %d)' % (
                    auth_url(port), read_pid(args.dir)) if up
                      else 'not running')
                return 0 if up else 1
    except CannedError as exc:
        sys.stderr.write('cannedswift: %s\n' % (exc,))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
