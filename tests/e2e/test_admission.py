"""Admission of workers on the work connection, with real processes and
sockets on this host (--noop runs, no Swift): peers that do not speak
this master's protocol get no job and store no result, a second worker of
an id in use is refused naming who holds it, forged heartbeats cost the
master bounded memory and log, and a stopped worker does not stop the run
(docs/many-hosts.rst)."""
from __future__ import absolute_import, division, print_function

import json
import os
import signal
import socket
import subprocess
import threading
import time

import pytest
import zmq

from ssbench.wire import protocol
from tests.e2e import support
from tests.waiting import wait_for_text

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(300)]

OLD_WORKER = 39         # the 0.3.9-like peer's id
OTHER_PROTOCOL = 3      # the protocol-3 peer's id (and its protocol)


def ports():
    return support.free_port(), support.free_port()


def port_args(pair):
    return ['--zmq-bind-ip', '127.0.0.1', '--zmq-work-port', str(pair[0]),
            '--zmq-results-port', str(pair[1])]


def start_master(tmpdir, pair, *args):
    """`ssbench-master run-scenario --noop ARGS` in the background, its
    standard error in tmpdir/master.err (its .err_path)."""
    return start_run(tmpdir, pair, '--noop', *args)


def start_run(tmpdir, pair, *args):
    """`ssbench-master run-scenario ARGS` in the background, as
    start_master."""
    err_path = os.path.join(str(tmpdir), 'master.err')
    with open(err_path, 'ab') as err:
        proc = subprocess.Popen(
            support.python_module('ssbench.cli.master') +
            ['run-scenario'] + list(args) + port_args(pair),
            stdout=subprocess.PIPE, stderr=err, cwd=support.ROOT,
            close_fds=True, preexec_fn=support.die_with_parent)
    proc.err_path = err_path
    return proc


def finish(proc, timeout=180):
    """The Ran of the background master `proc`, once it exited (killed
    after `timeout` seconds)."""
    timer = threading.Timer(timeout, proc.kill)
    timer.start()
    try:
        out = proc.communicate()[0].decode('utf-8', 'replace')
    finally:
        timer.cancel()
    return support.Ran(proc.returncode, out, support.read_text(proc.err_path))


class Peer(object):
    """A pyzmq peer in a thread of this process: `work` connects to the
    work port, a PUSH to the results port; every message it receives is
    counted by record type in `got`.  `beat` (a heartbeat record) is sent
    on `work` every 0.2 s; jobs are answered with made-up results naming
    `worker_id` when `answer`."""

    def __init__(self, pair, work_type, worker_id, beat=None, answer=False):
        self.context = zmq.Context()
        self.work = self.context.socket(work_type)
        self.push = self.context.socket(zmq.PUSH)
        for sock in (self.work, self.push):
            sock.setsockopt(zmq.LINGER, 0)
        self.work.connect('tcp://127.0.0.1:%d' % pair[0])
        self.push.connect('tcp://127.0.0.1:%d' % pair[1])
        self.worker_id = worker_id
        self.beat = beat
        self.answer = answer
        self.got = {}
        self._stop = False
        self._thread = threading.Thread(target=self._run)
        self._thread.daemon = True
        self._thread.start()

    def _run(self):
        beat_at = 0
        while not self._stop:
            if self.beat is not None and time.time() >= beat_at:
                self.work.send(protocol.pack([self.beat]))
                beat_at = time.time() + 0.2
            if not self.work.poll(20):
                continue
            records = protocol.unpack(self.work.recv())
            for record in records:
                kind = record.get('type')
                self.got[kind] = self.got.get(kind, 0) + 1
            if self.answer:
                self.push.send(protocol.pack([protocol.result_ok(
                    record, self.worker_id, 0.001, 0.001, 'txFAKE', 0)
                    for record in records if 'job_id' in record]))

    def jobs(self):
        """How many records other than REFUSED it received."""
        return sum(count for kind, count in self.got.items()
                   if kind != protocol.REFUSED)

    def stop(self):
        self._stop = True
        self._thread.join(10)
        self.work.close()
        self.push.close()
        self.context.term()


