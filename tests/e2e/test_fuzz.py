"""A hostile or broken peer cannot stop a run: thousands of random and
mutated frames pushed into a real master's results port, and into a real
worker's work socket, while a real `run-scenario --noop` completes with
exactly its operation count of results, all from the real workers.

Fuzzed records never name a job the master sent (their job ids are far
beyond the run's, or not ids at all), and no frame is a valid SUICIDE: a
well-formed message is the peer's to send (CURVE keeps strangers out), the
test is about everything else.
"""
from __future__ import absolute_import, division, print_function

import io
import math
import os
import random
import re
import subprocess
import sys
import threading
import time

import msgpack
import pytest
import zmq

from ssbench import CRUD_TYPES
from ssbench.wire import protocol
from tests.e2e import support

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

SCENARIO = os.path.join(support.ROOT, 'scenarios', 'very_small.scenario')
OPS = 20000
FRAMES = 6000
FUZZ_IDS = 10 ** 12          # job ids of fuzzed records start here
DROPPED = re.compile(r'Inputs dropped on the results port: (\d+) ')


def text(value):
    """`value` with every native string made text (msgpack str, not bin,
    on both Pythons)."""
    if isinstance(value, dict):
        return dict((text(k), text(v)) for k, v in value.items())
    if isinstance(value, list):
        return [text(v) for v in value]
    if isinstance(value, str) and str is bytes:
        return value.decode('ascii')
    return value


# No int in here is a job id the master hands out (1..OPS).
JUNK = [None, True, False, 0, -1, -2 ** 63, 2 ** 63 - 1, 2 ** 64 - 1,
        2 ** 40, 0.5, -0.5, float('nan'), float('inf'), -float('inf'),
        1e308, u'', u'fuzz', u'\u2603' * 3, b'\x00\xff', [], [1, [2, [3]]],
        {}, {u'a': {u'b': []}}, {1: 2}, msgpack.ExtType(5, b'xx')]


def _a_version(value):
    return type(value) in (int, type(2 ** 64)) and value >= 1


class Fuzzer(object):
    """Seeded random frames: raw garbage, msgpack of the wrong shape, and
    mutations (keys removed, values replaced, keys of other types,
    truncation) of the records a real peer sends."""

    def __init__(self, seed, templates):
        self.rng = random.Random(seed)
        self.templates = [text(t) for t in templates]
        self.count = 0

    def pack(self, obj):
        return msgpack.packb(obj, use_bin_type=True)

    def junk(self, depth=0):
        rng = self.rng
        if depth < 6 and rng.random() < 0.3:
            if rng.random() < 0.5:
                return [self.junk(depth + 1) for _ in range(rng.randrange(4))]
            return dict((rng.choice([u'k', u'type', u'job_id', 7]),
                         self.junk(depth + 1))
                        for _ in range(rng.randrange(4)))
        return rng.choice(JUNK)

    def record(self):
        """A template, with a fresh job id, mutated once or more."""
        rng = self.rng
        self.count += 1
        record = dict(rng.choice(self.templates))
        if u'job_id' in record:
            record[u'job_id'] = FUZZ_IDS + self.count
        for _ in range(rng.randrange(1, 4)):
            action = rng.randrange(4)
            keys = sorted(record, key=repr)
            if action == 0 and keys:
                del record[rng.choice(keys)]
            elif action == 1 and keys:
                record[rng.choice(keys)] = self.junk()
            elif action == 2:
                record[rng.choice([5, b'type', -1, 2.5])] = self.junk()
        if record.get(u'type') == protocol.CONFIGURE and _a_version(
                record.get(u'protocol')):
            # A well-formed CONFIGURE of another protocol version stops a
            # worker by design, as a SUICIDE does: neither is fuzz.
            record[u'protocol'] = protocol.PROTOCOL_VERSION
        return record

    def frame(self):
        rng = self.rng
        kind = rng.randrange(8)
        if kind == 0:
            return bytes(bytearray(rng.randrange(256)
                                   for _ in range(rng.randrange(64))))
        if kind == 1:
            return self.pack(self.junk())
        if kind == 2:
            return self.pack([self.junk() for _ in range(rng.randrange(5))])
        if kind == 3:
            data = self.pack([self.record()])
            return data[:rng.randrange(len(data))]
        if kind == 4:
            return b'\x91' * rng.choice([600, 1023, 1100, 5000]) + b'\xc0'
        if kind == 5:
            return self.pack([self.record(), self.junk(), self.record()])
        return self.pack([self.record() for _ in range(rng.randrange(1, 4))])


