"""The live view with real processes: the status line in a real terminal
(tmux), the 0.3.9 characters when stderr is a file, and --metrics scraped
by a real Prometheus (Debian's) while run-scenario runs against the local
Swift."""
from __future__ import absolute_import, division, print_function

import json
import os
import re
import subprocess
import sys
import threading
import time

import pytest

try:
    from urllib.parse import urlencode
    from urllib.request import urlopen
except ImportError:  # Python 2
    from urllib import urlencode
    from urllib2 import urlopen

from ssbench.live.progress import LEGEND
from tests.e2e import support

pytestmark = pytest.mark.e2e

TOTAL = re.compile(r'Count:\s+(\d+) \(\s*(\d+) error;.*Average requests per '
                   r'second:\s+([0-9.]+)')
# The status line: phase and elapsed, ETA, a rate and p99 with a unit.
STATUS = re.compile(r'benchmark \d\d:\d\d \| ETA \d\d:\d\d \| \d[\d,]* req '
                    r'\| \d[\d,]* req/s \| p50 \S+ p99 [\d.]+m?s \|')
PROGRESS_CHARS = re.compile(r'^[.oO*X_|^@]+$')


def _wait(condition, timeout, what):
    deadline = time.time() + timeout
    while time.time() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.2)
    raise AssertionError('timed out waiting for %s' % what)


@pytest.fixture
def scenario(tmpdir):
    support.require_swift()
    made = []

    def make(**changes):
        path, data = support.write_scenario(tmpdir, **changes)
        made.append(data['container_base'])
        return path, data
    yield make
    view = support.SwiftView()
    for base in made:
        view.delete_everything(base + '_')


def _run_argv(path, stats, *extra):
    return ([sys.executable, '-m', 'ssbench.cli.master', 'run-scenario',
             '-f', path, '-s', stats, '--workers', '2', '-r', '6'] +
            support.zmq_args() + support.auth_args() + list(extra))


def _tmux(socket_name, *args):
    return subprocess.check_output(
        ['tmux', '-L', socket_name] + list(args)).decode('utf-8', 'replace')


def test_a_terminal_shows_the_status_line_a_file_the_characters(
        tmpdir, scenario):
    path, _ = scenario()
    socket_name = 'ssbench-test-%d' % os.getpid()
    done = os.path.join(str(tmpdir), 'status')
    command = ' '.join("'%s'" % arg for arg in _run_argv(
        path, os.path.join(str(tmpdir), 'tty.stat'), '-R'))
    _tmux(socket_name, 'new-session', '-d', '-s', 'run', '-x', '200',
          '-y', '50', 'cd %s && %s; echo $? > %s; sleep 120' % (
              support.ROOT, command, done))
    try:
        line = _wait(lambda: STATUS.search(_tmux(
            socket_name, 'capture-pane', '-p', '-t', 'run')), 120,
            'the status line')
        _wait(lambda: os.path.exists(done) and support.read_text(done),
              120, 'the run to end')
        assert support.read_text(done).strip() == '0'
        screen = _tmux(socket_name, 'capture-pane', '-p', '-t', 'run')
    finally:
        subprocess.call(['tmux', '-L', socket_name, 'kill-server'])
    assert 'Benchmark Run:' not in screen      # no legend, no characters
    assert not [row for row in screen.splitlines()
                if PROGRESS_CHARS.match(row.strip())]
    assert 'p99' in line.group(0)

    # The same run, stderr to a file: the 0.3.9 legend and characters.
    ran = support.run(_run_argv(path, os.path.join(str(tmpdir), 'f.stat'),
                                '-R'), 240)
    assert ran.status == 0, ran
    assert LEGEND in ran.err
    rows = [row for row in ran.err.splitlines()
            if PROGRESS_CHARS.match(row)]
    assert rows and sum(len(row) for row in rows) > 10
    # No status line (the summary line at the end has req/s too).
    assert ' | ETA ' not in ran.err and '\x1b[K' not in ran.err


# A row of --progress ops: an operation, its rate, p99 and errors.
OPS_ROW = re.compile(r'^  (CREATE|READ|UPDATE|DELETE) +\d[\d,]* req/s \| '
                     r'p99 [\d.]+m?s +\| errors \d+', re.M)


