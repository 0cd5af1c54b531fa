"""Large objects (SLO, DLO) against the local Swift, through a proxy of its
own whose swift.conf sets max_file_size to 8 MiB.

The shared proxies keep Swift's 5 GiB limit: other tests upload objects
of many MiB, and every server reads swift.conf only when it starts.  A
second proxy (one worker, its own swift_dir in a temporary directory with
the saio's rings and a copy of its swift.conf plus the limit) talks to
the same account, container and object servers, so what the run leaves
behind is checked through the usual proxy with python-swiftclient.  Swift
reads its constraints from /etc/swift/swift.conf whatever swift_dir says:
the proxy runs in a mount namespace of its own where that file is the
copy (unshare, as root).
"""
from __future__ import absolute_import, division, print_function

import io
import json
import os
import re
import signal
import subprocess
import time

import pytest

from tests.e2e import support

SAIO_DIR = os.environ.get('SAIO_DIR', '/var/tmp/ssbench-saio')
MiB = 1024 * 1024
LIMIT = 8 * MiB

pytestmark = [pytest.mark.e2e, pytest.mark.timeout(600)]


def _get(url, timeout=2):
    try:
        from urllib.request import urlopen
    except ImportError:   # Python 2
        from urllib2 import urlopen
    return urlopen(url, timeout=timeout).read()


@pytest.fixture(scope='module')
def small_proxy(tmp_path_factory):
    """The auth URL of a proxy with max_file_size = 8 MiB."""
    support.require_swift()
    etc = str(tmp_path_factory.mktemp('smallproxy'))
    saio_etc = os.path.join(SAIO_DIR, 'etc')
    for name in os.listdir(saio_etc):
        if name.endswith('.ring.gz'):
            os.symlink(os.path.join(saio_etc, name), os.path.join(etc, name))
    with open(os.path.join(saio_etc, 'swift.conf')) as handle:
        conf = handle.read()
    assert '[swift-constraints]' in conf
    with open(os.path.join(etc, 'swift.conf'), 'w') as handle:
        handle.write(conf.replace('[swift-constraints]',
                                  '[swift-constraints]\nmax_file_size = %d'
                                  % LIMIT))
    port = support.free_port()
    with open(os.path.join(saio_etc, 'proxy-8080.conf')) as handle:
        proxy = handle.read()
    proxy = re.sub(r'(?m)^swift_dir = .*$', 'swift_dir = ' + etc, proxy)
    proxy = re.sub(r'(?m)^bind_port = .*$', 'bind_port = %d' % port, proxy)
    proxy = re.sub(r'(?m)^workers = .*$', 'workers = 1', proxy)
    proxy = re.sub(r'(?m)^(saio_log_file|access_log_file) = .*$',
                   lambda m: '%s = %s' % (m.group(1),
                                          os.path.join(etc, m.group(1))),
                   proxy)
    conf_path = os.path.join(etc, 'proxy.conf')
    with open(conf_path, 'w') as handle:
        handle.write(proxy)
    env = dict(os.environ, PYTHONPATH=os.path.join(SAIO_DIR, 'lib'))
    with open(os.path.join(etc, 'proxy.out'), 'wb') as out:
        proc = subprocess.Popen(
            ['unshare', '--mount', '--propagation', 'private', 'sh', '-c',
             'mount --bind "$1" /etc/swift/swift.conf && exec "$2" "$3"',
             'sh', os.path.join(etc, 'swift.conf'),
             os.path.join(SAIO_DIR, 'venv', 'bin', 'swift-proxy-server'),
             conf_path], stdout=out, stderr=subprocess.STDOUT, env=env,
            preexec_fn=os.setsid)
    try:
        deadline = time.time() + 60
        info = None
        while info is None:
            assert proc.poll() is None, support.read_text(
                os.path.join(etc, 'proxy.out'))
            assert time.time() < deadline, 'the small proxy did not start'
            try:
                info = json.loads(_get('http://127.0.0.1:%d/info' % port)
                                  .decode('utf-8'))
            except Exception:
                time.sleep(0.2)
        assert info['swift']['max_file_size'] == LIMIT
        yield 'http://127.0.0.1:%d/auth/v1.0' % port
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            support.wait_exit(proc, 20)
        finally:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()


def _scenario(directory, base, sizes, crud=(30, 30, 20, 20), initial=2,
              operations=12):
    data = {
        'name': 'large objects',
        'sizes': sizes,
        'initial_files': dict((size['name'], initial) for size in sizes),
        'operation_count': operations,
        'crud_profile': list(crud),
        'user_count': 2,
        'container_base': base,
        'container_count': 2,
    }
    path = os.path.join(directory, 'large.scenario')
    with open(path, 'w') as handle:
        json.dump(data, handle)
    return path


