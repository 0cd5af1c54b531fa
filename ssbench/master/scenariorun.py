"""One scenario run, phase by phase: containers, population, benchmark,
cleanup.  The CLI builds the pieces (scenario, sockets, auth) and renders
the report; everything in between lives here so tests can call it."""
from __future__ import absolute_import, division, print_function

import logging
import time
from itertools import islice

import ssbench
from ssbench.load import jobgen
from ssbench.results import clockrecords, safefiles, workerlist
from ssbench.load import popularity, seeds
from ssbench.measure import record
from ssbench.compat import monotonic
from ssbench.errors import Interrupted, SsbenchError, StatsFileError
from ssbench.master.clockoffset import ClockOffsets, clock_stepped
from ssbench.master.dispatch import Master
from ssbench.master.pipeline import Store, Take
from ssbench.load.objectring import ObjectRing
from ssbench.measure.needs import PHASES, SCANNED
from ssbench.results.statswriter import StatsWriter

log = logging.getLogger(__name__)


class RunOptions(object):
    """Knobs of a run that are not part of the scenario."""

    def __init__(self, batch_size=1, noop=False, keep_objects=False,
                 connect_timeout=10.0, network_timeout=20.0,
                 worker_wait=60.0, worker_timeout=10.0, drain_seconds=5.0,
                 profile_path=None, rng=None, seed=None, rate=None,
                 arrival='uniform', warmup=0, sinks=(), expect_workers=None,
                 header_extra=None, watch=None):
        self.batch_size = batch_size
        self.noop = noop
        self.keep_objects = keep_objects
        self.connect_timeout = connect_timeout
        self.network_timeout = network_timeout
        self.worker_wait = worker_wait
        self.worker_timeout = worker_timeout
        self.drain_seconds = drain_seconds
        self.profile_path = profile_path
        self.rng = rng
        # None: draw one (ssbench.load.seeds); stored in the stats header.
        self.seed = seed
        # Jobs per second (ssbench.load.schedule); None: the scenario's `rate`,
        # if any, else closed loop.
        self.rate = rate
        self.arrival = arrival
        # Seconds the reports leave out; stored in the header when > 0.
        self.warmup = warmup
        # More sinks of the phases' results (ssbench.master.pipeline): what
        # the run shows while it runs (ssbench.live).
        self.sinks = list(sinks)
        # None: start once a worker is heard from; N: once N workers are
        # connected and configured (within worker_wait).
        self.expect_workers = expect_workers
        # More keys of the stats header (a suite's step says which it is).
        self.header_extra = header_extra
        # Sees the benchmark's results and may end its jobs early (a
        # ssbench.suite.steadystate.SteadyWatch), or None.
        self.watch = watch


class RunOutcome(object):
    """Where the results went and how the run ended.

    `interrupted`: stopped by a signal (after draining in-flight results);
    `error`: the SsbenchError that ended the benchmark early (e.g. every
    worker lost); `finalized`: False when a second interrupt left the
    stats file plain (not gzipped) at `stats_path`.
    """

    def __init__(self, stats_path, interrupted=False, bench=None,
                 error=None, finalized=True):
        self.stats_path = stats_path
        self.interrupted = interrupted
        self.bench = bench
        self.error = error
        self.finalized = finalized


# Initial objects a --noop run loads between two looks at a stop request.
LOAD_CHUNK = 10000


def ensure_containers(client, scenario, pool_size, stop_requested=None):
    """HEAD every container of the scenario and PUT the missing ones,
    `pool_size` at a time.  Stops at the first failure (raised) or once
    `stop_requested()` is true (Interrupted); greenlets exist only for
    the containers in progress, however many there are."""
    import gevent.pool

    failures = []

    def ensure(name):
        try:
            if client.head_container(name, missing_ok=True).status == 404:
                client.put_container(name, policy=scenario.policy)
        except Exception as exc:  # reported once, below, not by gevent
            failures.append(exc)

    names = scenario.containers
    # Swift's segments go to containers of their own; S3's buckets (named
    # by their own rules) keep the parts of a multipart upload.
    if scenario.segmented and scenario.naming is None:
        names = _with_segments(names)
    pool = gevent.pool.Pool(pool_size)
    try:
        for name in names:
            if failures or (stop_requested is not None and
                            stop_requested()):
                break
            pool.spawn(ensure, name)    # waits for room in the pool
        pool.join()
    except BaseException:
        pool.kill()
        raise
    if failures:
        raise client.explain(failures[0], 'cannot create containers',
                             scenario.policy)
    if stop_requested is not None and stop_requested():
        raise Interrupted('interrupted while creating containers: no '
                          'benchmark was run')


def _with_segments(containers):
    """Each container name followed by its segments container's."""
    for name in containers:
        yield name
        yield ssbench.segments_container(name)