def test_progress_ops_redraws_a_row_per_operation_in_place(
        tmpdir, scenario):
    path, _ = scenario(crud_profile=[30, 50, 10, 10])
    socket_name = 'ssbench-ops-%d' % os.getpid()
    done = os.path.join(str(tmpdir), 'status')
    command = ' '.join("'%s'" % arg for arg in _run_argv(
        path, os.path.join(str(tmpdir), 'ops.stat'), '-R', '--progress',
        'ops'))
    _tmux(socket_name, 'new-session', '-d', '-s', 'run', '-x', '200',
          '-y', '50', 'cd %s && %s; echo $? > %s; sleep 120' % (
              support.ROOT, command, done))
    blocks = []
    try:
        deadline = time.time() + 120
        while not (os.path.exists(done) and support.read_text(done)) and \
                time.time() < deadline:
            screen = _tmux(socket_name, 'capture-pane', '-p', '-t', 'run')
            # The screen while the benchmark's block is the last one.
            status = re.search(r'^benchmark \d\d:\d\d', screen, re.M)
            if status and not re.search(r'^cleanup \d\d:\d\d', screen,
                                        re.M):
                blocks.append(screen[status.start():])
            time.sleep(0.3)
        assert support.read_text(done).strip() == '0'
    finally:
        subprocess.call(['tmux', '-L', socket_name, 'kill-server'])
    rows = [OPS_ROW.findall(block) for block in blocks]
    # Every screen of the benchmark holds one block, a row per operation,
    # however often it was redrawn...
    assert rows and all(sorted(found) == sorted(set(found)) for found in
                        rows), blocks
    assert set(['CREATE', 'READ']) <= set(rows[-1]), blocks[-1]
    # ...and the figures moved on between redraws.
    assert len(set(block.splitlines()[0] for block in blocks)) >= 2, blocks

    # On a file: the same rows as plain lines, no cursor movement.
    ran = support.run(_run_argv(path, os.path.join(str(tmpdir), 'f.stat'),
                                '-R', '--progress', 'ops'), 240)
    assert ran.status == 0, ran
    assert OPS_ROW.search(ran.err) and '\x1b' not in ran.err, ran.err


def _query(port, expression):
    answer = json.loads(urlopen('http://127.0.0.1:%d/api/v1/query?%s' % (
        port, urlencode({'query': expression})), timeout=10).read().decode(
            'utf-8'))
    assert answer['status'] == 'success', answer
    result = answer['data']['result']
    return float(result[0]['value'][1]) if result else None


@pytest.fixture
def prometheus(tmpdir):
    """(Prometheus's port, the port it scrapes each second)."""
    with support.prometheus(tmpdir) as ports:
        yield ports


def test_prometheus_sees_the_rate_and_the_errors_of_the_report(
        tmpdir, prometheus):
    port, target = prometheus
    outcome = {}

    def run():
        try:
            outcome['stats'] = support.run_with_errors(
                tmpdir, run_seconds=12,
                extra=('--metrics', '127.0.0.1:%d' % target, '--progress',
                       'none'))
        except BaseException as exc:   # told in the main thread
            outcome['error'] = exc
    runner = threading.Thread(target=run)
    runner.start()
    try:
        # While the run runs, Prometheus has a request rate.
        _wait(lambda: 'error' in outcome or _query(
            port, 'sum(rate(ssbench_requests_total{phase="benchmark"}'
            '[3s]))'), 120, 'a live request rate')
    finally:
        runner.join(300)
    assert 'error' not in outcome, outcome['error']
    ran = support.master('report-scenario', '-s', outcome['stats'],
                         timeout=120)
    assert ran.status == 0, ran
    # The 0.3.9 TOTAL: successes, errors apart, successes per second.
    count, errors, rate = TOTAL.search(ran.out).groups()
    count, errors, rate = int(count), int(errors), float(rate)
    assert errors > 0
    last = 'sum(max_over_time(ssbench_requests_total{phase="benchmark",' \
        'result="%s"}[10m]))'
    seen_count = _query(port, last % 'ok')
    seen_errors = _query(port, last % 'error')
    seen_rate = seen_count / _query(
        port, 'max(max_over_time(ssbench_phase_elapsed_seconds'
        '{phase="benchmark"}[10m]))')
    assert seen_count == pytest.approx(count, rel=0.05)
    assert seen_errors == pytest.approx(errors, rel=0.05)
    # The report's rate is over the span of the results; the gauge is the
    # phase's wall time, which also holds the phase's start and end around
    # them: a few tenths of a second here when the machine is quiet, over
    # half a second of the 12 when it is busy (9.1 against 9.6 req/s).
    assert rate * 0.8 <= seen_rate <= rate * 1.05, (seen_rate, rate)


BLOCK_CLIENT = ("import sys; sys.modules['prometheus_client'] = None; "
                "from ssbench.cli.master import main; sys.exit(main())")


