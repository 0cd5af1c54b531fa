"""ZeroMQ sockets between master and workers.

The master binds a ROUTER socket (work) and a PULL socket (results); a
worker connects a DEALER and a PUSH socket to them.  The work connection
carries jobs and control messages to one worker at a time (the master
addresses each by the routing id ZeroMQ gives the connection) and the
worker's heartbeats back, so the master knows which connection speaks;
results go PUSH -> PULL.  A PUSH socket hands its messages round-robin to
whoever is connected, so the master could neither keep jobs from a peer it
has not admitted nor send work where there is room: hence ROUTER/DEALER
(docs/compatibility.rst).  Every payload is one bytes frame (see
ssbench.wire.protocol).  Receives take a timeout so no caller can hang on
a lost peer, and zmq failures surface as TransportError with one clear line.

Opt-in CURVE: pass `curve=CurveKeys(directory)` (ssbench.wire.curve.keys) to
both ends (keys made by `python -m ssbench.cli.curve keys DIR`).  Traffic is
encrypted (the token in CONFIGURE messages included), workers know they
talk to the real master, and the master only lets in workers whose public
key is in its directory: any other worker is refused during the handshake,
so it is sent no job and nothing it sends arrives.
"""
from __future__ import absolute_import, division, print_function

import errno
import logging
import socket
import time

import zmq

from ssbench.compat import monotonic
from ssbench.errors import TransportError
from ssbench.wire.iothreads import new_context
from ssbench.wire.poller import POLLIN, HubPoller, gevent_patched
from ssbench.wire.faultlog import Faults
from ssbench.wire.wirelimits import (COMMANDS_ONLY, CONTROL_RCVHWM,
                                     CONTROL_RECORDS, LARGEST_HEARTBEAT,
                                     MAX_CONTROL_MESSAGE,
                                     MAX_MASTER_MESSAGE, MAX_RESULTS_MESSAGE,
                                     RESULT_RECORDS, RESULTS_RCVHWM,
                                     RESULTS_SPLIT, WORKER_RCVHWM, excess)
from ssbench.wire.curve.handshakes import (MasterHandshakes, WorkerHandshakes,
                                           enforce_zap, handshake_events,
                                           monitor_handshakes)
from ssbench.wire.curve.zap import ZAP_DOMAIN, ZapHandler, key_name

log = logging.getLogger(__name__)

# The sockets never drop at the high-water mark, they block (or report
# EAGAIN; the ROUTER is ZMQ_ROUTER_MANDATORY).  The send marks are
# generous so that the master's own flow control (at most user_count jobs
# out), not ZMQ, is what limits traffic; they cost the sender's memory.
WORK_HWM = 10000          # jobs to a worker, a worker's heartbeats out
RESULTS_HWM = 100000      # a worker's results waiting to leave
# What the master takes from one connection is bounded in bytes: at most
# CONTROL_RCVHWM (work) or RESULTS_RCVHWM (results) messages queued, none
# larger than MAX_CONTROL_MESSAGE or MAX_RESULTS_MESSAGE (libzmq
# disconnects the peer of a larger frame before reading it); a worker's
# DEALER takes at most WORKER_RCVHWM messages of MAX_MASTER_MESSAGE.
# ssbench.wire.wirelimits derives them from what a legitimate peer sends.
# ZMTP heartbeats notice a dead peer long before TCP would: a worker's
# notice a master gone.  The master's sockets send none.  libzmq (4.3.5
# and before) aborts the process (`Assertion failed: !_io_error`) when a
# heartbeat is due on a connection whose peer hung up while its receive
# queue was full, which any stranger can arrange; the master learns of
# lost workers from their own heartbeats (ssbench.master.liveness) and of
# dead connections from TCP keepalive, and still answers a worker's
# ZMTP heartbeats.
ZMTP_HEARTBEAT_IVL_MS = 5000
ZMTP_HEARTBEAT_TIMEOUT_MS = 15000
TCP_KEEPALIVE_IDLE_S = 60
TCP_KEEPALIVE_INTVL_S = 10
TCP_KEEPALIVE_CNT_S = 6
# Seconds between tries of a send to a worker whose queue is full.
ROUTER_RETRY = 0.005
# Messages of the work connection the master takes in one go: a flood of
# them must not keep it from its results.  Nor hold it more bytes than
# its queue: libzmq refills the queue as fast as the master empties it.
CONTROL_BATCH = 256
CONTROL_BATCH_BYTES = CONTROL_RCVHWM * MAX_CONTROL_MESSAGE
_MORE = zmq.SNDMORE | zmq.NOBLOCK
# A master's blocking recv() of results returns after at most this many
# milliseconds, so that its loop takes in heartbeats (controls()) soon.
CONTROL_WAIT_MS = 50