def _records(stats_path):
    return support.read_results(stats_path + '.gz')


def _run(auth_url, scenario_path, stats_path, extra=(), timeout=400):
    return support.master(
        'run-scenario', '-f', scenario_path, '-s', stats_path,
        '-A', auth_url, '-U', support.USER, '-K', support.KEY,
        '--workers', '1',
        *(support.zmq_args() + list(extra)), timeout=timeout)


def _left_over(view, base):
    """{container: objects} of the run's containers that hold any."""
    found = {}
    for container in view.containers(base):
        objects = view.objects(container)
        if objects:
            found[container] = objects
    return found


@pytest.mark.parametrize('kind', ['slo', 'dlo'])
def test_segmented_objects_crud_and_nothing_left(small_proxy, tmp_path,
                                                 kind):
    base = support.unique_base()
    view = support.SwiftView()
    sizes = [{'name': 'big', 'size_min': 40 * MiB, 'size_max': 40 * MiB,
              'segment_size': 6 * MiB, 'large_object': kind},
             {'name': 'grow', 'size_min': 9 * MiB, 'size_max': 20 * MiB,
              'large_object': kind}]
    path = _scenario(str(tmp_path), base, sizes, initial=3)
    stats = str(tmp_path / 'run.stats')
    try:
        # Seed 13 draws all four operations, and one DELETE: objects of
        # the initial population are left to check.
        ran = _run(small_proxy, path, stats,
                   ['--segment-size', str(4 * MiB), '--seed', '13'])
        assert ran.status == 0, ran
        records = _records(stats)
        kinds = set(r['type'] for r in records if 'exception' not in r)
        assert kinds == {'upload_object', 'get_object', 'update_object',
                         'delete_object'}, records
        assert not [r for r in records if 'exception' in r], [
            r['exception'] for r in records if 'exception' in r]
        for record in records:
            assert record['large_object'] == kind
            assert record['segment_size'] == (
                6 * MiB if record['size_str'] == 'big' else 4 * MiB)
            if record['type'] in ('upload_object', 'update_object'):
                segments = record['segments']
                count = -(-record['size'] // record['segment_size'])
                assert segments['count'] >= count
                assert 0 < segments['slowest'] <= record['last_byte_latency']
                assert record['first_byte_latency'] <= \
                    record['last_byte_latency']
            if record['type'] == 'get_object':
                # The whole object streamed through its manifest.
                assert record['size'] >= (
                    40 * MiB if record['size_str'] == 'big' else 9 * MiB)
        # The run deleted what it made; what is left of the initial
        # population (DELETEs took some) stays, each object with exactly
        # the segments of its current version (an UPDATE deleted those
        # of the former ones), no segment without its object, until
        # cleanup-containers.
        left = _left_over(view, base)
        manifests = dict((c, o) for c, o in left.items()
                         if not c.endswith('_segments'))
        segments, versions = {}, {}
        for container, names in left.items():
            if container.endswith('_segments'):
                for segment in names:
                    # <object>/<version>/<index>: one version per object.
                    obj, version, _ = segment.split('/')
                    key = (container[:-len('_segments')], obj)
                    versions.setdefault(key, set()).add(version)
                    segments[key] = segments.get(key, 0) + 1
        expected = {}
        for container, names in manifests.items():
            for obj in names:
                size = int(view.head_object(container,
                                            obj)['content-length'])
                per = 6 * MiB if obj.startswith('big') else 4 * MiB
                expected[container, obj] = -(-size // per)
        assert all(len(v) == 1 for v in versions.values()), versions
        assert expected and segments == expected, (left, [
            (r['type'], r['name']) for r in records])
        ran = support.master('cleanup-containers', '-A', small_proxy,
                             '-U', support.USER, '-K', support.KEY,
                             '--container-base', base, timeout=120)
        assert ran.status == 0, ran
        assert view.containers(base) == []
    finally:
        view.delete_everything(base)


def test_class_above_the_limit_is_refused_in_one_line(small_proxy, tmp_path):
    base = support.unique_base()
    view = support.SwiftView()
    path = _scenario(str(tmp_path), base, [
        {'name': 'huge', 'size_min': 9 * MiB, 'size_max': 9 * MiB}])
    stats = str(tmp_path / 'run.stats')
    ran = _run(small_proxy, path, stats, timeout=120)
    assert ran.status != 0, ran
    assert 'Traceback' not in ran.err
    lines = [line for line in ran.err.splitlines()
             if 'max_file_size' in line]
    assert len(lines) == 1, ran
    assert ('size class huge: size_max %d is above the cluster\'s '
            'max_file_size %d' % (9 * MiB, LIMIT)) in lines[0]
    assert not os.path.exists(stats + '.gz')
    assert view.containers(base) == []


def test_bandwidth_is_the_stats_bytes_over_the_run(small_proxy, tmp_path):
    base = support.unique_base()
    view = support.SwiftView()
    path = _scenario(str(tmp_path), base, [
        {'name': 'seg', 'size_min': 9 * MiB, 'size_max': 12 * MiB,
         'segment_size': 4 * MiB},
        {'name': 'small', 'size_min': 1000, 'size_max': 100000}],
        operations=20)
    stats = str(tmp_path / 'run.stats')
    out_json = str(tmp_path / 'run.json')
    try:
        ran = _run(small_proxy, path, stats, ['--json', out_json,
                                              '--bandwidth', '--seed', '3'])
        assert ran.status == 0, ran
        table = ran.out[ran.out.index('\nBandwidth (bytes of the'):]
        assert 'MiB/s' in table
        # report-scenario prints the same table from the stats file.
        again = support.master('report-scenario', '-s', stats + '.gz',
                               '--bandwidth', timeout=120)
        assert again.status == 0, again
        assert again.out.endswith(table)
        with io.open(out_json, encoding='utf-8') as handle:
            doc = json.load(handle)
        records = [r for r in _records(stats) if 'exception' not in r]
        duration = doc['run']['duration']
        assert duration > 0
        bandwidth = doc['bandwidth']
        assert bandwidth['seconds'] == duration
        # The naive recount: every success's size, over the run.
        total = sum(r.get('size') or 0 for r in records)
        assert total > 9 * MiB
        entry = bandwidth['operations']['total']
        assert entry['bytes'] == total
        assert entry['bytes_per_second'] == pytest.approx(total / duration)
        assert entry['MB_per_second'] == pytest.approx(total / duration /
                                                       1e6)
        assert entry['MiB_per_second'] == pytest.approx(total / duration /
                                                        MiB)
        for op, kind in (('create', 'upload_object'),
                         ('read', 'get_object')):
            for size in ('seg', 'small'):
                got = sum(r.get('size') or 0 for r in records
                          if r['type'] == kind and r['size_str'] == size)
                figures = bandwidth['operations'][op]['sizes'].get(size)
                if figures is not None:
                    assert figures['bytes'] == got
                    assert figures['MiB_per_second'] == pytest.approx(
                        got / duration / MiB)
    finally:
        view.delete_everything(base)


def _crowded_run(tmp_path, kind, size_min, size_max, crud, operations):
    """A run of eight users on a segmented class of two objects through
    the usual proxy; its Ran, once every one of its `operations` results
    is known to be a success."""
    support.require_swift()
    base = support.unique_base()
    view = support.SwiftView()
    path = _scenario(str(tmp_path), base, [
        {'name': 'seg', 'size_min': size_min, 'size_max': size_max,
         'segment_size': 8192, 'large_object': kind}],
        crud=crud, initial=2, operations=operations)
    stats = str(tmp_path / 'run.stats')
    try:
        ran = _run(support.AUTH_URL, path, stats, ['-u', '8'])
        assert ran.status == 0, ran
        records = _records(stats)
        assert len(records) == operations
        errors = [(r['type'], r.get('status'), r['exception'])
                  for r in records if 'exception' in r]
        assert errors == []
        return ran
    finally:
        view.delete_everything(base)


@pytest.mark.parametrize('kind', ['slo', 'dlo'])
def test_reads_and_updates_of_one_object_do_not_collide(tmp_path, kind):
    # Two objects and eight users: each object is read and updated by
    # several jobs at once.  An UPDATE deletes the segments of the version
    # it replaced, under a READ still streaming them and under another
    # UPDATE whose manifest is about to name them: errors of the
    # benchmark's making, which the ring's guard on segmented classes
    # prevents.
    _crowded_run(tmp_path, kind, 40000, 60000, (0, 50, 50, 0), 150)


def test_updates_waiting_for_their_objects_are_said(tmp_path):
    # UPDATEs only, two objects, eight users: at most two UPDATEs can be
    # out at once, and the run says why it had fewer requests in flight.
    ran = _crowded_run(tmp_path, 'slo', 20000, 30000, (0, 0, 100, 0), 30)
    assert 'WARNING:Fewer than 8 requests were in flight at times' \
        in ran.err
    assert 'used an object another job was using' not in ran.err
