"""deploy/grafana/ssbench.json and deploy/prometheus/ssbench-rules.yml on
a real Prometheus (Debian's), with the rules loaded, scraping a real
run-scenario --metrics (local workers, the local Swift behind a relay
that has an outage, an open loop, a mark): every panel's, annotation's
and variable's query and every rule's expression, Grafana's variables
put in, returns data over the run; and every metric and label they name
is one the master served (so that a name it does not serve fails here,
named).  promtool checks the rules file, and runs its unit tests
(tests/data/prometheus/ssbench-rules-test.yml)."""
from __future__ import absolute_import, division, print_function

import io
import json
import math
import os
import re
import threading
import time

import pytest

try:
    from urllib.parse import urlencode
    from urllib.request import urlopen
except ImportError:  # Python 2
    from urllib import urlencode
    from urllib2 import urlopen

from tests.e2e import support
from tests.paths import ROOT

pytestmark = pytest.mark.e2e

DASHBOARD = os.path.join(ROOT, 'deploy', 'grafana', 'ssbench.json')
RULES = os.path.join(ROOT, 'deploy', 'prometheus', 'ssbench-rules.yml')
RULES_TEST = os.path.join(ROOT, 'tests', 'data', 'prometheus',
                          'ssbench-rules-test.yml')
PROMTOOL = os.path.join(os.path.dirname(support.PROMETHEUS), 'promtool')
OPERATIONS = {'upload_object', 'get_object', 'update_object',
              'delete_object'}
# Grafana's variables as this run gives them: Prometheus's job, the
# benchmark phase, at least 4 scrape intervals for $__rate_interval (as
# Grafana computes it for a 1 s scrape interval).
VARIABLES = (('$__rate_interval', '5s'), ('$job', 'ssbench'),
             ('$phase', 'benchmark'))
SCRAPE_LABELS = {'job', 'instance'}     # Prometheus adds them
SELECTOR = re.compile(r'\b(ssbench_[a-z_]+)\s*(?:\{([^}]*)\})?')
MATCHER = re.compile(r'([a-zA-Z_]+)\s*(=~|!~|!=|=)\s*"([^"]*)"')
GROUPING = re.compile(r'\b(?:by|on)\s*\(([^)]*)\)')
SAMPLE = re.compile(r'^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? ')
LABEL = re.compile(r'([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"')
# A comparison with a number: an alert's threshold (dropped to see the
# figures it compares, which a quiet run keeps under it).
THRESHOLD = re.compile(r'\s*(?:==|!=|>=|<=|>|<)\s*[0-9.]+\b')


def _api(port, path, **params):
    answer = json.loads(urlopen('http://127.0.0.1:%d/api/v1/%s?%s' % (
        port, path, urlencode(params)), timeout=30).read().decode('utf-8'))
    assert answer['status'] == 'success', answer
    return answer['data']


def _has_data(result):
    """True when a query_range result has a number (not NaN)."""
    return any(not math.isnan(float(value))
               for series in result for _, value in series['values'])


def _add_served(served, text):
    """Add the samples of a /metrics answer to {sample name: [{label:
    value}]}."""
    for line in text.splitlines():
        match = SAMPLE.match(line)
        if match and not line.startswith('#'):
            labels = dict(LABEL.findall(match.group(2) or ''))
            seen = served.setdefault(match.group(1), [])
            if labels not in seen:
                seen.append(labels)


def _check_names(expr, served):
    """Fails naming the first metric, label or label value of `expr` that
    the master did not serve."""
    names = SELECTOR.findall(expr)
    assert names, 'no ssbench metric in %r' % expr
    labels = set(SCRAPE_LABELS)
    for name, matchers in names:
        assert name in served, '%r names %s, which the master does not ' \
            'serve' % (expr, name)
        known = set(label for sample in served[name] for label in sample)
        labels |= known
        for label, how, value in MATCHER.findall(matchers):
            assert label in known | SCRAPE_LABELS, \
                '%r: the master sets no label %r on %s' % (expr, label, name)
            if how == '=' and label not in SCRAPE_LABELS:
                assert value in set(sample.get(label) for sample in
                                    served[name]), \
                    '%r: %s never has %s="%s"' % (expr, name, label, value)
    for group in GROUPING.findall(expr):
        for label in filter(None, (word.strip() for word in
                                   group.split(','))):
            assert label in labels, '%r groups by %r, which the master ' \
                'does not set' % (expr, label)


def _expected(expr, op, served):
    """Whether the master served a series that every selector of `expr`
    (literal matchers only, and operation=op) matches: then Prometheus
    must have data for it."""
    for name, matchers in SELECTOR.findall(expr):
        wanted = dict((label, value) for label, how, value in
                      MATCHER.findall(matchers) if how == '=' and
                      label not in SCRAPE_LABELS)
        if op is not None and 'operation' in matchers:
            wanted['operation'] = op
        if not any(all(sample.get(k) == v for k, v in wanted.items())
                   for sample in served.get(name, [])):
            return False
    return True


def _dashboard_queries(dashboard):
    """[(where, expr)] of every panel target and annotation query."""
    queries = []
    for panel in dashboard['panels']:
        for target in panel.get('targets', []):
            queries.append(('panel %r %s' % (panel['title'],
                                             target['refId']),
                            target['expr']))
    for note in dashboard['annotations']['list']:
        if 'expr' in note:
            queries.append(('annotation %r' % note['name'], note['expr']))
    return queries


def _grafana(expr, op=None):
    for name, value in VARIABLES:
        expr = expr.replace(name, value)
    return expr if op is None else expr.replace('$op', op)


SERVED = """\
# TYPE ssbench_requests counter
ssbench_requests_total{phase="benchmark",operation="get_object",\
size="tiny",outcome="200",result="ok"} 4
ssbench_workers_connected 2
"""


