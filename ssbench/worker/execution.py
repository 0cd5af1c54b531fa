"""The worker's job execution: Swift jobs in a fixed set of greenlets.

`Runners` are greenlets spawned once (on the first job) that take jobs
in turn: a gevent Pool would spawn a greenlet per job (a new greenlet,
its frame stack and the pool's bookkeeping), which at one request per job
is a visible part of a worker's CPU.  A job put while every runner is
busy waits there, so putting never blocks the reader.

`StoreJobs` runs a job and turns what happened into a result record:
configuration (CONFIGURE jobs, waiting for one), the store's client, one
handler per job type.  ssbench.worker.mainloop.Worker builds one and hands
it the collaborators it needs (result sink, client factory, tokens, a way
to ask the master for CONFIGURE, a clock), so it also runs without a
Worker.
"""
from __future__ import absolute_import, division, print_function

import collections
import logging
import time
import traceback

import gevent
import gevent.event
import gevent.pool

from ssbench import (CREATE_OBJECT, DELETE_OBJECT, HEAD_OBJECT,
                     LIST_CONTAINER, READ_OBJECT, UPDATE_OBJECT)
from ssbench.wire import protocol
from ssbench.compat import monotonic
from ssbench.errors import SsbenchError
from ssbench.s3.client import S3Access
from ssbench.store.client import (DEFAULT_BLOCK_SIZE, DEFAULT_CONNECT_TIMEOUT,
                                  DEFAULT_NETWORK_TIMEOUT, DEFAULT_RETRIES)
from ssbench.store.outcome import RequestError, add_causes, error_class
from ssbench.swift.auth import AuthOptions

# The worker's log, where these lines always were.
log = logging.getLogger('ssbench.worker.mainloop')

# Names a LIST job without a `limit` asks for (the master always sends
# one; this is the scenario's default).
LISTING_PAGE = 100

# How long a Swift job waits for CONFIGURE, or for a new token after 401.
CONFIGURE_WAIT = 30.0


class Runners(object):
    """`size` greenlets calling `func(*args)` for each put(*args), in order.

    Jobs wait in a deque; a runner that finds it empty waits in the hub,
    and put() wakes one through a callback of the loop: gevent's Queue
    would make a Waiter and a (dummy) Timeout for every get that finds it
    empty, which is nearly every get at one request per job.  `func`
    should not raise: an exception other than GreenletExit is reported by
    gevent and ends that runner, leaving one fewer.
    """

    def __init__(self, size, func):
        self.size = max(1, int(size))
        self._func = func
        self._jobs = collections.deque()
        self._idle = []             # runners waiting in the hub for a job
        self._greenlets = []

    def put(self, *args):
        if not self._greenlets:
            self._greenlets = [gevent.spawn(self._run)
                               for _ in range(self.size)]
        self._jobs.append(args)
        if self._idle:
            gevent.get_hub().loop.run_callback(self._idle.pop().switch)

    def waiting(self):
        """Jobs put that no runner has taken yet."""
        return len(self._jobs)

    def _run(self):
        jobs, idle, func = self._jobs, self._idle, self._func
        wait = gevent.get_hub().switch
        me = gevent.getcurrent()
        while True:
            if jobs:
                func(*jobs.popleft())
            else:
                # Woken by put(), or by nothing else: another runner
                # may have taken the job meanwhile, hence the loop.
                idle.append(me)
                wait()

    def kill(self, timeout=None):
        """Stop every runner; jobs still waiting are dropped."""
        greenlets, self._greenlets = self._greenlets, []
        self._jobs = collections.deque()
        self._idle = []
        gevent.killall(greenlets, timeout=timeout)


def _after(head, request, *args):
    """request(*args), a job's second request after the HEAD `head`: its
    Timing, or its RequestError, counts the HEAD's retries (and their
    causes) and reconnects too; a failure's time includes the HEAD's."""
    try:
        timing = request(*args)
    except RequestError as exc:
        exc.retries += head.retries
        exc.reconnects += head.reconnects
        exc.retry_causes = add_causes(exc.retry_causes, head.retry_causes)
        exc.time_to_failure += head.last_byte_latency
        raise
    timing.retries += head.retries
    timing.reconnects += head.reconnects
    timing.retry_causes = add_causes(timing.retry_causes, head.retry_causes)
    return timing


