"""run-scenario --retry-backoff: off by default, the defaults without a
value, BASE or BASE,CAP seconds, one line for a bad value; a --metrics
port that cannot be listened on is a runtime failure (status 1); --push
takes an http:// URL and makes the run's Pusher."""
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


def test_until_steady_is_off_by_default():
    from ssbench.cli.runopts import steady_watch
    args, status = parsed()
    assert status is None and not args.until_steady
    assert steady_watch(args) is None


@pytest.mark.parametrize('command', ['run-scenario', 'run-suite'])
def test_until_steady_makes_the_watch_of_its_settings(command):
    from ssbench.cli.runopts import steady_watch
    args = build_parser().parse_args(
        [command, '-f', 'x.scenario', '--until-steady', '--warmup', '5',
         '--steady-seconds', '12', '--steady-tolerance', '20'])
    watch = steady_watch(args)
    assert (watch.warmup, watch.window, watch.needed) == (5, 2.0, 6)
    assert watch.judge['tolerance'] == pytest.approx(0.2)
    assert watch.judge['latency_tolerance'] == pytest.approx(0.4)


@pytest.mark.parametrize('extra,fragment', [
    (['--steady-seconds', '1'], "argument --steady-seconds: '1' must be "
     "at least 3"),
    (['--steady-seconds', '4000'], "'4000' must be at most 3600"),
    (['--steady-tolerance', '100'], "'100' must be below 100"),
    (['--steady-tolerance', '0'], "'0' must be greater than 0"),
])
def test_bad_steady_settings_are_one_line(capsys, extra, fragment):
    args, status = parsed(*extra)
    assert (args, status) == (None, 2)
    err = capsys.readouterr().err
    assert len(err.splitlines()) == 1 and fragment in err, err


@pytest.mark.parametrize('url', ['127.0.0.1:9091', 'https://gw:9091',
                                 'http://gw:port'])
def test_a_push_url_that_is_no_http_url_is_a_usage_error(capsys, url):
    assert parsed('--push', url) == (None, 2)
    err = capsys.readouterr().err
    assert len(err.strip().splitlines()) == 1 and '--push' in err


def test_push_makes_a_pusher_of_the_run_and_interval_needs_it():
    from ssbench.cli.runopts import pusher
    from ssbench.errors import UsageError
    args, _ = parsed()
    assert pusher(args, 'name') is None
    args, _ = parsed('--push', 'http://gw:9091/', '--push-job', 'nightly',
                     '--push-interval', '5')
    made = pusher(args, 'a/b')
    assert made.address == ('gw', 9091) and made.interval == 5.0
    assert made.path.startswith('/metrics/job/nightly/run@base64/')
    args, _ = parsed('--push-interval', '5')
    with pytest.raises(UsageError):
        pusher(args, 'name')
