"""Network namespaces for the multi-host end-to-end test (Linux, root, `ip`).

Topology (one per test module; every name carries a random suffix):

                    namespace <prefix>-br: bridge br0
        +-------------------+---------+---------+
        | veth              | veth    | veth    | veth
    <prefix>-swift     <prefix>-m  <prefix>-w1  <prefix>-w2
    10.231.0.1         .2          .3           .4
    fd00:231::1        ::2         ::3          ::4
    relay :8080 ---> 127.0.0.1:8080 of the root namespace (tools/saio)

Each "host" is a namespace of its own with an eth0 on the bridge (plus
its own lo), so the master, the workers and Swift only reach each other
over the bridge.  Swift stays where tools/saio runs it, in the root
namespace on 127.0.0.1.  The relay gives it an address on the bridge
without touching the root namespace: it is a process of the root
namespace that creates its listening sockets inside the swift namespace
(setns(2) there and back; a socket stays in the namespace it was created
in) and connects each accepted client to 127.0.0.1:8080.  Nothing is
added to the root namespace: no interface, address or route.

    python -m tests.e2e.netns relay --netns NAME --listen 10.231.0.1:8080 \\
        --listen [fd00:231::1]:8080 --target 127.0.0.1:8080 --log FILE
    python -m tests.e2e.netns reap     # namespaces left by dead test runs

The relay writes `listening` to FILE once its sockets are up, then one
`accepted <peer address>` line per client connection; it exits when its
parent process does.

Python 2.7 and 3; standard library only.
"""
from __future__ import absolute_import, division, print_function

import argparse
import ctypes
import ctypes.util
import errno
import os
import random
import select
import socket
import subprocess
import sys
import threading
import time

CLONE_NEWNET = 0x40000000
NETNS_DIR = '/var/run/netns'
NAME_PREFIX = 'ssbe2e-'
SUBNET4 = '10.231.0.%d'
SUBNET6 = 'fd00:231::%d'
HOSTS = ('swift', 'm', 'w1', 'w2')
IP_TIMEOUT = 20


class NetnsError(Exception):
    pass


def _ip(*args):
    """Run `ip ARGS` (bounded); raise NetnsError with its output."""
    argv = ['ip'] + list(args)
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    timer = threading.Timer(IP_TIMEOUT, proc.kill)
    timer.start()
    try:
        out = proc.communicate()[0].decode('utf-8', 'replace')
    finally:
        timer.cancel()
    if proc.returncode != 0:
        raise NetnsError('%s: %s' % (' '.join(argv), out.strip()))
    return out


def unavailable_reason():
    """None when namespaces can be made here, else why not."""
    if not sys.platform.startswith('linux'):
        return 'network namespaces need Linux'
    if os.geteuid() != 0:
        return 'network namespaces need root'
    probe = '%sprobe-%d-%04x' % (NAME_PREFIX, os.getpid(),
                                 random.getrandbits(16))
    try:
        _ip('netns', 'add', probe)
    except OSError as exc:
        return 'cannot run `ip` (iproute2): %s' % (exc,)
    except NetnsError as exc:
        return 'cannot create a network namespace: %s' % (exc,)
    try:
        _ip('-n', probe, 'link', 'add', 'probe0', 'type', 'bridge')
    except NetnsError as exc:
        return 'cannot create a bridge in a namespace: %s' % (exc,)
    finally:
        try:
            _ip('netns', 'del', probe)
        except NetnsError:
            pass
    return None


def _pid_alive(pid):
    try:
        os.kill(pid, 0)
    except OSError as exc:
        return exc.errno == errno.EPERM
    return True


def reap_stale():
    """Delete namespaces `ssbe2e-<pid>-...` whose creating process is gone
    (a test run that was killed before its finalizers ran)."""
    reaped = []
    try:
        names = os.listdir(NETNS_DIR)
    except OSError:
        return reaped
    for name in names:
        if not name.startswith(NAME_PREFIX):
            continue
        try:
            pid = int(name[len(NAME_PREFIX):].split('-')[0])
        except ValueError:
            continue
        if not _pid_alive(pid):
            try:
                _ip('netns', 'del', name)
                reaped.append(name)
            except NetnsError:
                pass
    return reaped