def refusals(err):
    """The master's lines that say it refused a worker (its progress dots
    may precede one on its line)."""
    return [line[line.index('ERROR:'):] for line in err.splitlines()
            if 'refused' in line]


def error_lines(text):
    return [line for line in text.splitlines()
            if line.startswith(('ERROR:', 'CRITICAL:'))]


def test_strangers_get_no_job_and_store_no_result(tmpdir):
    pair = ports()
    path, _ = support.write_scenario(tmpdir, operation_count=2000)
    stats = os.path.join(str(tmpdir), 'run.stat')
    # Like 0.3.9: a PULL on the work port, answering whatever comes, and
    # no heartbeat.
    old = Peer(pair, zmq.PULL, OLD_WORKER, answer=True)
    beat = protocol.heartbeat(OTHER_PROTOCOL, [])
    beat.update(protocol.identity(4), protocol=OTHER_PROTOCOL)
    other = Peer(pair, zmq.DEALER, OTHER_PROTOCOL, beat=beat, answer=True)
    try:
        master = start_master(tmpdir, pair, '-f', path, '-s', stats,
                              '--workers', '2')
        # Both strangers were connecting before the master bound its
        # ports; the protocol-3 one was heard (the local workers start
        # slower than that).
        wait_for_text(master.err_path, 'refused', timeout=120)
        ran = finish(master)
    finally:
        old.stop()
        other.stop()
    assert ran.status == 0, ran
    assert old.got == {}
    assert other.jobs() == 0 and other.got.get(protocol.REFUSED) >= 1, \
        other.got
    assert refusals(ran.err) == [
        'ERROR:worker 3 (%s) refused: it speaks wire protocol version 3, '
        'this master version %d' % (socket.gethostname(),
                                    protocol.PROTOCOL_VERSION)], ran.err
    results = support.read_results(stats + '.gz')
    assert len(results) == 2000
    assert set(r['worker_id'] for r in results) <= set([0, 1])
    assert not [r for r in results if r.get('trans_id') == 'txFAKE']


def test_a_second_worker_of_an_id_in_use_is_refused(tmpdir, workers):
    pair = ports()
    path, _ = support.write_scenario(tmpdir)
    stats = os.path.join(str(tmpdir), 'run.stat')
    first = workers(5, pair[0], pair[1], '--concurrency', '4')
    master = start_master(tmpdir, pair, '-f', path, '-s', stats, '-r', '8',
                          '--expect-workers', '1')
    log_path = os.path.join(str(tmpdir), 'second-5.log')
    second = None
    try:
        support.wait_for_a_result(stats, master)
        second = support.start_worker(5, pair[0], pair[1], log_path,
                                      extra=('--concurrency', '4'))
        status = support.wait_exit(second, 60)
        ran = finish(master)
    finally:
        support.stop_process(master)
        if second is not None:
            support.stop_process(second)
    told = support.read_text(log_path)
    assert status not in (None, 0), told
    holder = 'worker 5 (%s, pid %d)' % (socket.gethostname(), first.pid)
    assert error_lines(told) == [
        'ERROR:worker 5 refused by the master: worker id 5 is held by ' +
        holder], told
    assert 'Traceback' not in told
    assert ran.status == 0, ran
    assert refusals(ran.err) == [
        'ERROR:worker 5 (%s) refused: worker id 5 is held by %s' % (
            socket.gethostname(), holder)], ran.err
    # The first one served the whole run, and is still there.
    assert first.poll() is None
    results = support.read_results(stats + '.gz')
    assert results and set(r['worker_id'] for r in results) == set([5])


def memory_kb(pid, key):
    """A figure of /proc/PID/status, in kB (VmRSS, VmHWM)."""
    with open('/proc/%d/status' % pid) as status:
        for line in status:
            if line.startswith(key + ':'):
                return int(line.split()[1])
    raise AssertionError('no %s for pid %d' % (key, pid))


