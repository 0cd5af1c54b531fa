"""Open-loop (--rate) runs: the master sends each job when due with its
intended start, the user count caps the jobs in flight, and the reports
read response times (text) and both response and service times (JSON,
HTML).  The master runs against a simulated world: one clock, workers
that answer each job `service` seconds after it was sent."""
from __future__ import absolute_import, division, print_function

import heapq
import io
import json
import os

import pytest

from ssbench.wire import protocol
from ssbench.report.render import classic
from ssbench.report.compute import classicnotes
from ssbench.report.compute.analyze import analyze
from ssbench.report.render.html import render_html
from ssbench.compat import PY2
from ssbench.master.dispatch import Master
from ssbench.master.pipeline import Take
from ssbench.load.schedule import POISSON, SCHEDULE_RECORD, Schedule
from ssbench.results.statswriter import StatsWriter
from tests.clocks import FakeClock
from tests.masterwire import admitting, peer_of

EPOCH = 1.7e9


class World(object):
    """A transport and a clock: recv(timeout) moves time to the next
    answer or by `timeout`; answers come `service(job)` after a send."""

    def __init__(self, service):
        self.clock = FakeClock(0.0)
        self.service = service
        self.answers = []
        self.sends = []            # (clock time, job)
        self.seq = 0
        self.beat_at = None

    def controls(self):
        """Worker 1 heartbeats each second of the clock, as a real one
        does (its first heartbeat gets it admitted)."""
        if self.beat_at is not None and self.clock.now - self.beat_at < 1:
            return []
        self.beat_at = self.clock.now
        return [(peer_of(1), protocol.pack([admitting(1)]))]

    def send_to(self, peer, data, timeout=0):
        return self.send(data, timeout)

    def send(self, data, timeout=None):
        for job in protocol.unpack(data):
            self.sends.append((self.clock.now, job))
            done = self.clock.now + self.service(job)
            last = done - self.clock.now
            result = protocol.result_ok(job, 1, None, last, None, 0,
                                        completed_at=EPOCH + done)
            self.seq += 1
            heapq.heappush(self.answers, (done, self.seq, result))
        return True

    def recv(self, timeout=None):
        if self.answers and self.answers[0][0] <= self.clock.now:
            return self.recv_nowait()
        until = self.clock.now + (timeout or 0.0)
        if self.answers and self.answers[0][0] <= until:
            self.clock.now = self.answers[0][0]
            return self.recv_nowait()
        self.clock.now = until
        return None

    def recv_nowait(self):
        ready = []
        while self.answers and self.answers[0][0] <= self.clock.now:
            ready.append(heapq.heappop(self.answers)[2])
        return protocol.pack(ready) if ready else None


def jobs(count):
    return [{'type': 'get_object', 'size_str': 'tiny', 'container': 'c',
             'name': 'tiny_%06d' % n, 'noop': True} for n in range(count)]


def run(rate, count, user_count, service, arrival='uniform', rng=None):
    world = World(service)
    master = Master(world, user_count, monotonic=world.clock)
    master.schedule = schedule = Schedule(rate, arrival, rng, start=1.0,
                                          epoch_offset=EPOCH)
    results = []
    stats = master.run_jobs(jobs(count), [Take(results.extend)])
    return world, schedule, stats, results


def test_jobs_go_out_when_due_with_their_intended_start():
    world, schedule, stats, results = run(200, 400, 50, lambda job: 0.01)
    assert stats.sent == stats.received == 400
    for when, job in world.sends:
        intended = job['intended_start'] - EPOCH
        # Sent when due; the loop waits exactly that long (the epoch's
        # float resolution aside).
        assert when == pytest.approx(intended, abs=1e-6)
    starts = sorted(job['intended_start'] - EPOCH for _, job in world.sends)
    assert starts == pytest.approx([1.0 + n / 200.0 for n in range(400)])
    assert world.clock.now == pytest.approx(1.0 + 399 / 200.0 + 0.01)
    assert schedule.cap_waits == 0 and schedule.lag.max < 1e-9
    assert all('intended_start' in result for result in results)


def test_poisson_arrivals_keep_the_rate():
    import random
    world, schedule, stats, _ = run(1000, 5000, 100, lambda job: 0.001,
                                    POISSON, random.Random(4))
    span = world.sends[-1][0] - world.sends[0][0]
    assert 5000 / span == pytest.approx(1000, rel=0.05)


def test_a_full_cap_delays_jobs_and_their_wait_counts():
    # 10 jobs/s, 2 in flight, 1 s each: the cluster serves 2/s.
    world, schedule, stats, results = run(10, 20, 2, lambda job: 1.0)
    assert stats.received == 20
    intended = [job['intended_start'] - EPOCH for _, job in world.sends]
    assert intended == pytest.approx([1.0 + n / 10.0 for n in range(20)])
    sent = [when for when, _ in world.sends]
    # Two at a time: at 1.0 and 1.1, then as each answer comes.
    assert sent[-1] == pytest.approx(10.1)
    assert schedule.cap_waits == 18
    assert schedule.lag.max == pytest.approx(10.1 - 2.9, abs=1e-4)
    # Response time counts the wait; service time does not.
    last = max(results, key=lambda r: r['intended_start'])
    assert last['last_byte_latency'] == 1.0
    assert last['completed_at'] - last['intended_start'] == \
        pytest.approx(11.1 - 2.9, abs=1e-4)


