"""deploy/grafana/ssbench.json's structure: every panel reads the
datasource variable and has queries, a row repeats per operation with
the figures an operator looks for, the run's events are an annotation.
(tests/e2e/test_grafana_dashboard.py runs every query on a real
Prometheus.)"""
from __future__ import absolute_import

import io
import json
import os

import pytest

from tests import paths

DASHBOARD = os.path.join(paths.ROOT, 'deploy', 'grafana', 'ssbench.json')
DATASOURCE = {'type': 'prometheus', 'uid': '${datasource}'}


@pytest.fixture(scope='module')
def dashboard():
    with io.open(DASHBOARD, encoding='utf-8') as fp:
        return json.load(fp)


def _variables(dashboard):
    return dict((variable['name'], variable)
                for variable in dashboard['templating']['list'])


def test_a_current_schema_and_the_variables(dashboard):
    assert dashboard['schemaVersion'] >= 39
    assert dashboard['uid'] == 'ssbench'
    variables = _variables(dashboard)
    assert variables['datasource']['type'] == 'datasource'
    assert variables['datasource']['query'] == 'prometheus'
    for name, label in (('job', 'job'), ('phase', 'phase'),
                        ('op', 'operation')):
        assert variables[name]['type'] == 'query'
        assert variables[name]['datasource'] == DATASOURCE
        assert variables[name]['definition'].endswith(', %s)' % label)
    assert variables['op']['multi'] and variables['op']['includeAll']


def test_every_panel_reads_the_datasource_variable(dashboard):
    panels = [panel for panel in dashboard['panels']
              if panel['type'] != 'row']
    assert len(panels) >= 10
    for panel in panels:
        assert panel['datasource'] == DATASOURCE, panel['title']
        assert panel['targets'], panel['title']
        for target in panel['targets']:
            assert target['datasource'] == DATASOURCE, panel['title']
            assert 'job=~"$job"' in target['expr'], panel['title']
    ids = [panel['id'] for panel in dashboard['panels']]
    assert len(set(ids)) == len(ids)


def test_a_row_per_operation_with_its_figures(dashboard):
    panels = dashboard['panels']
    rows = [i for i, panel in enumerate(panels) if panel['type'] == 'row']
    repeated = [i for i in rows if panels[i].get('repeat') == 'op']
    assert len(repeated) == 1
    start = repeated[0]
    end = min([i for i in rows if i > start] + [len(panels)])
    exprs = ' '.join(target['expr'] for panel in panels[start + 1:end]
                     for target in panel['targets'])
    # Every query of the row is the row's operation's.
    for panel in panels[start + 1:end]:
        for target in panel['targets']:
            assert 'operation=~"$op"' in target['expr'], panel['title']
    for quantile in ('0.5', '0.99', '0.999'):
        assert 'histogram_quantile(%s, ' % quantile in exprs
    for figure in ('result="error"', 'sum by (outcome)',
                   'ssbench_object_bytes_total',
                   'ssbench_last_byte_latency_seconds_sum',
                   'ssbench_retries_total', 'ssbench_reconnects_total'):
        assert figure in exprs


def test_the_run_s_events_and_phases_are_annotations(dashboard):
    notes = dict((note['name'], note)
                 for note in dashboard['annotations']['list'])
    events = notes['Run events']
    assert events['datasource'] == DATASOURCE and events['enable']
    assert 'ssbench_run_events_total' in events['expr']
    assert events['titleFormat'] == '{{event}}'
    assert 'ssbench_phase{' in notes['Phases']['expr']