@pytest.mark.parametrize('expr, fragment', [
    ('ssbench_request_total', 'names ssbench_request_total'),
    ('ssbench_requests_total{op="get_object"}', "no label 'op'"),
    ('ssbench_requests_total{result="failed"}', 'never has result="failed"'),
    ('sum by (worker) (ssbench_workers_connected)', "groups by 'worker'"),
])
def test_the_name_check_refuses_what_the_master_does_not_serve(
        expr, fragment):
    served = {}
    _add_served(served, SERVED)
    _check_names('sum by (operation, job) (rate(ssbench_requests_total{'
                 'job=~"x", result="ok"}[5s])) / ssbench_workers_connected',
                 served)
    with pytest.raises(AssertionError) as caught:
        _check_names(expr, served)
    assert fragment in str(caught.value)


@pytest.mark.parametrize('command', [
    ['check', 'rules', RULES],
    # Each alert fires on the series meant to fire it, after its `for`.
    ['test', 'rules', RULES_TEST],
])
def test_promtool_passes_the_rules(command):
    if not os.path.exists(PROMTOOL):
        if os.environ.get('SSBENCH_REQUIRE_PROMETHEUS') == '1':
            pytest.fail('Debian\'s prometheus package is not installed')
        pytest.skip('Debian\'s prometheus package is not installed')
    ran = support.run([PROMTOOL] + command, 60)
    assert ran.status == 0, ran
    assert 'SUCCESS' in ran.out + ran.err, ran


def test_every_query_of_the_dashboard_and_the_rules_has_data(
        tmpdir, stalling_relay):
    relay = stalling_relay
    support.require_swift()
    with io.open(DASHBOARD, encoding='utf-8') as fp:
        dashboard = json.load(fp)
    account = support.SwiftView().url.split('/v1/')[1]
    path, data = support.write_scenario(
        tmpdir, user_count=8, container_count=2, initial_files={'tiny': 20},
        sizes=[{'name': 'tiny', 'size_min': 100, 'size_max': 2000}],
        crud_profile=[25, 25, 25, 25])
    marks = os.path.join(str(tmpdir), 'marks')
    with support.prometheus(tmpdir, rule_files=[RULES]) as (port, target):
        ran = []
        began = time.time()
        runner = threading.Thread(target=lambda: ran.append(support.master(
            'run-scenario', '-f', path, '-s', os.path.join(
                str(tmpdir), 'run.stat'), '-r', '15', '--workers', '2',
            '--rate', '40', '-R', '--progress', 'none',
            '--metrics', '127.0.0.1:%d' % target, '--mark-file', marks,
            '-S', 'http://127.0.0.1:%d/v1/%s' % (relay.port, account),
            *(support.zmq_args() + support.auth_args()), timeout=240)))
        runner.start()
        try:
            # Prometheus sees the benchmark; then a mark, and an outage
            # that makes every operation fail for a while.
            support.wait_for(lambda: not runner.is_alive() or _api(
                port, 'query', query='ssbench_phase{phase="benchmark"}')[
                    'result'], 120, 'the benchmark on Prometheus',
                interval=0.2)
            assert runner.is_alive(), ran
            with open(marks, 'a') as fp:
                fp.write('pulled a disk\n')
            support.outage(relay)
            # What the master serves, in all the phases it goes through.
            served = {}
            while runner.is_alive():
                try:
                    _add_served(served, urlopen(
                        'http://127.0.0.1:%d/metrics' % target,
                        timeout=5).read().decode('utf-8'))
                except Exception:
                    pass          # the run ended meanwhile
                time.sleep(0.5)
        finally:
            runner.join(240)
            support.delete_expired(data['container_base'] + '_')
        assert ran and ran[0].status == 0, ran
        assert served, 'never scraped the master'
        span = dict(start='%.3f' % began, end='%.3f' % (time.time() + 1),
                    step='1')

        def series(expr, op=None):
            return _api(port, 'query_range', query=_grafana(expr, op),
                        **span)['result']

        # The variables: each the values of a label the master sets.
        for variable in dashboard['templating']['list'][1:]:
            match = re.match(r'label_values\((.*), (\w+)\)$',
                             variable['definition'])
            _check_names(match.group(1), served)
            values = _api(port, 'label/%s/values' % match.group(2),
                          **{'match[]': _grafana(match.group(1)),
                             'start': span['start'], 'end': span['end']})
            assert values, variable['name']
            if variable['name'] == 'op':
                assert set(values) == OPERATIONS
        missing = []
        for where, expr in _dashboard_queries(dashboard):
            _check_names(expr, served)
            ops = sorted(OPERATIONS) if '$op' in expr else [None]
            seen = [op for op in ops if _has_data(series(expr, op))]
            assert seen, '%s: no data for %r' % (where, expr)
            missing.extend((where, op) for op in ops if op not in seen and
                           _expected(expr, op, served))
        assert not missing, missing

        # The rules, as Prometheus loaded and evaluated them.
        rules = [rule for group in _api(port, 'rules')['groups']
                 for rule in group['rules']]
        assert len(rules) == len(re.findall(r'- alert:', io.open(
            RULES, encoding='utf-8').read()))
        by_name = dict((rule['name'], rule) for rule in rules)
        # The outage makes over 5% of a minute's requests fail: the
        # error-share alert's own expression has data (it fires).
        assert _has_data(series(by_name['SsbenchErrorShareHigh']['query']))
        for rule in rules:
            assert rule['health'] == 'ok', rule
            _check_names(rule['query'], served)
            # The figures each compares, without its threshold.
            figures = THRESHOLD.sub('', rule['query'])
            assert _has_data(series(figures)), (rule['name'], figures)
