"""run-scenario --s3: what S3 cannot run is refused in one line, the
containers become buckets, and the master's keys follow the date."""
from __future__ import absolute_import, division, print_function

import calendar

import pytest

from ssbench.cli import s3run
from ssbench.errors import ScenarioError, UsageError
from ssbench.load.scenario import Scenario
from ssbench.s3.keyring import KeyMaker
from tests.clocks import FakeClock


def scenario(**changes):
    data = {'name': 's', 'sizes': [{'name': 'tiny', 'size_min': 1,
                                    'size_max': 10}],
            'initial_files': {'tiny': 1}, 'operation_count': 1,
            'crud_profile': [1, 1, 1, 1], 'user_count': 1,
            'container_count': 12}
    data.update(changes)
    return Scenario(data)


def test_containers_become_buckets():
    run = scenario(container_base='My_Bench')
    assert s3run.name_buckets(run) == ['my-bench-000000-default-policy',
                                       'my-bench-000011-default-policy']
    assert run.containers[3] == 'my-bench-000003-default-policy'
    with pytest.raises(ScenarioError):
        s3run.name_buckets(scenario(container_base='__'))


@pytest.mark.parametrize('base', ['my-bench', 'e2e1', 'a', 'x' * 41])
def test_a_container_base_given_is_the_buckets_prefix(base):
    assert s3run.name_buckets(scenario(container_base=base), exact=True) \
        == [base + '-000000-default-policy', base + '-000011-default-policy']


@pytest.mark.parametrize('base', [
    'My_Bench', 'my_bench', 'a.b', '-ab', 'ab-', 'a--b', 'x' * 42])
def test_a_container_base_s3_would_change_is_refused(base):
    with pytest.raises(UsageError) as caught:
        s3run.name_buckets(scenario(container_base=base), exact=True)
    assert '--container-base %r over S3' % base in str(caught.value)
    # From a scenario file, as before, S3's rules make it a bucket name.
    s3run.name_buckets(scenario(container_base=base))


@pytest.mark.parametrize('changes,named', [
    ({'policy': 'gold'}, 'storage policy'),
    ({'delete_after': 60}, 'delete_after'),
])
def test_what_s3_cannot_run_is_refused(changes, named):
    with pytest.raises(UsageError) as caught:
        s3run.check_scenario(scenario(**changes))
    assert named in str(caught.value)
    s3run.check_scenario(scenario())


MiB = 1024 * 1024


def large(size_max, segment_size):
    return scenario(sizes=[{'name': 'big', 'size_min': 1,
                            'size_max': size_max,
                            'segment_size': segment_size}],
                    initial_files={'big': 1})


def test_large_objects_run_as_multipart_uploads():
    s3run.check_scenario(large(11 * MiB, 5 * MiB))


SAIO_INFO = {'s3api': {'min_segment_size': 5 * MiB,
                       'max_upload_part_num': 1000,
                       'allow_multipart_uploads': True},
             'swift': {'max_file_size': 5 * 1024 * MiB}}


@pytest.mark.parametrize('run,info,named', [
    # S3's own limits without an /info: 5 MiB parts at least.
    (large(11 * MiB, 4 * MiB), None, 'smallest part, 5242880'),
    # The s3api's: 1000 parts at most, not S3's 10,000.
    (large(1001 * 5 * MiB, 5 * MiB), SAIO_INFO, 'above the store\'s 1000'),
    # Swift's max_file_size bounds a part.
    (large(1024 * MiB, 200 * MiB), {'swift': {'max_file_size': 100 * MiB}},
     'largest part'),
    (large(11 * MiB, 5 * MiB),
     {'s3api': {'allow_multipart_uploads': False}}, 'no multipart upload'),
])
def test_part_limits_are_checked_before_the_run(run, info, named):
    with pytest.raises(UsageError) as caught:
        s3run.check_parts(run, info)
    assert named in str(caught.value)
    assert str(caught.value).startswith('--s3: ')


def test_a_store_that_lowers_its_smallest_part_is_followed():
    lowered = {'s3api': {'min_segment_size': MiB}}
    s3run.check_parts(large(11 * MiB, MiB), lowered)
    s3run.check_parts(large(1000 * 5 * MiB, 5 * MiB), SAIO_INFO)
    s3run.check_parts(large(50000 * MiB, 5 * MiB), None)


class InfoClient(object):
    def __init__(self, answer):
        self.answer = answer

    def cluster_info(self):
        if isinstance(self.answer, Exception):
            raise self.answer
        return self.answer


def test_an_unreadable_info_assumes_s3s_limits(caplog):
    from ssbench.s3.client import S3RequestError
    assert s3run.store_info(InfoClient(SAIO_INFO)) == SAIO_INFO
    assert s3run.store_info(InfoClient(None)) is None
    assert s3run.store_info(InfoClient(S3RequestError(
        'GET', '/info', None, 'refused'))) is None
    assert "S3's own part limits are assumed" in caplog.text


def test_the_masters_keys_follow_the_date():
    clock = FakeClock(calendar.timegm((2024, 2, 29, 12, 0, 0, 0, 0, 0)))
    keys = s3run.MasterKeys(KeyMaker('AKID', 'secret', 'us-east-1',
                                     clock=clock))
    first = keys()
    assert keys() is first and first.dates == ['20240229']
    clock.advance(12 * 3600)
    assert keys().dates == ['20240229', '20240301']