def endless_jobs():
    n = 0
    while True:
        yield {'type': 'get_object', 'size_str': 'tiny', 'container': 'c',
               'name': 'tiny_%06d' % n, 'noop': True}
        n += 1


def test_a_timed_run_ends_at_its_deadline_and_counts_every_due_job():
    # 2,000 jobs/s for 5 s, 2 in flight that take 10 ms: 200/s go out.
    world = World(lambda job: 0.01)
    master = Master(world, 2, monotonic=world.clock)
    master.schedule = schedule = Schedule(2000, start=1.0,
                                          epoch_offset=EPOCH, duration=5.0)
    results = []
    stats = master.run_jobs(endless_jobs(), [Take(results.extend)])
    summary = schedule.summary()
    assert summary['intended'] == 10000
    assert summary['sent'] == stats.sent == len(results)
    assert summary['sent'] + summary['unsent'] == 10000
    assert summary['sent'] == pytest.approx(1000, abs=2)
    # Nothing goes out after the deadline; the oldest job not sent, the
    # 1,001st, was due at 0.5 s and had waited 4.5 s by then.
    assert max(when for when, _ in world.sends) < 6.0
    assert summary['unsent_wait']['max'] == pytest.approx(4.5, abs=0.002)
    assert summary['achieved_rate'] == pytest.approx(200, abs=1)
    # Each job carries how late it left, the master's own measure.
    last = max(results, key=lambda r: r['intended_start'])
    sent_at = [when for when, job in world.sends
               if job['job_id'] == last['job_id']][0]
    assert last['send_lag'] == pytest.approx(
        sent_at - (last['intended_start'] - EPOCH), abs=1e-6)


def test_a_stopped_timed_run_counts_what_was_due_by_then():
    world = World(lambda job: 0.01)
    master = Master(world, 2, monotonic=world.clock, drain_seconds=1.0)
    master.schedule = schedule = Schedule(1000, start=1.0,
                                          epoch_offset=EPOCH, duration=60.0)

    def on_results(results):
        if world.clock.now >= 2.0:
            master.stop_requested = True
    stats = master.run_jobs(endless_jobs(), [Take(on_results)])
    assert stats.interrupted
    summary = schedule.summary()
    assert summary['seconds'] == pytest.approx(1.0, abs=0.02)
    assert summary['intended'] == pytest.approx(1000, abs=20)
    assert summary['sent'] + summary['unsent'] == summary['intended']


def test_closed_loop_jobs_carry_no_intended_start():
    world = World(lambda job: 0.01)
    master = Master(world, 4, monotonic=world.clock)
    master.run_jobs(jobs(10))
    assert all('intended_start' not in job for _, job in world.sends)


def stats_file(tmpdir, rate=20, schedule=None):
    """A --rate run's file: 40 jobs at 20/s, 0.1 s service time each; a
    2 s stall holds jobs 10-19 until 3.5 s (their response times grow)."""
    header = {'_scenario_data': {'name': 'open', 'sizes': []},
              'name': 'open', 'version': 't', 'user_count': 100,
              'operation_count': 40, 'run_seconds': None,
              'container_base': 'c', 'container_count': 1,
              'container_concurrency': 1, 'delete_after': None,
              'seed': 1, 'rate': rate, 'arrival': 'uniform'}
    path = os.path.join(str(tmpdir), 'open.stat')
    writer = StatsWriter(path, header)
    for n in range(40):
        intended = EPOCH + n / 20.0
        sent = EPOCH + 3.5 if 10 <= n < 20 else intended
        writer.write_batch([{
            'type': 'get_object', 'size_str': 'tiny', 'container': 'c',
            'name': 'tiny_%06d' % n, 'job_id': n + 1, 'worker_id': 1,
            'intended_start': intended, 'first_byte_latency': 0.05,
            'last_byte_latency': 0.1, 'trans_id': 'tx%d' % n,
            'retries': 0, 'completed_at': sent + 0.1}])
    schedule = schedule or Schedule(rate)
    writer.write_batch([schedule.record()])
    return writer.finalize()


def timed_schedule():
    """A 20 jobs/s schedule timed for 3 s: 40 jobs sent, 20 due and not
    sent by the deadline."""
    schedule = Schedule(20, start=0.0, epoch_offset=EPOCH, duration=3.0)
    times = schedule.take(2.0, 40)
    jobs = [{'intended_start': schedule.epoch(when)} for when in times]
    schedule.stamp(jobs, 2.0)
    schedule.sent(jobs)
    schedule.close(3.5)
    return schedule