def result_templates():
    job = {'type': 'upload_object', 'size_str': 'tiny', 'container':
           'ssbench_000001_default_policy', 'name': 'tiny_000001',
           'size': 4096, 'block_size': 65536, 'noop': True, 'job_id': 1}
    ok = protocol.result_ok(job, 0, 0.0, 0.0, None, 0)
    error = protocol.result_error(dict(job, noop=False), 1, 'PUT: 503',
                                  'tb', 2, 'tx1', status=503, reconnects=0)
    beat = protocol.heartbeat(u'fuzz', [FUZZ_IDS], True)
    pong = protocol.result_ok(protocol.ping_job(), 0, 0.0, 0.0, None, 0)
    return [ok, error, beat, pong]


def job_templates():
    job = {'type': 'get_object', 'size_str': 'tiny', 'container':
           'ssbench_000001_default_policy', 'name': 'tiny_000001',
           'block_size': 65536, 'noop': True, 'job_id': 1}
    return [job, dict(job, type='upload_object', size=5),
            protocol.ping_job(),
            protocol.configure_job(connect_timeout=5.0),
            protocol.heartbeat(3, [])]


def start_master(tmpdir, ports, *extra):
    stats = os.path.join(str(tmpdir), 'run.stat')
    err = io.open(os.path.join(str(tmpdir), 'master.err'), 'wb')
    argv = [sys.executable, '-m', 'ssbench.cli.master', 'run-scenario',
            '-f', SCENARIO, '--noop', '-u', '8', '-o', str(OPS), '-s',
            stats, '--zmq-bind-ip', '127.0.0.1',
            '--zmq-work-port', str(ports[0]),
            '--zmq-results-port', str(ports[1])] + list(extra)
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=err,
                            cwd=support.ROOT,
                            preexec_fn=support.die_with_parent)
    proc.stats = stats + '.gz'
    proc.err_path = err.name
    err.close()
    return proc


def finish(proc, timeout=180):
    """Wait for the master; (status, stdout, stderr)."""
    timer = threading.Timer(timeout, proc.kill)
    timer.start()
    try:
        out = proc.communicate()[0]
    finally:
        timer.cancel()
    return (proc.returncode, out.decode('utf-8', 'replace'),
            support.read_text(proc.err_path))


def assert_every_real_result_stored(stats, worker_ids):
    results = support.read_results(stats)
    assert len(results) == OPS
    assert set(r['worker_id'] for r in results) <= set(worker_ids)
    assert len(set(r['job_id'] for r in results)) == OPS
    assert max(r['job_id'] for r in results) < FUZZ_IDS
    assert not [r for r in results if 'exception' in r]
    assert set(r['type'] for r in results) <= set(CRUD_TYPES)
    assert all(not math.isnan(r['completed_at']) for r in results)


def assert_one_line_per_fault_kind(err):
    assert 'Traceback' not in err
    dropped = [line for line in err.splitlines() if 'Dropped' in line]
    # Rate-limited: about one line per kind of fault per 10 s.
    assert 0 < len(dropped) < 150, err[-3000:]


def test_fuzzed_results_port_cannot_stop_a_run(tmpdir):
    ports = support.free_port(), support.free_port()
    context = zmq.Context()
    fuzz = context.socket(zmq.PUSH)
    fuzz.setsockopt(zmq.LINGER, 0)
    fuzz.setsockopt(zmq.SNDHWM, 100)
    fuzz.connect('tcp://127.0.0.1:%d' % ports[1])
    fuzzer = Fuzzer(20261123, result_templates())
    master = start_master(tmpdir, ports, '--workers', '2')
    try:
        sent = 0
        deadline = time.time() + 120
        while sent < FRAMES and master.poll() is None and \
                time.time() < deadline:
            try:
                fuzz.send(fuzzer.frame(), zmq.NOBLOCK)
                sent += 1
            except zmq.Again:
                time.sleep(0.001)
        status, out, err = finish(master)
    finally:
        fuzz.close()
        context.term()
        if master.poll() is None:
            master.kill()
            master.wait()
    assert status == 0, err[-3000:]
    assert 'Calculating statistics' in err or 'TOTAL' in out
    assert_every_real_result_stored(master.stats, (0, 1))
    assert_one_line_per_fault_kind(err)
    dropped = sum(int(n) for n in DROPPED.findall(err))
    assert dropped >= 1000, (sent, err[-3000:])