FORGED = 100000
# Forged heartbeats sent first and taken in before the measure: what any
# traffic costs once (libzmq's buffers, the allocator's arenas).
WARM_UP = 20000
SENTINEL = b'end of the flood'      # not msgpack: logged at once


def test_forged_heartbeats_cost_bounded_memory_and_log(tmpdir):
    """Half of the heartbeats on the results port, half on one work
    connection, each naming another worker, sent as fast as the sockets
    take them while a run waits for two workers (the first forged one on
    the work connection is admitted: it speaks the protocol; the others
    name another id than its first).  What libzmq queues of them for
    the master is bounded by its receive high-water marks
    (ssbench.wire.transport), what the master keeps by admission and
    the fault log; each half ends with a frame that is not msgpack,
    whose log line says the master has taken in the half before it."""
    pair = ports()
    path, _ = support.write_scenario(tmpdir)
    stats = os.path.join(str(tmpdir), 'run.stat')
    master = start_master(tmpdir, pair, '-f', path, '-s', stats,
                          '--expect-workers', '2', '--worker-wait', '240')
    context = zmq.Context()
    dealer = context.socket(zmq.DEALER)
    push = context.socket(zmq.PUSH)
    try:
        support.wait_for(lambda: listening(pair[0]), 60, 'the master',
                         interval=0.1)
        for sock, port in ((dealer, pair[0]), (push, pair[1])):
            # The forger queues whatever the master does not take yet.
            sock.setsockopt(zmq.SNDHWM, 0)
            sock.connect('tcp://127.0.0.1:%d' % port)
        identity = protocol.identity(4)

        def forge(first, count):
            for number in range(first, first + count):
                beat = protocol.heartbeat(number, [])
                beat.update(identity)
                (dealer if number % 2 else push).send(protocol.pack([beat]))
        forge(1000, WARM_UP)
        wait_idle(master.pid)
        rss = memory_kb(master.pid, 'VmRSS')
        lines = len(support.read_text(master.err_path).splitlines())
        forge(1000 + WARM_UP, FORGED)
        dealer.send(SENTINEL)
        push.send(SENTINEL)
        for port in ('work', 'results'):
            wait_while_running(master, 'Dropped input on the %s port: '
                               'undecodable message' % port)
        grown = memory_kb(master.pid, 'VmRSS') - rss
        said = support.read_text(master.err_path).splitlines()[lines:]
        # Still waiting, and it hears a stop at once.
        assert master.poll() is None
        master.send_signal(signal.SIGINT)
        ran = finish(master, 60)
    finally:
        dealer.close(0)
        push.close(0)
        context.term()
        support.stop_process(master)
    assert 'interrupted while waiting for workers' in ran.err, ran
    assert 'Traceback' not in ran.err
    assert grown <= 8 * 1024, (grown, said)
    assert len(said) <= 40, '\n'.join(said)


def cpu_ticks(pid):
    """User and system CPU time of `pid` so far, in clock ticks."""
    with open('/proc/%d/stat' % pid) as stat:
        fields = stat.read().rsplit(')', 1)[1].split()
    return int(fields[11]) + int(fields[12])


def wait_idle(pid, quiet=0.3, timeout=60):
    """Wait until `pid` used no CPU for `quiet` seconds."""
    from ssbench.compat import monotonic
    last = {'ticks': -1, 'since': monotonic()}

    def idle():
        ticks, now = cpu_ticks(pid), monotonic()
        if ticks != last['ticks']:
            last.update(ticks=ticks, since=now)
            return False
        return now - last['since'] >= quiet
    support.wait_for(idle, timeout, 'pid %d idle' % pid, interval=0.05)


def wait_while_running(master, text, timeout=120):
    """Wait for `text` in the standard error of the running `master`."""
    def said():
        assert master.poll() is None, support.read_text(master.err_path)
        return text in support.read_text(master.err_path)
    support.wait_for(said, timeout, text, interval=0.1)


