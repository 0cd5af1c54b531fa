from __future__ import absolute_import, division, print_function

import json

import pytest

from ssbench.report.compute import suitefigures as suite
from tests.unit.report.test_compare import document, latency, operation


def step_doc(rate=None, rps=100.0, scale=1.0, errors=0, client=None):
    doc = document([operation('total', errors=errors, rps=rps,
                              last=latency(scale)),
                    operation('read', rps=rps / 2, last=latency(scale))])
    if rate is not None:
        doc['header']['rate'] = rate
    doc['bandwidth'] = {'operations': {'total': {'MB_per_second': 1.5}}}
    if client is not None:
        doc['client'] = client
    return doc


def step(number, label, doc, **extra):
    entry = {'step': number, 'label': label, 'complete': True,
             'figures': suite.step_figures(doc) if doc else None}
    entry.update(extra)
    return entry


def test_the_figures_of_a_step():
    figures = suite.step_figures(step_doc(rate=500, errors=10))
    assert figures['offered'] == 500
    assert figures['health'] == 'unknown'
    total = figures['operations']['total']
    assert total['count'] == 1000 and total['errors'] == 10
    assert round(total['error_share'], 3) == 0.990
    assert total['latency'] == {'p50': 0.1, 'p99': 0.4, 'p99_9': 0.8}
    assert total['MB_per_second'] == 1.5
    assert figures['operations']['read']['MB_per_second'] is None


def test_a_rate_run_carries_its_schedules_accounting():
    doc = step_doc(rate=500)
    doc['open_loop'] = {'schedule': {
        'sent': 1920, 'intended_rate': 500.0, 'achieved_rate': 480.0,
        'unsent': 80}}
    assert suite.step_figures(doc)['schedule'] == {
        'intended_rate': 500.0, 'achieved_rate': 480.0, 'unsent': 80}


def test_without_a_closed_schedule_there_is_no_accounting():
    assert suite.step_figures(step_doc())['schedule'] is None
    older = step_doc(rate=500)
    older['open_loop'] = {'schedule': {'sent': 1920, 'cap_waits': 0}}
    assert suite.step_figures(older)['schedule'] is None


def test_health_in_a_word_the_client_limit_first():
    word = suite.health_word
    assert word({'client': {'saturated': True, 'host_busy': True}}) == \
        'saturated'
    assert word({'client': {'queue_growing': True}}) == 'queue growing'
    assert word({'client': {'saturated': False}}) == 'ok'
    assert word({}) == 'unknown'


def test_the_document_is_json_with_the_search():
    doc = suite.suite_document('c', [step(1, 'u8', step_doc())],
                               search={'summary': 'highest ...'})
    again = json.loads(json.dumps(doc))
    assert again['format'] == 'ssbench-suite'
    assert again['search'] == {'summary': 'highest ...'}
    assert again['steps'][0]['figures']['operations']['total']['count'] == \
        1000


def test_a_rate_step_never_achieves_more_than_it_offered():
    # 4 jobs due at 1.09/s in a 3 s step (at 0, 0.92, 1.83 and 2.75 s),
    # all done 0.4 s after their start: over the results' own span
    # (3.15 s) they read 1.27/s, above the 1.09/s offered.
    doc = step_doc(rate=1.09)
    for op in doc['operations']:
        op.update(count=4, start=1000.0, stop=1003.15, req_per_s=4 / 3.15)
    doc['open_loop'] = {'schedule': {
        'rate': 1.09, 'sent': 4, 'intended': 4, 'seconds': 3.0,
        'intended_rate': 4 / 3.0, 'achieved_rate': 4 / 3.0, 'unsent': 0}}
    total = suite.step_figures(doc)['operations']['total']
    assert total['req_per_s'] == pytest.approx(1.09)
    # A closed loop keeps the report's own figure.
    closed = suite.step_figures(step_doc())['operations']['total']
    assert closed['req_per_s'] == 100.0


def suite_of(rates, slo=None, search=None):
    steps = [step(index + 1, 'x', step_doc(rate=rate, rps=rps),
                  **({} if slo is None else {'slo': slo[index]}))
             for index, (rate, rps) in enumerate(rates)]
    return suite.suite_document('c', steps, search=search)


def test_the_best_step_is_the_highest_throughput():
    doc = suite_of([(None, 50.0), (None, 90.0), (None, 70.0)])
    best, why = suite.best_step(doc)
    assert best['step'] == 2 and why == 'the highest throughput'
    assert suite.best_step(suite.suite_document('c', [
        step(1, 'x', None)])) == (None, None)


def test_the_best_step_met_the_objectives_when_there_are_some():
    doc = suite_of([(None, 50.0), (None, 90.0), (None, 70.0)],
                   slo=[[], ['p99 missed'], []])
    best, why = suite.best_step(doc)
    assert best['step'] == 3
    assert why == 'the highest throughput that met the objectives'
    doc = suite_of([(None, 50.0), (None, 90.0)], slo=[['a'], ['b']])
    assert suite.best_step(doc) == (
        doc['steps'][1], 'no step met the objectives; the highest '
        'throughput')


def test_the_best_step_of_a_search_is_its_highest_rate_met():
    search = {'summary': '...', 'highest_met': 120}
    doc = suite_of([(40, 40.0), (160, 150.0), (120, 119.0)],
                   slo=[[], ['p99'], []], search=search)
    best, why = suite.best_step(doc)
    assert best['step'] == 3
    assert why == 'the highest rate that met the objectives'
    search['highest_met'] = None
    best, why = suite.best_step(doc)
    assert best['step'] == 2 and why.startswith('no rate met')