def test_the_reports_account_for_every_due_job(tmpdir):
    path = stats_file(tmpdir, schedule=timed_schedule())
    lines = text(classicnotes.compute(path)).splitlines()
    assert lines[4] == ('Open loop: 60 jobs due (20.0/s intended), 40 sent '
                        '(13.3/s achieved), 20 due but not sent by the '
                        'deadline (waited p50 0.516 s, max 1.000 s)')
    loop = analyze(path)['open_loop']['schedule']
    assert (loop['intended'], loop['sent'], loop['unsent']) == (60, 40, 20)
    assert loop['intended_rate'] == 20.0
    assert loop['achieved_rate'] == pytest.approx(40 / 3.0)
    # Due at 2.0 .. 2.95 s, waiting till 3 s.
    assert loop['unsent_wait']['max'] == pytest.approx(1.0)
    pytest.importorskip('plotly')
    out = io.StringIO() if not PY2 else io.BytesIO()
    render_html(analyze(path), out)
    page = out.getvalue()
    page = page.decode('utf-8') if isinstance(page, bytes) else page
    for cell in ('<td>Jobs due (intended)</td><td>60</td>',
                 '<td>Jobs due but not sent by the deadline</td><td>20</td>',
                 '<td>20.0 / 13.3 jobs/s</td>'):
        assert cell in page


def test_an_older_schedule_record_adds_no_line(tmpdir):
    lines = text(classicnotes.compute(stats_file(tmpdir))).splitlines()
    assert not lines[4].startswith('Open loop')


def text(run_stats):
    out = io.BytesIO() if PY2 else io.StringIO()
    classic.render_text(run_stats, out)
    value = out.getvalue()
    return value.decode('utf-8') if PY2 else value


def test_text_report_reads_response_times_and_says_so(tmpdir):
    path = stats_file(tmpdir)
    run_stats = classicnotes.compute(path)
    lines = text(run_stats).splitlines()
    assert lines[3] == ('Open loop at 20 jobs/s (uniform arrivals): '
                        'latency is response time, from each job\'s '
                        'intended start')
    last = run_stats.groups[0].series[0].last
    # Job 10 was due at 0.5 s and answered at 3.6 s.
    assert last.max == pytest.approx(3.1)
    assert last.min == pytest.approx(0.1)
    first = run_stats.groups[0].series[0].first
    assert first.max == pytest.approx(3.05)


def test_json_has_response_times_and_service_times(tmpdir):
    doc = analyze(stats_file(tmpdir))
    response = doc['operations'][0]['latency']['last_byte'][0]
    assert response['max'] == pytest.approx(3.1)
    loop = doc['open_loop']
    assert loop['rate'] == 20 and loop['arrival'] == 'uniform'
    assert loop['latency'] == 'response_time'
    assert loop['schedule']['cap_waits'] == 0
    service = loop['service_time']['operations'][0]
    assert service['operation'] == 'total' and service['count'] == 40
    assert service['latency']['last_byte'][0]['max'] == pytest.approx(0.1)
    json.dumps(doc)


def test_html_shows_both(tmpdir):
    pytest.importorskip('plotly')
    out = io.StringIO() if not PY2 else io.BytesIO()
    render_html(analyze(stats_file(tmpdir)), out)
    page = out.getvalue()
    page = page.decode('utf-8') if isinstance(page, bytes) else page
    assert 'Open loop: service time' in page
    assert 'response times, from each job' in page


def test_schedule_record_is_a_control_record_readers_skip():
    record = Schedule(5).record()
    assert record['kind'] == SCHEDULE_RECORD
    assert 'completed_at' not in record and 'type' not in record


def scenario_data(**more):
    data = {'name': 's', 'sizes': [{'name': 'a', 'size_min': 1,
                                    'size_max': 1}],
            'initial_files': {'a': 1}, 'operation_count': 1,
            'crud_profile': [1, 1, 1, 1],
            'user_count': 1}
    data.update(more)
    return data


def test_scenario_rate_key():
    from ssbench.errors import SsbenchError
    from ssbench.load.scenario import Scenario
    assert Scenario(scenario_data()).rate is None
    assert Scenario(scenario_data(rate=2500)).rate == 2500
    assert Scenario(scenario_data(rate=None)).rate is None
    for bad in (0, -1, 'fast', 1e8):
        with pytest.raises(SsbenchError) as info:
            Scenario(scenario_data(rate=bad))
        assert '"rate"' in str(info.value)


@pytest.mark.parametrize('value', ['0', '-5', 'x', '1e9'])
def test_cli_refuses_a_bad_rate(value, capsys):
    from ssbench.cli import master as cli
    assert cli.main(['run-scenario', '-f', 'x', '--rate', value]) == 2
    assert '--rate' in capsys.readouterr()[1]