def listening(port):
    """True when something accepts TCP connections on loopback `port`."""
    try:
        socket.create_connection(('127.0.0.1', port), 1).close()
        return True
    except (IOError, OSError):
        return False


STOPPED = 5.0       # seconds one worker is kept stopped
# Seconds after the stop not counted (STALL_SECONDS of silence, less the
# second since the last heartbeat, before the other takes over).
SETTLE = 1.0
USERS = 4
SERVICE = 0.05      # seconds each request takes at the fake Swift


def test_a_stopped_worker_does_not_stop_the_run(tmpdir, workers):
    """Two workers, each able to carry the whole closed-loop run: while
    one is stopped (SIGSTOP) the other carries it, at least half as fast
    as both did before (with PUSH, which handed jobs round-robin, the
    stopped one came to hold every job and the rate fell to about 0;
    with jobs sent where there is room, it holds about half of them
    until the master finds it stalled and counts them no more).

    Every request takes SERVICE seconds at a fake Swift, so the rate is
    the latency's (user_count / SERVICE, a little CPU), not what share of
    a busy machine's CPU the processes get: with --noop the two windows
    followed the machine's other load, and differed twofold on a shared
    2-core host whichever tree ran."""
    from tests.fakes import FakeSwift
    swift = FakeSwift()
    swift.limit(4 * USERS, SERVICE)
    pair = ports()
    path, _ = support.write_scenario(
        tmpdir, user_count=USERS, crud_profile=[100, 0, 0, 0],
        sizes=[{'name': 'tiny', 'size_min': 100, 'size_max': 200}],
        initial_files={'tiny': 2})
    stats = os.path.join(str(tmpdir), 'run.stat')
    procs = [workers(worker_id, pair[0], pair[1], '--concurrency',
                     str(USERS)) for worker_id in (1, 2)]
    master = start_run(tmpdir, pair, '-f', path, '-s', stats, '-r', '25',
                       '--expect-workers', '2', '--keep-objects',
                       '-A', swift.auth_url, '-U', swift.user,
                       '-K', swift.key)
    stopped = procs[1]
    try:
        support.wait_for_results_of(stats, master, [1, 2])
        # Measured from the stats file's completed_at, not this clock's.
        time.sleep(STOPPED)
        stopped_at = time.time()
        stopped.send_signal(signal.SIGSTOP)
        try:
            time.sleep(STOPPED)
        finally:
            stopped.send_signal(signal.SIGCONT)
        resumed_at = time.time()
        ran = finish(master)
    finally:
        if stopped.poll() is None:
            stopped.send_signal(signal.SIGCONT)
        support.stop_process(master)
        swift.stop()
    assert ran.status == 0, ran
    done = [r['completed_at'] for r in support.read_results(stats + '.gz')]
    before = sum(1 for at in done
                 if stopped_at - STOPPED <= at < stopped_at) / STOPPED
    during = sum(1 for at in done
                 if stopped_at + SETTLE <= at < resumed_at) / (
                     resumed_at - stopped_at - SETTLE)
    assert before > 0
    assert during >= before / 2, (before, during)
    assert 'WARNING:worker 2 (%s, pid %d) stalled: no heartbeat' % (
        socket.gethostname(), stopped.pid) in ran.err, ran.err


RATE = 300              # jobs a second, open loop
RESTART_OPS = 9000      # 30 s of them


