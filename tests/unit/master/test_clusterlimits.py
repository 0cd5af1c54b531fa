"""The scenario's objects against the cluster's /info, before a run."""
from __future__ import absolute_import, division, print_function

import logging

import pytest

from ssbench.errors import SsbenchError
from ssbench.swift.client import SwiftRequestError
from ssbench.load.scenario import Scenario
from ssbench.master.clusterlimits import check_cluster, problems

MiB = 1024 * 1024
INFO = {'swift': {'max_file_size': 8 * MiB},
        'slo': {'max_manifest_segments': 1000}}


def scenario(*sizes):
    return Scenario({'name': 'x', 'sizes': list(sizes),
                     'initial_files': dict((s['name'], 1) for s in sizes),
                     'crud_profile': [1, 0, 0, 0], 'operation_count': 1,
                     'user_count': 1})


def size(name, high, **extra):
    entry = {'name': name, 'size_min': 1, 'size_max': high}
    entry.update(extra)
    return entry


def test_a_class_within_the_limit_or_segmented_is_fine():
    assert problems(scenario(size('a', 8 * MiB),
                             size('b', 40 * MiB, segment_size=4 * MiB),
                             size('c', 40 * MiB, segment_size=4 * MiB,
                                  large_object='dlo')), INFO) == []


@pytest.mark.parametrize('entry, info, words', [
    (size('huge', 9 * MiB), INFO,
     "size class huge: size_max 9437184 is above the cluster's "
     "max_file_size 8388608; give it a \"segment_size\""),
    (size('seg', 40 * MiB, segment_size=9 * MiB), INFO,
     "size class seg: segment_size 9437184 is above the cluster's "
     "max_file_size 8388608"),
    (size('many', 4000, segment_size=2), INFO,
     "size class many: 2000 segments of 2 bytes, above the cluster's "
     "max_manifest_segments 1000"),
    (size('slo', 40, segment_size=2), {'swift': {}},
     'size class slo: the cluster has no SLO middleware'),
])
def test_what_the_cluster_would_refuse_is_named(entry, info, words):
    found = problems(scenario(entry), info)
    assert len(found) == 1 and words in found[0]


class Cluster(object):
    def __init__(self, info=None, error=None):
        self.info, self.error = info, error

    def cluster_info(self):
        if self.error is not None:
            raise self.error
        return self.info


def test_check_raises_the_first_problem_in_one_line():
    with pytest.raises(SsbenchError) as info:
        check_cluster(Cluster(INFO), scenario(size('huge', 9 * MiB)))
    assert 'max_file_size 8388608' in str(info.value)


@pytest.mark.parametrize('cluster, words', [
    (Cluster(None), 'does not answer /info'),
    (Cluster(error=SwiftRequestError('GET', '/info', None, 'refused')),
     "cannot read the cluster's /info"),
])
def test_without_info_the_run_goes_on_with_a_warning(cluster, words, caplog):
    with caplog.at_level(logging.WARNING):
        check_cluster(cluster, scenario(size('big', 9 * MiB,
                                             segment_size=MiB)))
    assert words in caplog.text
    caplog.clear()
    # A scenario without large objects: no new line, as before.
    with caplog.at_level(logging.INFO):
        check_cluster(cluster, scenario(size('huge', 9 * MiB)))
    assert caplog.text == ''


def test_an_info_that_times_out_ends_the_run_in_one_line():
    slow = SwiftRequestError('GET', 'http://h/v1/a /info', None,
                             'timeout: response head not complete within '
                             '3 s of its first bytes', error_class='timeout')
    with pytest.raises(SsbenchError) as info:
        check_cluster(Cluster(error=slow), scenario(size('s', MiB)))
    assert str(info.value) == (
        "the cluster's /info gave no complete answer within the network "
        'timeout (GET http://h/v1/a /info failed: timeout: response head '
        "not complete within 3 s of its first bytes); is the storage URL "
        "Swift's, or give a longer --network-timeout")