@pytest.mark.parametrize('blocked, metrics, fragment', [
    (True, '127.0.0.1:0', 'install ssbench[metrics]'),
    (False, 'nowhere', "--metrics: 'nowhere' is not ADDR:PORT"),
    (False, ':70000', '--metrics: port 70000 is not 0-65535'),
])
def test_metrics_problems_are_one_line_before_any_work(
        tmpdir, blocked, metrics, fragment):
    path, _ = support.write_scenario(tmpdir)
    stats = os.path.join(str(tmpdir), 'never.stat')
    argv = [sys.executable] + (['-c', BLOCK_CLIENT] if blocked else
                               ['-m', 'ssbench.cli.master'])
    ran = support.run(argv + ['run-scenario', '-f', path, '-s', stats,
                              '--noop', '--metrics', metrics,
                              '--worker-wait', '1'], 60)
    assert ran.status != 0
    # The version banner (INFO), then the one line.
    lines = [line for line in ran.err.strip().splitlines()
             if not line.startswith('INFO:')]
    assert len(lines) == 1 and fragment in lines[0], ran
    assert not os.path.exists(stats + '.gz')
    assert not os.path.exists(stats)


# -- open loop: the status line, the histogram and the report agree -----

def _scrape(port, timeout=10):
    return urlopen('http://127.0.0.1:%d/metrics' % port,
                   timeout=timeout).read().decode('utf-8')


class _Scraper(object):
    """Takes /metrics every `interval` seconds in a thread, keeping the
    last answer, until stopped."""

    def __init__(self, port, interval=0.3):
        self.port = port
        self.interval = interval
        self.last = None
        self.done = threading.Event()
        self.thread = threading.Thread(target=self._run)
        self.thread.daemon = True

    def _run(self):
        while not self.done.is_set():
            try:
                self.last = _scrape(self.port, timeout=5)
            except Exception:
                pass          # not listening yet, or the run is over
            self.done.wait(self.interval)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc_info):
        self.done.set()
        self.thread.join(10)


SAMPLE = re.compile(r'^ssbench_last_byte_latency_seconds_bucket\{'
                    r'phase="benchmark",operation="upload_object",'
                    r'le="([^"]+)"\} ([0-9.e+]+)$', re.M)


def _p99_bucket(body):
    """(lower edge, upper edge) of the exported bucket holding the p99 of
    the benchmark's uploads, by the nearest-rank rule over its counts."""
    buckets = [(float(le), float(count))
               for le, count in SAMPLE.findall(body)]
    total = buckets[-1][1]
    rank = 0.99 * total
    lower = 0.0
    for edge, count in buckets:
        if count >= rank:
            return lower, edge
        lower = edge
    raise AssertionError('no bucket holds the p99: %r' % (buckets,))


def _seconds(text):
    """Seconds of the status line's latency text ('512ms', '2.41s')."""
    if text.endswith('ms'):
        return float(text[:-2]) / 1e3
    return float(text[:-1])


def _shell(argv, env):
    return ' '.join("'%s'" % arg for arg in
                    ['env'] + ['%s=%s' % item for item in sorted(
                        env.items())] + list(argv))


def test_a_rate_run_behind_shows_the_same_response_time_everywhere(tmpdir):
    from tests.fakes import FakeSwift
    swift = FakeSwift()
    # 2 requests at a time, 50 ms each: 40/s, for a schedule of 60/s.
    swift.limit(2, 0.05)
    socket_name = 'ssbench-rate-%d' % os.getpid()
    try:
        path, _ = support.write_scenario(
            tmpdir, user_count=10, crud_profile=[100, 0, 0, 0],
            sizes=[{'name': 'tiny', 'size_min': 100, 'size_max': 200}],
            initial_files={'tiny': 2})
        stats = os.path.join(str(tmpdir), 'rate.stat')
        port = support.free_port()
        done = os.path.join(str(tmpdir), 'status')
        argv = ([sys.executable, '-m', 'ssbench.cli.master', 'run-scenario',
                 '-f', path, '-s', stats, '--workers', '2', '-r', '4',
                 '--rate', '60', '--keep-objects', '--metrics',
                 '127.0.0.1:%d' % port, '-A', swift.auth_url, '-U',
                 swift.user, '-K', swift.key, '--progress', 'line'] +
                support.zmq_args())
        with _Scraper(port) as scraper:
            _tmux(socket_name, 'new-session', '-d', '-s', 'run', '-x', '250',
                  '-y', '50', 'cd %s && %s; echo $? > %s; sleep 120' % (
                      support.ROOT, _shell(argv, support.no_auth_env()),
                      done))
            _wait(lambda: os.path.exists(done) and support.read_text(done),
                  240, 'the run to end')
            screen = _tmux(socket_name, 'capture-pane', '-p', '-t', 'run')
        body = scraper.last
    finally:
        subprocess.call(['tmux', '-L', socket_name, 'kill-server'])
        swift.stop()
    assert support.read_text(done).strip() == '0', screen
    lines = [row for row in screen.splitlines()
             if row.startswith('benchmark ')]
    shown = _seconds(re.search(r' p99 (\S+) \|', lines[-1]).group(1))
    report = os.path.join(str(tmpdir), 'rate.json')
    ran = support.master('report-scenario', '-s', stats + '.gz', '--json',
                         report, timeout=120)
    assert ran.status == 0, ran
    with open(report) as fp:
        total = [op for op in json.load(fp)['operations']
                 if op['operation'] == 'total'][0]
    reported = total['latency']['last_byte'][0]['p99']
    # The run fell behind: its response times are far above the 50 ms
    # each request took.
    assert reported > 0.5
    # The status line: the same bins as the report's (2.9%), printed to
    # 3 digits.
    assert shown == pytest.approx(reported, rel=0.035), lines[-1]
    lower, upper = _p99_bucket(body)
    assert lower <= reported <= upper, (lower, reported, upper)