def resolve(host, what):
    """Return (address, is_ipv6) for a host name or literal; IPv4 wins."""
    host = (host or '').strip()
    if host.startswith('[') and host.endswith(']'):
        host = host[1:-1]
    if host in ('', '*'):
        return '0.0.0.0', False
    try:
        infos = socket.getaddrinfo(host, None, 0, socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        reason = getattr(exc, 'strerror', None) or str(exc)
        raise TransportError('cannot resolve %s %r: %s' % (what, host, reason))
    for family in (socket.AF_INET, socket.AF_INET6):
        for info in infos:
            if info[0] == family:
                return info[4][0], family == socket.AF_INET6
    raise TransportError('cannot resolve %s %r: no IPv4 or IPv6 address'
                         % (what, host))


def endpoint(address, is_ipv6, port):
    """A tcp:// endpoint; port 0 asks for a free port (bind only)."""
    port_text = '*' if not port else str(int(port))
    if is_ipv6:
        return 'tcp://[%s]:%s' % (address, port_text)
    return 'tcp://%s:%s' % (address, port_text)


def _set_options(sock, is_ipv6, send_hwm, receive_hwm, largest,
                 heartbeats=True):
    """The options of every socket; `largest` is ZMQ_MAXMSGSIZE,
    `heartbeats` whether it sends ZMTP heartbeats."""
    sock.setsockopt(zmq.LINGER, 0)
    sock.setsockopt(zmq.SNDHWM, send_hwm)
    sock.setsockopt(zmq.RCVHWM, receive_hwm)
    sock.setsockopt(zmq.MAXMSGSIZE, largest)
    sock.setsockopt(zmq.IPV6, 1 if is_ipv6 else 0)
    sock.setsockopt(zmq.TCP_KEEPALIVE, 1)
    sock.setsockopt(zmq.TCP_KEEPALIVE_IDLE, TCP_KEEPALIVE_IDLE_S)
    sock.setsockopt(zmq.TCP_KEEPALIVE_INTVL, TCP_KEEPALIVE_INTVL_S)
    sock.setsockopt(zmq.TCP_KEEPALIVE_CNT, TCP_KEEPALIVE_CNT_S)
    if heartbeats and hasattr(zmq, 'HEARTBEAT_IVL'):  # libzmq >= 4.2
        try:
            sock.setsockopt(zmq.HEARTBEAT_IVL, ZMTP_HEARTBEAT_IVL_MS)
            sock.setsockopt(zmq.HEARTBEAT_TIMEOUT, ZMTP_HEARTBEAT_TIMEOUT_MS)
        except zmq.ZMQError:  # pragma: no cover - older libzmq at run time
            pass


def _left(deadline):
    """Seconds until `deadline` (None: no deadline)."""
    return None if deadline is None else deadline - monotonic()


def _timeout_ms(timeout):
    """zmq poll timeouts: milliseconds, -1 for forever."""
    if timeout is None:
        return -1
    return max(0, int(timeout * 1000))


class _Sockets(object):
    """Send/receive helpers shared by both ends: recv() reads `_in`,
    send() writes `_out`, and `_work` is the work connection."""

    _in = None             # master: the results PULL; worker: its DEALER
    _out = None            # worker: the results PUSH
    _work = None           # master: ROUTER; worker: DEALER
    _context = None
    _zap = None            # master with CURVE: its ZapHandler
    _monitors = ()         # with CURVE: [(monitor socket, endpoint)]
    _handshakes = None     # with CURVE: who hears of them (handshakes.py)
    _watch_at = 0.0
    _blocking = False      # recv() may block the thread (no gevent here)
    _rcvtimeo = -1         # the `_in` socket's RCVTIMEO as last set

    def _wait_with(self, green):
        """Choose how the sockets wait: letting other greenlets run when
        `green` (None: when gevent has patched this process), else
        blocking the thread.  Returns the choice."""
        if green is None:
            green = gevent_patched()
        polls = {}
        for sock in (self._in, self._out, self._work):
            if sock is not None and id(sock) not in polls:
                polls[id(sock)] = HubPoller(sock).poll if green \
                    else sock.poll
        self._in_poll = polls[id(self._in)]
        self._work_poll = polls[id(self._work)]
        if self._out is not None:
            self._out_poll = polls[id(self._out)]
        self._blocking = not green
        return green

    def _flush(self):
        """Log what the CURVE machinery noticed, in the caller's thread."""
        zap = self._zap
        if zap is not None:
            while zap.notes:
                level, message = zap.notes.popleft()
                log.log(level, '%s', message)
        if self._monitors:
            now = time.time()
            if now >= self._watch_at:
                self._watch_at = now + 0.5
                self._watch_handshakes()

    def _watch_handshakes(self):
        for kind, where in handshake_events(self._monitors):
            self._handshakes.seen(kind, where)

    def _raise(self):
        """Stop a worker whose CURVE handshakes cannot succeed: waiting
        would only hide the problem."""
        failure = self._handshakes and self._handshakes.failure
        if failure is not None:
            raise failure

    def send(self, data, timeout=None):
        """Queue one message on the results socket; False when it could
        not go out in `timeout` seconds (None: wait as long as it takes,
        0: don't wait)."""
        return self._send_on(self._out, self._out_poll, data, timeout)

    def _send_on(self, sock, poll, frames, timeout):
        """Queue one message (bytes, or a list of frames) on `sock`; False
        when it could not go out in `timeout` seconds, None when `sock` is
        a ROUTER and no peer of that routing id is connected."""
        self._flush()
        deadline = None if timeout is None else monotonic() + timeout
        router = type(frames) is list
        try:
            while True:
                try:
                    if router:
                        # Frame by frame: send_multipart costs ~10 us
                        # more a message.  A ROUTER refuses (EAGAIN,
                        # EHOSTUNREACH) at the first frame or never.
                        sock.send(frames[0], _MORE)
                        sock.send(frames[1], zmq.NOBLOCK)
                    else:
                        sock.send(frames, zmq.NOBLOCK)
                    return True
                except zmq.Again:
                    pass
                left = _left(deadline)
                if left is not None and left <= 0:
                    return False
                if router:
                    # A ROUTER's POLLOUT speaks of any peer, not this one.
                    time.sleep(min(ROUTER_RETRY, left or ROUTER_RETRY))
                else:
                    # POLLOUT may be reported while the send would still
                    # block (a peer that went away meanwhile): try again.
                    poll(_timeout_ms(left), zmq.POLLOUT)
        except zmq.ZMQError as exc:
            if router and exc.errno == errno.EHOSTUNREACH:
                return None
            raise TransportError('cannot send: %s' % (exc,))

    def recv(self, timeout=None):
        """The next message, or None after `timeout` seconds (None: wait)."""
        self._flush()
        self._raise()
        if self._blocking:
            return self._recv_blocking(timeout)
        deadline = None if timeout is None else monotonic() + timeout
        sock = self._in
        try:
            while True:
                # EVENTS first: a NOBLOCK recv with nothing queued raises,
                # and the master and workers mostly find nothing queued.
                if sock.getsockopt(zmq.EVENTS) & POLLIN:
                    try:
                        return sock.recv(zmq.NOBLOCK)
                    except zmq.Again:
                        pass
                if self._control_waiting():
                    return None
                left = _left(deadline)
                if left is not None and left <= 0:
                    return None
                if sock is not self._work:
                    # A green master looks at its ROUTER now and then.
                    left = 0.05 if left is None else min(left, 0.05)
                self._in_poll(_timeout_ms(left), zmq.POLLIN)
        except zmq.ZMQError as exc:
            raise TransportError('cannot receive: %s' % (exc,))

    def _control_waiting(self):
        """True when a master's ROUTER holds a message (a worker's DEALER
        is its `_in`: never)."""
        return False

    def _recv_blocking(self, timeout):
        # libzmq waits itself: a poll per message (pyzmq builds a Poller
        # each time) cost the master about 20 us of CPU per job at b1.
        timeout_ms = _timeout_ms(timeout)
        try:
            if timeout_ms != self._rcvtimeo:
                self._in.setsockopt(zmq.RCVTIMEO, timeout_ms)
                self._rcvtimeo = timeout_ms
            return self._in.recv()
        except zmq.Again:
            return None
        except zmq.ZMQError as exc:
            raise TransportError('cannot receive: %s' % (exc,))

    def recv_nowait(self):
        """A message already queued, or None."""
        try:
            if not self._in.getsockopt(zmq.EVENTS) & POLLIN:
                return None
            return self._in.recv(zmq.NOBLOCK)
        except zmq.Again:
            return None
        except zmq.ZMQError as exc:
            raise TransportError('cannot receive: %s' % (exc,))

    def poll(self, timeout=None):
        """True when a message can be received within `timeout` seconds."""
        self._flush()
        self._raise()
        try:
            return bool(self._in_poll(_timeout_ms(timeout), zmq.POLLIN))
        except zmq.ZMQError as exc:
            raise TransportError('cannot poll: %s' % (exc,))

    def close(self, linger=0):
        """Close the sockets, discarding what is still unsent after
        `linger` seconds on the worker's results socket, the master's
        work socket (0: at once)."""
        lingering = self._out if self._out is not None else self._work
        socks = [monitor for monitor, _ in self._monitors]
        for sock in socks + [self._work, self._in, self._out]:
            if sock is not None and not sock.closed:
                sock.close(linger=int(linger * 1000)
                           if sock is lingering else 0)
        self._monitors = ()
        zap = self._zap
        if zap is not None:           # only now: no socket left to guard
            zap.stop_green()
        if self._context is not None:
            self._context.term()      # ends an OS-thread ZAP handler too
            self._context = None
        if zap is not None:
            zap.join()
            self._flush()
            self._zap = None

    def __enter__(self):
        return self

    def __exit__(self, *exc_info):
        self.close()
        return False


class MasterSockets(_Sockets):
    """The master's end: binds ROUTER (work) and PULL (results).

    send_to() addresses one worker by its routing id; controls() takes
    what workers sent on the work connection (heartbeats), each with the
    routing id of its connection; recv() reads results, and returns
    (None) after at most CONTROL_WAIT_MS whatever its timeout, so that its
    caller looks at the work connection soon (a green master's: at once
    when the work connection holds a message).

    `bind_ip` may be an IPv4 or IPv6 literal (`::` binds every v6 address,
    and v4 too where the OS allows dual-stack) or a host name.  A port of 0
    binds a free port; `work_port` / `results_port` hold the real ones.
    `green` makes waits cooperate with gevent (None: when gevent has
    patched this process).
    """

    def __init__(self, bind_ip, work_port, results_port, green=None,
                 curve=None):
        keys = curve.master_keys() if curve is not None else None
        address, is_ipv6 = resolve(bind_ip, 'bind address')
        self.bind_ip = bind_ip
        self.results_faults = Faults('on the results port')
        self.control_faults = Faults('on the work port')
        self._context = new_context()
        try:
            self._work = self._context.socket(zmq.ROUTER)
            self._in = self._context.socket(zmq.PULL)
            # A send to a peer that is gone fails (EHOSTUNREACH) instead
            # of vanishing, and one to a full peer says EAGAIN.
            self._work.setsockopt(zmq.ROUTER_MANDATORY, 1)
            green = self._wait_with(green)
            if keys is not None:
                # Before binding, so no handshake goes unchecked.
                self._zap = ZapHandler(self._context, green, keys[1],
                                       curve.directory)
            _set_options(self._work, is_ipv6, WORK_HWM, CONTROL_RCVHWM,
                         MAX_CONTROL_MESSAGE, heartbeats=False)
            _set_options(self._in, is_ipv6, RESULTS_HWM, RESULTS_RCVHWM,
                         MAX_RESULTS_MESSAGE, heartbeats=False)
            if keys is not None:
                (public_key, secret_key), _ = keys
                for sock in (self._work, self._in):
                    sock.setsockopt(zmq.CURVE_SERVER, 1)
                    sock.setsockopt(zmq.CURVE_PUBLICKEY, public_key)
                    sock.setsockopt(zmq.CURVE_SECRETKEY, secret_key)
                    sock.setsockopt(zmq.ZAP_DOMAIN, ZAP_DOMAIN)
                    enforce_zap(sock)
            self.work_port = self._bind(self._work, 'work', address,
                                        is_ipv6, work_port)
            if results_port and results_port == self.work_port:
                raise TransportError(
                    'the work and results sockets need two ports, not both '
                    '%d: choose another --zmq-results-port' % results_port)
            self.results_port = self._bind(self._in, 'results', address,
                                           is_ipv6, results_port)
            if keys is not None:
                self._handshakes = MasterHandshakes()
                self._monitors = monitor_handshakes([
                    (self._work, 'work port %d' % self.work_port),
                    (self._in, 'results port %d' % self.results_port)])
        except BaseException:
            self.close()
            raise

    def send_to(self, peer, data, timeout=0):
        """Queue one message for the worker of routing id `peer`: True
        when queued, False when its queue stayed full for `timeout`
        seconds (None: wait as long as it takes), None when no such peer
        is connected (any more)."""
        return self._send_on(self._work, None, [peer, data], timeout)

    def controls(self, limit=CONTROL_BATCH):
        """[(routing id, message)] already queued on the work connection,
        at most `limit` of them and CONTROL_BATCH_BYTES, without
        waiting."""
        sock = self._work
        taken = []
        size = 0
        try:
            while len(taken) < limit and size < CONTROL_BATCH_BYTES and \
                    sock.getsockopt(zmq.EVENTS) & POLLIN:
                frames = sock.recv_multipart(zmq.NOBLOCK)
                size += sum(len(frame) for frame in frames)
                if len(frames) != 2:    # a DEALER sends one frame
                    continue
                fault = excess(frames[1], LARGEST_HEARTBEAT, CONTROL_RECORDS)
                if fault is None:
                    taken.append((frames[0], frames[1]))
                else:
                    self.control_faults.add(fault, len(frames[1]))
        except zmq.Again:
            pass
        except zmq.ZMQError as exc:
            raise TransportError('cannot receive: %s' % (exc,))
        return taken

    def _control_waiting(self):
        return bool(self._work.getsockopt(zmq.EVENTS) & POLLIN)

    def recv(self, timeout=None):
        return self._checked(_Sockets.recv(self, timeout))

    def recv_nowait(self):
        return self._checked(_Sockets.recv_nowait(self))

    def _checked(self, data):
        if data is not None:
            fault = excess(data, RESULTS_SPLIT, RESULT_RECORDS)
            if fault is not None:
                self.results_faults.add(fault, len(data))
                return None
        return data

    def _recv_blocking(self, timeout):
        # One blocking recv on the results socket, as a worker's, but for
        # at most CONTROL_WAIT_MS: the caller looks at the work connection
        # (controls()) between calls.  Checking both sockets each call
        # (EVENTS twice, then a poll) cost the master ~15% more CPU per
        # job at --batch-size 1.
        timeout_ms = _timeout_ms(timeout)
        if timeout_ms < 0 or timeout_ms > CONTROL_WAIT_MS:
            timeout_ms = CONTROL_WAIT_MS
        return _Sockets._recv_blocking(self, timeout_ms / 1000.0)

    @property
    def curve_directory(self):
        """The key directory of a CURVE master (None without CURVE)."""
        return self._zap.directory if self._zap is not None else None

    @property
    def curve_refusals(self):
        """{Z85 public key (None: not CURVE): refused handshakes}."""
        zap = self._zap
        if zap is None:
            return {}
        return dict((key_name(key) if key else None, count)
                    for key, count in list(zap.refused.items()))

    def _bind(self, sock, what, address, is_ipv6, port):
        where = endpoint(address, is_ipv6, port)
        try:
            sock.bind(where)
        except zmq.ZMQError as exc:
            shown = '[%s]:%s' % (address, port) if is_ipv6 else '%s:%s' % (
                address, port)
            hint = ''
            if exc.errno == errno.EADDRINUSE:
                hint = ' (is another ssbench-master running? choose ' \
                       'another --zmq-%s-port)' % what
            raise TransportError('cannot bind the %s socket to %s: %s%s'
                                 % (what, shown, exc.strerror, hint))
        last = sock.getsockopt(zmq.LAST_ENDPOINT)
        if not isinstance(last, str):
            last = last.decode('ascii')
        return int(last.rsplit(':', 1)[1])


class WorkerSockets(_Sockets):
    """A worker's end: connects DEALER (work) and PUSH (results).

    recv() reads jobs from the DEALER, send() writes results to the PUSH
    and send_control() heartbeats to the DEALER.  Both sockets only queue
    messages while the master is connected (ZMQ_IMMEDIATE), so a failed
    send_control(timeout=0) means "no master there"; the worker uses that
    to notice a master that went away.

    With CURVE, recv() and poll() raise CurveError once the master has
    refused this worker's key or turned out to run without CURVE: such a
    worker could never get a job.  (A wrong master.key is only logged: it
    looks like a peer that hangs up, as a proxy without its master does.)
    """

    def __init__(self, host, work_port, results_port, green=True,
                 curve=None):
        keys = curve.worker_keys() if curve is not None else None
        address, is_ipv6 = resolve(host, 'master host')
        self._context = new_context()
        try:
            self._work = self._in = self._context.socket(zmq.DEALER)
            self._out = self._context.socket(zmq.PUSH)
            _set_options(self._work, is_ipv6, WORK_HWM, WORKER_RCVHWM,
                         MAX_MASTER_MESSAGE)
            _set_options(self._out, is_ipv6, RESULTS_HWM, 1, COMMANDS_ONLY)
            self._work.setsockopt(zmq.IMMEDIATE, 1)
            self._out.setsockopt(zmq.IMMEDIATE, 1)
            self._wait_with(green)
            self.work_endpoint = endpoint(address, is_ipv6, work_port)
            self.results_endpoint = endpoint(address, is_ipv6, results_port)
            pairs = ((self._work, self.work_endpoint),
                     (self._out, self.results_endpoint))
            if keys is not None:
                self._handshakes = WorkerHandshakes(curve.directory)
                server_key, (public_key, secret_key) = keys
                for sock, _ in pairs:
                    sock.setsockopt(zmq.CURVE_SERVERKEY, server_key)
                    sock.setsockopt(zmq.CURVE_PUBLICKEY, public_key)
                    sock.setsockopt(zmq.CURVE_SECRETKEY, secret_key)
                self._monitors = monitor_handshakes(pairs)
            for sock, where in pairs:
                try:
                    sock.connect(where)
                except zmq.ZMQError as exc:
                    raise TransportError('cannot connect to %s: %s'
                                         % (where, exc.strerror))
        except BaseException:
            self.close()
            raise

    def send_control(self, data, timeout=0):
        """Queue one message (a heartbeat) on the work connection; False
        when it could not go out in `timeout` seconds."""
        return self._send_on(self._work, self._work_poll, data, timeout)