class StoreJobs(object):
    """Runs a worker's jobs against its store (Swift or S3) and turns
    each into a result record.

    Everything it works with is passed in:

    - `add_result(record)`: the result sink, called once per job;
    - `client_factory(auth, concurrency=, retries=, connect_timeout=,
      network_timeout=[, tokens=])`: builds the Swift client on first use
      and again after a CONFIGURE changed its settings;
    - `tokens` (ssbench.swift.tokens.HandedTokens): the master's token,
      used when `own_auth` (AuthOptions with credentials) is None;
    - `ask_master()`: have a heartbeat go out now, which tells the master
      this worker waits for CONFIGURE;
    - `now()`: the wall clock that stamps `completed_at`;
    - `clock()`: the monotonic clock of `worker_time`, the seconds from
      the worker's receipt of a job (given to submit()) to its result.

    The other arguments are the client's settings, which a CONFIGURE job
    may change (`retry_backoff`: None, or the client's (base, cap)), and
    `configure_wait`, how long a job waits for CONFIGURE.
    """

    def __init__(self, worker_id, add_result, client_factory, tokens,
                 ask_master, own_auth=None, concurrency=64,
                 retries=DEFAULT_RETRIES,
                 connect_timeout=DEFAULT_CONNECT_TIMEOUT,
                 network_timeout=DEFAULT_NETWORK_TIMEOUT,
                 block_size=DEFAULT_BLOCK_SIZE,
                 configure_wait=CONFIGURE_WAIT, now=time.time,
                 clock=monotonic,
                 retry_backoff=None):
        self.worker_id = worker_id
        self._add_result = add_result
        self.client_factory = client_factory
        self.handed = tokens
        self._ask_master = ask_master
        self.own_auth = own_auth
        self.concurrency = max(1, int(concurrency))
        self.retries = retries
        self.connect_timeout = connect_timeout
        self.network_timeout = network_timeout
        self.block_size = block_size
        self.retry_backoff = retry_backoff
        self.configure_wait = configure_wait
        self.now = now
        self.clock = clock
        # TLS options (--insecure, --os-cacert) from the master, for the
        # token it hands over.
        self.tls = AuthOptions()
        self.store = None
        # The master's S3 endpoint and signing keys, when it speaks S3.
        self.s3 = S3Access()
        self.configured = gevent.event.Event()
        if own_auth is not None:
            self.configured.set()
        self.runners = Runners(self.concurrency, self.run_job)
        # Jobs that came before CONFIGURE wait here, outside the runners:
        # there they would hold every runner, waiting, while later jobs
        # queued behind them.
        self.unconfigured = gevent.pool.Group()
        self._handlers = {
            CREATE_OBJECT: self.handle_upload_object,
            READ_OBJECT: self.handle_get_object,
            UPDATE_OBJECT: self.handle_update_object,
            DELETE_OBJECT: self.handle_delete_object,
            HEAD_OBJECT: self.handle_head_object,
            LIST_CONTAINER: self.handle_list_container,
        }

    def handles(self, kind):
        """True for the job types run here."""
        return kind in self._handlers

    def submit(self, job, received=None):
        """Run `job` in a runner greenlet (once configured); its result
        goes to the sink, with its `worker_time` when `received` (the
        clock() time it came) is given.  Never blocks."""
        if self.configured.is_set():
            self.runners.put(job, received)
        else:
            self.unconfigured.spawn(self._run_when_configured, job,
                                    received)

    def waiting(self):
        """Jobs waiting for a free runner."""
        return self.runners.waiting()

    def stop(self, timeout=None):
        """Stop every job running or waiting: no result for them."""
        self.unconfigured.kill(timeout=timeout)
        self.runners.kill(timeout=timeout)

    def close(self):
        """Close the store client's connections, if there is a client."""
        if self.store is not None:
            self.store.close()

    # -- configuration ------------------------------------------------

    def configure(self, job):
        """Apply a CONFIGURE job; the worker's own credentials win over
        the token it carries, and a master that speaks S3 over both."""
        rebuild = False
        if job.get('s3') is not None and self.s3.update(job['s3']):
            rebuild = True
        for key in ('connect_timeout', 'network_timeout'):
            value = job.get(key)
            if value is not None and value != getattr(self, key):
                setattr(self, key, value)
                rebuild = True
        if job.get('block_size') is not None:
            self.block_size = job['block_size']
        backoff = job.get('retry_backoff')
        if backoff is not None and tuple(backoff) != self.retry_backoff:
            self.retry_backoff = tuple(backoff)
            rebuild = True
        if self.own_auth is None and job.get('token'):
            tls = AuthOptions(insecure=job.get('insecure'),
                              os_cacert=job.get('cacert'))
            if tls != self.tls:
                self.tls = tls
                rebuild = True
            self.handed.update(job)
        if rebuild and self.store is not None:
            # Requests still running finish on the old client, whose
            # connections close as they end.
            old, self.store = self.store, None
            old.close()
        if not self.configured.is_set() and (
                self.own_auth is not None or self.handed.grant is not None or
                self.s3.settings is not None):
            log.info('worker %s configured by the master', self.worker_id)
            self.configured.set()

    def _wait_configured(self):
        """Wait up to configure_wait for CONFIGURE (asking for it with a
        prompt heartbeat); the error to report if it did not come."""
        if self.configured.is_set():
            return None
        self._ask_master()
        if self.configured.wait(self.configure_wait):
            return None
        return SsbenchError(
            'worker %s has no Swift credentials: give it -A/-U/-K (or ST_* '
            'variables) or let the master configure it' % (self.worker_id,))

    def _run_when_configured(self, job, received=None):
        start = monotonic()
        error = self._wait_configured()
        if error is None:
            self.runners.put(job, received)
        else:
            self._add(protocol.result_error(
                job, self.worker_id, '%s: %s' % (type(error).__name__, error),
                '', 0, completed_at=self.now(),
                error_class=error_class(error), reconnects=0,
                time_to_failure=monotonic() - start), received)

    def _add(self, result, received):
        """Hand `result` to the sink, with the seconds since `received`
        (on the worker's own clock) when given."""
        if received is not None:
            result['worker_time'] = max(0.0, self.clock() - received)
        self._add_result(result)

    def get_store(self):
        """The store's client, built on first use (after CONFIGURE, for a
        worker without credentials of its own)."""
        if self.store is None:
            error = self._wait_configured()
            if error is not None:
                raise error
            if self.store is None and self.s3.settings is not None:
                self.store = self.s3.client(
                    concurrency=self.concurrency, retries=self.retries,
                    connect_timeout=self.connect_timeout,
                    network_timeout=self.network_timeout,
                    retry_backoff=self.retry_backoff)
            if self.store is None:
                kwargs = {}
                auth = self.own_auth
                if auth is None:
                    auth, kwargs['tokens'] = self.tls, self.handed
                if self.retry_backoff is not None:
                    kwargs['retry_backoff'] = self.retry_backoff
                self.store = self.client_factory(
                    auth, concurrency=self.concurrency,
                    retries=self.retries,
                    connect_timeout=self.connect_timeout,
                    network_timeout=self.network_timeout, **kwargs)
        return self.store

    # -- jobs ---------------------------------------------------------

    def run_job(self, job, received=None):
        """Run one job; its result, success or failure, goes to the
        sink (see submit() for `received`)."""
        kind = job['type']
        start = monotonic()
        try:
            if job.get('segment_size'):
                timing = self.get_store().large_objects(
                    self._block_size(job)).run(job)
            else:
                timing = self._handlers[kind](job)
        except RequestError as exc:
            result = protocol.result_error(
                job, self.worker_id, str(exc), traceback.format_exc(),
                exc.retries, exc.trans_id, completed_at=self.now(),
                status=exc.http_status, error_class=exc.error_class,
                reconnects=exc.reconnects,
                time_to_failure=exc.time_to_failure,
                retry_causes=exc.retry_causes)
            endpoint = exc.endpoint
        except Exception as exc:  # a failed job is data, never raised
            # No request went out (no token, no configuration...): its
            # time is the job's own, and it has no endpoint.
            endpoint = None
            result = protocol.result_error(
                job, self.worker_id, '%s: %s' % (type(exc).__name__, exc),
                traceback.format_exc(), 0, completed_at=self.now(),
                error_class=error_class(exc), reconnects=0,
                time_to_failure=monotonic() - start)
        else:
            result = protocol.result_ok(
                job, self.worker_id, timing.first_byte_latency,
                timing.last_byte_latency, timing.trans_id, timing.retries,
                completed_at=self.now(), status=timing.status,
                reconnects=timing.reconnects,
                size=timing.size if kind == READ_OBJECT else None,
                retry_causes=timing.retry_causes)
            if timing.segments is not None:
                result['segments'] = timing.segments
            endpoint = timing.endpoint
        if endpoint is not None:
            result['endpoint'] = endpoint
        self._add(result, received)

    def _block_size(self, job):
        return job.get('block_size') or self.block_size

    def handle_upload_object(self, job):
        store = self.get_store()
        if not job.get('head_first'):
            return store.put_object(job['container'], job['name'],
                                    job['size'], b'A', self._block_size(job),
                                    job.get('delete_after'))
        head = store.head_object(job['container'], job['name'],
                                 missing_ok=True)
        if head.status != 404:
            return head
        return _after(head, store.put_object, job['container'], job['name'],
                      job['size'], b'A', self._block_size(job),
                      job.get('delete_after'))

    def handle_get_object(self, job):
        return self.get_store().get_object(job['container'], job['name'],
                                           self._block_size(job))

    def handle_update_object(self, job):
        return self.get_store().put_object(
            job['container'], job['name'], job['size'], b'B',
            self._block_size(job), job.get('delete_after'))

    def handle_delete_object(self, job):
        return self.get_store().delete_object(job['container'], job['name'])

    def handle_head_object(self, job):
        return self.get_store().stat_object(job['container'], job['name'])

    def handle_list_container(self, job):
        return self.get_store().list_page(
            job['container'], job.get('limit') or LISTING_PAGE,
            job.get('prefix'), self._block_size(job))