class WorkRelay(object):
    """Stands where a worker connects for work: forwards the master's
    messages and the worker's heartbeats unchanged (the master admits the
    worker through it) and sends fuzzed frames to the worker between
    them."""

    def __init__(self, master_port, fuzzer, frames):
        self.master_port = master_port
        self.fuzzer = fuzzer
        self.frames = frames
        self.port = support.free_port()
        self.forwarded = 0
        self.fuzzed = 0
        self.stop = threading.Event()
        self.error = None
        self.thread = threading.Thread(target=self._run)
        self.thread.daemon = True

    def _send(self, down, worker, data):
        """Send to the worker, waiting while it is busy; False once told
        to stop."""
        while not self.stop.is_set():
            try:
                down.send(worker, zmq.SNDMORE)
                down.send(data)
                return True
            except zmq.Again:
                continue
        return False

    def _run(self):
        context = zmq.Context()
        up = context.socket(zmq.DEALER)      # to the master's ROUTER
        down = context.socket(zmq.ROUTER)    # the worker's DEALER's
        try:
            for sock in (up, down):
                sock.setsockopt(zmq.LINGER, 0)
            down.setsockopt(zmq.SNDTIMEO, 100)
            down.setsockopt(zmq.ROUTER_MANDATORY, 1)
            down.bind('tcp://127.0.0.1:%d' % self.port)
            up.connect('tcp://127.0.0.1:%d' % self.master_port)
            poller = zmq.Poller()
            poller.register(up, zmq.POLLIN)
            poller.register(down, zmq.POLLIN)
            worker = None
            while not self.stop.is_set():
                ready = dict(poller.poll(5))
                if down in ready:
                    worker, data = down.recv_multipart()
                    up.send(data)
                if worker is None:
                    continue
                if up in ready and self._send(down, worker, up.recv()):
                    self.forwarded += 1
                for _ in range(2):
                    if self.fuzzed < self.frames and \
                            self._send(down, worker, self.fuzzer.frame()):
                        self.fuzzed += 1
        except Exception as exc:  # reported by the test
            self.error = repr(exc)
        finally:
            up.close()
            down.close()
            context.term()


def test_fuzzed_work_socket_cannot_stop_a_worker(tmpdir, workers):
    ports = support.free_port(), support.free_port()
    relay = WorkRelay(ports[0], Fuzzer(1123, job_templates()), FRAMES)
    master = start_master(tmpdir, ports)
    relay.thread.start()
    worker = workers(0, relay.port, ports[1])
    try:
        status, out, err = finish(master)
    finally:
        relay.stop.set()
        relay.thread.join(10)
    assert relay.error is None
    assert status == 0, err[-3000:]
    assert_every_real_result_stored(master.stats, (0,))
    assert relay.fuzzed >= 1000 and relay.forwarded > 0
    assert worker.poll() is None, 'the worker died'
    log = support.read_text(worker.log_path)
    assert 'Traceback' not in log
    assert 'Dropped input from the master' in log
    # Fuzzed no-op jobs were answered: the master dropped those results.
    assert 'result of no job in flight' in err
    assert_one_line_per_fault_kind(err + log)


# --- stats files ------------------------------------------------------------

STATS_RUNS = 48
# A report of the golden file takes well under 200 MB; a per-second
# structure over a stray time (a 1970 clock) took 2.7 GB.
REPORT_MEMORY = 1 << 30
GOLDEN_STATS = os.path.join(support.ROOT, 'tests', 'data', 'golden',
                            'swift_u8_o2000_c10.stat.gz')
