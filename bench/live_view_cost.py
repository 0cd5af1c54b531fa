#!/usr/bin/env python
"""What the live view costs: `run-scenario --noop` throughput with the
status line and the Prometheus endpoint on, against the same run without
them (issue 49: at least 0.95 of --baseline none).

    python bench/live_view_cost.py [--runs 5] [--case u24w2b1] [-o 30000]
                                   [--baseline chars|none]

A is today's default away from a terminal (`--progress chars`, the 0.3.9
characters to a file), or with `--baseline none` no progress at all (the
master then checks most results on their bytes and decodes none, where
the live view decodes the values it counts, once per distinct set); B
is `--progress line --metrics 127.0.0.1:PORT` (the line to a file,
which costs what a terminal would) with a scraper taking /metrics every
second, as Prometheus would.  Runs alternate A, B,
A, B... on one machine (see noop_throughput.py for how a run is measured);
it prints each pair's rate B/A, each side's median req/s and CPU per
request (master, and master plus workers), the ratio of the median rates,
and the ratio of the CPU per request A/B: on a busy machine, where the
rates swing by a third from run to run, the steadier measure of what B
costs.

    u24 w2 b1, A --progress none, 5 runs each: A 49,508 req/s (CPU/req
    master 34.7 us, all 68.9 us), B 46,410 req/s (master 36.2 us, all
    70.4 us, 10 scrapes): rate B/A = 93.7%, CPU/req A/B = 97.9%

bench/live_count_cost.py measures the live view's count alone, without
the noise of whole runs.
"""
from __future__ import absolute_import, division, print_function

import argparse
import socket
import sys
import threading
import time

from benchlib import free_ports, median
from noop_throughput import SCENARIO, parse_case, run_once

try:
    from urllib.request import urlopen
except ImportError:  # Python 2
    from urllib2 import urlopen


class Scraper(object):
    """Takes http://127.0.0.1:PORT/metrics every `interval` seconds in a
    thread until stopped; counts the answers."""

    def __init__(self, port, interval=1.0):
        self.url = 'http://127.0.0.1:%d/metrics' % port
        self.interval = interval
        self.answers = 0
        self.stopping = False
        self.thread = threading.Thread(target=self._run)
        self.thread.daemon = True

    def _run(self):
        while not self.stopping:
            try:
                urlopen(self.url, timeout=2).read()
                self.answers += 1
            except (IOError, OSError, socket.error):
                pass   # not listening yet, or the run is over
            time.sleep(self.interval)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc_info):
        self.stopping = True
        self.thread.join(5)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--runs', type=int, default=5,
                        help='runs of each side (medians are compared)')
    parser.add_argument('--case', type=parse_case, default='u24w2b1',
                        help='uUSERSwWORKERSbBATCH')
    parser.add_argument('-o', '--ops', type=int, default=30000,
                        help='operations per run')
    parser.add_argument('--python', default=sys.executable)
    parser.add_argument('--timeout', type=float, default=120.0,
                        help='seconds one run may take')
    parser.add_argument('--baseline', choices=('chars', 'none'),
                        default='chars', help='the --progress of side A')
    args = parser.parse_args(argv)
    users, workers, batch = args.case
    sides = {'A': [], 'B': []}
    scrapes = 0
    for _ in range(args.runs):
        for side in ('A', 'B'):
            if side == 'A':
                extra, scraper = ['--progress', args.baseline], None
            else:
                port = free_ports(1)[0]
                extra = ['--progress', 'line', '--metrics',
                         '127.0.0.1:%d' % port]
                scraper = Scraper(port)
            try:
                if scraper is None:
                    run = run_once(args.python, users, workers, batch,
                                   args.ops, SCENARIO, args.timeout,
                                   extra=extra)
                else:
                    with scraper:
                        run = run_once(args.python, users, workers, batch,
                                       args.ops, SCENARIO, args.timeout,
                                       extra=extra)
                    scrapes += scraper.answers
            except RuntimeError as exc:
                print('%s: FAILED: %s' % (side, exc))
                return 1
            sides[side].append(run)
        a, b = sides['A'][-1], sides['B'][-1]
        print('pair %d: A %s req/s, B %s req/s: B/A = %.1f%% (CPU/req all '
              'A/B = %.1f%%)' % (
                  len(sides['A']), '{:,.0f}'.format(a.rate),
                  '{:,.0f}'.format(b.rate), 100.0 * b.rate / a.rate,
                  100.0 * (a.master_us + a.workers_us) /
                  (b.master_us + b.workers_us)))
        sys.stdout.flush()
    figures = {}
    for side, runs in sides.items():
        figures[side] = (median([r.rate for r in runs]),
                         median([r.master_us for r in runs]),
                         median([r.master_us + r.workers_us for r in runs]))
    a, b = figures['A'], figures['B']
    print('u%d w%d b%d, A --progress %s, %d runs each: A %s req/s '
          '(CPU/req master %.1f us, all %.1f us), B %s req/s (master '
          '%.1f us, all %.1f us, %d scrapes): rate B/A = %.1f%%, '
          'CPU/req A/B = %.1f%%' % (
              users, workers, batch, args.baseline, args.runs,
              '{:,.0f}'.format(a[0]),
              a[1], a[2], '{:,.0f}'.format(b[0]), b[1], b[2], scrapes,
              100.0 * b[0] / a[0], 100.0 * a[2] / b[2]))
    return 0


if __name__ == '__main__':
    sys.exit(main())
