"""The shared command-line plumbing: one-line usage errors, no exits."""
from __future__ import absolute_import, division, print_function

import pytest

from ssbench.cli.common import ArgumentParser, UsageExit


def _parser():
    parser = ArgumentParser(prog='tool')
    parser.add_argument('--count', type=int, required=True)
    return parser


def test_parse_returns_args_and_no_status():
    args, status = _parser().parse(['--count', '3'])
    assert args.count == 3 and status is None


def test_parse_prints_one_line_and_returns_2(capsys):
    args, status = _parser().parse(['--count', 'many'])
    assert args is None and status == 2
    err = capsys.readouterr().err
    assert err.count('\n') == 1
    assert err.startswith('tool: error: ') and "'many'" in err
    assert err.rstrip().endswith('(see tool -h)')


def test_parse_help_returns_0_after_printing_it(capsys):
    args, status = _parser().parse(['-h'])
    assert args is None and status == 0
    assert 'usage: tool' in capsys.readouterr().out


def test_parse_args_raises_instead_of_exiting():
    with pytest.raises(UsageExit) as info:
        _parser().parse_args([])
    assert info.value.status == 2 and '--count' in info.value.message


def test_help_shows_a_default_once(capsys):
    import argparse
    from ssbench.cli.common import HelpFormatter
    parser = ArgumentParser(prog='tool', formatter_class=HelpFormatter)
    parser.add_argument('-f', help='out (default: standard output)')
    parser.add_argument('-n', type=int, default=3, help='how many')
    parser.parse(['-h'])
    out = capsys.readouterr().out
    assert out.count('(default:') == 2
    assert 'out (default: standard output)' in out
    assert 'how many (default: 3)' in out
    assert issubclass(HelpFormatter, argparse.ArgumentDefaultsHelpFormatter)


# -- number types with bounds (issue 13) ---------------------------------

def _bounded_parser():
    from ssbench.cli import common
    parser = ArgumentParser(prog='tool')
    parser.add_argument('-n', type=common.bounded(common.positive_int, 10))
    parser.add_argument('-z', type=common.bounded(common.non_negative_int,
                                                  5))
    parser.add_argument('-s', type=common.positive_float)
    parser.add_argument('-t', type=common.non_negative_float)
    return parser


@pytest.mark.parametrize('argv, value', [
    (['-n', '10'], ('n', 10)), (['-n', '1'], ('n', 1)),
    (['-z', '0'], ('z', 0)), (['-z', '5'], ('z', 5)),
    (['-s', '0.001'], ('s', 0.001)), (['-s', '1e6'], ('s', 1e6)),
    (['-t', '0'], ('t', 0.0)), (['-t', '1000000'], ('t', 1e6)),
])
def test_bounds_themselves_are_accepted(argv, value):
    args, status = _bounded_parser().parse(argv)
    assert status is None and getattr(args, value[0]) == value[1]


@pytest.mark.parametrize('argv, message', [
    (['-n', '11'], "argument -n: '11' must be at most 10"),
    (['-n', '0'], "argument -n: '0' must be at least 1"),
    (['-n', '99999999999999999999999'], 'must be at most 10'),
    (['-z', '-1'], "argument -z: '-1' must not be negative"),
    (['-z', '6'], "argument -z: '6' must be at most 5"),
    (['-s', 'inf'], "argument -s: 'inf' is not a finite number"),
    (['-s', 'nan'], "argument -s: 'nan' is not a finite number"),
    (['-s', '0'], "argument -s: '0' must be greater than 0"),
    (['-s', '1e308'], "argument -s: '1e308' must be at most 1000000"),
    (['-t', '-0.5'], "argument -t: '-0.5' must not be negative"),
    (['-t', 'NaN'], "argument -t: 'NaN' is not a finite number"),
    (['-t', 'x'], "argument -t: 'x' is not a number"),
])
def test_out_of_range_numbers_name_the_flag(argv, message, capsys):
    args, status = _bounded_parser().parse(argv)
    assert args is None and status == 2
    err = capsys.readouterr().err
    assert err.count('\n') == 1 and message in err


def test_a_long_value_is_cut_in_the_message(capsys):
    long_value = '9' * 1000
    args, status = _bounded_parser().parse(['-n', long_value])
    assert args is None and status == 2
    err = capsys.readouterr().err
    assert err.count('\n') == 1 and len(err) < 400
    assert "'%s'... (1000 characters) must be at most 10" % ('9' * 60,) \
        in err


def test_argparse_s_own_echo_is_cut_too(capsys):
    args, status = _bounded_parser().parse(['x' * 100000])
    assert args is None and status == 2
    err = capsys.readouterr().err
    assert err.count('\n') == 1 and len(err) < 400
    assert 'unrecognized arguments: xxx' in err
    assert '(100024 characters)' in err


# -- durations too short to step by (issue 50) ---------------------------

@pytest.mark.parametrize('argv, message', [
    (['-s', '1e-300'], "argument -s: '1e-300' must be at least 0.001"),
    (['-s', '0.0009'], "argument -s: '0.0009' must be at least 0.001"),
    (['-t', '1e-300'], "argument -t: '1e-300' must be 0 or at least 0.001"),
])
def test_durations_below_a_millisecond_are_refused(argv, message, capsys):
    args, status = _bounded_parser().parse(argv)
    assert args is None and status == 2
    err = capsys.readouterr().err
    assert err.count('\n') == 1 and message in err


def test_bounded_floats_bound_both_ends(capsys):
    from ssbench.cli import common
    parser = ArgumentParser(prog='tool')
    parser.add_argument('-w', type=common.bounded(common.positive_float,
                                                  3600, 3))
    assert parser.parse(['-w', '3'])[0].w == 3
    assert parser.parse(['-w', '1e-300']) == (None, 2)
    assert "'1e-300' must be at least 3" in capsys.readouterr().err
    assert parser.parse(['-w', '3601']) == (None, 2)


# -- log lines echo names (issue 50) -------------------------------------

def test_a_log_line_shows_names_printable_and_cut():
    import io
    import logging
    from ssbench.cli import common
    stream = io.StringIO()
    root = logging.getLogger()
    saved = list(root.handlers), root.level
    try:
        common.setup_logging(stream=stream)
        name = u'A' * 900000 + u'\x1b[31m'
        logging.getLogger('ssbench').error(u'suite "%s": %s', name,
                                           u'two\nlines\x1b]0;x\x07')
    finally:
        for handler in list(root.handlers):
            root.removeHandler(handler)
        for handler in saved[0]:
            root.addHandler(handler)
        root.setLevel(saved[1])
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2, lines
    assert lines[0].startswith(u'ERROR:suite "AAA')
    assert len(lines[0]) <= common.MAX_LOG_LINE + 40
    assert lines[0].endswith(u'... (900018 characters)')
    assert lines[1] == u'lines\\x1b]0;x\\x07'
    assert u'\x1b' not in stream.getvalue()
