"""The cost of a huge ListBuckets answer to `cleanup-containers --s3`:
peak RSS and wall time of the command against a loopback server whose
answer is --mb MB of XML (bucket entries of about 100 bytes each), sent
as it is made.

    python bench/listing_bounds.py [--mb 100] [--root TREE]...

Each --root (default: this tree) is run in turn, as `python -m
ssbench.cli.master` from that tree; a line per tree gives its exit
status, wall seconds, peak RSS (the child's own getrusage at exit) and
its last line on stderr.  Before answers were bounded, 100 MB cost
1.8 GB and 19 s; see docs/reliability.rst, "Answers from outside".
"""
from __future__ import absolute_import, division, print_function

import argparse
import os
import re
import subprocess
import sys
import threading
import time

try:
    from http.server import BaseHTTPRequestHandler, HTTPServer
    from socketserver import ThreadingMixIn
except ImportError:  # pragma: no cover - Python 2.7
    from BaseHTTPServer import BaseHTTPRequestHandler, HTTPServer
    from SocketServer import ThreadingMixIn

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MEASURED = (
    'import atexit, re, runpy, sys\n'
    'atexit.register(lambda: sys.stderr.write("PEAK-RSS %s\\n" % '
    're.search(r"VmHWM:\\s*(\\d+)", open("/proc/self/status").read())'
    '.group(1)))\n'
    'sys.argv = ["ssbench-master"] + sys.argv[1:]\n'
    'runpy.run_module("ssbench.cli.master", run_name="__main__")\n')


class _Huge(BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'

    def log_message(self, *args):
        pass

    def do_GET(self):
        size = self.server.size
        head = b'<?xml version="1.0"?><ListAllMyBucketsResult><Buckets>'
        tail = b'</Buckets></ListAllMyBucketsResult>'
        block = b''.join(b'<Bucket><Name>other-%06d</Name><CreationDate>'
                         b'2024-02-29T12:00:00.000Z</CreationDate></Bucket>'
                         % index for index in range(1000))
        self.send_response(200)
        self.send_header('Content-Length', str(size))
        self.end_headers()
        try:
            self.wfile.write(head)
            left = size - len(head) - len(tail)
            while left > 0:
                piece = block if left >= len(block) else b' ' * left
                self.wfile.write(piece)
                left -= len(piece)
            self.wfile.write(tail)
        except (IOError, OSError):
            pass        # refused: the client closed


class _Server(ThreadingMixIn, HTTPServer):
    daemon_threads = True

    def handle_error(self, request, client_address):
        pass            # a client that refused the answer: as it should


def run_once(root, url, timeout):
    """(status, wall seconds, peak RSS MB, last stderr line) of one
    cleanup-containers --s3 from `root`."""
    env = dict(os.environ, AWS_ACCESS_KEY_ID='AKID',
               AWS_SECRET_ACCESS_KEY='the-secret', AWS_ENDPOINT_URL=url,
               AWS_REGION='us-east-1')
    started = time.time()
    proc = subprocess.Popen(
        [sys.executable, '-c', MEASURED, 'cleanup-containers', '--s3',
         '--network-timeout', str(timeout)], cwd=root, env=env,
        stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    _, err = proc.communicate()
    wall = time.time() - started
    err = err.decode('utf-8', 'replace')
    peak = re.search(r'PEAK-RSS (\d+)', err)
    lines = [line for line in err.splitlines()
             if line.strip() and not line.startswith('PEAK-RSS')]
    return (proc.returncode, wall,
            int(peak.group(1)) / 1024.0 if peak else float('nan'),
            lines[-1][:160] if lines else '')


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--mb', type=float, default=100.0,
                        help='size of the ListBuckets answer, MB')
    parser.add_argument('--root', action='append', default=[],
                        help='source tree to run (repeatable)')
    parser.add_argument('--network-timeout', type=float, default=60.0)
    args = parser.parse_args()
    httpd = _Server(('127.0.0.1', 0), _Huge)
    httpd.size = int(args.mb * 1024 * 1024)
    thread = threading.Thread(target=httpd.serve_forever)
    thread.daemon = True
    thread.start()
    url = 'http://127.0.0.1:%d' % httpd.server_address[1]
    print('Python %s; ListBuckets answer of %d bytes'
          % (sys.version.split()[0], httpd.size))
    try:
        for root in [os.path.abspath(r) for r in args.root] or [ROOT]:
            status, wall, peak, last = run_once(root, url,
                                                args.network_timeout)
            print('%s: status %d, %.2f s, peak RSS %.0f MB: %s'
                  % (root, status, wall, peak, last))
    finally:
        httpd.shutdown()
        httpd.server_close()


if __name__ == '__main__':
    main()
