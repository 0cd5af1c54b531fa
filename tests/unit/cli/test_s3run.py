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


@pytest.mark.parametrize('changes,named', [
    ({'policy': 'gold'}, 'storage policy'),
    ({'delete_after': 60}, 'delete_after'),
    ({'sizes': [{'name': 'big', 'size_min': 10, 'size_max': 100,
                 'segment_size': 10}], 'initial_files': {'big': 1}},
     'large objects'),
])
def test_what_s3_cannot_run_is_refused(changes, named):
    with pytest.raises(UsageError) as caught:
        s3run.check_scenario(scenario(**changes))
    assert named in str(caught.value)
    s3run.check_scenario(scenario())


def test_the_masters_keys_follow_the_date():
    clock = FakeClock(calendar.timegm((2024, 2, 29, 12, 0, 0, 0, 0, 0)))
    keys = s3run.MasterKeys(KeyMaker('AKID', 'secret', 'us-east-1',
                                     clock=clock))
    first = keys()
    assert keys() is first and first.dates == ['20240229']
    clock.advance(12 * 3600)
    assert keys().dates == ['20240229', '20240301']
