"""cleanup-containers: what it deletes, and how it reports failures."""
from __future__ import absolute_import, division, print_function

import logging

import pytest

from ssbench.swift import cleanup
from ssbench.errors import SwiftError


class Timing(object):
    def __init__(self, status):
        self.status = status


class FakeClient(object):
    """Containers of objects; `broken` maps an object or container name to
    the exception its DELETE raises."""

    def __init__(self, containers, broken=None):
        self.containers = dict((name, list(objects))
                               for name, objects in containers.items())
        self.broken = broken or {}

    def list_containers(self, prefix=''):
        return sorted(n for n in self.containers if n.startswith(prefix))

    def list_objects(self, name):
        if name in self.broken and self.broken[name] == 'listing':
            raise RuntimeError('listing exploded')
        return list(self.containers[name])

    def request(self, method, container, obj=None, read=None,
                missing_ok=False):
        assert method == 'DELETE'
        key = obj if obj is not None else container
        if key in self.broken:
            raise self.broken[key]
        if obj is None:
            del self.containers[container]
        else:
            self.containers[container].remove(obj)
        return Timing(204)

    def delete_container(self, container, missing_ok=False):
        return self.request('DELETE', container, missing_ok=missing_ok)


def test_matching_containers_only():
    names = ['ssbench_000001_default_policy', 'ssbench_x_default_policy',
             'ssbench_000002_gold', 'other_000001_default_policy',
             'ssbench_000003_default_policy']
    assert cleanup.matching_containers(names, 'ssbench', 'default_policy') \
        == ['ssbench_000001_default_policy', 'ssbench_000003_default_policy']


def test_everything_is_deleted_and_counted():
    client = FakeClient({'ssbench_000001_default_policy': ['a', 'b'],
                         'ssbench_000002_default_policy': ['c'],
                         'keep_000001_default_policy': ['d']})
    stats = cleanup.cleanup_containers(client, concurrency=2)
    assert (stats.containers, stats.objects) == (2, 3)
    assert (stats.failures, stats.object_failures) == (0, 0)
    assert list(client.containers) == ['keep_000001_default_policy']


def test_failed_object_deletes_are_counted_not_deleted(caplog):
    error = SwiftError('DELETE /c/b: 503 Service Unavailable')
    name = 'ssbench_000001_default_policy'
    client = FakeClient({name: ['a', 'b', 'c']},
                        broken={'b': error, name: SwiftError('409')})
    with pytest.raises(SwiftError) as info:
        cleanup.cleanup_containers(client, concurrency=3)
    # The container stays (it still holds b): both failures are counted.
    assert str(info.value) == ('1 container(s) and 1 object(s) could not '
                               'be deleted')
    errors = [r.getMessage() for r in caplog.records
              if r.levelno == logging.ERROR]
    assert 'could not delete 1 of 3 objects in %s' % name in errors[0]
    assert '503 Service Unavailable' in errors[0]


def test_a_broken_container_is_one_line_without_a_traceback(caplog,
                                                            capsys):
    good = 'ssbench_000001_default_policy'
    bad = 'ssbench_000002_default_policy'
    client = FakeClient({good: ['a'], bad: ['b']}, broken={bad: 'listing'})
    with pytest.raises(SwiftError) as info:
        cleanup.cleanup_containers(client, concurrency=2)
    assert str(info.value) == ('1 container(s) and 0 object(s) could not '
                               'be deleted')
    errors = [r.getMessage() for r in caplog.records
              if r.levelno == logging.ERROR]
    assert errors == ['could not delete container %s: RuntimeError: '
                      'listing exploded' % bad]
    assert 'Traceback' not in capsys.readouterr().err
    assert list(client.containers) == [bad]
