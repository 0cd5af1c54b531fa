"""ssbench.report.compute.popularity: the hottest objects' share of the
reads."""
from __future__ import absolute_import, division, print_function

import json

from ssbench.report.compute import popularity as popularity_module
from ssbench.report.compute.analyze import analyze
from ssbench.report.compute.popularity import (initial_objects, section,
                                               skewed)
from tests import paths


def test_shares_count_unread_objects_of_the_population():
    # 200 objects could be read; 5 were: the hottest 1% is 2 objects.
    reads = {'a': 50, 'b': 30, 'c': 10, 'd': 5, 'e': 5}
    doc = section({'initial_files': {'x': 150, 'y': 0}}, reads, 50)
    assert doc == {'reads': 100, 'objects_read': 5, 'objects': 200,
                   'hottest': [
                       {'fraction': 0.01, 'objects': 2, 'share': 0.8},
                       {'fraction': 0.1, 'objects': 20, 'share': 1.0}]}


def test_rounding_up_and_at_least_one_object():
    doc = section({'initial_files': {'x': 30}}, {'a': 3, 'b': 1}, 0)
    # 10% of 30 is 3 objects, not 4 (0.1 * 30 > 3 in floats); 1% is 1.
    assert [h['objects'] for h in doc['hottest']] == [1, 3]
    assert doc['hottest'][0]['share'] == 0.75


def test_without_reads_or_population():
    doc = section({}, {}, 0)
    assert doc['objects'] == 0 and doc['reads'] == 0
    assert [h['share'] for h in doc['hottest']] == [None, None]
    # Objects read count even when the header names no population.
    assert section({'initial_files': 'x'}, {'a': 1}, 0)['objects'] == 1


def test_initial_objects_ignores_what_is_no_count():
    assert initial_objects({'initial_files': {
        'a': 3, 'b': True, 'c': 'x', 'd': -1, 'e': 2.0}}) == 5
    assert initial_objects({}) == 0


def test_only_a_skewed_scenario_has_its_reads_counted():
    assert not skewed({})
    assert not skewed({'popularity': {'kind': 'uniform'}})
    assert not skewed({'sizes': [{'name': 'a'}, 'junk'], 'popularity': 3})
    assert skewed({'popularity': {'kind': 'zipf', 'exponent': 1.2}})
    assert skewed({'sizes': [{'name': 'a', 'popularity': {
        'kind': 'hotspot', 'objects': 0.1, 'share': 0.9}}]})
    assert section({}, None, 5) is None
    # A 0.3.9 run is uniform: no count, no section.
    doc = analyze(paths.GOLDEN + '/swift_u8_o2000_c10.stat.gz')
    assert doc['popularity'] is None


def test_golden_run_reads(monkeypatch):
    # The 0.3.9 run, as if skewed: its 410 initial objects and those it
    # created.
    monkeypatch.setattr(popularity_module, 'skewed', lambda scenario: True)
    doc = analyze(paths.GOLDEN + '/swift_u8_o2000_c10.stat.gz')
    popularity = doc['popularity']
    counts = dict((op['operation'], op['count'])
                  for op in doc['operations'])
    assert popularity['reads'] == counts['read'] == 627
    assert popularity['objects'] == 410 + counts['create']
    assert 0 < popularity['objects_read'] <= 627
    assert json.loads(json.dumps(popularity)) == popularity