# -- a client that trickles stalls nothing --------------------------------

class _Trickler(object):
    """Keeps a connection to the endpoint sending one byte every 1.5 s
    (connecting again when dropped), and 31 idle connections open."""

    def __init__(self, port):
        self.port = port
        self.done = threading.Event()
        self.sent = 0
        self.idle = []
        self.thread = threading.Thread(target=self._run)
        self.thread.daemon = True

    def _run(self):
        import socket
        while not self.done.is_set():
            try:
                conn = socket.create_connection(('127.0.0.1', self.port),
                                                timeout=5)
            except (OSError, IOError):
                self.done.wait(0.2)
                continue
            try:
                if len(self.idle) < 31:
                    self.idle.append(conn)
                    continue
                while not self.done.is_set():
                    conn.sendall(b'G')
                    self.sent += 1
                    self.done.wait(1.5)
            except (OSError, IOError):
                conn.close()

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc_info):
        self.done.set()
        self.thread.join(10)
        for conn in self.idle:
            conn.close()


def _start_noop(tmpdir, name, port, *extra):
    path, _ = support.write_scenario(tmpdir)
    err = open(os.path.join(str(tmpdir), name + '.err'), 'wb')
    proc = subprocess.Popen(
        [sys.executable, '-m', 'ssbench.cli.master', 'run-scenario', '-f',
         path, '-s', os.path.join(str(tmpdir), name + '.stat'), '--noop',
         '--workers', '2', '--progress', 'none', '--metrics',
         '127.0.0.1:%d' % port] + support.zmq_args() + list(extra),
        cwd=support.ROOT, stdout=subprocess.PIPE, stderr=err,
        preexec_fn=support.die_with_parent)
    return proc, err.name


def _timed_scrape(port):
    began = time.time()
    body = _scrape(port, timeout=10)
    assert 'ssbench_phase' in body
    return time.time() - began


def test_a_trickling_client_delays_no_scrape_and_no_exit(tmpdir):
    from tests.waiting import wait_for, wait_for_text
    port = support.free_port()
    proc, err = _start_noop(tmpdir, 'trickled', port, '-r', '4', '--rate',
                            '200')
    try:
        with _Trickler(port) as trickler:
            wait_for_text(err, 'Open loop:', 120, proc)
            run_end = time.time() + 4
            wait_for(lambda: trickler.sent >= 2, 30, 'the trickle going')
            assert _timed_scrape(port) < 2.0
            assert _timed_scrape(port) < 2.0
            wait_for(lambda: proc.poll() is not None or
                     'results saved' in support.read_text(err), 60,
                     'the master to end the run')
            closed = time.time()
            proc.communicate()
        assert proc.returncode == 0, support.read_text(err)
        # The benchmark's 4 s, then at most 2 s for a final scrape.
        assert closed - run_end < 4.0, support.read_text(err)
    finally:
        support.stop_process(proc)


def test_ctrl_c_stops_at_once_with_a_trickling_client(tmpdir):
    import signal
    from tests.waiting import wait_for, wait_for_text
    port = support.free_port()
    proc, err = _start_noop(tmpdir, 'stopped', port, '-r', '120', '--rate',
                            '200')
    try:
        with _Trickler(port) as trickler:
            wait_for_text(err, 'Starting benchmark run', 120, proc)
            wait_for(lambda: trickler.sent >= 2, 30, 'the trickle going')
            assert _timed_scrape(port) < 2.0
            proc.send_signal(signal.SIGINT)
            stopped = time.time()
            wait_for(lambda: proc.poll() is not None, 60, 'the master to '
                     'exit')
            took = time.time() - stopped
            proc.communicate()
        assert proc.returncode == 130, support.read_text(err)
        # Drained and reported at once, no final scrape waited for.
        assert took < 10.0, support.read_text(err)
        assert 'results saved' in support.read_text(err)
    finally:
        support.stop_process(proc)