def test_a_worker_killed_and_started_again_under_its_id_rejoins(tmpdir,
                                                                workers):
    """Of two workers, one hangs (SIGSTOP) and is killed with -9; once
    the master found it stalled it is started again under the same id:
    the new process is admitted (the run had begun), gets jobs, and its
    results are stored; the jobs the killed one held (as many as the
    master says, which may be none: work goes where there is room, and
    the other worker may have had it all) are counted as lost once, and
    nothing else is missing.  The JSON's workers list says when the new
    process joined, and what each worker did."""
    pair = ports()
    path, _ = support.write_scenario(tmpdir, operation_count=RESTART_OPS)
    stats = os.path.join(str(tmpdir), 'run.stat')
    out_json = os.path.join(str(tmpdir), 'run.json')
    procs = [workers(worker_id, pair[0], pair[1], '--concurrency', '8')
             for worker_id in (1, 2)]
    master = start_master(tmpdir, pair, '-f', path, '-s', stats, '-u', '16',
                          '--rate', str(RATE), '--expect-workers', '2',
                          '--json', out_json)
    killed = procs[1]
    try:
        support.wait_for_results_of(stats, master, [1, 2])
        # Hung, it keeps what jobs it had and any the master sends it
        # until it is found stalled; then it dies.
        killed.send_signal(signal.SIGSTOP)
        wait_while_running(master, 'worker 2 (%s, pid %d) stalled' % (
            socket.gethostname(), killed.pid))
        killed.kill()
        support.wait_exit(killed, 30)
        restarted_at = time.time()
        again = workers(2, pair[0], pair[1], '--concurrency', '8')
        ran = finish(master)
    finally:
        support.stop_process(master)
    assert ran.status == 0, ran
    replaced = [line[line.index('WARNING:'):] for line in
                ran.err.splitlines() if 'replaced by a new connection' in line]
    head = ('WARNING:worker 2 (%s, pid %d) replaced by a new connection of '
            'worker 2 (%s, pid %d): ' % (socket.gethostname(), killed.pid,
                                         socket.gethostname(), again.pid))
    assert len(replaced) == 1 and replaced[0].startswith(head) and \
        replaced[0].endswith(' job(s) it had out counted as lost'), ran.err
    held = int(replaced[0][len(head):].split()[0])
    results = support.read_results(stats + '.gz')
    lost = [r for r in results if r.get('exception')]
    assert len(lost) == held, (held, lost[:3])
    assert set(r['exception'] for r in lost) <= set(['worker 2 lost'])
    assert [r for r in results if r['worker_id'] == 2 and
            not r.get('exception') and r['completed_at'] > restarted_at]
    schedule = schedule_record(stats + '.gz')
    answered = len(results) - len(lost)
    assert answered + len(lost) + schedule.get('unsent', 0) == \
        schedule['intended'] == RESTART_OPS
    assert 'Traceback' not in ran.err
    check_workers_list(out_json, results, restarted_at, killed.pid)


def check_workers_list(json_path, results, restarted_at, first_pid):
    """Both workers were there at the start; worker 2 was started again
    once, after restarted_at; the counts are those of the stats file."""
    with open(json_path) as stream:
        doc = json.load(stream)
    start = doc['run']['start_time']
    workers = dict((w['worker_id'], w) for w in doc['workers'])
    assert sorted(workers) == [1, 2]
    first, second = workers[1], workers[2]
    assert first['at_start'] and second['at_start']
    assert first['joined'] is None and first['rejoined'] == []
    (rejoined,) = second['rejoined']
    # Admitted at its first heartbeat, once its interpreter started.
    assert restarted_at - start <= rejoined <= restarted_at - start + 60, (
        rejoined, restarted_at - start)
    assert second['pid'] == first_pid      # the header's: the first one
    for worker_id, worker in workers.items():
        mine = [r for r in results if r['worker_id'] == worker_id]
        assert worker['results'] == len(
            [r for r in mine if not r.get('exception')])
        assert worker['errors'] == len(
            [r for r in mine if r.get('exception')])


def schedule_record(stats_path):
    """The --rate run's schedule control record of a stats file."""
    from ssbench.load.schedule import SCHEDULE_RECORD
    from ssbench.results.statsreader import open_stats
    for batch in open_stats(stats_path).iter_batches():
        for record in batch:
            if isinstance(record, dict) and \
                    record.get('kind') == SCHEDULE_RECORD:
                return record
    raise AssertionError('no schedule record in %s' % stats_path)
