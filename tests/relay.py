"""A tiny TCP relay for e2e tests: forwards a local port to a target, can
record every byte, and can be stalled (nothing forwarded, every
connection kept open) or cut (connections reset, port closed) for a while
to simulate an outage, or slowed (`delay` seconds before each piece of
the target's answer goes on) to simulate a slow server."""
from __future__ import absolute_import, division, print_function

import select
import socket
import struct
import threading
import time


class Relay(object):
    def __init__(self, target, record=False, delay=0.0):
        self.target = target
        self.record = record
        self.delay = delay
        self.captured = []
        self.port = None
        self._lock = threading.Lock()
        self._conns = []
        self._listener = None
        self._stopped = False
        self._thread = None
        self._flowing = threading.Event()
        self._flowing.set()

    def start(self, port=0):
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(('127.0.0.1', port))
        listener.listen(128)
        self._listener = listener
        self.port = listener.getsockname()[1]
        self._thread = threading.Thread(target=self._accept, args=(listener,))
        self._thread.daemon = True
        self._thread.start()
        return self

    def _accept(self, listener):
        while True:
            try:
                client, _ = listener.accept()
            except (OSError, socket.error):
                return
            try:
                upstream = socket.create_connection(self.target, timeout=5)
            except (OSError, socket.error):
                client.close()
                continue
            with self._lock:
                self._conns.append((client, upstream))
            worker = threading.Thread(target=self._pump,
                                      args=(client, upstream))
            worker.daemon = True
            worker.start()

    def _pump(self, client, upstream):
        peers = {client: upstream, upstream: client}
        try:
            while not self._stopped:
                if not self._flowing.is_set():
                    with self._lock:
                        if (client, upstream) not in self._conns:
                            return          # cut while stalled
                    self._flowing.wait(0.05)
                    continue
                for sock in select.select(list(peers), [], [], 0.05)[0]:
                    if not self._flowing.is_set():
                        break
                    data = sock.recv(65536)
                    if not data:
                        return
                    if self.record:
                        with self._lock:
                            self.captured.append(data)
                    if self.delay and sock is upstream:
                        time.sleep(self.delay)
                    peers[sock].sendall(data)
        except (OSError, socket.error, ValueError):
            return
        finally:
            for sock in (client, upstream):
                try:
                    sock.close()
                except (OSError, socket.error):
                    pass

    def stall(self):
        """Forward nothing, and keep every connection (new ones too) open,
        until resume() or cut()."""
        self._flowing.clear()

    def resume(self):
        self._flowing.set()

    def connections(self):
        """How many connections are open through the relay."""
        with self._lock:
            return len(self._conns)

    def _reset_all(self):
        with self._lock:
            conns, self._conns = self._conns, []
        linger = struct.pack('ii', 1, 0)       # close with RST
        for pair in conns:
            for sock in pair:
                try:
                    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                                    linger)
                    sock.shutdown(socket.SHUT_RDWR)
                except (OSError, socket.error):
                    pass

    def cut(self):
        """Refuse new connections and reset the open ones."""
        listener, self._listener = self._listener, None
        if listener is not None:
            try:
                # Wakes the thread blocked in accept(); close() alone
                # would leave the port bound until it returns.
                listener.shutdown(socket.SHUT_RDWR)
            except (OSError, socket.error):
                pass
            listener.close()
        self._reset_all()

    def restore(self):
        self.start(self.port)

    def bytes_seen(self):
        with self._lock:
            return b''.join(self.captured)

    def stop(self):
        self._stopped = True
        self.cut()