class ScenarioRun(object):
    """Runs `scenario` through `transport`
    (ssbench.wire.transport.MasterSockets).

    `stats_paths` is a checked ssbench.results.safefiles.StatsPaths, `swift` a
    SwiftClient for the master's own container work (None with --noop) and
    `worker_config` what workers are handed (a
    ssbench.master.workerconfig.WorkerConfig).
    """

    def __init__(self, scenario, transport, stats_paths, options,
                 swift=None, worker_config=None, master=None, ring=None):
        self.scenario = scenario
        self.stats_paths = stats_paths
        self.options = options
        self.swift = swift
        self.worker_config = worker_config
        self.seed = options.seed if options.seed is not None \
            else seeds.draw_seed()
        self.rng = options.rng or seeds.stream(self.seed, seeds.BENCH)
        self.population_rng = options.rng or seeds.stream(
            self.seed, seeds.POPULATION)
        # A ring handed over holds the objects an earlier run of the same
        # scenario left (a suite's step): nothing to upload again.
        self.populated = ring is not None
        if ring is None:
            ring = ObjectRing()
            ring.guard_updates(jobgen.segment_keys(scenario))
        # Skewed classes draw their ranks from a stream of their own, so
        # that the scenario's other draws are those of a uniform run.
        ring.rank_by(popularity.pickers(scenario, options.rng or seeds.stream(
            self.seed, seeds.POPULARITY)))
        self.ring = ring
        self._begun = []        # the options' sinks of the current phase
        if master is None:
            master = Master(transport, scenario.user_count,
                            options.batch_size,
                            worker_timeout=options.worker_timeout,
                            drain_seconds=options.drain_seconds)
            # Workers' clock offsets, from probes sent with jobs all run
            # long.
            master.clocks = ClockOffsets(on_step=clock_stepped(master.events))
        else:
            master.resize(scenario.user_count, options.batch_size)
        self.master = master
        if worker_config is not None:
            worker_config.events = master.events

    def _sinks(self, name, total=None, own=()):
        """Phase `name`'s sinks: `own`, then those of the options that take
        part in it, begun (_end() ends them)."""
        seconds = self.scenario.run_seconds if name == 'benchmark' else None
        self._begun = [sink for sink in self.options.sinks
                       if name in getattr(sink, 'phases', PHASES)]
        for sink in self._begun:
            if hasattr(sink, 'begin'):
                sink.begin(self.master, name, total, seconds)
        return list(own) + self._begun

    def _end(self):
        for sink in self._begun:
            if hasattr(sink, 'end'):
                sink.end()
        self._begun = []

    def request_stop(self):
        """Ask the run to stop (first signal); True if it was already
        asked, in which case the caller should stop at once."""
        already = self.master.stop_requested
        self.master.stop_requested = True
        return already

    def run(self):
        """Wait for the workers, configure them, and run every phase: a
        RunOutcome."""
        self.connect()
        return self.run_phases()

    def connect(self):
        """Wait for the workers (all --expect-workers of them) and hand
        them their configuration."""
        options = self.options
        if options.expect_workers is not None and \
                self.worker_config is not None:
            # Heartbeats of unconfigured workers bring them a copy while
            # the master waits for them to be configured.
            self.master.configuration = self.worker_config
        workers = self.master.wait_for_workers(options.worker_wait,
                                               options.expect_workers)
        if options.expect_workers is not None:
            log.info('%d workers connected and configured: %s',
                     len(workers), ', '.join(str(w) for w in workers))
        log.debug('workers connected: %s', workers)
        if self.worker_config is not None:
            self.master.configure(self.worker_config)

    def run_phases(self):
        """Containers, population (unless the ring came populated),
        benchmark and cleanup, with workers connected: a RunOutcome."""
        log.info('Starting scenario run for "%s"', self.scenario.name)
        if not self.populated:
            self.prepare_objects()
        outcome = self.benchmark()
        if self.options.keep_objects or self.options.noop:
            return outcome
        if outcome.interrupted or outcome.error is not None or \
                not self.cleanup():
            log.warning('Objects created by the run were not deleted; '
                        '"ssbench-master cleanup-containers" removes them')
            if outcome.error is None:
                outcome.interrupted = True
        return outcome

    def prepare_objects(self):
        """The initial objects: uploaded where missing (after the
        containers), or with --noop only put in the ring."""
        scenario = self.scenario
        if self.options.noop:
            self.load_initial_objects()
        else:
            log.info('Ensuring %d containers (%s_*) exist; concurrency=%d...',
                     scenario.container_count, scenario.container_base,
                     scenario.container_concurrency)
            ensure_containers(self.swift, scenario,
                              scenario.container_concurrency,
                              self._stop_requested)
            if not self.populate():
                raise Interrupted('interrupted while populating: no '
                                  'benchmark was run')
        self.populated = True

    def _stop_requested(self):
        return self.master.stop_requested

    def load_initial_objects(self):
        """--noop: the ring gets the initial objects without uploads, a
        chunk at a time so that a stop request is seen."""
        objects = jobgen.initial_objects(self.scenario)
        while True:
            if self.master.stop_requested:
                raise Interrupted('interrupted while loading the initial '
                                  'objects: no benchmark was run')
            chunk = list(islice(objects, LOAD_CHUNK))
            if not chunk:
                return
            self.ring.load(chunk)

    def populate(self):
        log.info('Initializing cluster with stock data (up to %d concurrent '
                 'workers)', self.scenario.user_count)
        sinks = self._sinks('population', sum(
            size.initial_count for size in self.scenario.sizes),
            [Take(self.ring.on_results, SCANNED)])
        try:
            stats = self.master.run_jobs(
                jobgen.initial_jobs(self.scenario, self.population_rng),
                sinks)
        finally:
            self._end()
        if stats.errors:
            log.warning('%d of %d initial objects could not be uploaded',
                        stats.errors, stats.sent)
        return not stats.interrupted

    def benchmark(self):
        """The benchmark phase, its results written to the stats file
        (finalized even when the phase fails): a RunOutcome."""
        scenario, options = self.scenario, self.options
        log.info('Starting benchmark run (up to %d concurrent workers)',
                 scenario.user_count)
        paths = self.stats_paths
        header = self._bench_header()
        schedule = self.open_loop(header)
        writer = StatsWriter(paths.plain, header, paths.final)
        self.master.events.attach(writer)
        sinks = self._sinks('benchmark', scenario.operation_count,
                            self._bench_sinks(writer))
        profiler = _start_profile(options.profile_path)
        stats = error = None
        try:
            stats = self.master.run_jobs(self._bench_jobs(), sinks)
            self.store_controls(schedule, writer)
        except KeyboardInterrupt:
            # Second interrupt: stop now; the plain file stays readable.
            self.master.events.detach()
            writer.close()
            log.warning('Interrupted again: results so far are in %s (not '
                        'compressed)', paths.plain)
            return RunOutcome(paths.plain, True, finalized=False)
        except Exception as exc:
            error = self._bench_failed(exc, schedule, writer)
        finally:
            profiled = self._bench_end(profiler, writer)
        self._bench_said(stats, profiled)
        if writer.error is not None:
            return self._unwritten(writer, stats)
        return RunOutcome(writer.finalize(),
                          stats is not None and stats.interrupted, stats,
                          error)

    def _unwritten(self, writer, stats):
        """The outcome of a benchmark whose stats file could not be
        written (a full disk): the run ends with that error, and what was
        written stays in the plain file, not gzipped (there is no room
        for a copy)."""
        log.warning('Results received before the stats file failed are in '
                    '%s (not compressed)', writer.path)
        return RunOutcome(writer.path, stats is not None and
                          stats.interrupted, stats, writer.error,
                          finalized=False)

    def _bench_jobs(self):
        """The benchmark's jobs, ended early by the watch if it says so."""
        jobs = jobgen.bench_jobs(self.scenario, self.rng, self.ring,
                                 noop=self.options.noop)
        if self.options.watch is not None:
            jobs = self.options.watch.jobs(jobs)
        return jobs

    def _bench_sinks(self, writer):
        """The benchmark's own sinks: the stats file, the ring, and the
        steady watch when there is one."""
        sinks = [Store(writer), Take(self.ring.on_results, SCANNED)]
        watch = self.options.watch
        if watch is not None:
            # Completion times on the master's clock, as the reports put
            # them.
            if self.master.clocks is not None:
                watch.offsets = self.master.clocks.offset
            sinks.append(Take(watch.add))
        return sinks

    def _bench_header(self):
        """The stats file's header: the scenario's, the seed, the warmup,
        the storage URLs when several and the workers taking part."""
        header = self.scenario.stats_header(ssbench.version)
        header['seed'] = self.seed
        if self.options.warmup:
            header['warmup'] = self.options.warmup
        urls = self.endpoints()
        if urls:
            header[record.ENDPOINTS] = urls
        header[workerlist.HEADER_KEY] = workerlist.entries(
            self.master.identities, self.master.tracker.live())
        header.update(self.options.header_extra or {})
        return header

    def endpoints(self):
        """The storage URLs the workers were handed, when several (a
        result's `endpoint` is an index into them), else None."""
        urls = self.swift.storage_urls() if self.swift is not None else []
        return list(urls) if len(urls) > 1 else None

    def _bench_failed(self, exc, schedule, writer):
        """Whatever ended the phase (every worker lost, a bug): the
        results received so far are finalized and the run ends with one
        line, the SsbenchError returned."""
        log.debug('benchmark phase failed', exc_info=True)
        error = exc if isinstance(exc, SsbenchError) else SsbenchError(
            'benchmark phase failed: %s: %s' % (type(exc).__name__, exc))
        try:
            self.store_controls(schedule, writer)
        except Exception:  # the error above is the one to tell
            log.debug('control records not stored', exc_info=True)
        return error

    def _bench_end(self, profiler, writer):
        """However the phase ended: the master let go of the phase, the
        profile saved, the sinks ended, the writer closed (a failure to
        write kept in writer.error).  True when a profile was saved."""
        self.master.schedule = None
        try:
            self.master.events.detach()
        except StatsFileError:
            pass        # writer.error says it
        saved = profiler is not None and _save_profile(
            profiler, self.options.profile_path)
        self._end()
        try:
            writer.close()
        except StatsFileError:
            pass        # writer.error says it
        return saved

    def _bench_said(self, stats, profiled):
        """The lines a finished benchmark phase logs."""
        if stats is not None:
            log.debug('%d of %d messages of results taken on their bytes',
                      stats.scanned, stats.scanned + stats.decoded)
            held_back(stats, self.scenario.user_count)
            if stats.interrupted:
                log.warning('Interrupted: the benchmark phase stopped early; '
                            'every result received is kept')
        if profiled:
            log.info('Benchmark profile written to %s',
                     self.options.profile_path)
        if self.ring.skipped:
            log.debug('%d jobs skipped for lack of an object',
                      self.ring.skipped)

    def store_controls(self, schedule, writer):
        """The control records of the run's end go into the stats file:
        a --rate run's schedule (closed now if the phase ended otherwise,
        by an error) and each worker's clock offset, warned about when
        above ssbench.results.clockrecords.OFFSET_LIMIT."""
        if schedule is not None:
            schedule.close(monotonic())
            writer.write_batch([schedule.record()])
        if self.options.watch is not None:
            writer.write_batch([self.options.watch.record()])
        records = self.master.clocks.records()
        if records:
            writer.write_batch(records)
            line = clockrecords.warning(clockrecords.workers(records))
            if line:
                log.warning('%s', line)

    def open_loop(self, header):
        """For a --rate run, the benchmark's Schedule, handed to the
        master and named in the stats `header`; else None."""
        rate = self.options.rate or self.scenario.rate
        if not rate:
            return None
        from ssbench.load.schedule import SEND_WINDOW, Schedule
        arrival = self.options.arrival
        now = monotonic()
        schedule = Schedule(rate, arrival,
                            seeds.stream(self.seed, seeds.ARRIVALS),
                            start=now, epoch_offset=time.time() - now,
                            window=SEND_WINDOW,
                            duration=self.scenario.run_seconds)
        header['rate'] = rate
        header['arrival'] = arrival
        self.master.schedule = schedule
        log.info('Open loop: %g jobs/s, %s arrivals, at most %d in flight',
                 rate, arrival, self.scenario.user_count)
        return schedule

    def cleanup(self):
        """Delete what the run created; False when interrupted."""
        created = self.ring.pop_created()
        log.info('Deleting the %d objects the benchmark created (the '
                 'initial objects stay for the next run)', len(created))
        sinks = self._sinks('cleanup', len(created))
        try:
            stats = self.master.run_jobs(
                jobgen.cleanup_jobs(created, scenario=self.scenario), sinks)
        finally:
            self._end()
        if stats.errors:
            log.warning('%d of %d objects created by the run could not be '
                        'deleted', stats.errors, stats.sent)
        return not stats.interrupted


def _start_profile(path):
    """A running cProfile.Profile when --profile-file names `path`, else
    None."""
    if not path:
        return None
    import cProfile
    profiler = cProfile.Profile()
    profiler.enable()
    return profiler


def _save_profile(profiler, path):
    """Stop `profiler` and save it to `path`; False (said) when it cannot
    be: the results matter more, and the run goes on."""
    profiler.disable()
    try:
        safefiles.save_profile(profiler, path)
    except SsbenchError as exc:
        log.error('%s', exc)
        return False
    return True


def held_back(stats, user_count):
    """Say when the benchmark phase had fewer than `user_count` requests
    in flight because the jobs it could make needed objects other jobs
    were using (ssbench.load.objectring): a throughput the cluster is not
    to blame for."""
    if stats.held_back:
        log.warning('Fewer than %d requests were in flight at times: %d '
                    'times, every object the next job could use was in '
                    'use by another (a DELETE, or an UPDATE of a '
                    'segmented object); more initial_files avoid it',
                    user_count, stats.held_back)
    if stats.forced:
        log.warning('%d jobs used an object another job was using, with '
                    'nothing else in flight to free one', stats.forced)