class Topology(object):
    """The namespaces, veths and bridge drawn in the module docstring."""

    def __init__(self, hosts=HOSTS, ipv6=True):
        self.prefix = '%s%d-%06x' % (NAME_PREFIX, os.getpid(),
                                     random.getrandbits(24))
        self.hosts = tuple(hosts)
        self.ipv6 = ipv6
        self.bridge_ns = self.prefix + '-br'
        self.created = []
        self.no_ipv6_reason = None if ipv6 else 'IPv6 not asked for'

    def netns(self, host):
        return '%s-%s' % (self.prefix, host)

    def addr(self, host):
        return SUBNET4 % (self.hosts.index(host) + 1)

    def addr6(self, host):
        return SUBNET6 % (self.hosts.index(host) + 1)

    def prefix_argv(self, host):
        """Prepend to an argv to run it on `host` (`ip netns exec` execs
        the command: the pid stays that of the command)."""
        return ['ip', 'netns', 'exec', self.netns(host)]

    def _add_ns(self, name):
        _ip('netns', 'add', name)
        self.created.append(name)
        _ip('-n', name, 'link', 'set', 'lo', 'up')

    def up(self):
        """Build everything; on failure, remove what was built and raise."""
        try:
            self._add_ns(self.bridge_ns)
            br = self.bridge_ns
            _ip('-n', br, 'link', 'add', 'br0', 'type', 'bridge')
            _ip('-n', br, 'link', 'set', 'br0', 'up')
            for index, host in enumerate(self.hosts):
                name = self.netns(host)
                self._add_ns(name)
                port = 'p%d' % index
                _ip('-n', br, 'link', 'add', port, 'type', 'veth', 'peer',
                    'name', 'eth0', 'netns', name)
                _ip('-n', br, 'link', 'set', port, 'master', 'br0')
                _ip('-n', br, 'link', 'set', port, 'up')
                _ip('-n', name, 'addr', 'add', self.addr(host) + '/24',
                    'dev', 'eth0')
                if self.ipv6:
                    try:
                        _ip('-n', name, 'addr', 'add',
                            self.addr6(host) + '/64', 'dev', 'eth0', 'nodad')
                    except NetnsError as exc:
                        self.ipv6 = False
                        self.no_ipv6_reason = str(exc)
                _ip('-n', name, 'link', 'set', 'eth0', 'up')
        except Exception:
            self.down()
            raise
        return self

    def down(self):
        """Delete every namespace made (their veths go with them); never
        raises.  Returns the errors met, as text."""
        errors = []
        while self.created:
            name = self.created.pop()
            try:
                _ip('netns', 'del', name)
            except (NetnsError, OSError) as exc:
                errors.append(str(exc))
        return errors


# --- the relay -------------------------------------------------------------

def _setns(fd):
    libc = ctypes.CDLL(ctypes.util.find_library('c') or None,
                       use_errno=True)
    if libc.setns(fd, CLONE_NEWNET) != 0:
        err = ctypes.get_errno()
        raise OSError(err, 'setns: %s' % os.strerror(err))


def _split_hostport(text):
    host, _, port = text.rpartition(':')
    return host.strip('[]'), int(port)


def _listeners(netns, addresses):
    """Listening sockets for `addresses`, created inside `netns` (a name
    under /var/run/netns) when given; this thread returns to its own
    namespace afterwards."""
    home = os.open('/proc/self/ns/net', os.O_RDONLY)
    target = os.open(os.path.join(NETNS_DIR, netns), os.O_RDONLY) \
        if netns else None
    try:
        if target is not None:
            _setns(target)
        socks = []
        try:
            for text in addresses:
                host, port = _split_hostport(text)
                family = socket.AF_INET6 if ':' in host else socket.AF_INET
                sock = socket.socket(family, socket.SOCK_STREAM)
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                if family == socket.AF_INET6:
                    sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY,
                                    1)
                sock.bind((host, port))
                sock.listen(128)
                socks.append(sock)
        finally:
            if target is not None:
                _setns(home)
    finally:
        os.close(home)
        if target is not None:
            os.close(target)
    return socks