# Values a hand-made or damaged file may hold where a number belongs:
# the bad-input corpus (tests/data/bad/stats_cases.json) in kind.
STATS_JUNK = JUNK + [5.0, 1e10 + 1, 1795317877.0 + 365 * 86400, -1e300,
                     2 ** 64 - 1, 10 ** 6 + 1, u'x' * 1000, [5], 1.5]
RESULT_KEYS = (u'completed_at', u'first_byte_latency', u'last_byte_latency',
               u'retries', u'worker_id', u'type', u'size_str', u'trans_id',
               u'intended_start', u'exception', u'size')
HEADER_KEYS = (u'user_count', u'name', u'rate', u'delete_after',
               u'warmup', u'operation_count', u'run_seconds')
SCENARIO_KEYS = (u'sizes', u'initial_files', u'crud_profile')
STATS_OUTPUTS = ([], ['--csv'], ['-r', '{out}/rps.csv'], ['--json', '-'],
                 ['--html', '{out}/report.html'],
                 ['--compare', GOLDEN_STATS], ['--skip', '5', '--errors'],
                 ['--compare', GOLDEN_STATS, '--fail-if', 'p99.99>+50%'])


def golden_stats():
    from ssbench.results.statsreader import open_stats
    source = open_stats(GOLDEN_STATS)
    return source.header, list(source.iter_batches())


def fuzzed_stats(rng, header, batches):
    """The bytes of a damaged copy of a stats file: values replaced in a
    few results and perhaps the header, perhaps cut short."""
    header = dict(header)
    header[u'_scenario_data'] = dict(header[u'_scenario_data'])
    batches = [list(batch) for batch in batches]
    for _ in range(rng.randrange(1, 4)):
        batch = rng.choice(batches)
        i = rng.randrange(len(batch))
        batch[i] = dict(batch[i])
        batch[i][rng.choice(RESULT_KEYS)] = rng.choice(STATS_JUNK)
    if rng.random() < 0.3:
        header[rng.choice(HEADER_KEYS)] = rng.choice(STATS_JUNK)
    if rng.random() < 0.2:
        header[u'_scenario_data'][rng.choice(SCENARIO_KEYS)] = \
            rng.choice(STATS_JUNK)
    data = b''.join(msgpack.packb(obj, use_bin_type=True)
                    for obj in [header] + batches)
    if rng.random() < 0.2:
        data = data[:rng.randrange(len(data))]
    return data


def report_capped(args, timeout=120):
    """report-scenario ARGS with the address space capped and a time
    limit: (status, stdout, stderr)."""
    def limits():
        import resource
        resource.setrlimit(resource.RLIMIT_AS,
                           (REPORT_MEMORY, REPORT_MEMORY))
    ran = support.run([sys.executable, '-m', 'ssbench.cli.master',
                       'report-scenario'] + args, timeout, preexec_fn=limits)
    return ran.status, ran.out, ran.err


def test_fuzzed_stats_files_are_a_report_or_one_line(tmpdir):
    rng = random.Random(20261125)
    header, batches = golden_stats()
    outcomes = {0: 0, 1: 0}
    for run in range(STATS_RUNS):
        folder = tmpdir.mkdir('run%d' % run)
        path = str(folder.join('fuzzed.stat'))
        with io.open(path, 'wb') as fp:
            fp.write(fuzzed_stats(rng, header, batches))
        flags = [flag.format(out=str(folder)) for flag in
                 STATS_OUTPUTS[run % len(STATS_OUTPUTS)]]
        status, out, err = report_capped(['-s', path] + flags)
        where = (run, flags, err[-2000:])
        assert 'Traceback' not in err and 'unexpected error' not in err, \
            where
        errors = [line for line in err.splitlines()
                  if line.startswith('ERROR:')]
        if status == 1:
            # One line naming the fuzzed file (never the golden base).
            assert len(errors) == 1, where
            assert errors[0].startswith('ERROR:%s: ' % (path,)), where
        else:
            assert status in (0, 3) and out, where
            assert status == 0 or errors[0].startswith('ERROR:--fail-if')
        outcomes[min(status, 1)] += 1
    # The fuzz reaches both kinds of file.
    assert outcomes[0] > 5 and outcomes[1] > 5, outcomes
