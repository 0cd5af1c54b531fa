"""cleanup-containers: what it deletes, and how it reports failures."""
from __future__ import absolute_import, division, print_function

import logging

import pytest

from ssbench.swift import cleanup
from ssbench.errors import StoreError, SwiftError


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
        self.retry_timeouts = None

    def list_containers(self, prefix='', retry_timeouts=True, deadline=None):
        self.retry_timeouts = retry_timeouts
        return sorted(n for n in self.containers if n.startswith(prefix))

    def list_objects(self, name, deadline=None):
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
    # A server too slow for the first listing ends it at once.
    assert client.retry_timeouts is False


def test_failed_object_deletes_are_counted_not_deleted(caplog):
    error = SwiftError('DELETE /c/b: 503 Service Unavailable')
    name = 'ssbench_000001_default_policy'
    client = FakeClient({name: ['a', 'b', 'c']},
                        broken={'b': error, name: SwiftError('409')})
    with pytest.raises(StoreError) as info:
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
    with pytest.raises(StoreError) as info:
        cleanup.cleanup_containers(client, concurrency=2)
    assert str(info.value) == ('1 container(s) and 0 object(s) could not '
                               'be deleted')
    errors = [r.getMessage() for r in caplog.records
              if r.levelno == logging.ERROR]
    assert errors == ['could not delete container %s: RuntimeError: '
                      'listing exploded' % bad]
    assert 'Traceback' not in capsys.readouterr().err
    assert list(client.containers) == [bad]


class NotSwift(FakeClient):
    """A server at the storage URL that is not Swift: its listings are
    `answer` (an exception raised, or a value returned)."""

    def __init__(self, answer, containers=None):
        FakeClient.__init__(self, containers or {})
        self.answer = answer

    def _answer(self):
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


NOT_LISTINGS = [
    UnicodeDecodeError('utf-8', b'\xff', 0, 1, 'invalid start byte'),
    ValueError('Expecting value: line 1 column 1 (char 0)'),
    TypeError('string indices must be integers'),
    AttributeError("'int' object has no attribute 'get'"),
    [5, None], [['nested']]]


@pytest.mark.parametrize('answer', NOT_LISTINGS)
def test_a_container_listing_that_is_not_swift_is_named(answer):
    client = NotSwift(answer)
    client.list_containers = lambda prefix, retry_timeouts: \
        client._answer()
    with pytest.raises(StoreError) as info:
        cleanup.cleanup_containers(client)
    assert str(info.value) == (
        'cannot list containers: the answer is not a Swift listing (UTF-8 '
        'JSON, a list of names); check the storage URL (-S, or the one the '
        'auth server returns)')


@pytest.mark.parametrize('answer', NOT_LISTINGS[:2])
def test_an_object_listing_that_is_not_swift_is_named(answer, caplog):
    name = 'ssbench_000001_default_policy'
    client = NotSwift(answer, {name: ['a']})
    client.list_objects = lambda container: client._answer()
    with pytest.raises(StoreError):
        cleanup.cleanup_containers(client)
    errors = [r.getMessage() for r in caplog.records
              if r.levelno == logging.ERROR]
    assert errors == ['could not delete container %s: cannot list the '
                      'objects of %s: the answer is not a Swift listing '
                      '(UTF-8 JSON, a list of names); check the storage URL '
                      '(-S, or the one the auth server returns)'
                      % (name, name)]


def test_segments_containers_go_too():
    names = ['ssbench_000001_default_policy',
             'ssbench_000001_default_policy_segments',
             'ssbench_000001_default_policy_segments_x',
             'ssbench_000002_gold_segments']
    assert cleanup.matching_containers(names, 'ssbench', 'default_policy') \
        == ['ssbench_000001_default_policy',
            'ssbench_000001_default_policy_segments']