def _pump(src, dst):
    try:
        while True:
            data = src.recv(65536)
            if not data:
                break
            dst.sendall(data)
    except socket.error:
        pass
    finally:
        try:
            dst.shutdown(socket.SHUT_WR)
        except socket.error:
            pass


def _serve_client(client, target):
    try:
        upstream = socket.create_connection(target, 10)
        upstream.settimeout(None)
    except socket.error:
        client.close()
        return
    back = threading.Thread(target=_pump, args=(upstream, client))
    back.daemon = True
    back.start()
    _pump(client, upstream)
    back.join()
    client.close()
    upstream.close()


def relay(netns, addresses, target, log_path):
    """Serve forever: accept on `addresses` (inside `netns`), forward each
    connection to `target` (host, port) from this process's namespace."""
    socks = _listeners(netns, addresses)
    lock = threading.Lock()
    logfile = open(log_path, 'a')

    def note(line):
        with lock:
            logfile.write(line + '\n')
            logfile.flush()
    note('listening')
    parent = os.getppid()
    while os.getppid() == parent:   # exit when orphaned
        readable = select.select(socks, [], [], 1.0)[0]
        for sock in readable:
            try:
                client, peer = sock.accept()
            except socket.error:
                continue
            note('accepted %s' % (peer[0],))
            thread = threading.Thread(target=_serve_client,
                                      args=(client, target))
            thread.daemon = True
            thread.start()


class Relay(object):
    """The relay as a child process of the caller (root namespace)."""

    def __init__(self, netns, addresses, target, log_path):
        self.log_path = log_path
        self.argv = [sys.executable, '-m', 'tests.e2e.netns', 'relay',
                     '--netns', netns, '--target', '%s:%d' % target,
                     '--log', log_path]
        for address in addresses:
            self.argv += ['--listen', address]
        self.proc = None

    def lines(self):
        try:
            with open(self.log_path) as fp:
                return fp.read().splitlines()
        except (IOError, OSError):
            return []

    def start(self, cwd, timeout=20):
        open(self.log_path, 'w').close()
        self.proc = subprocess.Popen(self.argv, cwd=cwd,
                                     stderr=subprocess.PIPE)
        deadline = time.time() + timeout
        while 'listening' not in self.lines():
            if self.proc.poll() is not None or time.time() > deadline:
                self.stop()
                err = self.proc.stderr.read().decode('utf-8', 'replace')
                raise NetnsError('relay did not start: %s' % err.strip())
            time.sleep(0.05)
        return self

    def stop(self):
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def peers(self):
        return [line.split(' ', 1)[1] for line in self.lines()
                if line.startswith('accepted ')]


def main(argv=None):
    parser = argparse.ArgumentParser(prog='python -m tests.e2e.netns')
    sub = parser.add_subparsers(dest='command')
    sub.required = True
    rel = sub.add_parser('relay', help='TCP relay out of a namespace')
    rel.add_argument('--netns', default=None)
    rel.add_argument('--listen', action='append', required=True,
                     help='HOST:PORT ([V6]:PORT) to accept on')
    rel.add_argument('--target', required=True, help='HOST:PORT to reach')
    rel.add_argument('--log', required=True)
    sub.add_parser('reap', help='delete namespaces of dead test runs')
    args = parser.parse_args(argv)
    if args.command == 'relay':
        relay(args.netns, args.listen, _split_hostport(args.target),
              args.log)
        return 0
    for name in reap_stale():
        print('deleted', name)
    return 0


if __name__ == '__main__':
    sys.exit(main())
