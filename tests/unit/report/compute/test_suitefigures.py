from __future__ import absolute_import, division, print_function

import json

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
