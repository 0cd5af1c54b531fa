"""run-scenario --retry-backoff: off by default, the defaults without a
value, BASE or BASE,CAP seconds, one line for a bad value; a --metrics
port that cannot be listened on is a runtime failure (status 1)."""
from __future__ import absolute_import, division, print_function


import pytest

from ssbench.cli.masterparser import build_parser
from ssbench.store.backoff import DEFAULT_BACKOFF_BASE, DEFAULT_BACKOFF_CAP

RUN = ['run-scenario', '-f', 'x.scenario']


def parsed(*extra):
    return build_parser().parse(RUN + list(extra))


def test_off_by_default():
    args, status = parsed()
    assert status is None and args.retry_backoff is None


@pytest.mark.parametrize('extra,expected', [
    (['--retry-backoff'], (DEFAULT_BACKOFF_BASE, DEFAULT_BACKOFF_CAP)),
    (['--retry-backoff', '--noop'],
     (DEFAULT_BACKOFF_BASE, DEFAULT_BACKOFF_CAP)),
    (['--retry-backoff', '0.2'], (0.2, DEFAULT_BACKOFF_CAP)),
    (['--retry-backoff', '5'], (5.0, 5.0)),
    (['--retry-backoff=0.1,10'], (0.1, 10.0)),
    (['--retry-backoff', '1,1'], (1.0, 1.0)),
])
def test_values(extra, expected):
    args, status = parsed(*extra)
    assert status is None and args.retry_backoff == expected


@pytest.mark.parametrize('value', ['0', '-1', 'x', '0.1,', '2,1', '1,0',
                                   'nan', '0.1,inf'])
def test_bad_values_get_one_line(capsys, value):
    args, status = parsed('--retry-backoff=' + value)
    assert args is None and status == 2
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1
    assert '--retry-backoff' in err


def test_a_metrics_address_that_is_no_address_is_a_usage_error(capsys):
    assert parsed('--metrics', 'nowhere:port') == (None, 2)
    assert 'is not ADDR:PORT' in capsys.readouterr().err
